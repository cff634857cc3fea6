import type { PassageView } from '@sa/contracts';
import { carriesLinker, detectLexiconLanguage, isStopword, lexiconLanguage, textMatchFromEnv, type LexiconLanguage, type TextMatch } from '@sa/lexicon';
import { baseLanguage, detectLanguage } from './language';
import { answerTypesIn, expectedAnswerType, isAnswerType } from './answer-types';
import { phrase } from './phrases';
import { isQuestion, matchedTerms, splitSentences, stripLabel, TermLexicon, termsOf, termStrength, wordSequence } from './text-terms';

/*
 * The default responder, used when no chat model is configured: it answers with the knowledge
 * base's own sentences. It only works within a language (the question and the passages must
 * share words or, in Chinese and Japanese, character pairs); a question in one language over a
 * knowledge base in another gets the "nothing found" reply. Lexical matching cannot tell the
 * topic word from the rest either: "Do you sell pizza?" over "We sell gift cards" matches half
 * the question and counts as relevant. A chat model (CHAT_MODEL_PROVIDER) does better on both.
 */

/** The default responder's reply. */
export interface ExtractiveAnswer {
  /** False when no passage matched the question well enough; the reply then says so. */
  relevant: boolean;
  /** The reply in small pieces (about 20 characters, cut between words), ready to stream. */
  chunks: AsyncIterable<string>;
  /** The source URLs of the passages the reply quotes (text documents have none); empty when not relevant. */
  sources: string[];
  /** The whole reply, as the chunks spell it. */
  text: string;
}

/** TEXT_MATCH, read when the chat service loads this module: a bad value stops it at start. */
const TEXT_MATCH = textMatchFromEnv();

/** Only the best few passages are read: retrieval already ranked them. */
const MAX_PASSAGES = 5;
const MAX_SENTENCES = 4;
const MAX_CHARS = 600;
/** A passage is relevant when it (with its title) contains at least this share of the question's terms. */
const MIN_COVERAGE = 0.5;
/**
 * TEXT_MATCH=stems: a passage is relevant when it contains at least this share of the question's
 * content terms weighted by their rarity among the retrieved passages (`termWeights`).
 */
const MIN_WEIGHTED_COVERAGE = 0.35;
/**
 * TEXT_MATCH=surface: each rank down costs a passage this share of its coverage, so that the top
 * passage wins near-ties of the unweighted share of terms. With stems the weighted coverage is the
 * evidence and the retrieval rank only breaks exact ties (`rankPenalty`).
 */
const RANK_PENALTY = 0.1;
/**
 * TEXT_MATCH=stems: a passage whose title says what the question asks about is the likelier
 * answer; the title's coverage adds this share to its weight (it decides between passages, not
 * whether one is relevant).
 */
const TITLE_BONUS = 0.15;
/**
 * TEXT_MATCH=stems, English: the answer type a question asks for (answer-types.ts) weighs this
 * share of a word of the same rarity. A value of the asked type is evidence, but less than a
 * topic word: "Where is the airport?" over a page that quotes a street address stays unanswered.
 * The paraphrase bench and a list of unrelated typed questions (extractive-responder.spec.ts)
 * chose it: at 1 the bench answers one English case more, and two more of the unrelated questions
 * (11 of 29, against 10 before answer types and 9 at 0.75); at 0.5 three answers are lost.
 */
const ANSWER_TYPE_WEIGHT = 0.75;
/**
 * TEXT_MATCH=stems, Filipino: the head of a linked phrase counts this share of itself in a passage
 * that lacks the phrase's modifier (`linkedPhrases`).
 */
const LINKED_HEAD_ALONE = 0.5;
/** Other sentences join the best one when they score at least this share of it. */
const COMPANION_SHARE = 0.5;
/** A sentence from another passage joins when it scores this share and adds a missing term. */
const SECOND_PASSAGE_SHARE = 0.75;
/** Replies longer than this (or of several sentences) get the lead-in phrase. */
const LEAD_IN_MIN_CHARS = 160;
const CHUNK_CHARS = 20;

