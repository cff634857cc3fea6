/**
 * Word lists and patterns of the rule-based scorer, for the supported languages (en, ja, ko, zh,
 * ms, id, th, vi, fil, ar, hi, ta, sw, ha, yo) plus fr, es, pt and de, as far as simple patterns
 * go. Terms are lower case. Latin-script terms match whole words (`*` = any ending); terms in
 * other scripts match as substrings (see hasTerm).
 */

export type IntentCategory = 'purchase' | 'booking' | 'pricing' | 'complaint' | 'support' | 'general';

export const INTENT_LABELS: Record<IntentCategory, string> = {
  purchase: 'Purchase intent',
  booking: 'Wants a demo or appointment',
  pricing: 'Pricing enquiry',
  complaint: 'Complaint',
  support: 'Support request',
  general: 'General enquiry',
};

export const BUYING_TERMS: Record<Exclude<IntentCategory, 'general'>, readonly string[]> = {
  purchase: [
    // en
    'buy', 'buying', 'purchase*', 'order', 'ordering', 'subscribe*', 'subscription', 'sign up', 'upgrade', 'get started', 'place an order', 'license*', 'licence*',
    // fr, es, pt, de
    'acheter', 'commander', 'abonnement', "s'abonner", 'comprar', 'compra', 'pedido', 'suscribirme', 'suscripción', 'assinar', 'kaufen', 'bestellen',
    // ms, id
    'beli', 'membeli', 'pembelian', 'langganan', 'melanggan', 'berlangganan', 'memesan', 'tempah',
    // vi
    'mua', 'đặt hàng', 'đăng ký',
    // fil
    'bilhin', 'bibili', 'bumili', 'umorder', 'mag-order', 'mag-subscribe',
    // sw, ha, yo
    'kununua', 'nunua', 'nataka kununua', 'agiza', 'kuagiza', 'sayi', 'ina son saya', 'rà', 'ra', 'fẹ́ ra', 'fe ra',
    // ja, ko, zh, th, ar, hi, ta
    '購入', '買いたい', '注文', '申し込み', '申込', '契約', '구매', '구입', '주문', '가입', '결제', '购买', '买', '訂購', '订购', '下单', '订阅', '購買',
    'ซื้อ', 'สั่งซื้อ', 'สมัคร', 'شراء', 'أشتري', 'اشتري', 'اشتراك', 'أطلب', 'खरीद', 'ख़रीद', 'ऑर्डर', 'सब्सक्राइब', 'வாங்க', 'ஆர்டர்',
  ],
  booking: [
    'demo', 'book', 'booking', 'appointment', 'meeting', 'schedule', 'free trial', 'trial', 'consultation', 'call back', 'callback',
    'démo', 'rendez-vous', 'réserver', 'cita', 'reservar', 'demostración', 'agendar', 'termin',
    'janji temu', 'temujanji', 'jadwal', 'uji coba', 'đặt lịch', 'lịch hẹn', 'dùng thử', 'mag-book', 'iskedyul', 'miadi', 'kuweka nafasi', 'alƙawari', 'alkawari', 'ìpàdé', 'ipade',
    'デモ', '予約', '打ち合わせ', '相談', '試用', '데모', '예약', '상담', '미팅', '演示', '预约', '試用', '试用', '预定',
    'นัด', 'จอง', 'สาธิต', 'ทดลองใช้', 'موعد', 'حجز', 'عرض تجريبي', 'تجربة مجانية', 'डेमो', 'अपॉइंटमेंट', 'मीटिंग', 'बुक', 'டெமோ', 'சந்திப்பு', 'முன்பதிவு',
  ],
  pricing: [
    'price', 'prices', 'pricing', 'cost', 'costs', 'how much', 'quote', 'quotation', 'discount', 'invoice', 'plan price',
    'prix', 'tarif*', 'combien', 'devis', 'precio*', 'cuánto', 'cuanto', 'cotización', 'preço', 'quanto', 'preis*', 'angebot',
    'harga', 'berapa', 'sebut harga', 'penawaran', 'giá', 'bao nhiêu', 'báo giá', 'presyo', 'magkano', 'bei gani', 'bei yake', 'gharama', 'shilingi', 'farashi', 'nawa', 'owó', 'iye', 'elo',
    '価格', '値段', '料金', 'いくら', '見積', '가격', '얼마', '견적', '요금', '价格', '價格', '多少钱', '報價', '报价', '费用',
    'ราคา', 'เท่าไหร่', 'เท่าไร', 'ใบเสนอราคา', 'سعر', 'أسعار', 'بكم', 'كم سعر', 'كم يكلف', 'كم تكلفة', 'تكلفة', 'عرض سعر', 'कीमत', 'दाम', 'कितना', 'कितने', 'விலை', 'எவ்வளவு',
  ],
  complaint: [
    'complaint', 'complain*', 'refund', 'terrible', 'awful', 'worst', 'unacceptable', 'disappointed', 'scam',
    'plainte', 'remboursement', 'queja', 'reembolso', 'reclamação', 'beschwerde',
    'aduan', 'keluhan', 'pengembalian dana', 'khiếu nại', 'hoàn tiền', 'reklamo', 'malalamiko', 'korafi', 'ẹ̀sùn',
    '苦情', '返金', 'クレーム', '불만', '환불', '投诉', '退款', 'ร้องเรียน', 'คืนเงิน', 'شكوى', 'استرداد', 'शिकायत', 'रिफंड', 'புகார்',
  ],
  support: [
    'not working', "doesn't work", 'does not work', 'broken', 'error', 'bug', 'problem', 'issue', 'help me', 'cannot', "can't", 'fix',
    'ne marche pas', 'problème', 'no funciona', 'problema', 'funktioniert nicht',
    'tidak berfungsi', 'rosak', 'masalah', 'không hoạt động', 'lỗi', 'sira', 'hindi gumagana', 'haifanyi kazi', 'tatizo', 'matsala', 'ìṣòro', 'isoro',
    '動かない', 'エラー', '故障', '問題', '작동하지', '오류', '문제', '不能用', '错误', '錯誤', '问题', 'ใช้ไม่ได้', 'ปัญหา', 'لا يعمل', 'مشكلة', 'काम नहीं', 'समस्या', 'வேலை செய்யவில்லை', 'பிரச்சனை',
  ],
};

