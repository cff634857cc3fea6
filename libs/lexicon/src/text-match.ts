/**
 * TEXT_MATCH (docs/configuration.md): how the default retrieval and the extractive responder
 * compare words. `stems` (default, issue 33): stems in the languages the lexicon has (languages.ts)
 * and English synonyms from WordNet; `surface`: the words as written (the behaviour before issue
 * 33, kept for comparison and as a way back).
 */
export type TextMatch = 'stems' | 'surface';
export const TEXT_MATCH_VALUES: readonly TextMatch[] = ['stems', 'surface'];

/** Parses TEXT_MATCH; throws a readable error for other values. */
export function parseTextMatch(value: string | undefined): TextMatch {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return 'stems';
  if ((TEXT_MATCH_VALUES as readonly string[]).includes(v)) return v as TextMatch;
  throw new Error(`TEXT_MATCH must be one of ${TEXT_MATCH_VALUES.join(', ')} (got "${value}")`);
}

let processDefault: TextMatch | null = null;

/** The process's TEXT_MATCH, read once (services fail at start on a bad value by calling this at boot). */
export function textMatchFromEnv(): TextMatch {
  processDefault ??= parseTextMatch(process.env.TEXT_MATCH);
  return processDefault;
}
