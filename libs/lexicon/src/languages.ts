/**
 * What each language gets from the lexicon (issue 33, "paraphrases offline"): a PostgreSQL
 * text-search configuration (Snowball) for the full-text side where PostgreSQL has one, an
 * @nlpjs/lang-* stemmer and/or tokenizer for the in-process side (and for PostgreSQL where it has
 * no configuration), and WordNet synonyms for English. Languages not listed keep the surface
 * matching every language had before (words, and character bigrams of scripts written without
 * spaces). docs/decisions/knowledge.md has the table and the reasons.
 */
export type LexiconLanguage = 'en' | 'id' | 'ms' | 'tl' | 'hi' | 'ar' | 'ta' | 'ja';

export interface LanguageLexicon {
  /** PostgreSQL text-search configuration (Snowball stemmer and stop words), or null. */
  pgConfig: string | null;
  /** The @nlpjs/lang-* module (a file of the package, so that its sentiment data is not loaded). */
  stemmer: { module: string; className: string } | null;
  tokenizer: { module: string; className: string } | null;
  /** The package's stop words, left out of the stems written for PostgreSQL (languages without a configuration). */
  stopwords: { module: string; className: string } | null;
  /** English synonyms from WordNet (query side only). */
  synonyms: boolean;
}

const nlp = (lang: string, pkg = lang) => ({
  stemmer: { module: `@nlpjs/lang-${pkg}/src/stemmer-${lang}`, className: `Stemmer${lang[0].toUpperCase()}${lang[1]}` },
  tokenizer: { module: `@nlpjs/lang-${pkg}/src/tokenizer-${lang}`, className: `Tokenizer${lang[0].toUpperCase()}${lang[1]}` },
  stopwords: { module: `@nlpjs/lang-${pkg}/src/stopwords-${lang}`, className: `Stopwords${lang[0].toUpperCase()}${lang[1]}` },
});

export const LEXICONS: Readonly<Record<LexiconLanguage, LanguageLexicon>> = {
  en: { pgConfig: 'english', ...nlp('en', 'en-min'), synonyms: true },
  id: { pgConfig: 'indonesian', ...nlp('id'), synonyms: false },
  ms: { pgConfig: null, ...nlp('ms'), synonyms: false },
  tl: { pgConfig: null, ...nlp('tl'), synonyms: false },
  hi: { pgConfig: 'hindi', ...nlp('hi'), synonyms: false },
  ar: { pgConfig: 'arabic', ...nlp('ar'), synonyms: false },
  ta: { pgConfig: 'tamil', ...nlp('ta'), synonyms: false },
  // Japanese: the tokenizer only (words instead of character runs); @nlpjs's Japanese stemmer
  // needs kuromoji's 17 MB dictionary and an asynchronous start.
  ja: { pgConfig: null, stemmer: null, tokenizer: nlp('ja').tokenizer, stopwords: nlp('ja').stopwords, synonyms: false },
};

export const LEXICON_LANGUAGES = Object.keys(LEXICONS) as LexiconLanguage[];

/** Latin-script languages with a lexicon: a Latin query is looked up in each of them. */
const LATIN: readonly LexiconLanguage[] = ['en', 'id', 'ms', 'tl'];

/** A language code (`en-IN`, `fil-PH`, `id`, `tl`) → the lexicon's language, or null when it has none. */
export function lexiconLanguage(code: string | null | undefined): LexiconLanguage | null {
  if (!code) return null;
  const base = code.toLowerCase().split(/[-_]/)[0];
  const mapped = base === 'fil' ? 'tl' : base;
  return (LEXICON_LANGUAGES as string[]).includes(mapped) ? (mapped as LexiconLanguage) : null;
}

type Script = 'latin' | 'arabic' | 'devanagari' | 'tamil' | 'kana' | 'other';

function mainScript(text: string): Script | null {
  const counts: Record<Script, number> = { latin: 0, arabic: 0, devanagari: 0, tamil: 0, kana: 0, other: 0 };
  for (const ch of text) {
    if (/\p{Script=Latin}/u.test(ch)) counts.latin++;
    else if (/\p{Script=Arabic}/u.test(ch)) counts.arabic++;
    else if (/\p{Script=Devanagari}/u.test(ch)) counts.devanagari++;
    else if (/\p{Script=Tamil}/u.test(ch)) counts.tamil++;
    else if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(ch)) counts.kana++;
    else if (/\p{L}/u.test(ch)) counts.other++;
  }
  // Japanese mixes kana with kanji (counted as "other"): any kana makes it Japanese.
  if (counts.kana > 0 && counts.kana + counts.other >= counts.latin) return 'kana';
  let best: Script | null = null;
  for (const s of Object.keys(counts) as Script[]) if (counts[s] > 0 && (best === null || counts[s] > counts[best])) best = s;
  return best;
}

const SCRIPT_LANGUAGE: Partial<Record<Script, LexiconLanguage>> = { arabic: 'ar', devanagari: 'hi', tamil: 'ta', kana: 'ja' };

/**
 * The lexicon language of a text (a document's chunk): by its script, and for Latin script by
 * tinyld among the Latin languages the lexicon has. Null for other languages and for Latin text
 * tinyld cannot place.
 */
export function detectLexiconLanguage(text: string): LexiconLanguage | null {
  const script = mainScript(text);
  if (!script || script === 'other') return null;
  if (script !== 'latin') return SCRIPT_LANGUAGE[script] ?? null;
  // Loaded on first use, not at start (docs/decisions/operations.md, "Start time").
  const { detectAll } = require('tinyld') as typeof import('tinyld');
  let ranked: { lang: string }[];
  try {
    ranked = detectAll(text);
  } catch {
    return null;
  }
  const top = ranked.find((r) => ['en', 'id', 'ms', 'tl'].includes(r.lang));
  return top ? (top.lang as LexiconLanguage) : null;
}

/**
 * The languages a short query may be in, from its script alone (detection is unreliable on a few
 * words): every Latin lexicon language for Latin script. The full-text query is the union of
 * their stems; stems of the wrong language are mostly the words themselves, so they cost little.
 */
export function candidateLanguages(text: string, hint?: string | null): LexiconLanguage[] {
  const hinted = lexiconLanguage(hint);
  const script = mainScript(text);
  const byScript: LexiconLanguage[] = script === 'latin' ? [...LATIN] : script && SCRIPT_LANGUAGE[script] ? [SCRIPT_LANGUAGE[script]!] : [];
  if (hinted && !byScript.includes(hinted)) return byScript;
  return hinted ? [hinted, ...byScript.filter((l) => l !== hinted)] : byScript;
}
