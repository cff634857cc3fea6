import { candidateLanguages, detectLexiconLanguage, LEXICONS, lexiconLanguage, type LexiconLanguage } from './languages';
import { stem, tokens } from './stemmer';
import { englishSynonyms } from './wordnet';

/*
 * What the knowledge service's full-text side needs from the lexicon: per document chunk, the
 * PostgreSQL configuration to index it with and the stems PostgreSQL cannot make itself; per
 * query, the configurations and texts to turn into lexemes, with English synonyms added.
 */

interface NlpStopwords {
  dictionary: Record<string, unknown>;
}
const stopwordSets = new Map<LexiconLanguage, Set<string>>();

/** Arabic letters folded as search engines do (no vowel marks or tatweel, one alef, ه for ة, ي for ى). */
export function foldArabic(word: string): string {
  return word
    .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
    .replace(/[أإآ]/g, 'ا')
    .replace(/ة/g, 'ه')
    .replace(/ى/g, 'ي');
}

/**
 * The stop words of a language: @nlpjs/lang-*'s list where it ships one (English, Indonesian,
 * Malay, Japanese), else the stopwords-iso collection's (Filipino, Hindi, Arabic; Tamil has
 * neither). Arabic entries are also kept folded (`foldArabic`).
 */
export function stopwordsOf(lang: LexiconLanguage): ReadonlySet<string> {
  let set = stopwordSets.get(lang);
  if (!set) {
    const spec = LEXICONS[lang].stopwords;
    let words: string[] = [];
    if (spec) {
      const mod = require(spec.module) as Record<string, new () => NlpStopwords> | (new () => NlpStopwords);
      words = Object.keys(new (typeof mod === 'function' ? mod : mod[spec.className])().dictionary);
    }
    if (words.length === 0) words = (require('stopwords-iso') as Record<string, string[] | undefined>)[lang] ?? [];
    set = new Set(words.map((w) => w.normalize('NFKC').toLowerCase()));
    if (lang === 'ar') for (const w of [...set]) set.add(foldArabic(w));
    stopwordSets.set(lang, set);
  }
  return set;
}

/**
 * Tagalog's linker (pang-angkop) joins a modifier to the word it modifies and is written on the
 * first word: "-ng" after a vowel ("ano" → "anong", "ba" → "bang"), "-g" after n ("ilan" →
 * "ilang", "nasaan" → "nasaang"), a separate "na" otherwise. The word without it is the word.
 */
function withoutTagalogLinker(word: string): string[] {
  if (!word.endsWith('ng')) return [];
  const out: string[] = [];
  const vowelFinal = word.slice(0, -2);
  if (vowelFinal.length >= 2 && /[aeiou]$/.test(vowelFinal)) out.push(vowelFinal);
  const nFinal = word.slice(0, -1);
  if (nFinal.length >= 3) out.push(nFinal);
  return out;
}

/**
 * Whether a lower-cased word of `lang` carries a modifier's linker, so that it qualifies the word
 * right after it: in Filipino a word of five letters or more ending in a vowel and "-ng"
 * ("bakanteng trabaho", vacant job; "libreng pagpapadala", free delivery). The spelling is
 * ambiguous (a word may end in "-ng" of itself: "dumating"), but a word followed straight by the
 * word it would qualify, with no marker (ang, ng, sa) between, is mostly a linked one.
 */
export function carriesLinker(word: string, lang: LexiconLanguage): boolean {
  return lang === 'tl' && word.length >= 5 && /[aeiou]ng$/.test(word);
}

/**
 * Whether a lower-cased word is a stop word of `lang`; in Filipino also a stop word carrying the
 * linker ("Ilang araw …?" is "ilan" (how many) + "-g": a question word, not a topic).
 */
export function isStopword(word: string, lang: LexiconLanguage): boolean {
  const set = stopwordsOf(lang);
  if (set.has(word)) return true;
  return lang === 'tl' && withoutTagalogLinker(word).some((w) => set.has(w));
}

/** Stems of the content words of a text in `lang` (stop words of the language left out). */
export function contentStems(text: string, lang: LexiconLanguage): string[] {
  const out = new Set<string>();
  for (const w of tokens(text, lang)) if (!isStopword(w, lang)) out.add(stem(w, lang));
  return [...out];
}

export interface DocumentLexemes {
  /** The detected lexicon language, or null (indexed as before: 'simple' words and bigrams). */
  language: LexiconLanguage | null;
  /** PostgreSQL text-search configuration to index the text with ('simple' when it has none). */
  pgConfig: string;
  /** Space-separated stems PostgreSQL cannot make (languages without a configuration), for to_tsvector('simple', …). */
  extra: string;
}

/** How to index a chunk: its language (given, or detected from its text) and what that language gets. */
export function documentLexemes(text: string, language?: string | null): DocumentLexemes {
  const given = lexiconLanguage(language);
  const lang = (given && candidateLanguages(text, given)[0] === given ? given : null) ?? detectLexiconLanguage(text);
  if (!lang) return { language: null, pgConfig: 'simple', extra: '' };
  const pgConfig = LEXICONS[lang].pgConfig;
  return { language: lang, pgConfig: pgConfig ?? 'simple', extra: pgConfig ? '' : contentStems(text, lang).join(' ') };
}

export interface QueryLexemes {
  /** (configuration, text) pairs to run through to_tsvector: their lexemes, together, are the query's. */
  pg: { config: string; text: string }[];
  /** Stems made here for the languages PostgreSQL has no configuration for. */
  extra: string[];
  /** The English synonyms added (for logs and tests). */
  synonyms: string[];
}

/**
 * The full-text side of a query: the words as written ('simple'), the stems of every language
 * the query may be in (by its script, or `language` when given), and for English the WordNet
 * synonyms of its content words.
 */
export function queryLexemes(text: string, language?: string | null): QueryLexemes {
  const langs = candidateLanguages(text, language);
  const pg: { config: string; text: string }[] = [{ config: 'simple', text }];
  const extra = new Set<string>();
  const synonyms = new Set<string>();
  for (const lang of langs) {
    const { pgConfig } = LEXICONS[lang];
    let t = text;
    if (LEXICONS[lang].synonyms) {
      for (const w of tokens(text, lang)) if (!isStopword(w, lang)) for (const s of englishSynonyms(w)) synonyms.add(s);
      if (synonyms.size) t = `${text} ${[...synonyms].join(' ')}`;
    }
    if (pgConfig) pg.push({ config: pgConfig, text: t });
    else for (const s of contentStems(t, lang)) extra.add(s);
  }
  // A stop word of any of the candidate languages is no topic ("where" for the Malay stemmer).
  return { pg, extra: [...extra].filter((w) => !langs.some((l) => isStopword(w, l))), synonyms: [...synonyms] };
}
