import { detectAfricanProfile, looksEnglish, malayOrIndonesian } from './language-profiles';

/**
 * Reply languages (spec part 4, POST /chat): the fifteen codes the spec names, plus plain
 * English for bots created without a locale.
 */
export const SUPPORTED_LANGUAGES = [
  'en',
  'en-IN',
  'ja-JP',
  'ko-KR',
  'zh-CN',
  'ms-MY',
  'id-ID',
  'th-TH',
  'vi-VN',
  'fil-PH',
  'ar-AE',
  'hi-IN',
  'ta-IN',
  'sw-KE',
  'ha-NG',
  'yo-NG',
] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

/** Detected base language (ISO 639-1, as tinyld reports it; Tagalog is `tl`) → our full code. */
const FULL_CODE: Record<string, SupportedLanguage> = {
  en: 'en',
  ja: 'ja-JP',
  ko: 'ko-KR',
  zh: 'zh-CN',
  ms: 'ms-MY',
  id: 'id-ID',
  th: 'th-TH',
  vi: 'vi-VN',
  tl: 'fil-PH',
  fil: 'fil-PH',
  ar: 'ar-AE',
  hi: 'hi-IN',
  ta: 'ta-IN',
  sw: 'sw-KE',
  ha: 'ha-NG',
  yo: 'yo-NG',
};

const ENGLISH_NAMES: Record<SupportedLanguage, string> = {
  en: 'English',
  'en-IN': 'English (India)',
  'ja-JP': 'Japanese',
  'ko-KR': 'Korean',
  'zh-CN': 'Simplified Chinese',
  'ms-MY': 'Malay',
  'id-ID': 'Indonesian',
  'th-TH': 'Thai',
  'vi-VN': 'Vietnamese',
  'fil-PH': 'Filipino',
  'ar-AE': 'Arabic',
  'hi-IN': 'Hindi',
  'ta-IN': 'Tamil',
  'sw-KE': 'Swahili',
  'ha-NG': 'Hausa',
  'yo-NG': 'Yoruba',
};

/** 'ja-JP' → 'ja', 'fil-PH' → 'fil', 'EN' → 'en'. */
export function baseLanguage(code: string): string {
  return code.trim().split(/[-_]/)[0].toLowerCase();
}

/** The supported code for a tag, matched case-insensitively ('JA-jp' → 'ja-JP'), or undefined. */
export function supportedLanguage(code: string): SupportedLanguage | undefined {
  const lower = code.trim().replace(/_/g, '-').toLowerCase();
  return SUPPORTED_LANGUAGES.find((l) => l.toLowerCase() === lower);
}

/** The language's English name for prompts: 'ja-JP' → 'Japanese'; other tags through Intl. */
export function languageName(code: string): string {
  const known = supportedLanguage(code) ?? FULL_CODE[baseLanguage(code)];
  if (known) return ENGLISH_NAMES[known];
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The full code for a base language, preferring the bot's own code when the bases agree (an
 * en-IN bot answers English in en-IN; a ms-MY bot never turns a Malay visitor into plain 'ms').
 */
function fullCodeFor(base: string, botLanguage: string): string | undefined {
  if (baseLanguage(botLanguage) === base && supportedLanguage(botLanguage)) return supportedLanguage(botLanguage);
  return FULL_CODE[base];
}

type Script = 'latin' | 'han' | 'kana' | 'hangul' | 'thai' | 'arabic' | 'devanagari' | 'tamil' | 'other';

