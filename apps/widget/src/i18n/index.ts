// The widget's languages: which one a visitor gets, its texts, and its direction.
// Plain objects and a few functions, no dependencies: the Vite build and jest both use it as is.
import { arAE } from './ar-AE';
import { en } from './en';
import { filPH } from './fil-PH';
import { haNG } from './ha-NG';
import { hiIN } from './hi-IN';
import { idID } from './id-ID';
import { jaJP } from './ja-JP';
import { koKR } from './ko-KR';
import type { Messages } from './messages';
import { msMY } from './ms-MY';
import { swKE } from './sw-KE';
import { taIN } from './ta-IN';
import { thTH } from './th-TH';
import { viVN } from './vi-VN';
import { yoNG } from './yo-NG';
import { zhCN } from './zh-CN';

export { MESSAGE_KEYS } from './messages';
export type { MessageKey, Messages } from './messages';

const TABLE = {
  en,
  'en-IN': en,
  'ja-JP': jaJP,
  'ko-KR': koKR,
  'zh-CN': zhCN,
  'ms-MY': msMY,
  'id-ID': idID,
  'th-TH': thTH,
  'vi-VN': viVN,
  'fil-PH': filPH,
  'ar-AE': arAE,
  'hi-IN': hiIN,
  'ta-IN': taIN,
  'sw-KE': swKE,
  'ha-NG': haNG,
  'yo-NG': yoNG,
} satisfies Record<string, Messages>;

export type LanguageCode = keyof typeof TABLE;

/** The codes the widget speaks; `en` first (the fallback). */
export const LANGUAGES = Object.keys(TABLE) as LanguageCode[];

/** Old or alternative primary subtags that mean one of ours. */
const ALIASES: Record<string, string> = { tl: 'fil', in: 'id' };

const primary = (tag: string): string => {
  const p = tag.split('-')[0];
  return ALIASES[p] ?? p;
};

// Tags as browsers and page authors write them: `ja_JP`, ` AR `, `zh-Hant-TW`.
const normalise = (tag: string): string => tag.trim().replace(/_/g, '-').toLowerCase();

function matchOne(tag: string | undefined): LanguageCode | undefined {
  if (!tag) return undefined;
  const wanted = normalise(tag);
  if (!wanted) return undefined;
  const exact = LANGUAGES.find((code) => code.toLowerCase() === wanted);
  if (exact) return exact;
  // By primary subtag: the first code of that language (`en` for any English but en-IN).
  const p = primary(wanted);
  return LANGUAGES.find((code) => primary(code.toLowerCase()) === p);
}

/**
 * The language to use: the page's `data-language` when we speak it (exactly, else by its primary
 * subtag: `ar` → `ar-AE`), else the first of the browser's languages we speak, else `en`.
 */
export function matchLanguage(requested: string | undefined, browser: readonly string[]): LanguageCode {
  for (const tag of [requested, ...browser]) {
    const code = matchOne(tag);
    if (code) return code;
  }
  return 'en';
}

/** The texts of a language code (any case or a near tag works; unknown → English). */
export function messagesFor(code: string): Messages {
  return TABLE[matchLanguage(code, [])];
}

/** Whether the language is written right to left (the panel gets `dir="rtl"`). */
export function isRtl(code: string): boolean {
  return primary(normalise(code)) === 'ar';
}

/** Fills `{name}` placeholders; a placeholder without a value is left as it is. */
export function format(text: string, vars: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}
