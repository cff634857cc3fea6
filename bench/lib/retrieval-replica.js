'use strict';
// A knowledge replica's retrieval alone, in a process of its own (retrieval-1m): loads the
// embedded store's index of one workspace, measures the process's resident memory around it, then
// times the queries, hybrid (spec.mode 'hybrid') or vector only ('vector'). Run as `node --expose-gc bench/lib/retrieval-replica.js <spec.json>`; prints
// one JSON line. Its own process, so that the resident memory is the store's and not the
// benchmark's (which holds the whole corpus), and so that nothing else allocates between queries.
//
// spec: { storeJs, dbUrl, tenantId, embedder, dim, k, warmup, options, mode, queries: [{ v: base64 float32, text, bot }] }
const fs = require('node:fs');
const { Pool } = require('pg');
const { now, stats } = require('./retrieval-corpus');

const MIB = 2 ** 20;

/**
 * The process's peak resident memory: VmHWM, which belongs to this program's memory since its
 * exec. Not getrusage's maxRSS: Linux carries that across execve, so a replica started by the
 * benchmark (which holds 1.5 GB of vectors) would report the benchmark's peak.
 */
function peakRss() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  require('reflect-metadata');
  const { PostgresVectorStore } = require(spec.storeJs);
  const pool = new Pool({ connectionString: spec.dbUrl, max: 4, application_name: 'bench-retrieval-replica' });
  const queries = spec.queries.map((q) => {
    const bytes = Buffer.from(q.v, 'base64'); // may be a slice of a shared pool: copy it out
    return { ...q, vector: new Float32Array(Uint8Array.from(bytes).buffer) };
  });
  const gc = () => global.gc && global.gc();
  const mem = () => {
    gc();
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
  };
  const out = { options: spec.options };
  const run = async (label, options) => {
    const store = new PostgresVectorStore(pool, options);
    const before = mem();
    const c0 = now();
    await store.warm(spec.tenantId, spec.embedder, spec.dim);
    const loadMs = now() - c0;
    const loaded = mem();
    const search = (q) => store.search({ tenantId: spec.tenantId, chatbotId: q.bot, embedder: spec.embedder, vector: q.vector, text: q.text, k: spec.k });
    for (let i = 0; i < spec.warmup; i++) await search(queries[i % queries.length]);
    const ms = [];
    const results = [];
    for (const q of queries) {
      const s0 = now();
      const hits = await search(q);
      ms.push(now() - s0);
      results.push(hits.map((h) => ({ id: h.chunkId, vs: h.vectorScore ?? null, tr: h.textRank ?? null })));
    }
    const after = mem();
    out[label] = {
      loadMs,
      indexBytes: store.indexBytes(),
      rssBeforeLoad: before.rss,
      rssAfterLoad: loaded.rss,
      rssAfterQueries: after.rss,
      indexRss: loaded.rss - before.rss,
      memory: { before, loaded, after },
      stats: stats(ms),
      results,
    };
    process.stderr.write(`${label}: load ${(loadMs / 1000).toFixed(1)} s, index ${(store.indexBytes() / MIB).toFixed(0)} MiB, rss ${(before.rss / MIB).toFixed(0)} -> ${(loaded.rss / MIB).toFixed(0)} MiB, p50 ${out[label].stats.p50} ms, p99 ${out[label].stats.p99} ms\n`);
    store.clearIndexes();
  };
  // One mode per process, so that the peak resident memory is that of one index's life.
  if (spec.mode === 'vector') await run('vector', { ...spec.options, textWeight: 0 });
  else await run('hybrid', spec.options);
  out.maxRss = peakRss();
  await pool.end();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
