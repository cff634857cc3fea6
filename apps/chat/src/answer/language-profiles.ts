/**
 * A small profile layer for the languages tinyld cannot tell apart or does not know:
 * Swahili, Hausa and Yoruba (tinyld has no model for them and answers rn/de/tl/vi/id), and
 * Malay versus Indonesian (tinyld only knows Indonesian).
 *
 * A profile is a list of frequent function words and question words. "Strong" words are
 * distinctive for the language; "weak" ones are frequent but shared with other languages
 * (Swahili "na", Yoruba "ni", Hausa "a"), so they only add to a match that strong words started.
 * Words are compared after folding case and diacritics (see `foldLatin`), so typing with or
 * without tone marks or hooked letters gives the same result.
 */

/** Lower case, diacritics removed, Hausa hooked letters and curly apostrophes folded. */
export function foldLatin(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ɗ/g, 'd')
    .replace(/ƙ/g, 'k')
    .replace(/ɓ/g, 'b')
    .replace(/ƴ/g, 'y')
    .replace(/đ/g, 'd')
    .replace(/[’‘`ʼ]/g, "'");
}

/** Latin-script words of the text, folded; apostrophes inside words are kept (Hausa ma'aikaci). */
export function latinWords(text: string): string[] {
  return foldLatin(text).match(/[a-z]+(?:'[a-z]+)*/g) ?? [];
}

interface Profile {
  strong: ReadonlySet<string>;
  weak: ReadonlySet<string>;
}

const words = (s: string): ReadonlySet<string> => new Set(s.trim().split(/\s+/));

const PROFILES: Record<'sw' | 'ha' | 'yo', Profile> = {
  sw: {
    strong: words(`
      je gani bei nini wapi lini vipi habari tafadhali asante ahsante kuna hii huu hiyo hizi hilo
      sana kiasi mimi wewe sisi nyinyi nataka ninataka naomba ninaomba unaweza naweza nawezaje
      jinsi katika kwa za cha vya hapa leo kesho saa siku mwezi wiki pesa shilingi huduma msaada
      mtu binadamu kuzungumza kuongea ndiyo hapana sijui pia lakini kwamba bado sasa kwenye yako
      yangu wangu wako nani ngapi gharama bure agizo mpango kurudisha kulipa malipo bidhaa
      ninawezaje mnafungua mnafunga mko mna kuhusu`),
    weak: words('na ya ni wa la au kama tu'),
  },
  ha: {
    strong: words(`
      yaya nawa ina kuma sannu yau gobe wani wata zan mutum mutane magana farashin shirin akwai
      menene mene yaushe nake kake kike yake muke suke wannan wancan sosai nagode godiya tare
      amma kudi naira domin saboda lokaci zai kuna kun muna mun ma'aikaci ma'aikata kasuwa aiki
      aikin shago sayi saya biya`),
    // "son" (want), "ne"/"ce" (copula) and "don" are everyday Hausa but also English/French words.
    weak: words('da a na ba za ku mu su ka ki shi ita son ne ce don'),
  },
  yo: {
    strong: words(`
      bawo elo iye owo eto osu jowo kini nibo nigbawo nigba soro eniyan awon emi iwo ati tabi
      sugbon lati yii naa pelu oja ise lowo eyi ohun ibi akoko se ranse odun ojo ose osise
      enikan gidi`),
    // "fun", "won", "mi", "e" are frequent Yoruba words that English, Spanish or Italian share.
    weak: words('ni mo fe ba ti si kan wa ko o e fun won mi'),
  },
};

/** Vietnamese-only marks after NFD: breve, circumflex, horn, hook above, tilde; plus đ. */
const VIETNAMESE_MARKS = /[\u0306\u0302\u031B\u0309\u0303đĐ]/u;
/** Yoruba's subdotted ẹ ọ ṣ (NFD: base letter + U+0323). Vietnamese also uses ẹ ọ, never ṣ. */
const YORUBA_SUBDOT = /[eos]\u0323/giu;
const YORUBA_S_SUBDOT = /s\u0323/iu;
const HAUSA_HOOKS = /[ɗƙɓƴƊƘƁƳ]/u;

interface Score {
  language: 'sw' | 'ha' | 'yo';
  score: number;
  strongDistinct: number;
}

function scoreProfile(tokens: string[], language: 'sw' | 'ha' | 'yo'): Score {
  const p = PROFILES[language];
  let score = 0;
  const distinct = new Set<string>();
  for (const t of tokens) {
    if (p.strong.has(t)) {
      score += 2;
      distinct.add(t);
    } else if (p.weak.has(t)) score += 1;
  }
  return { language, score: tokens.length ? score / tokens.length : 0, strongDistinct: distinct.size };
}

/**
 * Swahili, Hausa or Yoruba when the text clearly is one of them, else null. "Clearly" means
 * either the script gives it away (Hausa's hooked letters ɗ ƙ ɓ with a Hausa word; Yoruba's
 * subdotted letters without any Vietnamese-only mark) or the words do: at least two distinct
 * strong words, an average of at least 0.6 points a word (strong 2, weak 1), and 1.5 times the
 * next profile's score. Tuned for precision: English, Indonesian, Tagalog and Vietnamese
 * sentences must not trip it (see language.spec.ts).
 */
export function detectAfricanProfile(text: string): 'sw' | 'ha' | 'yo' | null {
  const tokens = latinWords(text);
  if (tokens.length === 0) return null;
  const scores = (['sw', 'ha', 'yo'] as const).map((l) => scoreProfile(tokens, l)).sort((a, b) => b.score - a.score);
  const byLang = Object.fromEntries(scores.map((s) => [s.language, s])) as Record<Score['language'], Score>;

  const nfd = text.normalize('NFD');
  if (HAUSA_HOOKS.test(text) && byLang.ha.strongDistinct >= 1) return 'ha';
  const subdots = nfd.match(YORUBA_SUBDOT)?.length ?? 0;
  if (subdots > 0 && !VIETNAMESE_MARKS.test(nfd) && (YORUBA_S_SUBDOT.test(nfd) || subdots >= 2 || byLang.yo.strongDistinct >= 1)) return 'yo';

  const [best, next] = scores;
  if (best.strongDistinct >= 2 && best.score >= 0.6 && best.score >= 1.5 * next.score) return best.language;
  return null;
}

/**
 * Malay and Indonesian share most of their vocabulary; these words are the everyday ones that
 * differ (spelling: wang/uang, kerana/karena; vocabulary: mahu/mau, boleh/bisa, kedai/toko,
 * percuma/gratis, bila/kapan, tempahan/pesanan). Equal counts are a tie, left to the caller.
 */
const MALAY = words(`
  mahu nak hendak boleh kerana sahaja percuma wang kedai tempahan pelan bagaimanakah awak encik
  puan kereta telefon bas teksi ubat hospital doktor sila bayaran yuran akaun ialah betul ringgit
  syarikat perkhidmatan kakitangan bercakap cakap ejen khidmat esok semalam macam bila pukul`);
const INDONESIAN = words(`
  mau bisa karena saja gratis uang toko paket kapan kamu gimana nggak gak enggak dong kok sih aja
  banget mobil telepon dokter silakan akun rupiah perusahaan layanan karyawan berbicara bicara
  ngomong besok kemarin agen pak bu mas mbak`);

export function malayOrIndonesian(text: string): 'ms' | 'id' | null {
  let ms = 0;
  let id = 0;
  for (const t of latinWords(text)) {
    if (MALAY.has(t)) ms++;
    if (INDONESIAN.has(t)) id++;
  }
  if (ms > id) return 'ms';
  if (id > ms) return 'id';
  return null;
}

/** Everyday English function words, for when tinyld leans English without a clear margin. */
const ENGLISH = words(`
  the a an and or of to in on for with is are was were be been do does did can could will would my
  your our i you we it this that what how when where why which have has there not per from at by
  about me us if any`);

/** At least two distinct English function words, making up at least a quarter of the words. */
export function looksEnglish(text: string): boolean {
  const tokens = latinWords(text);
  const hits = tokens.filter((t) => ENGLISH.has(t));
  return new Set(hits).size >= 2 && hits.length >= 0.25 * tokens.length;
}