interface Sentence {
  text: string;
  terms: string[];
  score: number;
}

interface ScoredPassage {
  passage: PassageView;
  rank: number;
  sentences: Sentence[];
  coverage: number;
  /** The share of the question (weighted) that the passage's title alone covers. */
  titleCoverage: number;
}

/**
 * How much each question term tells passages apart (TEXT_MATCH=stems): an inverse document
 * frequency over the retrieved passages, ln((N + 1) / (df + 0.5)), where df counts the passages
 * (with their titles) that contain the term, its stem or (English) a synonym. A term every passage
 * has ("shop" in a shop's knowledge base) weighs little; a term no passage has weighs most, so a
 * question about something the passages never mention stays below the bar. An answer type's term
 * weighs ANSWER_TYPE_WEIGHT of that. Surface mode weighs every term 1, as before.
 */
function termWeights(question: readonly string[], passages: readonly PassageView[], lexicon: TermLexicon | null, typed: boolean): number[] {
  if (!lexicon) return question.map(() => 1);
  const texts = passages.map((p) => termsIn(`${p.title ?? ''}\n${p.text}`, true, typed));
  return question.map((q) => {
    const df = texts.filter((terms) => matchedTerms([q], terms, lexicon).length > 0).length;
    return Math.log((passages.length + 1) / (df + 0.5)) * (isAnswerType(q) ? ANSWER_TYPE_WEIGHT : 1);
  });
}

/**
 * Filipino (TEXT_MATCH=stems): the question's modifier–head phrases, as [modifier, head] indices
 * into its terms: a content word carrying the linker right before another ("bakanteng trabaho",
 * vacant job). A passage that has the head but not the modifier ("araw ng trabaho", working days)
 * does not say what the phrase says: the head then counts half (`weightedCoverage`).
 */
function linkedPhrases(question: string, terms: readonly string[], lang: LexiconLanguage | null): [number, number][] {
  if (lang !== 'tl') return [];
  const words = wordSequence(question);
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    if (!carriesLinker(words[i], lang)) continue;
    const modifier = terms.indexOf(words[i]);
    const head = terms.indexOf(words[i + 1]);
    if (modifier >= 0 && head >= 0) pairs.push([modifier, head]);
  }
  return pairs;
}

/**
 * The weighted share of the question's terms that the candidate terms contain; the head of a
 * linked phrase whose modifier the candidate lacks counts half (`linkedPhrases`).
 */
function weightedCoverage(question: readonly string[], weights: readonly number[], candidate: readonly string[], lexicon: TermLexicon | null, phrases: readonly [number, number][] = []): number {
  const strengths = question.map((q) => termStrength(q, candidate, lexicon));
  for (const [modifier, head] of phrases) if (strengths[modifier] === 0) strengths[head] *= LINKED_HEAD_ALONE;
  let total = 0;
  let got = 0;
  question.forEach((_, i) => {
    total += weights[i];
    got += weights[i] * strengths[i];
  });
  return total > 0 ? got / total : 0;
}

/** A text's terms, and (`typed`: the question asks for a type of value) the answer types it holds values of. */
function termsIn(text: string, stems: boolean, typed: boolean): string[] {
  const terms = termsOf(text, stems);
  return typed ? [...terms, ...answerTypesIn(text)] : terms;
}

function score(question: string[], weights: number[], passage: PassageView, rank: number, lexicon: TermLexicon | null, typed: boolean, phrases: [number, number][]): ScoredPassage {
  const sentences = splitSentences(passage.text).map((text) => {
    const terms = termsIn(text, !!lexicon, typed);
    return { text, terms, score: weightedCoverage(question, weights, terms, lexicon, phrases) };
  });
  const title = termsIn(passage.title ?? '', !!lexicon, typed);
  const all = [...sentences.flatMap((s) => s.terms), ...title];
  return { passage, rank, sentences, coverage: weightedCoverage(question, weights, all, lexicon, phrases), titleCoverage: lexicon ? weightedCoverage(question, weights, title, lexicon, phrases) : 0 };
}

