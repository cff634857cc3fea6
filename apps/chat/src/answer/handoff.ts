import { baseLanguage } from './language';
import { foldLatin } from './language-profiles';
import { normaliseArabic } from './text-terms';

/**
 * Explicit requests for a human agent, in our sixteen languages.
 *
 * Precision over recall: the words for "person", "human", "agent" or "staff" (human, agent, mtu,
 * tao, mutum, ènìyàn, manusia, nhân viên, 人, 사람 …) are everyday words, so inside a sentence they
 * only count next to a verb of talking, connecting or transferring ("talk to a person",
 * "人と話したい", "kuzungumza na mtu"), or with "real/live" ("real person", "người thật"). On
 * their own they count only when they are the whole message ("agent", "human please", "tao po").
 * So "the human body" and "agent of change" are not requests, and neither is a question about
 * staff ("do your employees speak Thai?"); a model-backed responder can still catch softer
 * phrasings through its [HANDOFF] token.
 *
 * Text is compared folded: lower case, Latin diacritics and Hausa hooked letters removed
 * ("sọ̀rọ̀" → "soro", "ɗ" → "d", "nói chuyện với" → "noi chuyen voi"), Arabic normalised
 * (أ إ آ → ا, ة → ه, ى → ي, no vowel marks).
 */
