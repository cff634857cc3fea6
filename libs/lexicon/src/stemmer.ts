import { LEXICONS, type LexiconLanguage } from './languages';

/*
 * Stems and tokens from the @nlpjs/lang-* packages, loaded the first time a language is used
 * (a few milliseconds and under a megabyte each): a knowledge base in English never loads the
 * Tamil stemmer. @nlpjs's stemmers memoise every word they see; that cache is emptied past
 * MAX_CACHED_WORDS so that a long-running service's memory stays bounded.
 */

interface NlpStemmer {
  stemWord(word: string): string;
  cache: Record<string, string>;
}
interface NlpTokenizer {
  tokenize(text: string, normalize?: boolean): string[];
}

const MAX_CACHED_WORDS = 20000;
const stemmers = new Map<LexiconLanguage, { stemmer: NlpStemmer | null; seen: number }>();
const tokenizers = new Map<LexiconLanguage, NlpTokenizer>();

function load<T>(spec: { module: string; className: string }): T {
  const mod = require(spec.module) as Record<string, new () => T> | (new () => T);
  const Ctor = typeof mod === 'function' ? mod : mod[spec.className];
  return new Ctor();
}

function stemmerOf(lang: LexiconLanguage): { stemmer: NlpStemmer | null; seen: number } {
  let entry = stemmers.get(lang);
  if (!entry) {
    const spec = LEXICONS[lang].stemmer;
    entry = { stemmer: spec ? load<NlpStemmer>(spec) : null, seen: 0 };
    stemmers.set(lang, entry);
  }
  return entry;
}

/** The stem of one lower-cased word in `lang` (the word itself when the language has no stemmer). */
export function stem(word: string, lang: LexiconLanguage): string {
  const entry = stemmerOf(lang);
  if (!entry.stemmer) return word;
  if (++entry.seen > MAX_CACHED_WORDS) {
    entry.stemmer.cache = {};
    entry.seen = 0;
  }
  // A stemmer is third-party code fed with visitors' and documents' words: one that throws leaves the word as it is.
  let out: string | undefined;
  try {
    out = entry.stemmer.stemWord(word);
  } catch {
    return word;
  }
  return typeof out === 'string' ? out.trim() || word : word;
}

/** The words of a text as the language's tokenizer splits them, lower-cased. */
export function tokens(text: string, lang: LexiconLanguage): string[] {
  const spec = LEXICONS[lang].tokenizer;
  if (!spec) return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? [];
  let t = tokenizers.get(lang);
  if (!t) {
    t = load<NlpTokenizer>(spec);
    tokenizers.set(lang, t);
  }
  let words: string[];
  try {
    words = t.tokenize(text, true);
  } catch {
    // The language's tokenizer failed on this text: split it as the languages without one are.
    return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? [];
  }
  return words
    .map((w) => w.toLowerCase().replace(/[^\p{L}\p{M}\p{N}]+/gu, ''))
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
}

/** Tokenised and stemmed words of a text, distinct, in order of first appearance. */
export function stemText(text: string, lang: LexiconLanguage): string[] {
  return [...new Set(tokens(text, lang).map((w) => stem(w, lang)))];
}

/**
 * Indonesian and Malay meN-/peN- drop the first k, t, p or s of a root before a vowel
 * ("menutup" ← "tutup", "pengiriman" ← "kiriman"); the Snowball stemmer (@nlpjs/lang-id, and
 * PostgreSQL's 'indonesian') removes the prefix without restoring it ("menutup" → "utup",
 * "tutup" → "tutup"). Nazief & Adriani's stemmer recodes such words; so do we, as alternatives.
 */
const MEN_RECODING: readonly [RegExp, string][] = [
  [/^(?:meng|peng)(?=[aeiou])/, 'k'],
  [/^(?:meny|peny)(?=[aeiou])/, 's'],
  [/^(?:men|pen)(?=[aeiou])/, 't'],
  [/^(?:mem|pem)(?=[aeiou])/, 'p'],
];