/** Indices of the sentences that answer the question, in passage order. */
function pickSentences(p: ScoredPassage): number[] {
  const s = p.sentences;
  if (s.length === 0) return [];
  let best = 0;
  s.forEach((x, i) => {
    if (x.score > s[best].score) best = i;
  });
  // Matched on the title only: the passage is about the question, so its opening answers it.
  if (s[best].score === 0) return s.map((_, i) => i).filter((i) => !isQuestion(s[i].text)).slice(0, 2);
  // An FAQ's question matched: its answer is what follows, up to the next question.
  if (isQuestion(s[best].text)) {
    const after: number[] = [];
    for (let i = best + 1; i < s.length && !isQuestion(s[i].text) && after.length < MAX_SENTENCES; i++) after.push(i);
    if (after.length) return after;
  }
  const picked = new Set([best]);
  s.forEach((x, i) => {
    if (i !== best && !isQuestion(x.text) && x.score >= COMPANION_SHARE * s[best].score) picked.add(i);
  });
  // A lone short sentence usually continues in the next one ("It includes …").
  const next = s[best + 1];
  if (picked.size === 1 && next && !isQuestion(next.text) && s[best].text.length < LEAD_IN_MIN_CHARS) picked.add(best + 1);
  // The best sentence first, then by score, within the limits; printed in passage order.
  const byPriority = [...picked].sort((a, b) => (a === best ? -1 : b === best ? 1 : s[b].score - s[a].score || a - b));
  return byPriority.slice(0, MAX_SENTENCES).sort((a, b) => a - b);
}

/** Joins sentences: no space after CJK full stops, one space otherwise. */
function join(sentences: string[]): string {
  return sentences.reduce((acc, s) => (acc === '' ? s : /[。！？]$/u.test(acc) ? acc + s : `${acc} ${s}`), '');
}

interface Quote {
  text: string;
  from: ScoredPassage;
}

/** Whole sentences up to MAX_CHARS; a first sentence longer than that is cut with an ellipsis. */
function fit(quotes: Quote[]): Quote[] {
  const out: Quote[] = [];
  let length = 0;
  for (const q of quotes) {
    if (out.length >= MAX_SENTENCES) break;
    if (out.length === 0 && q.text.length > MAX_CHARS) return [{ ...q, text: `${[...q.text].slice(0, MAX_CHARS - 1).join('').trimEnd()}…` }];
    if (length + q.text.length > MAX_CHARS) break;
    out.push(q);
    length += q.text.length + 1;
  }
  return out;
}

/** The reply in ~20-character pieces cut at word boundaries (Intl.Segmenter also breaks CJK and Thai words). */
export function toChunks(text: string, size = CHUNK_CHARS): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'word' }).segment(text)) {
    current += segment;
    if (current.length >= size) {
      pieces.push(current);
      current = '';
    }
  }
  if (current) pieces.push(current);
  return pieces;
}

async function* stream(pieces: string[]): AsyncIterable<string> {
  for (const p of pieces) yield p;
}

function answer(text: string, relevant: boolean, sources: string[]): ExtractiveAnswer {
  return { relevant, text, sources, chunks: stream(toChunks(text)) };
}

/** Whether the reply's text is confidently in another language than the reply language (Filipino reads 'tl'). */
function otherLanguage(text: string, language: string): boolean {
  const detected = detectLanguage(text, language);
  const reply = baseLanguage(language) === 'fil' ? 'tl' : baseLanguage(language);
  return detected !== null && detected !== reply;
}

/**
 * Answers from the passages (ranked best first): the sentences of the best-matching passage that
 * share the most terms with the question, plus one from another passage when it adds something.
 * When nothing matches at least half of the question's topic terms, the reply is the
 * "nothing found" phrase in the reply language and `relevant` is false.
 */
