import { SUPPORTED_LANGUAGES, baseLanguage, detectLanguage, languageName, resolveReplyLanguage, supportedLanguage } from './language';
import { detectAfricanProfile, malayOrIndonesian } from './language-profiles';

describe('baseLanguage / supportedLanguage / languageName', () => {
  it('takes the first subtag, lower-cased', () => {
    expect(baseLanguage('ja-JP')).toBe('ja');
    expect(baseLanguage('fil-PH')).toBe('fil');
    expect(baseLanguage('EN')).toBe('en');
    expect(baseLanguage('zh_CN')).toBe('zh');
  });

  it('lists the fifteen spec codes plus English', () => {
    expect(SUPPORTED_LANGUAGES).toHaveLength(16);
    expect(SUPPORTED_LANGUAGES).toEqual(expect.arrayContaining(['en', 'en-IN', 'ja-JP', 'fil-PH', 'yo-NG']));
  });

  it('matches supported codes case-insensitively', () => {
    expect(supportedLanguage('JA-jp')).toBe('ja-JP');
    expect(supportedLanguage('fr-FR')).toBeUndefined();
  });

  it('names languages in English', () => {
    expect(languageName('ja-JP')).toBe('Japanese');
    expect(languageName('fil-PH')).toBe('Filipino');
    expect(languageName('sw')).toBe('Swahili');
    expect(languageName('fr-FR')).toBe('French (France)');
  });
});

describe('resolveReplyLanguage: a realistic question in each language', () => {
  const cases: [string, string, string][] = [
    ['en', 'How much does the premium plan cost per month?', 'en'],
    ['en-IN', 'Can I change my booking to next Tuesday?', 'en'],
    ['ja-JP', 'プレミアムプランの料金はいくらですか？', 'ja'],
    ['ko-KR', '프리미엄 요금제는 한 달에 얼마인가요?', 'ko'],
    ['zh-CN', '高级套餐每月多少钱？', 'zh'],
    ['ms-MY', 'Bagaimanakah saya boleh membatalkan tempahan saya?', 'ms'],
    ['ms-MY', 'Saya mahu tahu bila kedai dibuka', 'ms'],
    ['id-ID', 'Bagaimana cara membatalkan pesanan saya? Saya mau uang kembali.', 'id'],
    ['id-ID', 'Berapa harga paket premium per bulan?', 'id'],
    ['th-TH', 'แพ็กเกจพรีเมียมราคาเดือนละเท่าไหร่', 'th'],
    ['vi-VN', 'Gói cao cấp giá bao nhiêu một tháng?', 'vi'],
    ['fil-PH', 'Magkano ang premium plan bawat buwan?', 'tl'],
    ['fil-PH', 'Paano ko kakanselahin ang order ko?', 'tl'],
    ['ar-AE', 'كم تكلفة الباقة المميزة شهريا؟', 'ar'],
    ['hi-IN', 'प्रीमियम प्लान की कीमत प्रति माह कितनी है?', 'hi'],
    ['ta-IN', 'பிரீமியம் திட்டத்தின் மாதாந்திர விலை என்ன?', 'ta'],
    ['sw-KE', 'Je, bei ya mpango wa premium ni kiasi gani kwa mwezi?', 'sw'],
    ['sw-KE', 'Habari za asubuhi, ninaomba msaada kuhusu malipo yangu', 'sw'],
    ['ha-NG', 'Nawa ne farashin shirin premium a wata?', 'ha'],
    ['ha-NG', 'Yaushe kuke buɗewa a ranar Asabar?', 'ha'],
    ['yo-NG', 'Ẹ̀lọ́ ni iye owó ètò premium fún oṣù kan?', 'yo'],
    ['yo-NG', 'Elo ni iye owo eto premium fun osu kan?', 'yo'],
    ['yo-NG', 'Bawo ni mo se le san owo mi?', 'yo'],
  ];

  it.each(cases)('%s: %s', (expected, text, detected) => {
    const botLanguage = expected === 'en-IN' ? 'en-IN' : 'ja-JP';
    expect(resolveReplyLanguage({ text, botLanguage })).toEqual({ language: expected, detected, source: 'detected' });
  });

  it('a Japanese bot answers an English visitor in en; an en-IN bot in en-IN', () => {
    const text = 'What are your opening hours on Saturday?';
    expect(resolveReplyLanguage({ text, botLanguage: 'ja-JP' }).language).toBe('en');
    expect(resolveReplyLanguage({ text, botLanguage: 'en-IN' }).language).toBe('en-IN');
  });
});

