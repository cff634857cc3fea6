/**
 * Language-agnostic text analysis for the extractive responder: sentence splitting and the
 * "terms" a question and a sentence are compared by. ICU (Intl.Segmenter, full ICU in Node 20)
 * does the hard parts: sentence breaks for 。！？ ؟ । and Latin punctuation, and dictionary word
 * breaks for Thai, Chinese and Japanese.
 */
import { englishGlossWords, englishHypernyms, englishSynonyms, isStopword, LEXICONS, stemVariants, type LexiconLanguage } from '@sa/lexicon';
import { isAnswerType } from './answer-types';
import { foldLatin } from './language-profiles';

const SENTENCES = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const WORDS = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Thai marks no sentence end; writers put a space between clauses, so we split there, then
 * glue clauses back together while they are short so that "open daily" and "9.00–18.00" stay in one piece. */
const THAI_CLAUSE_GAP = /(?<=\p{Script=Thai})\s+(?=\p{Script=Thai})/u;
const THAI_MIN_PIECE = 60;
const THAI_MAX_PIECE = 160;

function splitThai(sentence: string): string[] {
  const out: string[] = [];
  for (const clause of sentence.split(THAI_CLAUSE_GAP)) {
    const last = out.at(-1);
    if (last !== undefined && last.length < THAI_MIN_PIECE && last.length + clause.length < THAI_MAX_PIECE) out[out.length - 1] = `${last} ${clause}`;
    else out.push(clause);
  }
  return out;
}

/** Sentences in their original order; line breaks always end a sentence (FAQ lines, lists). */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n+/)) {
    for (const { segment } of SENTENCES.segment(line)) {
      for (const piece of splitThai(segment)) {
        const clean = piece.replace(/\s+/g, ' ').trim();
        if (/[\p{L}\p{N}]/u.test(clean)) out.push(clean);
      }
    }
  }
  return out;
}

/** A question sentence (its answer follows in an FAQ): ends with ? ？ ؟ or starts with "Q:". */
export function isQuestion(sentence: string): boolean {
  return /[?？؟]\s*$/u.test(sentence) || /^(q|question|問|问|質問|질문)\s*[:：.]/iu.test(sentence);
}

/** "Q: … / A: …" labels are FAQ markup, not part of an answer. */
export function stripLabel(sentence: string): string {
  return sentence.replace(/^(q|a|question|answer|問|问|答|質問|回答|질문|답변|س|ج)\s*[:：]\s*/iu, '');
}

/**
 * Words that carry no topic: question words, pronouns, auxiliaries, particles and politeness in
 * our sixteen languages. One set for all of them: a word that is a function word in one
 * language and content in another is rare enough among these lists to ignore. Latin entries are
 * folded (no diacritics), Arabic ones normalised (see `normaliseArabic`).
 */
const STOPWORDS = new Set(
  `
  a an the and or but if of to in on at by for from with about as into than then so is are was were be been being am
  do does did doing have has had having can could will would shall should may might must i me my we us our you your
  he she it its they them their this that these those there here what which who whom whose when where why how much many
  any some all each no not yes please thanks thank hello hi hey dear get got tell know want need like would also just
  ok okay there's what's it's i'm don't can't is there per
  apa ada saya aku kami kita anda kamu awak dia mereka ini itu yang dan atau di ke dari untuk dengan pada adalah ialah
  bagaimana bagaimanakah berapa berapakah kapan bila mana siapa mengapa kenapa apakah boleh bisa mahu mau ingin hendak
  tidak tak tolong sila terima kasih ya juga sudah belum akan sedang lah kah
  ang ng sa mga na ay si ni ko mo ka ako ikaw siya kami tayo kayo sila ito iyan iyon paano ano saan kailan bakit sino
  magkano gaano po ba lang din rin naman may wala
  toi ban co khong la cua va cac nhung mot duoc cho voi trong nay do gi nao sao bao nhieu the nhu khi o thi da se dang
  can muon xin vui long a ha nhe
  je ni na ya wa kwa za la nini gani vipi wapi lini nani kama au lakini pia sana tu hii huu hiyo mimi wewe sisi nyinyi
  tafadhali asante habari naomba nataka ninataka
  da ne ce na a ba ka ki ku mu su shi ita ina yaya nawa menene mene yaushe ina wannan don allah kuma amma ko
  ni mo ti si kan wa ko o e se bawo kini nibo nigbawo elo jowo awon emi iwo won ati tabi sugbon lati yii naa pelu fun mi
  هل ما ماذا كم كيف متى اين لماذا من في على الى عن مع او ثم هو هي هم انا انت انتم نحن هذا هذه ذلك تلك التي الذي لا نعم
  يمكن يمكنني يمكنك لدي لديكم لديك عندكم اريد ارجو من فضلك شكرا
  क्या है हैं का की के में से को पर और या यह वह ये वो कितना कितनी कितने कैसे कब कहाँ कहां क्यों कौन मैं हम आप मुझे मेरा मेरी
  हमें हो होता होती था थी कर करें करना ने भी तो ही नहीं जी कृपया मेरे आपका आपकी आपके हमारा हमारी हमारे हूँ हूं सकता सकती सकते
  என்ன எப்படி எவ்வளவு எப்போது எங்கே ஏன் யார் நான் நாங்கள் நீங்கள் இது அது மற்றும் ஒரு உள்ளது இருக்கிறது உங்கள் எங்கள் தயவுசெய்து
  어떻게 무엇 뭐 언제 어디 왜 누가 얼마 얼마나 저는 제가 저희 우리 있나요 있어요 있습니까 하나요 합니까 인가요 입니까 수 좀 그 이 저
  ครับ ค่ะ คะ ไหม มั้ย มี ไม่ ที่ การ ของ และ หรือ ได้ อะไร เท่าไหร่ เท่าไร อย่างไร ยังไง บ้าง กี่ ใน ให้ ว่า จะ เป็น คือ
  ฉัน ผม เรา คุณ นี้ นั้น ไหน เมื่อไร เมื่อไหร่ ทำไม ใคร หน่อย ขอ ด้วย
  什么 怎么 怎样 如何 哪里 哪儿 多少 我们 你们 他们 可以 是否 有没 没有 请问 吗 呢 的 了 是 在 有 和 与 或
  ください です ます でしょう 何 どこ いつ どう なぜ 誰 どれ
  `.split(/\s+/).filter(Boolean),
);