export function extractiveAnswer(input: { question: string; passages: readonly PassageView[]; language: string; fallbackReply?: string | null; textMatch?: TextMatch }): ExtractiveAnswer {
  const { question, passages, language } = input;
  // TEXT_MATCH=stems (default): stems of the reply language (or the question's), English synonyms.
  const lexiconLang = (input.textMatch ?? TEXT_MATCH) === 'stems' ? (lexiconLanguage(language) ?? detectLexiconLanguage(question)) : null;
  const lexicon = lexiconLang ? new TermLexicon(lexiconLang) : null;
  // With a lexicon, the language's own stop words go too (@sa/lexicon: @nlpjs/lang-*, stopwords-iso).
  const allTerms = termsOf(question, !!lexicon);
  const content = lexiconLang ? allTerms.filter((t) => !isStopword(t, lexiconLang)) : allTerms;
  const words = content.length ? content : allTerms;
  const notFound = () => answer(input.fallbackReply || phrase('noKnowledge', language), false, []);
  if (words.length === 0 || passages.length === 0) return notFound();
  // English, with stems: the type of value the question asks for is one more term (answer-types.ts).
  const type = lexiconLang === 'en' ? expectedAnswerType(question) : null;
  const terms = type ? [...words, type] : words;

  const ranked = [...passages].sort((a, b) => b.score - a.score).slice(0, MAX_PASSAGES);
  const weights = termWeights(terms, ranked, lexicon, !!type);
  const phrases = linkedPhrases(question, terms, lexiconLang);
  const scored = ranked.map((p, rank) => score(terms, weights, p, rank, lexicon, !!type, phrases));
  // With stems, retrieval rank only breaks ties (the earlier passage is kept on equal weight): the
  // fused rank measures the same word overlap less exactly (character n-grams, ts_rank_cd without
  // idf), so it must not outweigh the weighted coverage. "आपकी दुकानें कहाँ पर हैं?" (where are your
  // shops) covers "shop" in three passages alike; the one titled "shop's address" is the answer,
  // even when ranked fourth.
  const rankPenalty = lexicon ? 0 : RANK_PENALTY;
  const weight = (p: ScoredPassage) => p.coverage * (1 - rankPenalty * p.rank) + TITLE_BONUS * p.titleCoverage;
  const main = scored.reduce((a, b) => (weight(b) > weight(a) ? b : a));
  if (main.coverage < (lexicon ? MIN_WEIGHTED_COVERAGE : MIN_COVERAGE)) return notFound();

  const picked = pickSentences(main);
  if (picked.length === 0) return notFound();
  const quotes = picked.map((i) => ({ text: stripLabel(main.sentences[i].text), from: main }));

  // One sentence from another passage when it is nearly as good and covers a term the main one missed.
  // (The main passage's best sentence may be an FAQ question that is not quoted: it still counts.)
  const best = main.sentences.reduce((a, b) => (b.score > a.score ? b : a));
  const covered = matchedTerms(terms, [...best.terms, ...picked.flatMap((i) => main.sentences[i].terms)], lexicon);
  for (const other of scored) {
    if (other === main) continue;
    const candidate = other.sentences
      .filter((s) => !isQuestion(s.text) && s.score > 0 && s.score >= SECOND_PASSAGE_SHARE * best.score)
      .find((s) => matchedTerms(terms, s.terms, lexicon).some((t) => !covered.includes(t)));
    if (candidate) {
      quotes.push({ text: stripLabel(candidate.text), from: other });
      break;
    }
  }

  const kept = fit(quotes);
  const body = join(kept.map((q) => q.text));
  const withLeadIn = (kept.length > 1 && body.length >= LEAD_IN_MIN_CHARS) || otherLanguage(body, language);
  const text = withLeadIn ? `${phrase('leadIn', language)}\n${body}` : body;
  const sources = [...new Set(kept.map((q) => q.from.passage.source_url).filter((s): s is string => !!s))];
  return answer(text, true, sources);
}