describe('resolveReplyLanguage: requested language and fallbacks', () => {
  it('a requested language wins over the detected one', () => {
    expect(resolveReplyLanguage({ requested: 'th-TH', text: 'プレミアムプランの料金はいくらですか？', botLanguage: 'en' })).toEqual({
      language: 'th-TH',
      detected: 'ja',
      source: 'requested',
    });
  });

  it('normalises the requested code: case, and a bare base widened to our code', () => {
    expect(resolveReplyLanguage({ requested: 'JA-jp', text: 'hi', botLanguage: 'en' }).language).toBe('ja-JP');
    expect(resolveReplyLanguage({ requested: 'ko', text: 'hi', botLanguage: 'en' }).language).toBe('ko-KR');
    expect(resolveReplyLanguage({ requested: 'en', text: 'hi', botLanguage: 'en-IN' }).language).toBe('en'); // a supported code is kept as asked
    expect(resolveReplyLanguage({ requested: 'pt-BR', text: 'hi', botLanguage: 'en' }).language).toBe('pt-BR');
  });

  it.each(['ok', 'hi', 'thanks', '?', '👍', '123 456', 'Bonjour', 'Apa khabar', 'Xin chào', 'https://example.com/help'])('too short or ambiguous: %s → bot language', (text) => {
    expect(resolveReplyLanguage({ text, botLanguage: 'ko-KR' })).toEqual({ language: 'ko-KR', detected: null, source: 'bot' });
  });

  it('a language we do not reply in falls back to the bot, and is still reported', () => {
    expect(resolveReplyLanguage({ text: 'Bonjour, je voudrais connaître le prix de votre offre', botLanguage: 'en-IN' })).toEqual({
      language: 'en-IN',
      detected: 'fr',
      source: 'bot',
    });
  });

  it('two characters of a script of its own are enough', () => {
    expect(detectLanguage('你好')).toBe('zh');
    expect(detectLanguage('ありがとう')).toBe('ja');
    expect(detectLanguage('สวัสดี')).toBe('th');
    expect(detectLanguage('مرحبا')).toBe('ar');
    expect(detectLanguage('다')).toBeNull();
  });

  it('a Malay/Indonesian tie goes to the bot if it is one of the two, else to Indonesian', () => {
    const text = 'Terima kasih atas bantuan anda semalam';
    expect(malayOrIndonesian('Terima kasih atas bantuannya')).toBeNull();
    expect(resolveReplyLanguage({ text: 'Terima kasih atas bantuannya', botLanguage: 'ms-MY' }).language).toBe('ms-MY');
    expect(resolveReplyLanguage({ text: 'Terima kasih atas bantuannya', botLanguage: 'en' }).language).toBe('id-ID');
    expect(resolveReplyLanguage({ text, botLanguage: 'id-ID' }).language).toBe('ms-MY'); // "semalam" is Malay
  });
});

describe('the Swahili/Hausa/Yoruba profile layer does not fire on other languages', () => {
  it.each([
    'Does my son need to take a test before the course?',
    'We won a fun prize at the fair last year',
    'Is there a discount for students or seniors?',
    "Ce n'est pas ce que je veux, je ne sais pas",
    '¿Se puede pagar con tarjeta de crédito en la tienda?',
    'Kann ich meine Bestellung noch stornieren?',
    'Saya ingin berbicara dengan manusia sekarang juga',
    'Apakah ada diskon untuk pelajar dan mahasiswa?',
    'Gusto kong makipag-usap sa tao tungkol sa order ko',
    'Kailan kayo bukas sa Sabado at Linggo?',
    'Họ có giao hàng vào cuối tuần không?',
    'Mẹ tôi muốn đặt lịch hẹn vào thứ Hai',
  ])('%s', (text) => {
    expect(detectAfricanProfile(text)).toBeNull();
  });
});

describe('tinyld with a thin margin', () => {
  it('plain English with figures is still English', () => {
    expect(detectLanguage('The Premium plan costs $29 per month, billed monthly. The Standard plan costs $9 per month.')).toBe('en');
  });
});

describe('mixed scripts', () => {
  it('a script of its own wins over Latin brand names', () => {
    expect(detectLanguage('Premium plan の料金は？')).toBe('ja');
    expect(detectLanguage('Premium plan 가격이 얼마예요?')).toBe('ko');
    expect(detectLanguage('Premium plan ราคาเท่าไหร่')).toBe('th');
    expect(detectLanguage('What does 料金 mean in your English price list?')).toBe('en');
  });
});