/** Arabic letters folded the way search engines do: no vowel marks or tatweel, one alef, ه for ة, ي for ى. */
export function normaliseArabic(word: string): string {
  return word
    .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
    .replace(/[أإآ]/g, 'ا')
    .replace(/ة/g, 'ه')
    .replace(/ى/g, 'ي');
}

/** Leading "the" (ال) and its fused prepositions: "المنتج", "بالمنتج" → "منتج". */
function stripArabicArticle(word: string): string {
  const m = word.match(/^(?:وال|بال|فال|كال|لل|ال)(.{2,})$/u);
  return m ? m[1] : word;
}

type Kind = 'exact' | 'latin' | 'arabic' | 'hangul' | 'devanagari' | 'tamil' | 'other';

/** Shortest shared prefix that counts as the same word, per script (agglutination, plurals, particles). */
const MIN_PREFIX: Record<Exclude<Kind, 'exact'>, number> = { latin: 4, arabic: 3, hangul: 2, devanagari: 3, tamil: 4, other: 4 };

function kindOf(term: string): Kind {
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{N}]/u.test(term)) return 'exact';
  if (/\p{Script=Latin}/u.test(term)) return 'latin';
  if (/\p{Script=Arabic}/u.test(term)) return 'arabic';
  if (/\p{Script=Hangul}/u.test(term)) return 'hangul';
  if (/\p{Script=Devanagari}/u.test(term)) return 'devanagari';
  if (/\p{Script=Tamil}/u.test(term)) return 'tamil';
  return 'other';
}

/**
 * Chinese and Japanese are compared by character pairs over runs of Han and Katakana: robust
 * against word-break differences (ICU splits 退货 into 退 + 货). Hiragana (Japanese particles and
 * endings) and the commonest Chinese function characters end a run.
 */
const CJK_RUN = /[\p{Script=Han}\p{Script=Katakana}ー々]+/gu;
const CJK_ANY = /[\p{Script=Han}\p{Script=Katakana}\p{Script=Hiragana}ー々]/gu;
const ZH_FUNCTION_CHARS = /[的了吗呢吧啊呀么和与或是在我你您他她它们这那请问也都]/gu;

/** Single characters of the stop-word list (question words such as 何): they end a run in stems mode. */
const CJK_STOP_CHARS = new Set([...STOPWORDS].filter((w) => /^[\p{Script=Han}\p{Script=Katakana}]$/u.test(w)));

function cjkTerms(text: string, stems = false): string[] {
  const grams: string[] = [];
  const cleaned = text.replace(ZH_FUNCTION_CHARS, ' ');
  const runs = (cleaned.match(CJK_RUN) ?? []).flatMap((run) => (stems ? [...run].map((c) => (CJK_STOP_CHARS.has(c) ? ' ' : c)).join('').split(' ') : [run]));
  for (const run of runs) {
    const chars = [...run];
    // Stems mode: a lone Han character is a word of its own (お店, 車を): kept as a term, matched
    // inside the pairs of the other side (店 in 当店; TermLexicon.matches).
    if (stems && chars.length === 1 && /\p{Script=Han}/u.test(run)) grams.push(run);
    for (let i = 0; i + 1 < chars.length; i++) {
      const g = chars[i] + chars[i + 1];
      if (!STOPWORDS.has(g)) grams.push(g);
    }
  }
  return grams;
}

