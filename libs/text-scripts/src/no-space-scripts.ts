/**
 * Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, CJK ideographs,
 * Hangul syllables, half-width katakana, CJK extensions B-G): PostgreSQL's 'simple' text-search
 * parser keeps a whole run of them as one "word", so full-text search also indexes their character
 * bigrams. The chat service (chat.messages.tsv, GET /conversations' `q`) and the knowledge service
 * (knowledge.chunks.tsv, retrieval) both use this one list, in TypeScript and in the SQL function
 * their migrations create (scriptBigramsFunctionSql).
 *
 * Changing a range changes what existing rows were indexed with: it needs a migration in each
 * service that replaces its script_bigrams function and rewrites its tsv column.
 */
export const NO_SPACE_SCRIPT_RANGES: readonly (readonly [number, number])[] = [
  [0x0e00, 0x0eff], // Thai, Lao
  [0x1000, 0x109f], // Myanmar
  [0x1780, 0x17ff], // Khmer
  [0x3040, 0x30ff], // Hiragana, Katakana
  [0x31f0, 0x31ff], // Katakana phonetic extensions
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xac00, 0xd7af], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xff66, 0xff9f], // half-width katakana
  [0x20000, 0x3ffff], // CJK extensions B-G (planes 2 and 3)
];

const jsEscape = (cp: number) => `\\u{${cp.toString(16)}}`;

/** A character class of the ranges (`u` flag). */
const CLASS = `[${NO_SPACE_SCRIPT_RANGES.map(([a, b]) => `${jsEscape(a)}-${jsEscape(b)}`).join('')}]`;

/** A run of characters of the no-space scripts (global: use with matchAll). */
const NO_SPACE_RUN = new RegExp(`${CLASS}+`, 'gu');
const NO_SPACE_CHAR = new RegExp(CLASS, 'u');

/** Whether `text` has a character of a script written without spaces. */
export function hasNoSpaceScript(text: string): boolean {
  return NO_SPACE_CHAR.test(text);
}

/**
 * Character bigrams of the no-space-script runs of `text`, in order (a run of one: that
 * character). Code points, not UTF-16 units. The same as the SQL function of
 * scriptBigramsFunctionSql, whose output is these joined by spaces.
 */
export function scriptBigrams(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(NO_SPACE_RUN)) {
    const chars = Array.from(m[0]);
    if (chars.length === 1) out.push(chars[0]);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  }
  return out;
}

/** A code point in a PostgreSQL regular expression (ARE escapes). */
const sqlEscape = (cp: number) => (cp > 0xffff ? `\\U${cp.toString(16).toUpperCase().padStart(8, '0')}` : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`);

/**
 * `CREATE FUNCTION <schema>.script_bigrams(t text) RETURNS text`: the runs of `t` in the
 * no-space scripts -> their character bigrams (a run of one character -> that character),
 * separated by spaces, for a generated tsvector column. `schema` is a plain identifier.
 */
export function scriptBigramsFunctionSql(schema: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a plain schema name: ${schema}`);
  const ranges = NO_SPACE_SCRIPT_RANGES.map(([a, b]) => `${sqlEscape(a)}-${sqlEscape(b)}`).join('');
  return `
      CREATE FUNCTION ${schema}.script_bigrams(t text) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
        SELECT coalesce(string_agg(substr(r.m[1], i.i, 2), ' ' ORDER BY r.ord, i.i), '')
        FROM regexp_matches(t, '([${ranges}]+)', 'g') WITH ORDINALITY AS r(m, ord)
        CROSS JOIN LATERAL generate_series(1, greatest(char_length(r.m[1]) - 1, 1)) AS i(i)
      $fn$`;
}