const PATTERNS: Record<string, RegExp[]> = {
  en: [
    /\b(talk|speak|chat|connect|transfer|put|pass|hand)\s+(me\s+)?(to|with|through to|over to)\s+(a|an|the|some|one of your|your)?\s*(real|live|actual|human)?\s*(human|person|agent|representative|rep|operator|someone|somebody|staff|employee|customer service|support team|advisor|adviser|manager)\b/,
    /\b(real|live|actual)\s+(human|person|agent|operator|representative)\b/,
    /\bhuman\s+(agent|operator|support|representative|assistance|help)\b/,
    /\b(get|give|find|bring)\s+me\s+(a|an|the|some)?\s*(real\s+|live\s+)?(human|person|agent|representative|operator|someone|somebody)\b/,
    /\bi\s*(want|need|would like|'d like)\s+(a|an|to get a|to get an)\s+(human|real person|live person|live agent|human agent|representative|operator|agent)\b/,
    /\bescalate\s+(this|my|it|me)\b/,
    /\b(insaan|insan|human|agent|person|banda|aadmi|kisi)\s+se\s+baat\b/, // Hinglish
  ],
  ja: [
    /(担当者|担当の方|オペレーター|オペレータ|スタッフ|有人|人間|係の人|係の方|窓口)(さん)?(と|に|へ|を|の方)?(話|はな|つな|繋|代わ|かわ|替わ|お願い|対応|呼|相談)/u,
    /(?<!\p{Script=Han})人(と|に)(話|はな|つな|繋|代わ|かわ|相談)/u,
  ],
  ko: [
    /(상담원|상담사|상담 직원|담당자|직원|사람|매니저|운영자)(과|와|이랑|랑|하고|한테|에게|께|분)?\s*(연결|통화|대화|이야기|얘기|상담|바꿔|불러|말하|부탁|요청|필요|있나)/u,
    /(실제|진짜)\s*(사람|상담원)/u,
  ],
  zh: [
    /人工(?!智能|费|成本)/u,
    /真人(?!秀)/u,
    /(找|联系|转|接通|呼叫|要)(一下)?(客服|工作人员|店员|专员|真人|人工)/u,
    /(和|跟|与|同)(你们的)?(客服|工作人员|真人|人工|专员|人)(聊|说|谈|沟通|对话|通话|交流)/u,
    /客服人员/u,
  ],
  th: [
    /(คุย|พูด|ติดต่อ|ขอสาย|โอนสาย|ต่อสาย)\s*(กับ|หา|ไปที่|ไปยัง)?\s*(พนักงาน|เจ้าหน้าที่|แอดมิน|คนจริง|คน|ผู้ดูแล|ฝ่ายบริการลูกค้า|คอลเซ็นเตอร์)/u,
    /คนจริง/u,
  ],
  ar: [
    /(اتحدث|التحدث|نتحدث|تحدث|اتكلم|التكلم|تكلم|اكلم|كلم|التواصل|اتواصل|تواصل|حولني|حولوني|تحويلي|وصلني|اوصلني|توصيلي|اربطني|ربطي)\s+(مع|الي|ل)?\s*(احد\s+)?(ب|ل)?(موظف|شخص|انسان|بشر|ممثل|وكيل|مندوب|خدمه العملاء|الدعم|مسؤول|الموظف)/u,
    /(موظف|شخص|انسان)\s+حقيقي/u,
  ],
  hi: [
    /(इंसान|इन्सान|व्यक्ति|आदमी|एजेंट|प्रतिनिधि|कर्मचारी|स्टाफ|किसी|कस्टमर केयर|ग्राहक सेवा|मनुष्य)\s*से\s*(बात|संपर्क|जोड़|मिलवा|कनेक्ट)/u,
    /असली\s*(इंसान|व्यक्ति)/u,
  ],
  ta: [
    /(மனித|நபர|ஊழியர|முகவர|பிரதிநிதி|ஏஜென்ட|ஆளுட|ஒருவருட|ஒருவரிட|அதிகாரி)\S*\s*(பேச|தொடர்பு|இணை)/u,
    /உண்மையான\s*(மனித|நபர)/u,
  ],
  sw: [
    /\b(ongea|zungumza|kuongea|kuzungumza|niongee|nizungumze|tuongee|niunganishe|unganisha|nipe|nipatie|nataka|ninataka|naomba|ninaomba)\s+(na\s+)?(mtu|binadamu|wakala|mhudumu|muhudumu|afisa|mfanyakazi|mwakilishi|huduma kwa wateja)\b/,
    /\bmtu\s+halisi\b/,
  ],
  ha: [
    /\b(magana|zance|hira)\s+da\s+(wani\s+|wata\s+|daya daga cikin\s+)?(mutum|mutane|dan adam|ma'aikaci|ma'aikaciya|ma'aikata|ma'aikatanku|wakili|jami'i|jami'in)\b/,
    /\bhada\s+ni\s+da\b/,
    /\bmutum\s+na\s+gaske\b/,
  ],
  yo: [
    /\bba\s+(eniyan|osise|asoju|enikan|eni kan)\b[^.?!]{0,20}\bsoro\b/,
    /\bsoro\s+(pelu|si|fun)\s+(eniyan|osise|asoju|enikan)\b/,
    /\beniyan\s+gidi\b/,
  ],
  id: [
    /\b(bicara|berbicara|bercakap|ngomong|cakap|hubungkan|sambungkan|terhubung|chat|ngobrol|berbual|berhubung|disambungkan|dihubungkan)\s+(dengan|ke|kepada|sama|pada)\s+(seorang\s+|salah satu\s+)?(manusia|orang|agen|ejen|petugas|staf|staff|operator|cs|customer service|kakitangan|wakil|admin|pegawai|khidmat pelanggan|layanan pelanggan)\b/,
    /\b(orang|manusia|agen|ejen)\s+(sungguhan|beneran|betul|sebenar|asli|nyata)\b/,
  ],
  fil: [
    /\b(makipag-?usap|makausap|kausapin|kumausap|makipag-?chat|ikonekta|ikonek|i-connect|ipasa|kausap)\s+(ako\s+|mo ako\s+|niyo ako\s+)?(sa|ng|ang)?\s*(isang\s+)?(tao|ahente|agent|representative|staff|empleyado|tauhan|customer service|live agent)\b/,
    /\b(totoong|tunay na)\s+tao\b/,
  ],
  vi: [
    /\b(gap|noi chuyen voi|noi voi|tro chuyen voi|ket noi voi|ket noi toi|chuyen cho|chuyen sang|chuyen toi|lien he voi|noi may voi|goi)\s+(mot\s+)?(nhan vien|nguoi that|tu van vien|tong dai vien|cskh|nguoi ho tro|bo phan cham soc khach hang)\b/,
    /\b(noi chuyen voi|noi voi|tro chuyen voi)\s+(mot\s+)?(con\s+)?nguoi\b/,
    /\bnguoi that\b/,
  ],
};
// Malay shares the Indonesian patterns (ejen, bercakap, kakitangan are in them).
PATTERNS['ms'] = PATTERNS['id'];

/** The whole message is a bare request: "agent", "human please", "担当者をお願いします", "tao po". */
const BARE = [
  /^(an?\s+)?(human|agent|operator|representative|real person|live agent|person|someone|ahente|tao|manusia|agen|ejen|petugas|mtu|binadamu|mutum|eniyan|nhan vien|tu van vien|insaan)(\s+(please|pls|plz|now|po|tafadhali|jare|don allah|nhe|a|ah|dong))?[\s.!?]*$/,
  /^(担当者|オペレーター|有人対応|人間)(を|で)?(お願い(します)?)?[。！!?？]*$/u,
  /^(상담원|상담사)(이요|요|님)?[.!?]*$/u,
  /^(موظف|ممثل خدمه العملاء)[\s.!؟?]*$/u,
];

/** Lower case; Latin runs folded (diacritics, hooks); Arabic normalised; spaces collapsed. */
function normalise(text: string): string {
  return normaliseArabic(text.normalize('NFC').toLowerCase())
    .replace(/\p{Script=Latin}[\p{Script=Latin}\p{M}'’]*/gu, (w) => foldLatin(w).normalize('NFC'))
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether the visitor explicitly asks for a human. Every language's patterns are checked
 * (visitors mix languages: "agent please" in a Hindi chat); `language`, when given, only
 * decides which language is tried first.
 */
export function wantsHuman(text: string, language?: string): boolean {
  const folded = normalise(text);
  if (!folded) return false;
  if (BARE.some((re) => re.test(folded))) return true;
  const first = language ? baseLanguage(language) : undefined;
  const order = first && PATTERNS[first] ? [first, ...Object.keys(PATTERNS).filter((l) => l !== first)] : Object.keys(PATTERNS);
  return order.some((l) => PATTERNS[l].some((re) => re.test(folded)));
}
