'use strict';
// Issue 33 items 4 and 5: the paraphrase fixture set (bench/fixtures/paraphrases) through the
// default retrieval and the extractive responder, compiled in dist/, against a PostgreSQL
// database the caller created and migrated. Shared by bench/paraphrases.bench.js and the
// integration test apps/knowledge/src/retrieval/paraphrases.int-spec.ts.
//
// Every passage is written through PostgresVectorStore (the real write path: vector, `tsv`,
// `lex`) as a document of its language's workspace (one bot's knowledge base per language, as a
// bot answers in one language), embedded with the hashing embedder. Every case is then
// asked twice, with TEXT_MATCH=surface (the default before issue 33: 'simple' words, no stems or
// synonyms) and TEXT_MATCH=stems (the new default), in the same run:
//   search   PostgresVectorStore.search, k = 5 (CHAT_PASSAGES' default), hybrid ranking;
//   answer   the chat service's extractiveAnswer over those passages, in the case's language.
// An answerable case is answered when the reply is relevant and quotes its passage first (the
// passage's source URL leads `sources`); an unanswerable one is flagged when the reply is not
// relevant (the "nothing found" reply).
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'paraphrases');
const K = 5;
const MODES = ['surface', 'stems'];

function readJsonl(file) {
  return fs
    .readFileSync(path.join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function loadFixtures() {
  const passages = readJsonl('passages.jsonl');
  const cases = readJsonl('cases.jsonl').map((c) => ({ ...c, passage: c.expect === 'facts' ? /^passage:(\S+)/.exec(c.note)[1] : null }));
  return { passages, cases };
}

function modules(dist) {
  require('reflect-metadata'); // the compiled libs use decorators
  const js = (...p) => require(path.join(dist, ...p));
  return {
    PostgresVectorStore: js('apps', 'knowledge', 'src', 'vector-store', 'postgres-vector-store.js').PostgresVectorStore,
    HashingEmbeddings: js('apps', 'knowledge', 'src', 'embeddings', 'hashing-embeddings.js').HashingEmbeddings,
    extractiveAnswer: js('apps', 'chat', 'src', 'answer', 'extractive-responder.js').extractiveAnswer,
    termsOf: js('apps', 'chat', 'src', 'answer', 'text-terms.js').termsOf,
    lexicon: js('libs', 'lexicon', 'src', 'index.js'),
  };
}

/**
 * Whether a question shares a content word with its passage at the surface: the same word form
 * (the responder's terms: words, and character pairs of Chinese and Japanese), not a stop word
 * of the language (@sa/lexicon's lists, and the responder's own). Another inflection or
 * derivation of the same stem, or a synonym, is a different word.
 */
function sharesContentWord(m, question, passage, language) {
  const lang = m.lexicon.lexiconLanguage(language);
  const content = (t) => !lang || !m.lexicon.isStopword(t, lang);
  const words = new Set(m.termsOf(passage).filter(content));
  return m.termsOf(question).filter(content).some((t) => words.has(t));
}

const sourceOf = (id) => `https://fixtures.invalid/paraphrases/${id}`;

/**
 * Runs the fixture set. Resolves to { languages: { [lang]: { answerable, unanswerable, noSharedWord,
 * [mode]: { answered, retrieved, flagged } } }, failures: { [mode]: [...] }, timings }.
 */
async function evaluate({ dist, pool, log = () => undefined }) {
  const m = modules(dist);
  const { passages, cases } = loadFixtures();
  const embedder = new m.HashingEmbeddings();
  const tenantOf = new Map();
  for (const p of passages) if (!tenantOf.has(p.language)) tenantOf.set(p.language, randomUUID());
  const docOf = new Map(passages.map((p) => [p.id, randomUUID()]));
  const writer = new m.PostgresVectorStore(pool);
  const t0 = Date.now();
  await writer.upsert(
    passages.map((p) => ({
      tenantId: tenantOf.get(p.language),
      documentId: docOf.get(p.id),
      chatbotId: null,
      ordinal: 0,
      text: p.text,
      title: p.title,
      sourceUrl: sourceOf(p.id),
      embedder: embedder.id,
      vector: embedder.embedSync(`${p.title}\n${p.text}`),
    })),
  );
  await pool.query('ANALYZE knowledge.chunks');
  log(`${passages.length} passages written in ${Date.now() - t0} ms; ${cases.length} cases`);

  const byId = new Map(passages.map((p) => [p.id, p]));
  const languages = {};
  const failures = { surface: [], stems: [] };
  const timings = {};
  for (const c of cases) {
    const l = (languages[c.language] ??= { answerable: 0, unanswerable: 0, noSharedWord: 0, surface: { answered: 0, retrieved: 0, flagged: 0 }, stems: { answered: 0, retrieved: 0, flagged: 0 } });
    if (c.passage) {
      l.answerable++;
      const p = byId.get(c.passage);
      if (!sharesContentWord(m, c.question, `${p.title} ${p.text}`, c.language)) l.noSharedWord++;
    } else l.unanswerable++;
  }
  for (const mode of MODES) {
    const store = new m.PostgresVectorStore(pool, { textMatch: mode });
    const started = Date.now();
    for (const c of cases) {
      const hits = await store.search({ tenantId: tenantOf.get(c.language), chatbotId: null, embedder: embedder.id, vector: embedder.embedSync(c.question), text: c.question, k: K });
      const views = hits.map((h) => ({ text: h.text, score: h.score, document_id: h.documentId, title: h.title, source_url: h.sourceUrl, chunk_id: h.chunkId }));
      const answer = m.extractiveAnswer({ question: c.question, passages: views, language: c.language, textMatch: mode });
      const r = languages[c.language][mode];
      if (c.passage) {
        const retrieved = views.some((v) => v.source_url === sourceOf(c.passage));
        const answered = answer.relevant && answer.sources[0] === sourceOf(c.passage);
        if (retrieved) r.retrieved++;
        if (answered) r.answered++;
        else failures[mode].push({ question: c.question, language: c.language, passage: c.passage, retrieved, relevant: answer.relevant, quoted: answer.sources[0] ?? null });
      } else if (!answer.relevant) r.flagged++;
      else failures[mode].push({ question: c.question, language: c.language, passage: null, relevant: true, quoted: answer.sources[0] ?? null });
    }
    timings[mode] = { ms: Date.now() - started, perCaseMs: (Date.now() - started) / cases.length };
  }
  return { languages, failures, timings, counts: { passages: passages.length, cases: cases.length } };
}

module.exports = { evaluate, loadFixtures, FIXTURES, K };
