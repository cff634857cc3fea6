'use strict';
// Issue #3: time for a 200,000-character text to reach `ready` through the real system
// (POST /v1/kb/ingest -> gateway -> NATS -> knowledge service -> knowledge.documents, then the
// ingestion worker: claim, chunk, embed, store the chunks, mark ready), measured from the client
// as the issue's user sees it, next to the same work done in this process without the service.
//
//   1. a private nats-server, a fresh database sa_bench_<random> migrated with
//      dist/tools/migrate/main.js, the eight compiled apps started with
//      dist/tools/launcher/system.js (LOG_LEVEL=warn, NODE_ENV=production, the hashing embedder
//      and the PostgreSQL vector store: the defaults), a workspace and an all-scopes token made
//      with the admin CLI;
//   2. a 200,000-character help-centre text (English prose, headings and lists with Japanese,
//      Thai and Arabic paragraphs mixed in; bench/lib/mixed-text.js, the same text every run);
//   3. BENCH_INGEST_WARMUPS (2) unmeasured runs, then BENCH_INGEST_RUNS (5) measured runs, each:
//        service   POST /v1/kb/ingest {title, text}, then GET /v1/kb every 25 ms until the
//                  document is `ready`: time-to-ready = first poll that sees ready - POST start
//                  (so it includes up to 25 ms of polling granularity and the HTTP round trips);
//        baseline  the same work in this process, on the compiled modules the service runs:
//                  chunkText + HashingEmbeddings.embedDocuments + PostgresVectorStore
//                  deleteByDocument/upsert into the same database (another workspace id);
//      alternating, so both see the same machine state.
//   The table: p50 and max time-to-ready against the goal (<= 3 s) with the baseline and the
//   ratio; the server-side share (documents.created_at -> finished_at, from the database);
//   chunk_count as stored by the service next to the baseline's chunk count.
//   4. fairness across workspaces (issue #14, item 15): a small document's time-to-ready when its
//      workspace's queue is empty (baseline), then when another workspace has just queued
//      BENCH_INGEST_BACKLOG (150) documents of the same size ahead of it; and how many of the
//      backlog's documents were finished before it (workspaces take turns: about
//      KNOWLEDGE_CONCURRENCY, not the whole backlog).
const { randomBytes, randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const infra = require('./lib/infra');
const { round } = require('./lib/load');
const { mixedLanguageText, scriptShares } = require('./lib/mixed-text');

const GOAL_MS = 3000;
const TEXT_CHARS = 200_000;
const POLL_MS = 25;
const RUNS = Math.max(1, Number(process.env.BENCH_INGEST_RUNS || 5));
const WARMUPS = Math.max(0, Number(process.env.BENCH_INGEST_WARMUPS || 2));
/** Fairness phase: documents another workspace queues ahead of one small document. */
const BACKLOG = Math.max(1, Number(process.env.BENCH_INGEST_BACKLOG || 150));
const SMALL_CHARS = 4000;
/** A document not ready after this long fails the run. */
const READY_TIMEOUT_MS = Number(process.env.BENCH_INGEST_TIMEOUT_MS || 60_000);
const DIST = path.join(infra.ROOT, 'dist', 'apps', 'knowledge', 'src');

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function stats(values) {
  const s = [...values].sort((a, b) => a - b);
  return { p50: round(percentile(s, 50), 1), max: round(s[s.length - 1], 1), min: round(s[0], 1), mean: round(s.reduce((a, b) => a + b, 0) / s.length, 1), n: s.length, all: values.map((v) => round(v, 1)) };
}


module.exports = {
  name: 'ingest',
  goal: `a ${TEXT_CHARS.toLocaleString('en')}-character text reaches ready in <= ${GOAL_MS / 1000} s (POST /v1/kb/ingest, polled every ${POLL_MS} ms) vs the same work in-process`,

  async run(ctx) {
    for (const f of ['ingestion/chunking.js', 'embeddings/hashing-embeddings.js', 'vector-store/postgres-vector-store.js']) {
      if (!fs.existsSync(path.join(DIST, f))) throw new Error(`dist/apps/knowledge/src/${f} is missing: build first (npm run build)`);
    }
    require('reflect-metadata'); // the compiled modules use decorators
    const { chunkText } = require(path.join(DIST, 'ingestion', 'chunking.js'));
    const { HashingEmbeddings } = require(path.join(DIST, 'embeddings', 'hashing-embeddings.js'));
    const { PostgresVectorStore } = require(path.join(DIST, 'vector-store', 'postgres-vector-store.js'));
    const System = infra.loadSystem();

    const { dbName, dbUrl, nats, redisUrl, useRedis, logDir, webhookSecretKey } = await infra.prepareSystem(ctx);
    // Every listener on a free port: the benchmark runs beside `npm start` (3000-3002, 9464-9472).
    const ports = await infra.systemPorts(infra.loadLauncher().APPS);
    const env = {
      ...infra.systemEnv({ dbUrl, nats, webhookSecretKey }, ports),
      // 25 ms polling makes ~40 requests a second: the limiter must never refuse them.
      RATE_LIMIT_REQUESTS: '1000000000',
      RATE_LIMIT_PREFIX: `sa:bench:${randomBytes(4).toString('hex')}:`,
      // The fairness phase posts a whole backlog at once, every request from this one address.
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      RPC_TIMEOUT_MS: '10000',
      ...(useRedis ? { REDIS_URL: redisUrl } : {}),
      ...ctx.options.env,
    };
    const system = new System({ root: infra.ROOT, env: { PATH: process.env.PATH, ...env }, output: { kind: 'files', dir: logDir }, opsPorts: ports.opsPorts, onEvent: (l) => ctx.log(`system: ${l}`) });
    ctx.defer('stop the apps', () => system.stop());
    const t0 = Date.now();
    await system.start();
    await system.waitReady(120000);
    ctx.log(`8 apps ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (gateway ${system.gatewayUrl})`);

    const ws = await infra.admin(dbUrl, ['workspace', 'create', '--name', 'Bench ingest', '--plan', 'scale']);
    const tok = await infra.admin(dbUrl, ['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--name', 'bench-ingest']);

    const text = mixedLanguageText(TEXT_CHARS, 1);
    if (text.length !== TEXT_CHARS) throw new Error(`generated ${text.length} characters, wanted ${TEXT_CHARS}`);
    const shares = scriptShares(text);
    ctx.log(`text: ${text.length} characters, ${Buffer.byteLength(text)} UTF-8 bytes, % of characters: ${Object.entries(shares).map(([k, v]) => `${k} ${v}`).join(', ')}`);

    const pool = infra.pool({ connectionString: dbUrl, max: 4, application_name: 'bench-ingest-baseline' });
    ctx.defer('close the baseline pool', () => pool.end());
    const reader = new Client({ connectionString: dbUrl, application_name: 'bench-ingest-reader' });
    await reader.connect();
    ctx.defer('close the reader', () => reader.end());
    const store = new PostgresVectorStore(pool);
    const embeddings = new HashingEmbeddings();
    const embedderId = `hashing:${embeddings.model}:${embeddings.dimensions}`;
    const baselineTenant = randomUUID();

    const invalid = [];

    /** One ingest through the service; resolves with the client-side time-to-ready. */
    const serviceRun = async (label) => {
      const start = now();
      const posted = await infra.api(system.baseUrl, tok.token, 'POST', '/kb/ingest', { title: `Help centre (${label})`, text });
      if (posted.status !== 202) throw new Error(`POST /v1/kb/ingest answered ${posted.status}: ${posted.text.slice(0, 500)}`);
      const accepted = now();
      const id = posted.body.data.id;
      let polls = 0;
      for (;;) {
        const list = await infra.api(system.baseUrl, tok.token, 'GET', '/kb');
        polls++;
        if (list.status !== 200) throw new Error(`GET /v1/kb answered ${list.status}: ${list.text.slice(0, 500)}`);
        const doc = list.body.data.find((d) => d.id === id);
        if (!doc) throw new Error(`document ${id} is not in GET /v1/kb`);
        if (doc.status === 'ready') {
          const ms = now() - start;
          const [row] = (
            await reader.query(
              `SELECT extract(epoch FROM finished_at - created_at) * 1000 AS server_ms, attempts, chunk_count, embedder,
                      (SELECT count(*)::int FROM knowledge.chunks c WHERE c.document_id = d.id) AS stored
                 FROM knowledge.documents d WHERE id = $1`,
              [id],
            )
          ).rows;
          if (row.stored !== doc.chunk_count) invalid.push(`${label}: chunk_count ${doc.chunk_count} but ${row.stored} chunks stored`);
          return { ms, postMs: accepted - start, serverMs: Number(row.server_ms), polls, chunkCount: doc.chunk_count, attempts: row.attempts, embedder: row.embedder };
        }
        if (doc.status === 'failed') throw new Error(`document ${id} failed: ${doc.failure_reason}`);
        if (now() - start > READY_TIMEOUT_MS) throw new Error(`document ${id} not ready after ${READY_TIMEOUT_MS} ms (status ${doc.status})`);
        await sleep(POLL_MS);
      }
    };

    /** The same work in this process: what the processor does for a text document, minus the service. */
    const baselineRun = async () => {
      const documentId = randomUUID();
      const t = now();
      const chunks = await chunkText(text);
      const tChunked = now();
      const vectors = await embeddings.embedDocuments(chunks.map((c) => c.text));
      const tEmbedded = now();
      await store.deleteByDocument(baselineTenant, documentId);
      await store.upsert(
        chunks.map((c, i) => ({
          tenantId: baselineTenant,
          documentId,
          chatbotId: null,
          ordinal: c.ordinal,
          text: c.text,
          title: 'Help centre (baseline)',
          sourceUrl: null,
          embedder: embedderId,
          vector: vectors[i],
        })),
      );
      const tStored = now();
      return { ms: tStored - t, chunkMs: tChunked - t, embedMs: tEmbedded - tChunked, storeMs: tStored - tEmbedded, chunkCount: chunks.length };
    };

    for (let i = 0; i < WARMUPS; i++) {
      const s = await serviceRun(`warm-up ${i + 1}`);
      const b = await baselineRun();
      ctx.log(`warm-up ${i + 1}: service ${s.ms.toFixed(0)} ms, baseline ${b.ms.toFixed(0)} ms`);
    }
    const service = [];
    const baseline = [];
    for (let i = 0; i < RUNS; i++) {
      const s = await serviceRun(`run ${i + 1}`);
      const b = await baselineRun();
      service.push(s);
      baseline.push(b);
      ctx.log(
        `run ${i + 1}/${RUNS}: service ${s.ms.toFixed(0)} ms to ready (POST ${s.postMs.toFixed(0)} ms, queued->ready ${s.serverMs.toFixed(0)} ms in the database, ${s.polls} polls, ${s.chunkCount} chunks, attempt ${s.attempts}); ` +
          `baseline ${b.ms.toFixed(0)} ms (chunk ${b.chunkMs.toFixed(0)} + embed ${b.embedMs.toFixed(0)} + store ${b.storeMs.toFixed(0)}, ${b.chunkCount} chunks)`,
      );
    }

    // Fairness: a small document alone, then behind another workspace's backlog.
    const other = await infra.admin(dbUrl, ['workspace', 'create', '--name', 'Bench ingest backlog', '--plan', 'scale']);
    const otherTok = await infra.admin(dbUrl, ['token', 'create', '--workspace', other.id, '--scopes', 'all', '--name', 'bench-ingest-backlog']);
    const small = mixedLanguageText(SMALL_CHARS, 2);
    /** POSTs a small document for `token` and polls until ready: the client-side time-to-ready and the document id. */
    const smallRun = async (label) => {
      const start = now();
      const posted = await infra.api(system.baseUrl, tok.token, 'POST', '/kb/ingest', { title: `Small (${label})`, text: small });
      if (posted.status !== 202) throw new Error(`POST /v1/kb/ingest answered ${posted.status}: ${posted.text.slice(0, 500)}`);
      const id = posted.body.data.id;
      for (;;) {
        const list = await infra.api(system.baseUrl, tok.token, 'GET', '/kb');
        const doc = list.body?.data?.find((d) => d.id === id);
        if (doc?.status === 'ready') return { ms: now() - start, id };
        if (doc?.status === 'failed') throw new Error(`document ${id} failed: ${doc.failure_reason}`);
        if (now() - start > READY_TIMEOUT_MS) throw new Error(`document ${id} not ready after ${READY_TIMEOUT_MS} ms (status ${doc?.status})`);
        await sleep(POLL_MS);
      }
    };
    const alone = await smallRun('alone');
    const backlogPosts = await Promise.all(
      Array.from({ length: BACKLOG }, (_, i) => infra.api(system.baseUrl, otherTok.token, 'POST', '/kb/ingest', { title: `Backlog ${i + 1}`, text: small })),
    );
    const refused = backlogPosts.filter((r) => r.status !== 202);
    if (refused.length) throw new Error(`${refused.length} backlog documents were refused: ${refused[0].status} ${refused[0].text.slice(0, 300)}`);
    const behind = await smallRun('behind a backlog');
    const [{ ahead, waiting }] = (
      await reader.query(
        `SELECT count(*) FILTER (WHERE finished_at <= (SELECT finished_at FROM knowledge.documents WHERE id = $2))::int AS ahead,
                count(*) FILTER (WHERE status IN ('queued', 'processing'))::int AS waiting
           FROM knowledge.documents WHERE tenant_id = $1`,
        [other.id, behind.id],
      )
    ).rows;
    ctx.log(`fairness: small document alone ${alone.ms.toFixed(0)} ms, behind ${BACKLOG} documents of another workspace ${behind.ms.toFixed(0)} ms; ${ahead} of them finished before it, ${waiting} still waiting then`);
    // Let the backlog drain so that the apps stop cleanly.
    const drainStart = now();
    while ((await reader.query(`SELECT count(*)::int AS n FROM knowledge.documents WHERE status IN ('queued', 'processing')`)).rows[0].n > 0) {
      if (now() - drainStart > READY_TIMEOUT_MS * 2) throw new Error('the backlog did not drain');
      await sleep(100);
    }

    const sv = stats(service.map((s) => s.ms));
    const server = stats(service.map((s) => s.serverMs));
    const post = stats(service.map((s) => s.postMs));
    const bl = stats(baseline.map((b) => b.ms));
    const ratio = (a, b) => (b ? round(a / b, 2) : null);
    const chunkCounts = [...new Set(service.map((s) => s.chunkCount))];
    const baselineChunks = baseline[0].chunkCount;
    if (chunkCounts.length !== 1 || chunkCounts[0] !== baselineChunks) invalid.push(`chunk counts differ: service ${chunkCounts.join('/')}, baseline ${baselineChunks}`);
    const retried = service.filter((s) => s.attempts !== 1).length;
    if (retried) invalid.push(`${retried} documents needed more than one attempt`);

    const rows = [
      { figure: `time to ready, p50 ms (${TEXT_CHARS.toLocaleString('en')} chars, ${RUNS} runs)`, goal: `<= ${GOAL_MS} ms`, measured: sv.p50, baseline: bl.p50, ratio: ratio(sv.p50, bl.p50), pass: sv.p50 <= GOAL_MS },
      { figure: 'time to ready, max ms', goal: `<= ${GOAL_MS} ms`, measured: sv.max, baseline: bl.max, ratio: ratio(sv.max, bl.max), pass: sv.max <= GOAL_MS },
      { figure: 'of which queued -> ready in the service, p50 ms (DB timestamps)', goal: '-', measured: server.p50, baseline: bl.p50, ratio: ratio(server.p50, bl.p50), pass: null },
      { figure: 'of which POST /v1/kb/ingest -> 202, p50 ms', goal: '-', measured: post.p50, baseline: null, ratio: null, pass: null },
      { figure: 'chunk_count (service vs in-process chunkText)', goal: 'equal', measured: chunkCounts.join('/'), baseline: baselineChunks, ratio: null, pass: chunkCounts.length === 1 && chunkCounts[0] === baselineChunks },
      {
        figure: `small document behind another workspace's ${BACKLOG} documents: time to ready ms (baseline: alone)`,
        goal: `<= ${GOAL_MS} ms`,
        measured: round(behind.ms, 1),
        baseline: round(alone.ms, 1),
        ratio: ratio(behind.ms, alone.ms),
        pass: behind.ms <= GOAL_MS,
      },
      { figure: `of the ${BACKLOG} documents queued ahead of it, finished before it`, goal: '-', measured: ahead, baseline: null, ratio: null, pass: null },
    ];
    return {
      rows,
      invalid,
      details: {
        database: dbName,
        nats: nats.private ? 'private nats-server' : nats.url,
        redis: useRedis ? redisUrl : null,
        text: { characters: text.length, utf8Bytes: Buffer.byteLength(text), scriptPercent: shares, seed: 1 },
        pollMs: POLL_MS,
        warmups: WARMUPS,
        timeToReadyMs: sv,
        serverQueuedToReadyMs: server,
        postMs: post,
        baselineMs: bl,
        baselineStagesMs: {
          chunk: stats(baseline.map((b) => b.chunkMs)),
          embed: stats(baseline.map((b) => b.embedMs)),
          store: stats(baseline.map((b) => b.storeMs)),
        },
        service,
        baseline,
        fairness: { backlog: BACKLOG, smallChars: SMALL_CHARS, aloneMs: round(alone.ms, 1), behindMs: round(behind.ms, 1), backlogFinishedBefore: ahead, backlogWaitingThen: waiting },
        embedder: service[0].embedder,
        env: Object.fromEntries(Object.entries(env).filter(([k]) => !['DATABASE_URL', 'NATS_URL', 'GATEWAY_PORT', 'MCP_PORT', 'CONSOLE_PORT', 'OPS_PORT'].includes(k))),
      },
    };
  },
};
