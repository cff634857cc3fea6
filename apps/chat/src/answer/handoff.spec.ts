import { wantsHuman } from './handoff';

describe('wantsHuman', () => {
  it.each([
    ['en', 'Can I talk to a human?'],
    ['en', 'I want to speak with a real person please'],
    ['en', 'Please connect me to an agent'],
    ['en', 'agent'],
    ['en', 'Human please!'],
    ['en', 'Is there a live agent available?'],
    ['en', 'Get me a representative'],
    ['en', 'TALK TO SOMEONE'],
    ['en-IN', 'kisi insaan se baat karni hai'],
    ['ja-JP', '人と話したいです'],
    ['ja-JP', '担当者につないでください'],
    ['ja-JP', 'オペレーターと話せますか？'],
    ['ja-JP', '担当者をお願いします'],
    ['ko-KR', '상담원 연결해 주세요'],
    ['ko-KR', '상담원'],
    ['ko-KR', '사람이랑 얘기하고 싶어요'],
    ['zh-CN', '我要人工客服'],
    ['zh-CN', '转人工'],
    ['zh-CN', '可以和真人聊一下吗？'],
    ['ms-MY', 'Saya mahu bercakap dengan kakitangan'],
    ['ms-MY', 'Boleh saya bercakap dengan manusia?'],
    ['id-ID', 'Saya ingin berbicara dengan manusia'],
    ['id-ID', 'tolong hubungkan ke customer service'],
    ['th-TH', 'ขอคุยกับพนักงานหน่อยครับ'],
    ['th-TH', 'ติดต่อเจ้าหน้าที่ได้ไหม'],
    ['vi-VN', 'Tôi muốn nói chuyện với nhân viên'],
    ['vi-VN', 'cho tôi gặp tư vấn viên'],
    ['fil-PH', 'Gusto kong makipag-usap sa tao'],
    ['fil-PH', 'Pwede bang makausap ang isang ahente?'],
    ['ar-AE', 'أريد التحدث مع موظف'],
    ['ar-AE', 'حولني إلى شخص حقيقي من فضلك'],
    ['hi-IN', 'मुझे किसी इंसान से बात करनी है'],
    ['hi-IN', 'क्या मैं एजेंट से बात कर सकता हूँ?'],
    ['ta-IN', 'நான் ஒரு மனிதருடன் பேச வேண்டும்'],
    ['ta-IN', 'ஊழியருடன் பேச முடியுமா?'],
    ['sw-KE', 'Naweza kuzungumza na mtu?'],
    ['sw-KE', 'Nataka kuongea na mhudumu tafadhali'],
    ['ha-NG', 'Ina son yin magana da mutum'],
    ['ha-NG', "Don Allah a haɗa ni da ma'aikaci"],
    ['yo-NG', 'Mo fẹ́ bá ènìyàn sọ̀rọ̀'],
    ['yo-NG', 'mo fe ba osise soro'],
  ])('%s: %s', (language, text) => {
    expect(wantsHuman(text, language)).toBe(true);
    expect(wantsHuman(text)).toBe(true); // the language is only a hint
  });

  it.each([
    'How does the human body digest protein?',
    'Be an agent of change in your community',
    'Do you have a travel agent partnership?',
    'How many people work in your team?',
    'Can your bot talk to customers in Spanish?',
    'Is the product safe for humans and pets?',
    'What is the price per person?',
    '人工智能可以帮我预订吗？',
    '外国人に対応していますか？',
    'ราคาต่อคนเท่าไหร่',
    'Je, mtu anaweza kurudisha bidhaa baada ya siku 30?',
    'Ilang tao ang kasya sa kwarto?',
    'Nhân viên của bạn có nói tiếng Anh không?',
    'Mutum nawa ne za su iya zuwa?',
    'Berapa orang yang bisa ikut tur ini?',
    'Ènìyàn mélòó ló lè wá?',
    'كم شخص يمكنه الحجز؟',
    'मानव शरीर के लिए यह सुरक्षित है?',
  ])('not a request: %s', (text) => {
    expect(wantsHuman(text)).toBe(false);
  });
});