export const URGENCY_TERMS: readonly string[] = [
  'today', 'urgent', 'urgently', 'asap', 'as soon as possible', 'immediately', 'right away', 'right now', 'this week', 'tomorrow',
  "aujourd'hui", 'urgence', 'hoy', 'urgente', 'inmediatamente', 'hoje', 'heute', 'dringend', 'sofort',
  'hari ini', 'segera', 'mendesak', 'secepatnya', 'hôm nay', 'gấp', 'ngay lập tức', 'ngayon', 'agad', 'kaagad', 'madalian', 'leo hii', 'haraka', 'yau', 'gaggawa', 'lónìí', 'kíákíá', 'lesekese',
  '今日', '至急', '急ぎ', 'すぐに', '오늘', '급해', '긴급', '빨리', '今天', '紧急', '緊急', '尽快', '马上', 'วันนี้', 'ด่วน', 'اليوم', 'عاجل', 'فورا', 'فوراً', 'आज', 'तुरंत', 'जल्दी', 'இன்று', 'அவசரம்',
];

export const POSITIVE_TERMS: readonly string[] = [
  'thanks', 'thank you', 'great', 'excellent', 'perfect', 'love', 'awesome', 'amazing', 'good', 'nice', 'happy', 'helpful', 'interested',
  'merci', 'parfait', 'génial', 'gracias', 'genial', 'perfecto', 'obrigado', 'obrigada', 'danke', 'super',
  'terima kasih', 'bagus', 'mantap', 'cảm ơn', 'tuyệt', 'salamat', 'maganda', 'asante', 'nzuri', 'na gode', 'madalla', 'ẹ ṣé', 'e se', 'o dara',
  'ありがとう', '素晴らしい', '最高', '助かり', '감사', '좋아요', '좋네요', '谢谢', '謝謝', '很好', '太好了', 'ขอบคุณ', 'ดีมาก', 'شكرا', 'شكراً', 'ممتاز', 'धन्यवाद', 'बढ़िया', 'शुक्रिया', 'நன்றி', 'அருமை',
];