const SCRIPTS: [Script, RegExp][] = [
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['han', /\p{Script=Han}/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['thai', /\p{Script=Thai}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['tamil', /\p{Script=Tamil}/u],
  ['latin', /\p{Script=Latin}/u],
];

/** Letters of the text by script (URLs, e-mail addresses and @handles removed first). */
function countScripts(text: string): Map<Script, number> {
  const cleaned = text.replace(/\bhttps?:\/\/\S+|\bwww\.\S+|\S+@\S+\.\S+|@\w+/giu, ' ');
  const counts = new Map<Script, number>();
  for (const ch of cleaned.match(/\p{L}/gu) ?? []) {
    const script = SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? 'other';
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return counts;
}

/** Scripts that name one of our languages outright; Han alone is Chinese unless tinyld says Japanese. */
const SCRIPT_LANGUAGE: Partial<Record<Script, string>> = { kana: 'ja', hangul: 'ko', thai: 'th', devanagari: 'hi', tamil: 'ta', arabic: 'ar' };

/** Below these sizes Latin-script text ("ok", "hi", "thanks") says nothing about its language. */
const MIN_LATIN_LETTERS = 8;
const MIN_LATIN_WORDS = 2;
/** Two characters of a script of its own ("你好", "สวัสดี") are already unambiguous. */
const MIN_SCRIPT_LETTERS = 2;
/** …and outweigh Latin letters in a mixed text from this share of all letters on. */
const OWN_SCRIPT_SHARE = 0.3;
/** tinyld's top guess must be this many times as likely as the runner-up… */
const MIN_MARGIN = 1.5;
/** …or have at least this accuracy on its own. */
const SURE_ACCURACY = 0.5;

/**
 * tinyld's answer when it is confident, else null. tinyld sometimes leans English by a thin
 * margin on plain English with figures ("The plan costs $29 per month, billed monthly."): a
 * lean towards English backed by English function words counts too.
 */
function tinyldConfident(text: string): string | null {
  // Loaded by the first turn that needs it rather than at start, where its profiles are a
  // tenth of the service's load time (docs/decisions/operations.md, "Start time").
  const { detectAll } = require('tinyld') as typeof import('tinyld');
  const [top, second] = detectAll(text);
  if (!top) return null;
  if (top.accuracy >= SURE_ACCURACY || !second || top.accuracy >= MIN_MARGIN * second.accuracy) return top.lang;
  if (top.lang === 'en' && looksEnglish(text)) return 'en';
  return null;
}

/**
 * The base language (ISO 639-1; `tl` for Filipino, as tinyld reports it) of the text, or null
 * when the text is too short or too ambiguous to tell. Any language tinyld knows may come back
 * (e.g. 'fr'); the caller decides what to do with one we do not reply in.
 */
export function detectLanguage(text: string, botLanguage = 'en'): string | null {
  const counts = countScripts(text);
  // Japanese mixes kana and kanji: count them together, as kana when there is any kana.
  if ((counts.get('kana') ?? 0) > 0 && counts.has('han')) {
    counts.set('kana', (counts.get('kana') ?? 0) + (counts.get('han') ?? 0));
    counts.delete('han');
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  let script: Script | undefined;
  let letters = 0;
  for (const [s, n] of counts) {
    if (n > letters) [script, letters] = [s, n];
  }
  if (!script) return null;
  // A script of its own wins over Latin when it has a fair share of the letters: brand names
  // and product words in Latin letters are common in Asian-language questions ("Premium plan の料金は？").
  if (script === 'latin') {
    const own = [...counts]
      .filter(([s, n]) => s !== 'latin' && s !== 'other' && n >= MIN_SCRIPT_LETTERS && n >= OWN_SCRIPT_SHARE * total)
      .sort((a, b) => b[1] - a[1])[0];
    if (own) [script, letters] = own;
  }

  if (script !== 'latin' && script !== 'other') {
    if (letters < MIN_SCRIPT_LETTERS) return null;
    if (script === 'han') return tinyldConfident(text) === 'ja' ? 'ja' : 'zh';
    if (script === 'arabic') {
      // Arabic script also writes Persian and Urdu; tinyld tells them apart when it is sure.
      const guess = tinyldConfident(text);
      return guess === 'fa' || guess === 'ur' ? guess : 'ar';
    }
    return SCRIPT_LANGUAGE[script] ?? null;
  }

  const wordCount = text.trim().split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
  if (letters < MIN_LATIN_LETTERS || (script === 'latin' && wordCount < MIN_LATIN_WORDS)) return null;

  const profile = script === 'latin' ? detectAfricanProfile(text) : null;
  if (profile) return profile;
  const guess = tinyldConfident(text);
  if (guess === 'id') {
    // tinyld has no Malay model and calls Malay Indonesian. Distinctive words decide; a tie goes
    // to the bot's language if it is one of the two, else to Indonesian (the larger audience).
    const which = malayOrIndonesian(text);
    if (which) return which;
    return baseLanguage(botLanguage) === 'ms' ? 'ms' : 'id';
  }
  return guess;
}

export interface ReplyLanguage {
  /** A full code such as 'ja-JP', or the bot's own language. */
  language: string;
  /** ISO 639-1 of the visitor's text when it could be identified (Filipino reads 'tl'), else null. */
  detected: string | null;
  source: 'requested' | 'detected' | 'bot';
}

/**
 * The language to reply in: the requested one when given (normalised to our spelling of a
 * supported code, or a bare base like 'ja' widened to 'ja-JP'; an unknown tag is kept as sent);
 * otherwise the language the visitor writes in when it is identified with confidence and we
 * reply in it; otherwise the bot's language. Detection always runs, so `detected` is filled
 * even when the request named a language.
 */
export function resolveReplyLanguage(input: { requested?: string; text: string; botLanguage: string }): ReplyLanguage {
  const { requested, text, botLanguage } = input;
  const detected = detectLanguage(text, botLanguage);
  if (requested && requested.trim()) {
    const normalised = supportedLanguage(requested) ?? (requested.includes('-') ? undefined : fullCodeFor(baseLanguage(requested), botLanguage));
    return { language: normalised ?? requested.trim(), detected, source: 'requested' };
  }
  const full = detected ? fullCodeFor(detected, botLanguage) : undefined;
  if (full) return { language: full, detected, source: 'detected' };
  return { language: botLanguage, detected, source: 'bot' };
}
