import { queryLexemes, type QueryLexemes } from '@sa/lexicon';
import { scriptBigrams } from '@sa/text-scripts';

/**
 * The query side of the full-text ranking. Documents are indexed (migration
 * 1795300003000-create-knowledge-chunks) as the words of the 'simple' configuration plus the
 * character bigrams of runs of scripts written without spaces; a query is turned into the same
 * kinds of terms here and searched with OR semantics (a chat question shares only some of its
 * words with the passage that answers it), minus common function words.
 */

/** A word: letters (with their combining marks) and digits. */
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

export const MAX_QUERY_TERMS = 32;
/** With stems and synonyms a query has more terms (TEXT_MATCH=stems); the rarest this many are used. */
export const MAX_LEXEME_TERMS = 64;

/** Function words of the languages the defaults are used with most; dropped from OR queries. */
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who why will with would you your ' +
    'aber als am an auch auf aus bei bin bis das dass dem den der des die du ein eine einem einen einer es für hat ich ihr im in ist ja kann mein mit nicht noch nur oder sich sie sind so und uns von war was wie wir wo zu zum zur ' +
    'au aux avec ce ces dans de des du elle en est et il je la le les leur lui ma mais me mes mon ne nous on ou par pas pour qu que qui sa se ses son sur ta te tu un une vous ' +
    'al como con cual de del el en es esta este la las lo los mi no para pero por que se si su sus un una uno y yo ' +
    'che chi con da dei del della di e gli il la le lo nel non per si sono un una ' +
    'ao aos com da das de do dos e em na nas no nos o os para por que se um uma ' +
    'de een en het ik in is je met niet op te van voor wat'
  ).split(' '),
);

/**
 * Distinct lower-cased terms of a query: its words, and the bigrams of its no-space-script runs
 * (@sa/text-scripts: the same as knowledge.script_bigrams() of the index).
 * Function words are dropped unless nothing else is left. At most MAX_QUERY_TERMS.
 */
export function queryTerms(text: string): string[] {
  const words = Array.from(text.toLowerCase().matchAll(WORD), (m) => m[0]);
  const bigrams = scriptBigrams(text.toLowerCase());
  const all = [...new Set([...words, ...bigrams])];
  const content = all.filter((t) => !STOPWORDS.has(t));
  return (content.length ? content : all).slice(0, MAX_QUERY_TERMS);
}

/**
 * The terms as input for PostgreSQL's websearch_to_tsquery: each quoted (so no term is read as
 * an operator), joined by `or`. websearch_to_tsquery never raises a syntax error.
 */
export function websearchOrQuery(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, ' ')}"`).join(' or ');
}

/**
 * TEXT_MATCH=stems: what PostgreSQL should turn into the query's lexemes (the configurations of
 * the languages the query may be in, English synonyms added) and the stems made in Node for the
 * languages it has no configuration for (@sa/lexicon), plus the bigrams of no-space scripts.
 */
export function queryLexemeInputs(text: string): QueryLexemes {
  const q = queryLexemes(text);
  return { ...q, extra: [...q.extra, ...scriptBigrams(text.toLowerCase())] };
}

/** The lexemes of a query (from PostgreSQL and from Node), distinct, function words dropped unless nothing else is left. */
export function lexemeQuery(pgLexemes: readonly string[], extra: readonly string[]): string[] {
  const all = [...new Set([...pgLexemes, ...extra].map((t) => t.toLowerCase()).filter((t) => t.length > 0))];
  const content = all.filter((t) => !STOPWORDS.has(t));
  return content.length ? content : all;
}
