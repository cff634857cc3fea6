import { type SupportedLanguage, baseLanguage, supportedLanguage } from '../answer/language';

/**
 * What the visitor reads about an action when the bot's owner wrote nothing for it (issue 34): the
 * status line of a running action, the line before the confirm/cancel card, and the reply when an
 * action failed and the model said nothing of it.
 */
interface ActionPhrases {
  running: string;
  confirm: string;
  failed: string;
}

const EN: ActionPhrases = {
  running: 'Working on it…',
  confirm: 'Please confirm or cancel this action.',
  failed: "Sorry, that didn't work this time. Please try again later, or ask to talk to a person.",
};

const PHRASES: Partial<Record<SupportedLanguage, ActionPhrases>> = {
  en: EN,
  'en-IN': EN,
  'ja-JP': { running: '処理しています…', confirm: 'この操作を確認するか、キャンセルしてください。', failed: '申し訳ありません、今回はうまくいきませんでした。後でもう一度お試しいただくか、担当者におつなぎします。' },
  'ko-KR': { running: '처리 중입니다…', confirm: '이 작업을 확인하거나 취소해 주세요.', failed: '죄송합니다. 이번에는 처리하지 못했습니다. 잠시 후 다시 시도하시거나 상담원 연결을 요청해 주세요.' },
  'zh-CN': { running: '正在处理…', confirm: '请确认或取消此操作。', failed: '抱歉，这次没有成功。请稍后再试，或要求转接人工客服。' },
  'ms-MY': { running: 'Sedang diproses…', confirm: 'Sila sahkan atau batalkan tindakan ini.', failed: 'Maaf, ia tidak berjaya kali ini. Sila cuba lagi nanti, atau minta untuk bercakap dengan kakitangan kami.' },
  'id-ID': { running: 'Sedang diproses…', confirm: 'Silakan konfirmasi atau batalkan tindakan ini.', failed: 'Maaf, kali ini tidak berhasil. Silakan coba lagi nanti, atau minta untuk berbicara dengan staf kami.' },
  'th-TH': { running: 'กำลังดำเนินการ…', confirm: 'โปรดยืนยันหรือยกเลิกการดำเนินการนี้', failed: 'ขออภัย ครั้งนี้ดำเนินการไม่สำเร็จ โปรดลองอีกครั้งภายหลัง หรือขอคุยกับเจ้าหน้าที่' },
  'vi-VN': { running: 'Đang xử lý…', confirm: 'Vui lòng xác nhận hoặc hủy thao tác này.', failed: 'Xin lỗi, lần này không thành công. Vui lòng thử lại sau hoặc yêu cầu nói chuyện với nhân viên.' },
  'fil-PH': { running: 'Inaasikaso na…', confirm: 'Pakikumpirma o kanselahin ang aksyong ito.', failed: 'Paumanhin, hindi ito gumana ngayon. Subukan muli mamaya, o humiling na makausap ang isang tao.' },
  'ar-AE': { running: 'جارٍ التنفيذ…', confirm: 'يرجى تأكيد هذا الإجراء أو إلغاؤه.', failed: 'عذرًا، لم ينجح ذلك هذه المرة. يرجى المحاولة لاحقًا، أو طلب التحدث مع أحد موظفينا.' },
  'hi-IN': { running: 'काम हो रहा है…', confirm: 'कृपया इस कार्रवाई की पुष्टि करें या इसे रद्द करें।', failed: 'क्षमा करें, इस बार यह नहीं हो सका। कृपया बाद में फिर प्रयास करें, या किसी व्यक्ति से बात करने के लिए कहें।' },
  'ta-IN': { running: 'செயல்படுத்துகிறது…', confirm: 'இந்தச் செயலை உறுதிப்படுத்தவும் அல்லது ரத்து செய்யவும்.', failed: 'மன்னிக்கவும், இந்த முறை அது வேலை செய்யவில்லை. பின்னர் மீண்டும் முயற்சிக்கவும், அல்லது ஒருவருடன் பேசக் கேளுங்கள்.' },
  'sw-KE': { running: 'Inashughulikiwa…', confirm: 'Tafadhali thibitisha au ghairi kitendo hiki.', failed: 'Samahani, haikufanikiwa wakati huu. Tafadhali jaribu tena baadaye, au omba kuzungumza na mtu.' },
  'ha-NG': { running: 'Ana aiki a kai…', confirm: 'Da fatan za ku tabbatar ko ku soke wannan aikin.', failed: "Yi haƙuri, hakan bai yi nasara ba a wannan karon. Ku sake gwadawa daga baya, ko ku nemi yin magana da ɗaya daga cikin ma'aikatanmu." },
  'yo-NG': { running: 'A ń ṣe é…', confirm: 'Ẹ jọ̀wọ́ ẹ fìdí ìgbésẹ̀ yìí múlẹ̀ tàbí kí ẹ fagilé e.', failed: 'Ẹ má bínú, kò ṣiṣẹ́ lọ́tẹ̀ yìí. Ẹ gbìyànjú lẹ́ẹ̀kan síi nígbà míì, tàbí kí ẹ béèrè láti bá ènìyàn sọ̀rọ̀.' },
};

export function actionPhrase(key: keyof ActionPhrases, language: string): string {
  const exact = supportedLanguage(language);
  if (exact && PHRASES[exact]) return PHRASES[exact][key];
  const base = baseLanguage(language);
  const code = (Object.keys(PHRASES) as SupportedLanguage[]).find((c) => baseLanguage(c) === (base === 'tl' ? 'fil' : base));
  return (code ? PHRASES[code]! : EN)[key];
}