export const NEGATIVE_TERMS: readonly string[] = [
  'bad', 'terrible', 'awful', 'hate', 'angry', 'annoyed', 'disappointed', 'worst', 'useless', 'broken', 'poor', 'frustrated', 'unacceptable', 'scam',
  'nul', 'horrible', 'déçu', 'malo', 'pésimo', 'terrible', 'ruim', 'péssimo', 'schlecht',
  'buruk', 'kecewa', 'teruk', 'tệ', 'thất vọng', 'pangit', 'nakakainis', 'mbaya', 'sijaridhika', 'mummuna', 'burúkú', 'buruku',
  'ひどい', '最悪', '不満', 'がっかり', '별로', '최악', '실망', '糟糕', '太差', '失望', '垃圾', 'แย่', 'ผิดหวัง', 'سيء', 'سيئ', 'خراب', 'बुरा', 'खराब', 'बेकार', 'மோசம்',
];

/** Words after which a digit run is a phone number even without `+` or a trunk 0. */
export const PHONE_CUES: readonly string[] = [
  'phone', 'call me', 'call us', 'mobile', 'cell', 'tel', 'whatsapp', 'reach me', 'text me', 'number is',
  'téléphone', 'teléfono', 'telefone', 'telefon', 'nombor', 'nomor', 'số điện thoại', 'sđt', 'numero', 'telepono', 'simu', 'namba', 'lambar waya', 'nọ́mbà', 'nomba',
  '電話', '携帯', '전화', '번호', '电话', '手机', 'โทร', 'เบอร์', 'هاتف', 'رقم', 'जवाल', 'फ़ोन', 'फोन', 'नंबर', 'தொலைபேசி', 'எண்',
];

/** Words that end a captured name or company ("I'm Jane from Acme" -> Jane). */
export const NAME_STOPWORDS = new Set([
  'and', 'from', 'at', 'of', 'with', 'the', 'a', 'an', 'my', 'our', 'i', 'we', 'here', 'and', 'but', 'or', 'so', 'to', 'for', 'in', 'on', 'is', 'am', 'are', 'was', 'call', 'email', 'e-mail', 'phone',
  'looking', 'interested', 'trying', 'wondering', 'writing', 'calling', 'asking', 'not', 'very', 'really', 'just', 'also', 'still', 'sure', 'happy', 'glad', 'sorry', 'ready', 'new', 'good', 'fine',
  'asap', 'today', 'tomorrow', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august',
  'september', 'october', 'november', 'december', 'et', 'de', 'y', 'e', 'und', 'dan', 'và', 'at', 'na', 'ni', 'da', 'ati', 'dari', 'từ', 'mula', 'kutoka', 'daga', 'lati',
  'please', 'thanks', 'thank', 'hello', 'hi',
]);

export interface NamePattern {
  re: RegExp;
  /** Latin-script words must start with a capital letter ("I am Jane", not "I am interested"). */
  capital: boolean;
}

const CJK_NAME = '([\\p{Script=Han}\\p{Script=Katakana}\\p{Script=Hiragana}\\p{Script=Hangul}A-Za-z]{1,12}?)';

