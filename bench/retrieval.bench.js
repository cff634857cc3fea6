'use strict';
// Issue #3: retrieval latency of the embedded vector store (PostgresVectorStore, compiled in
// dist/) with 100,000 chunks in one workspace, next to a brute-force in-memory baseline over the
// very same vectors, measured in the same process and run.
//
//   1. a fresh database sa_bench_<random>, migrated with dist/tools/migrate/main.js;
//   2. 100,000 chunks of generated text (mixed vocabulary: English support words, German,
//      French and Spanish words, a long tail of made-up words, CJK and Thai sentences in some
//      chunks; Zipf-distributed), 70 % workspace-wide and 30 % attached to one of 3 bots,
//      embedded with the project's hashing embedder (384 dimensions) when it is built
//      (dist/apps/knowledge/src/embeddings/hashing-embeddings.js), else with seeded clustered
//      random unit vectors; written through PostgresVectorStore.upsert;
//   3. 500 queries (60 % made of words of a random chunk, 40 % random text; half searched with a
//      bot id, half workspace-wide), k = 10:
//        cold      the first search after dropping the in-process index (loads it from PostgreSQL);
//        warm      every query through the store: hybrid ranking (vector + full text, RRF);
//        vector    the same with the full-text side off (textWeight 0), for the recall figure;
//        baseline  plain JavaScript: dot product with every one of the same 100,000 Float32
//                  vectors, same bot filter, top 10 — what the store's ratio is measured against.
//      recall@10 compares the store's vector-only top 10 with the exact brute-force top 10.
//
// Environment: BENCH_RETRIEVAL_CHUNKS (100000), BENCH_RETRIEVAL_QUERIES (500),
// BENCH_DIST_DIR (dist/, the compiled project).
const { randomBytes, randomUUID } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const infra = require('./lib/infra');
const { round } = require('./lib/load');
const { bruteForce, embedAll, generateCorpus, now, rng, stats } = require('./lib/retrieval-corpus');

const GOAL_P50_MS = 25;
const GOAL_RECALL = 0.95;
const K = 10;
const DIM = 384;
// Read when the run starts, not when run.js loads this module: --smoke sets them after that.
const sizes = () => ({ CHUNKS: Number(process.env.BENCH_RETRIEVAL_CHUNKS || 100000), QUERIES: Number(process.env.BENCH_RETRIEVAL_QUERIES || 500) });
const WARMUP_QUERIES = 30;
const DIST = process.env.BENCH_DIST_DIR ? path.resolve(process.env.BENCH_DIST_DIR) : path.join(infra.ROOT, 'dist');
const STORE_JS = path.join(DIST, 'apps', 'knowledge', 'src', 'vector-store', 'postgres-vector-store.js');
const HASHING_JS = path.join(DIST, 'apps', 'knowledge', 'src', 'embeddings', 'hashing-embeddings.js');

