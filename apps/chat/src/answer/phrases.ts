import { type SupportedLanguage, baseLanguage, supportedLanguage } from './language';

/**
 * The fixed sentences of the default (model-free) responder, in every reply language. Kept short
 * and polite; gender-neutral where the language marks gender (Hindi uses a passive, Thai leaves
 * out the ครับ/ค่ะ particles), and the polite plural where it has one (Hausa "ku", Yoruba "ẹ").
 */
export const PHRASE_KEYS = ['noKnowledge', 'leadIn', 'sources', 'handoff'] as const;
export type PhraseKey = (typeof PHRASE_KEYS)[number];

type Phrases = Record<PhraseKey, string>;

const EN: Phrases = {
  noKnowledge: "I couldn't find anything about that in our knowledge base. Could you rephrase, or would you like to talk to a person?",
  leadIn: 'Here is what I found:',
  sources: 'Sources:',
  handoff: "I'll connect you with a person from our team.",
};

export const PHRASES: Record<SupportedLanguage, Phrases> = {
  en: EN,
  'en-IN': EN,
  'ja-JP': {
    noKnowledge: '申し訳ありませんが、ナレッジベースにその件に関する情報が見つかりませんでした。別の言い方でお尋ねいただくか、担当者におつなぎしましょうか？',
    leadIn: '見つかった情報は次のとおりです：',
    sources: '出典：',
    handoff: '担当者におつなぎします。',
  },
  'ko-KR': {
    noKnowledge: '죄송하지만 지식 베이스에서 관련 정보를 찾지 못했습니다. 다르게 표현해 주시겠어요, 아니면 상담원과 연결해 드릴까요?',
    leadIn: '찾은 내용은 다음과 같습니다:',
    sources: '출처:',
    handoff: '상담원에게 연결해 드리겠습니다.',
  },
  'zh-CN': {
    noKnowledge: '抱歉，我们的知识库中没有找到相关内容。您可以换个说法再问一次，或者需要为您转接人工客服吗？',
    leadIn: '以下是我找到的信息：',
    sources: '来源：',
    handoff: '我将为您转接人工客服。',
  },
  'ms-MY': {
    noKnowledge: 'Maaf, saya tidak menemui sebarang maklumat tentang perkara itu dalam pangkalan pengetahuan kami. Boleh anda nyatakan semula soalan anda, atau adakah anda mahu bercakap dengan kakitangan kami?',
    leadIn: 'Ini yang saya temui:',
    sources: 'Sumber:',
    handoff: 'Saya akan menghubungkan anda dengan kakitangan kami.',
  },
  'id-ID': {
    noKnowledge: 'Maaf, saya tidak menemukan informasi tentang hal itu di basis pengetahuan kami. Bisakah Anda menanyakannya dengan cara lain, atau apakah Anda ingin berbicara dengan petugas kami?',
    leadIn: 'Berikut yang saya temukan:',
    sources: 'Sumber:',
    handoff: 'Saya akan menghubungkan Anda dengan petugas dari tim kami.',
  },
  'th-TH': {
    noKnowledge: 'ขออภัย ไม่พบข้อมูลเกี่ยวกับเรื่องนี้ในฐานความรู้ของเรา ลองถามใหม่ด้วยคำอื่นได้ไหม หรือต้องการคุยกับเจ้าหน้าที่ของเรา',
    leadIn: 'ข้อมูลที่พบมีดังนี้:',
    sources: 'แหล่งที่มา:',
    handoff: 'กำลังเชื่อมต่อคุณกับเจ้าหน้าที่ของเรา',
  },
  'vi-VN': {
    noKnowledge: 'Xin lỗi, tôi không tìm thấy thông tin nào về vấn đề này trong cơ sở kiến thức của chúng tôi. Bạn có thể diễn đạt lại câu hỏi, hoặc bạn có muốn nói chuyện với nhân viên không?',
    leadIn: 'Đây là thông tin tôi tìm được:',
    sources: 'Nguồn:',
    handoff: 'Tôi sẽ kết nối bạn với một nhân viên của chúng tôi.',
  },
  'fil-PH': {
    noKnowledge: 'Paumanhin, wala akong nahanap na impormasyon tungkol diyan sa aming knowledge base. Puwede mo bang itanong ito sa ibang paraan, o gusto mo bang makipag-usap sa isang tao mula sa aming team?',
    leadIn: 'Ito ang nahanap ko:',
    sources: 'Mga sanggunian:',
    handoff: 'Ikokonekta kita sa isang tao mula sa aming team.',
  },
  'ar-AE': {
    noKnowledge: 'عذرًا، لم أجد أي معلومات عن ذلك في قاعدة المعرفة لدينا. هل يمكنك إعادة صياغة سؤالك، أم تفضّل التحدث مع أحد موظفينا؟',
    leadIn: 'إليك ما وجدته:',
    sources: 'المصادر:',
    handoff: 'سأحوّلك إلى أحد أعضاء فريقنا.',
  },
  'hi-IN': {
    noKnowledge: 'माफ़ कीजिए, हमारे नॉलेज बेस में इसके बारे में कोई जानकारी नहीं मिली। क्या आप अपना सवाल दूसरे शब्दों में पूछ सकते हैं, या आप हमारी टीम के किसी व्यक्ति से बात करना चाहेंगे?',
    leadIn: 'मुझे यह जानकारी मिली:',
    sources: 'स्रोत:',
    handoff: 'आपको हमारी टीम के किसी सदस्य से जोड़ा जा रहा है।',
  },
  'ta-IN': {
    noKnowledge: 'மன்னிக்கவும், எங்கள் அறிவுத் தளத்தில் இதைப் பற்றிய தகவல் எதுவும் கிடைக்கவில்லை. உங்கள் கேள்வியை வேறு விதமாகக் கேட்க முடியுமா, அல்லது எங்கள் குழுவைச் சேர்ந்த ஒருவருடன் பேச விரும்புகிறீர்களா?',
    leadIn: 'நான் கண்டறிந்த தகவல் இதோ:',
    sources: 'ஆதாரங்கள்:',
    handoff: 'உங்களை எங்கள் குழுவைச் சேர்ந்த ஒருவருடன் இணைக்கிறேன்.',
  },
  'sw-KE': {
    noKnowledge: 'Samahani, sikupata taarifa yoyote kuhusu hilo kwenye hifadhi yetu ya maarifa. Je, unaweza kuuliza kwa njia nyingine, au ungependa kuzungumza na mtu wa timu yetu?',
    leadIn: 'Hiki ndicho nilichopata:',
    sources: 'Vyanzo:',
    handoff: 'Nitakuunganisha na mtu wa timu yetu.',
  },
  'ha-NG': {
    noKnowledge: "Yi haƙuri, ban sami wani bayani game da wannan a rumbun iliminmu ba. Za ku iya sake yin tambayar ta wata hanya, ko kuna son yin magana da ɗaya daga cikin ma'aikatanmu?",
    leadIn: 'Ga abin da na samo:',
    sources: 'Majiyoyi:',
    handoff: "Zan haɗa ku da ɗaya daga cikin ma'aikatanmu.",
  },
  'yo-NG': {
    noKnowledge: 'Ẹ má bínú, mi ò rí ìwífún kankan nípa ìyẹn nínú àkójọ ìmọ̀ wa. Ṣé ẹ lè béèrè ní ọ̀nà míì, tàbí ẹ fẹ́ bá ọ̀kan lára òṣìṣẹ́ wa sọ̀rọ̀?',
    leadIn: 'Èyí ni ohun tí mo rí:',
    sources: 'Àwọn orísun:',
    handoff: 'Màá so yín pọ̀ mọ́ ọ̀kan lára òṣìṣẹ́ wa.',
  },
};

/** Bare bases map to the one supported code of that language ('ja' → 'ja-JP'; 'en' stays 'en'). */
function phrasesFor(language: string): Phrases {
  const exact = supportedLanguage(language);
  if (exact) return PHRASES[exact];
  const base = baseLanguage(language);
  const byBase = (Object.keys(PHRASES) as SupportedLanguage[]).find((code) => baseLanguage(code) === (base === 'tl' ? 'fil' : base));
  return byBase ? PHRASES[byBase] : EN;
}

/** The phrase in the language (full code or base), English for a language we have no phrases in. */
export function phrase(key: PhraseKey, language: string): string {
  return phrasesFor(language)[key];
}

/** "Sources: a, b" in the language, or '' when there are none. */
export function sourcesLine(sources: readonly string[], language: string): string {
  return sources.length ? `${phrase('sources', language)} ${sources.join(', ')}` : '';
}