export const NAME_PATTERNS: readonly NamePattern[] = [
  // en
  { re: /\bmy name(?:'s| is)\s+(.+)/iu, capital: false },
  { re: /\bname(?:'s| is|:)\s+(.+)/iu, capital: true },
  { re: /\bI(?:\s+am|'m|’m)\s+(.+)/u, capital: true },
  { re: /\b(?:this is|call me)\s+(.+)/iu, capital: true },
  // fr, es, pt, de
  { re: /\bje m['’]appelle\s+(.+)/iu, capital: false },
  { re: /\bmon nom est\s+(.+)/iu, capital: false },
  { re: /\bje suis\s+(.+)/iu, capital: true },
  { re: /\bme llamo\s+(.+)/iu, capital: false },
  { re: /\bmi nombre es\s+(.+)/iu, capital: false },
  { re: /\bsoy\s+(.+)/iu, capital: true },
  { re: /\b(?:meu nome é|me chamo)\s+(.+)/iu, capital: false },
  { re: /\b(?:ich heiße|ich heisse|mein name ist)\s+(.+)/iu, capital: false },
  // ms, id
  { re: /\bnama saya(?:\s+(?:ialah|adalah))?\s+(.+)/iu, capital: false },
  // vi
  { re: /(?:tên (?:tôi|em|mình|tui) là|(?:tôi|em|mình|tui) tên(?: là)?)\s+(.+)/iu, capital: false },
  // fil
  { re: /\b(?:ang pangalan ko ay|pangalan ko ay|ako si)\s+(.+)/iu, capital: false },
  // sw, ha, yo
  { re: /\b(?:jina langu ni|naitwa)\s+(.+)/iu, capital: false },
  { re: /\b(?:sunana|sunan na)\s+(.+)/iu, capital: false },
  { re: /\bor\S{1,3}k\S{1,3}\s+mi\s+ni\s+(.+)/iu, capital: false },
  // ar, hi, ta
  { re: /(?:اسمي|إسمي)\s+(.+)/u, capital: false },
  { re: /मेरा नाम\s+(.+?)\s*(?:है|हैं)/u, capital: false },
  { re: /\bmera naam\s+(.+?)(?:\s+(?:hai|he)\b|$)/imu, capital: false },
  { re: /என் (?:பெயர்|பேர்)\s+(.+)/u, capital: false },
  // ja, ko, zh, th
  { re: new RegExp(`(?:私|わたし|僕|ぼく)(?:の名前)?は${CJK_NAME}(?:です|と申します|といいます)`, 'u'), capital: false },
  { re: new RegExp(`(?:名前は)${CJK_NAME}(?:です|と申します)`, 'u'), capital: false },
  { re: new RegExp(`${CJK_NAME}と申します`, 'u'), capital: false },
  { re: new RegExp(`제 이름은\\s*${CJK_NAME}(?:입니다|이에요|예요|이고|이며)`, 'u'), capital: false },
  { re: new RegExp(`저는\\s*${CJK_NAME}(?:입니다|이라고 합니다|라고 합니다)`, 'u'), capital: false },
  { re: new RegExp(`(?:我叫|我的名字是|我的名字叫)\\s*${CJK_NAME}(?:[，,。.!！\\s]|$)`, 'u'), capital: false },
  { re: /(?:ผม|ฉัน|ดิฉัน|หนู|เรา)ชื่อ\s*([\p{Script=Thai}\p{L}]+?)(?:ครับ|ค่ะ|คะ|นะ|จ้า|\s|$)/u, capital: false },
];

/** "from Acme", "at Globex", "I work for Initech", "my company is Umbrella" (each occurrence tried). */
export const COMPANY_PATTERNS: readonly RegExp[] = [
  /\b(?:my|our) (?:company|business|firm|organi[sz]ation|employer) (?:is|called|named)\s+(.+)/giu,
  /\b(?:company|business) (?:called|named)\s+(.+)/giu,
  /\b(?:work|working) (?:for|at)\s+(.+)/giu,
  /\b(?:from|at)\s+(.+)/gu,
  /\b(?:de la empresa|de l['’]entreprise|da empresa|dari perusahaan|dari syarikat|dari|từ công ty|mula sa|kutoka kampuni ya)\s+(.+)/giu,
];

/** Second-level labels of free e-mail providers: their domains say nothing about a company. */
export const FREE_MAIL_LABELS = new Set([
  'gmail', 'googlemail', 'yahoo', 'ymail', 'rocketmail', 'hotmail', 'outlook', 'live', 'msn', 'icloud', 'me', 'mac', 'aol', 'proton', 'protonmail', 'pm', 'gmx', 'mail', 'email',
  'yandex', 'qq', '163', '126', 'sina', 'sohu', 'naver', 'daum', 'hanmail', 'kakao', 'nate', 'zoho', 'rediffmail', 'web', 't-online', 'orange', 'free', 'laposte', 'libero', 'hey',
  'fastmail', 'tutanota', 'tuta', 'inbox', 'seznam', 'wp', 'o2', 'onet', 'docomo', 'ezweb', 'softbank', 'yopmail', 'mailinator', 'example',
]);
