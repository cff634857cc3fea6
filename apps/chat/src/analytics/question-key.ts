/** Longest key stored (characters); chat.messages.question_key has the same bound. */
export const QUESTION_KEY_MAX = 200;

/** Apostrophes vanish ("what's" = "whats"); every other punctuation mark or symbol separates words. */
const APOSTROPHES = /['\u2018\u2019\u02BC\u0060\u00B4]/gu;
const PUNCTUATION_OR_SYMBOL = /[\p{P}\p{S}\p{Cc}\p{Cf}]+/gu;
const SPACES = /\s+/gu;

/**
 * The key that top questions group user messages by: NFKC (full-width and compatibility forms
 * folded), lower-case, punctuation and symbols removed, whitespace collapsed, at most
 * QUESTION_KEY_MAX characters (code points). "What is the price?", "what is the price" and
 * "What is the price ??" share one key. Null when nothing is left (a message of only
 * punctuation or emoji is not a question to rank).
 */
export function questionKey(text: string): string | null {
  const key = text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFKC')
    .replace(APOSTROPHES, '')
    .replace(PUNCTUATION_OR_SYMBOL, ' ')
    .replace(SPACES, ' ')
    .trim();
  if (!key) return null;
  const chars = Array.from(key);
  return chars.length <= QUESTION_KEY_MAX ? key : chars.slice(0, QUESTION_KEY_MAX).join('').trimEnd();
}