/** Terms of one word segment of a script other than Chinese or Japanese. */
function wordTerms(raw: string): string[] {
  const word = raw.normalize('NFKC').toLowerCase().replace(/[\u200B-\u200D]/g, '');
  let term = word;
  if (/\p{Script=Latin}/u.test(word)) term = foldLatin(word);
  else if (/\p{Script=Arabic}/u.test(word)) {
    term = normaliseArabic(word);
    if (STOPWORDS.has(term)) return [];
    term = stripArabicArticle(term);
  }
  if (STOPWORDS.has(term)) return [];
  if (/^\p{N}+$/u.test(term)) return term.length >= 2 ? [term] : [];
  return [...term].length >= 2 ? [term] : [];
}

/**
 * The distinct topic terms of a text. `stems` (TEXT_MATCH=stems): Chinese and Japanese runs are
 * also cut at one-character question words (何時 is no topic), and lone Han characters are terms.
 */
export function termsOf(text: string, stems = false): string[] {
  const normalised = text.normalize('NFKC');
  const out = new Set<string>(cjkTerms(normalised, stems));
  for (const s of WORDS.segment(normalised.replace(CJK_ANY, ' '))) {
    if (s.isWordLike) for (const t of wordTerms(s.segment)) out.add(t);
  }
  return [...out];
}

/** The words of a text in order, normalised as `termsOf` does, stop words and short words kept. */
export function wordSequence(text: string): string[] {
  const out: string[] = [];
  for (const s of WORDS.segment(text.normalize('NFKC'))) {
    if (!s.isWordLike) continue;
    const word = s.segment.toLowerCase();
    out.push(/\p{Script=Latin}/u.test(word) ? foldLatin(word) : word);
  }
  return out;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * TEXT_MATCH=stems, Tamil: a shared prefix of three code points (a consonant, its vowel sign and
 * the next consonant: "மூட" in "மூடும்" / "மூடப்படும்", "திற" in "திறப்பு" / "திறக்கப்படும்") is the
 * same word, where Snowball's Tamil stemmer leaves endings on. Surface mode keeps MIN_PREFIX.
 */
const TAMIL_STEMS_PREFIX = 3;

/** Same term: equal, or (scripts with inflection) one a long-enough prefix of the other ("refund"/"refunds", "요금제"/"요금제는"). */
export function sameTerm(a: string, b: string): boolean {
  if (a === b) return true;
  const kind = kindOf(a);
  if (kind === 'exact' || kind !== kindOf(b)) return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= MIN_PREFIX[kind] && long.startsWith(short)) return true;
  // "cancelled" / "cancellation": a long shared stem.
  return kind === 'latin' && commonPrefix(a, b) >= 6;
}

const LONE_HAN = /^\p{Script=Han}$/u;

/** A match two steps away in WordNet counts this much of a term (`TermLexicon.strength`). */
export const WEAK_STRENGTH = 0.5;

/**
 * Stems and synonyms for one answer (TEXT_MATCH=stems, issue 33): a question term also matches a
 * passage term with the same stem in the language (@sa/lexicon: Snowball-style stemmers of
 * @nlpjs/lang-*), and in English one whose stem is that of a WordNet synonym ("guarantee" →
 * "warranty", "located" → "location"). Stems are memoised per instance (one answer).
 */
export class TermLexicon {
  private readonly stems = new Map<string, string[]>();
  private readonly alternatives = new Map<string, Set<string>>();

  constructor(private readonly language: LexiconLanguage) {}

  /**
   * Whether a shared prefix (`sameTerm`) still counts as the same word: for Tamil only, whose
   * @nlpjs stemmer leaves most case endings on ("ரசீதுடன்", "மூடும்" → "மூ" but "மூடப்படும்" → "மூட");
   * elsewhere the stemmer decides (a prefix links "कार्य" to "कार्यक्रम", "work" to "programme").
   */
  get prefixes(): boolean {
    return this.language === 'ta';
  }

  /** The stems of a term (@sa/lexicon's stemVariants: Indonesian and Malay meN- recodings too). */
  stemsOf(term: string): string[] {
    let s = this.stems.get(term);
    if (s === undefined) {
      s = /[\p{L}]/u.test(term) ? stemVariants(term, this.language) : [term];
      this.stems.set(term, s);
    }
    return s;
  }