/**
 * Arabic imperfect verbs carry a person prefix (أ ت ن ي: "يفتح", "نفتح", "تفتحون" are all فتح);
 * light stemmers (@nlpjs/lang-ar, Snowball) keep it, root stemmers (ISRI, Khoja) strip it. We
 * add the form without it, when at least three letters remain, as an alternative.
 */
/**
 * Indonesian and Malay clitics: the particles -lah, -kah, -tah, -pun and the possessive pronouns
 * -ku, -mu, -nya, which Nazief & Adriani's stemmer removes before any suffix; Snowball's keeps
 * "-nya" when too few letters would remain ("struknya", "wangnya"). Removed when four letters remain.
 */
const CLITIC = /(?<=\p{L}{4})(?:lah|kah|tah|pun|nya|ku|mu)$/u;
const MAX_RESTEMS = 3;

const AR_IMPERFECT = /^[اأتني](?=\p{L}{3})/u;

interface ArabicRootStemmer {
  stem(word: string): { stem: string[]; normalized: string };
}
let arabicRootStemmer: ArabicRootStemmer | null = null;
const arabicRootCache = new Map<string, string[]>();

/**
 * Root candidates of an Arabic word (the arabic-stem package: affixes removed against the
 * patterns of Arabic morphology, then the tri-literal roots that fit), loaded on first use.
 */
export function arabicRoots(word: string): string[] {
  let roots = arabicRootCache.get(word);
  if (!roots) {
    if (!arabicRootStemmer) {
      const mod = require('arabic-stem') as { default?: new () => ArabicRootStemmer } & (new () => ArabicRootStemmer);
      arabicRootStemmer = new (mod.default ?? mod)();
    }
    try {
      const found = arabicRootStemmer.stem(word).stem;
      roots = Array.isArray(found) ? found.filter((r): r is string => typeof r === 'string' && r.length > 0) : [];
    } catch {
      // arabic-stem throws on some strings (a TypeError on stray marks and tatweels): no root, never a broken answer.
      roots = [];
    }
    if (arabicRootCache.size >= MAX_CACHED_WORDS) arabicRootCache.clear();
    arabicRootCache.set(word, roots);
  }
  return roots;
}

/**
 * The stems a word may have in `lang`: its stem, for Indonesian and Malay the stems of its
 * meN-/peN- recodings, for Arabic the stem without an imperfect prefix. Two words are taken for
 * the same word when their stem sets meet.
 */
export function stemVariants(word: string, lang: LexiconLanguage): string[] {
  const out = new Set([stem(word, lang)]);
  if (lang === 'id' || lang === 'ms') {
    // Particles and possessive pronouns first (Nazief & Adriani's first steps): "struknya" → "struk".
    const bare = CLITIC.test(word) ? word.replace(CLITIC, '') : word;
    if (bare !== word) out.add(stem(bare, lang)).add(bare);
    for (const w of new Set([word, bare])) {
      for (const [prefix, root] of MEN_RECODING) {
        if (!prefix.test(w)) continue;
        // The recoded word may already be the root ("menerima" → "terima", which Snowball reads as ter- + ima).
        const recoded = w.replace(prefix, root);
        out.add(stem(recoded, lang)).add(recoded);
        break;
      }
    }
  }
  if (lang === 'ta') {
    // Snowball's Tamil stemmer is not idempotent ("பொருளை" → "பொருள்" → "பொர்"): the stems on the way
    // to its fixed point are alternatives, so that both inflections meet.
    let s = stem(word, lang);
    for (let i = 0; i < MAX_RESTEMS; i++) {
      const next = stem(s, lang);
      if (next === s || out.has(next)) break;
      out.add(next);
      s = next;
    }
  }
  if (lang === 'ar') {
    // Roots (arabic-stem): broken plurals and derived forms share a root where light stems differ
    // ("متاجر" / "متجر" → تجر, "عيوب" / "عيب", "التصنيع" / "مصنع" → صنع).
    for (const r of arabicRoots(word)) out.add(`√${r}`);
    for (const w of [word, stem(word, lang)]) {
      if (!AR_IMPERFECT.test(w)) continue;
      const bare = w.replace(AR_IMPERFECT, '');
      out.add(bare);
      out.add(stem(bare, lang));
    }
  }
  return [...out];
}
