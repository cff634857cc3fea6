import { hasNoSpaceScript, scriptBigrams } from '@sa/text-scripts';

/**
 * How GET /conversations' `q` searches the messages of a session (chat.messages.tsv, migration
 * 1795300004000-create-chat):
 *
 * - words: PostgreSQL full text, `websearch_to_tsquery('simple', q)` (every word, "quoted
 *   phrases", `or`, `-word`), served by the GIN index;
 * - a query with characters of a script written without spaces (CJK, Thai …), a query shorter
 *   than MIN_FULL_TEXT_LENGTH characters, or one without any letter or digit: a case-insensitive
 *   substring match (ILIKE, `%` `_` `\` escaped). For CJK-like runs of two or more characters,
 *   their character bigrams (those of two letters, AND) pre-filter through the GIN index, since
 *   any text containing the run contains its bigrams; a single CJK character only scans.
 */

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Two letters: a bigram the text-search parser always keeps as a lexeme (no combining marks). */
const TWO_LETTERS = /^\p{L}\p{L}$/u;

/** Shorter queries (code points) match as substrings: "pr" finds "price". */
export const MIN_FULL_TEXT_LENGTH = 3;
/** At most this many bigrams pre-filter a substring search (the ILIKE decides anyway). */
export const MAX_PREFILTER_BIGRAMS = 32;

export type SearchPlan =
  /** `tsv @@ websearch_to_tsquery('simple', text)` */
  | { kind: 'fulltext'; text: string }
  /** `content ILIKE pattern` and, when `prefilter` is not null, `tsv @@ to_tsquery('simple', prefilter)` */
  | { kind: 'substring'; pattern: string; prefilter: string | null };

/** `text` as an ILIKE pattern matching it anywhere, with the wildcards and the escape character escaped. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A to_tsquery lexeme, quoted. */
function lexeme(term: string): string {
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** Null for an empty (or blank) query: no filter. */
export function searchPlan(q: string | undefined | null): SearchPlan | null {
  const text = (q ?? '').trim();
  if (!text) return null;
  // Scripts written without spaces: @sa/text-scripts, whose bigrams chat.script_bigrams() indexes.
  if (!hasNoSpaceScript(text) && Array.from(text).length >= MIN_FULL_TEXT_LENGTH && LETTER_OR_DIGIT.test(text)) return { kind: 'fulltext', text };
  // A run of one character gives that character, which is no bigram: not a pre-filter.
  const bigrams = new Set(scriptBigrams(text).filter((b) => TWO_LETTERS.test(b)));
  const prefilter = [...bigrams].slice(0, MAX_PREFILTER_BIGRAMS).map(lexeme).join(' & ');
  return { kind: 'substring', pattern: containsPattern(text), prefilter: prefilter || null };
}