  /** The stems a question term matches: its own, and its synonyms' (English). */
  alternativesOf(term: string): Set<string> {
    let alts = this.alternatives.get(term);
    if (!alts) {
      alts = new Set(this.stemsOf(term));
      if (LEXICONS[this.language].synonyms) for (const s of englishSynonyms(term)) for (const x of this.stemsOf(foldLatin(s))) alts.add(x);
      this.alternatives.set(term, alts);
    }
    return alts;
  }

  /** Same stem, or (English) a synonym, a hypernym or a definition links them (`strength` > 0). */
  matches(questionTerm: string, candidate: string): boolean {
    return this.strength(questionTerm, candidate) > 0;
  }

  /**
   * How surely a passage term says what a question term says: 1 for the same stem, (English) a
   * synonym on either side, or a passage word that names a kind of the question's ("delivery" is
   * a kind of "transport": WordNet's hypernyms); WEAK_STRENGTH two steps away (below); 0 otherwise.
   */
  strength(questionTerm: string, candidate: string): number {
    if (questionTerm === candidate) return 1;
    if (LONE_HAN.test(questionTerm)) return candidate.includes(questionTerm) ? 1 : 0;
    const alts = this.alternativesOf(questionTerm);
    if (this.stemsOf(candidate).some((s) => alts.has(s))) return 1;
    if (!LEXICONS[this.language].synonyms || !/\p{Script=Latin}/u.test(candidate)) return 0;
    for (const s of this.alternativesOf(candidate)) if (alts.has(s)) return 1;
    const own = this.stemsOf(questionTerm);
    const hypernyms = this.hypernymsOf(candidate);
    if (own.some((s) => hypernyms.has(s))) return 1;
    // Weaker evidence, two steps away: a passage word that is a kind of a synonym of the
    // question's ("delivery" is a kind of "transport", a synonym of "shipping"), or whose WordNet
    // definition uses the question's word ("money" ∈ refund: "money returned to a payer"; "ship" ∈
    // harbour: "a port where ships can take on cargo"). One way only: the other adds false matches.
    for (const s of hypernyms) if (alts.has(s)) return WEAK_STRENGTH;
    return this.glossOf(candidate).has(own[0]) ? WEAK_STRENGTH : 0;
  }

  private readonly hypernyms = new Map<string, Set<string>>();

  /** The stems of a term's direct WordNet hypernyms (English). */
  hypernymsOf(term: string): Set<string> {
    let h = this.hypernyms.get(term);
    if (!h) {
      h = new Set();
      for (const w of englishHypernyms(term)) for (const x of this.stemsOf(foldLatin(w))) h.add(x);
      this.hypernyms.set(term, h);
    }
    return h;
  }

  private readonly glosses = new Map<string, Set<string>>();

  /** The stems of the content words of a term's WordNet definitions (English). */
  glossOf(term: string): Set<string> {
    let g = this.glosses.get(term);
    if (!g) {
      g = new Set();
      for (const w of englishGlossWords(term)) if (!isStopword(w, this.language) && !STOPWORDS.has(w) && w.length > 2) for (const x of this.stemsOf(w)) g.add(x);
      this.glosses.set(term, g);
    }
    return g;
  }
}

/**
 * How surely the candidate terms contain a question term: an answer type's term (answer-types.ts)
 * only when the candidate holds it; 1 when equal or (with a lexicon) the
 * same stem, a synonym or a kind of it, less through a definition (`TermLexicon.strength`), 0 when
 * absent; without a lexicon, 1 for equal terms or a long-enough shared prefix (`sameTerm`).
 */
export function termStrength(question: string, candidate: readonly string[], lexicon?: TermLexicon | null): number {
  if (isAnswerType(question)) return candidate.includes(question) ? 1 : 0;
  if (!lexicon) return candidate.some((c) => sameTerm(question, c)) ? 1 : 0;
  let best = 0;
  for (const c of candidate) {
    const s = lexicon.prefixes && (sameTerm(question, c) || commonPrefix(question, c) >= TAMIL_STEMS_PREFIX) ? 1 : lexicon.strength(question, c);
    if (s > best) best = s;
    if (best === 1) break;
  }
  return best;
}

/**
 * The question terms the candidate terms contain: with a lexicon (TEXT_MATCH=stems), equal terms or
 * the same stem (and English synonyms), the stemmer deciding what is one word; without one, equal
 * terms or a long-enough shared prefix (`sameTerm`), the stand-in for stems before issue 33.
 */
export function matchedTerms(question: readonly string[], candidate: readonly string[], lexicon?: TermLexicon | null): string[] {
  return question.filter((q) => termStrength(q, candidate, lexicon) > 0);
}