module.exports = {
  name: 'retrieval',
  get goal() {
    return `knowledge search p50 <= ${GOAL_P50_MS} ms with ${sizes().CHUNKS.toLocaleString('en')} chunks in one workspace (PostgresVectorStore vs brute force)`;
  },

  async run(ctx) {
    const { CHUNKS, QUERIES } = sizes();
    if (!fs.existsSync(STORE_JS)) throw new Error(`${path.relative(infra.ROOT, STORE_JS)} is missing: build first (npm run build)`);
    require('reflect-metadata'); // the compiled libs use decorators
    const { PostgresVectorStore } = require(STORE_JS);

    const dbName = `sa_bench_${randomBytes(4).toString('hex')}`;
    const dbUrl = infra.databaseUrl(dbName);
    ctx.defer(`drop database ${dbName}`, () => infra.dropDatabase(dbName));
    infra.migrate(dbUrl, DIST);
    ctx.log(`database ${dbName} migrated`);
    const pool = infra.pool({ connectionString: dbUrl, max: 4, application_name: 'bench-retrieval' });
    ctx.defer('close the pool', () => pool.end());

    // Corpus, vectors, bots.
    const t0 = Date.now();
    const { chunks, queries } = generateCorpus(CHUNKS, QUERIES);
    ctx.log(`generated ${CHUNKS} chunks and ${queries.length} queries in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const emb = embedAll(
      chunks.map((c) => `${c.title} ${c.text}`),
      ctx,
      HASHING_JS,
      DIM,
    );
    const qEmb = embedAll(queries, { log: () => undefined }, HASHING_JS, DIM);
    const tenantId = randomUUID();
    const botIds = [randomUUID(), randomUUID(), randomUUID()];
    const r = rng(5);
    const ids = chunks.map(() => randomUUID());
    const bots = chunks.map(() => (r() < 0.7 ? null : botIds[Math.floor(r() * botIds.length)]));
    const queryBots = queries.map((_, i) => (i % 2 === 0 ? null : botIds[i % botIds.length]));

    // Write through the store (the real write path: real[] + packed float32 + generated tsvector).
    const writer = new PostgresVectorStore(pool);
    const tw = Date.now();
    const BATCH = 1000;
    for (let i = 0; i < CHUNKS; i += BATCH) {
      const batch = [];
      for (let j = i; j < Math.min(CHUNKS, i + BATCH); j++) {
        batch.push({
          id: ids[j],
          tenantId,
          documentId: ids[j - (j % 20)], // 20 chunks per document
          chatbotId: bots[j],
          ordinal: j % 20,
          text: chunks[j].text,
          title: chunks[j].title,
          sourceUrl: `https://example.com/docs/${Math.floor(j / 20)}`,
          embedder: emb.embedder,
          vector: emb.vectors.subarray(j * DIM, (j + 1) * DIM),
        });
      }
      await writer.upsert(batch);
      if ((i / BATCH) % 20 === 19) ctx.log(`  inserted ${i + BATCH} chunks`);
    }
    const insertS = (Date.now() - tw) / 1000;
    ctx.log(`inserted ${CHUNKS} chunks in ${insertS.toFixed(1)} s (${Math.round(CHUNKS / insertS)} chunks/s)`);
    await pool.query('VACUUM ANALYZE knowledge.chunks');
    const count = await writer.count(tenantId);
    if (count !== CHUNKS) throw new Error(`store counts ${count} chunks, expected ${CHUNKS}`);

    const store = new PostgresVectorStore(pool);
    const vectorOnly = new PostgresVectorStore(pool, { textWeight: 0 });
    const search = (s, i) => s.search({ tenantId, chatbotId: queryBots[i], embedder: emb.embedder, vector: qEmb.vectors.subarray(i * DIM, (i + 1) * DIM), text: queries[i], k: K });

    // Cold: the first search loads the index from PostgreSQL.
    const cold = [];
    for (let rep = 0; rep < 3; rep++) {
      store.clearIndexes();
      const c0 = now();
      await search(store, rep);
      cold.push(now() - c0);
    }
    ctx.log(`cold first search (index load + search): ${cold.map((x) => x.toFixed(0)).join(', ')} ms; index holds ${(store.indexBytes() / 2 ** 20).toFixed(1)} MiB`);

    // Warm: hybrid, then vector only; the baseline in between and last (the VM's speed drifts).
    const measure = async (label, fn) => {
      for (let i = 0; i < WARMUP_QUERIES; i++) await fn(i % queries.length);
      const ms = [];
      const results = [];
      for (let i = 0; i < queries.length; i++) {
        const s0 = now();
        results.push(await fn(i));
        ms.push(now() - s0);
      }
      const st = stats(ms);
      ctx.log(`${label}: p50 ${st.p50} ms, p90 ${st.p90} ms, p99 ${st.p99} ms, max ${st.max} ms`);
      return { stats: st, results };
    };
    const baselineFn = async (i) => bruteForce(emb.vectors, CHUNKS, bots, qEmb.vectors.subarray(i * DIM, (i + 1) * DIM), queryBots[i], K, DIM);
    const base1 = await measure('baseline (brute force, first)', baselineFn);
    const hybrid = await measure('store, hybrid (vector + full text)', (i) => search(store, i));
    const vec = await measure('store, vector only', (i) => search(vectorOnly, i));
    const base2 = await measure('baseline (brute force, last)', baselineFn);
    const baseline = { p50: round((base1.stats.p50 + base2.stats.p50) / 2, 2), p99: round((base1.stats.p99 + base2.stats.p99) / 2, 2) };

    // recall@10 of the store's vector side against the exact top 10 (ties at the 10th score count).
    const idToIndex = new Map(ids.map((id, i) => [id, i]));
    let found = 0;
    let expected = 0;
    let textHits = 0;
    for (let i = 0; i < queries.length; i++) {
      const exact = base1.results[i];
      const kth = exact.scores[exact.indices.length - 1];
      const got = vec.results[i];
      expected += exact.indices.length;
      const exactSet = new Set(exact.indices);
      for (const h of got) {
        const idx = idToIndex.get(h.chunkId);
        if (exactSet.has(idx) || (h.vectorScore !== undefined && h.vectorScore >= kth - 1e-5)) found++;
      }
      if (hybrid.results[i].some((h) => h.textRank !== undefined)) textHits++;
    }
    const recall = expected ? found / expected : 1;
    ctx.log(`recall@${K} (vector side vs exact): ${recall.toFixed(4)}; ${textHits} of ${queries.length} hybrid answers include full-text matches`);

    const rows = [
      { figure: `search p50 ms, hybrid, ${CHUNKS} chunks (warm)`, goal: `<= ${GOAL_P50_MS} ms`, measured: hybrid.stats.p50, baseline: baseline.p50, ratio: round(hybrid.stats.p50 / baseline.p50, 2), pass: hybrid.stats.p50 <= GOAL_P50_MS },
      { figure: 'search p99 ms, hybrid (warm)', goal: '-', measured: hybrid.stats.p99, baseline: baseline.p99, ratio: round(hybrid.stats.p99 / baseline.p99, 2), pass: null },
      { figure: 'search p50 ms, vector only (warm)', goal: '-', measured: vec.stats.p50, baseline: baseline.p50, ratio: round(vec.stats.p50 / baseline.p50, 2), pass: null },
      { figure: 'search p99 ms, vector only (warm)', goal: '-', measured: vec.stats.p99, baseline: baseline.p99, ratio: round(vec.stats.p99 / baseline.p99, 2), pass: null },
      { figure: 'cold first search ms (loads the index), median of 3', goal: '-', measured: round([...cold].sort((a, b) => a - b)[1], 0), baseline: null, ratio: null, pass: null },
      { figure: `recall@${K}, vector side vs exact brute force`, goal: `>= ${GOAL_RECALL}`, measured: round(recall, 4), baseline: 1, ratio: round(recall, 4), pass: recall >= GOAL_RECALL },
      { figure: 'in-process index MiB', goal: '-', measured: round(store.indexBytes() / 2 ** 20, 1), baseline: round((CHUNKS * DIM * 4) / 2 ** 20, 1), ratio: null, pass: null },
      { figure: 'insert chunks/s through upsert (batches of 1000)', goal: '-', measured: Math.round(CHUNKS / insertS), baseline: null, ratio: null, pass: null },
    ];
    return {
      rows,
      invalid: [],
      details: {
        database: dbName,
        chunks: CHUNKS,
        queries: queries.length,
        k: K,
        dim: DIM,
        vectors: emb.source,
        embedder: emb.embedder,
        bots: { workspaceWideShare: 0.7, bots: botIds.length, queriesWithBot: queryBots.filter(Boolean).length },
        insertSeconds: round(insertS, 1),
        coldMs: cold.map((x) => round(x, 1)),
        hybrid: hybrid.stats,
        vectorOnly: vec.stats,
        baselineFirst: base1.stats,
        baselineLast: base2.stats,
        recallAt10: recall,
        hybridAnswersWithTextMatches: textHits,
        indexBytes: store.indexBytes(),
        sampleQueries: queries.slice(0, 8),
      },
    };
  },
};
