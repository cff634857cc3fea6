'use strict';
// Issue #4: time to first byte of POST /v1/chat with the default (extractive) responder and
// 10,000 chunks of FAQ text in the workspace, through the real system, and the gateway's share
// of it.
//
//   1. a private nats-server, a fresh database sa_bench_<random> migrated with
//      dist/tools/migrate/main.js, the eight compiled apps (dist/tools/launcher/system.js;
//      LOG_LEVEL=warn, NODE_ENV=production, the Redis rate limiter with a limit it never reaches,
//      the hashing embedder and the PostgreSQL vector store: the defaults); a `scale` workspace
//      with --messages-per-month 100000000 and an all-scopes token from the admin CLI, one bot
//      from POST /v1/bots;
//   2. the knowledge: BENCH_CHAT_CHUNKS (10,000) chunks of product FAQ pages
//      (bench/lib/faq-corpus.js; 20 chunks per page, 30 % of the pages attached to the bot, the
//      rest workspace-wide), written the fast way: knowledge.documents rows with status ready and
//      the chunks through the compiled PostgresVectorStore.upsert, embedded with the compiled
//      hashing embedder under the id the service uses (hashing:hashing-v1:384); then checked
//      through the running service (knowledge.passage.search finds the asked pages);
//   3. warm-up (the first search loads the knowledge service's in-process index; JIT), then
//      BENCH_CHAT_REQUESTS (300) rounds, one request at a time, each round in rotating order:
//        gateway  POST /v1/chat {message, chatbotId, sessionId} over keep-alive HTTP, the body
//                 read incrementally: time to the first complete SSE frame (TTFB) and to the end;
//        direct   the same turn straight to the chat service over NATS, as the gateway runs it
//                 (subscribe _SA.chat.<turnId>, request chat.turn.start with the caller context
//                 the gateway builds, read the events): TTFB = max(start reply, first delta),
//                 when a gateway that cost nothing could write the first frame;
//        search   knowledge.passage.search with the same question over NATS: retrieval alone;
//      every turn with its own sessionId and the same question in the three modes. The gateway's
//      share = gateway TTFB - direct TTFB. Then the same at BENCH_CHAT_CONCURRENCY (8) requests in
//      flight (each mode on its own), the single hops one at a time (a NATS round trip into a
//      Nest service, bots.bot.describe / bots.bot.check, the chat service's session check and
//      quota upsert as SQL from here), and BENCH_CHAT_TIMELINE (150) more rounds with a wiretap
//      on NATS that timestamps every message of each turn: where the time goes, hop by hop; and
//      the turn's own computation in this process (the compiled PostgresVectorStore.search, hybrid
//      and vector-only, and the extractive responder) over the same database.
//   `--cpu-profile` records V8 CPU profiles of gateway, chat, knowledge and bots during the
//   one-at-a-time rounds (bench/tools/profile-summary.js summarises them).
//
// Environment: BENCH_CHAT_CHUNKS (10000), BENCH_CHAT_REQUESTS (300), BENCH_CHAT_WARMUP (100
// rounds), BENCH_CHAT_CONCURRENCY (8; comma-separated, 1 = skip), BENCH_CHAT_TIMELINE (150; 0 = skip).
const { randomBytes, randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const infra = require('./lib/infra');
const { cpuMeter } = require('./lib/cpu-meter');
const { round } = require('./lib/load');
const { faqCorpus } = require('./lib/faq-corpus');
const { SseClient } = require('./lib/sse-client');
const { NestRpc, chatTurn, Wiretap, now } = require('./lib/nats-rpc');

const GOAL_P50_MS = 15;
const GOAL_P99_MS = 50;
const NOISE_WARN_PERCENT = 25;
const CHUNKS = Math.max(20, Number(process.env.BENCH_CHAT_CHUNKS || 10000));
const CHUNKS_PER_DOCUMENT = 20;
const REQUESTS = Math.max(10, Number(process.env.BENCH_CHAT_REQUESTS || 300));
const WARMUP = Math.max(0, Number(process.env.BENCH_CHAT_WARMUP || 100));
const CONCURRENCY = String(process.env.BENCH_CHAT_CONCURRENCY || '8')
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 1);
const TIMELINE = Math.max(0, Number(process.env.BENCH_CHAT_TIMELINE || 150));
const MESSAGES_PER_MONTH = 100_000_000;
const DIST = path.join(infra.ROOT, 'dist');
const APPS = ['gateway', 'chat', 'knowledge', 'bots', 'leads', 'bookings', 'mcp', 'webhook-dispatcher'];

// ---------------------------------------------------------------------------------------------
function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function stats(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (!v.length) return { n: 0, p50: null, p90: null, p99: null, max: null, min: null, mean: null };
  const s = [...v].sort((a, b) => a - b);
  const r2 = (x) => round(x, 2);
  return { n: s.length, min: r2(s[0]), p50: r2(percentile(s, 50)), p90: r2(percentile(s, 90)), p99: r2(percentile(s, 99)), max: r2(s[s.length - 1]), mean: r2(s.reduce((a, b) => a + b, 0) / s.length) };
}

/** Runs fn(i) for i in [0, n) with `concurrency` in flight. */
async function pool(n, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

// ---------------------------------------------------------------------------------------------
module.exports = {
  name: 'chat',
  goal: `POST /v1/chat time to first byte p50 <= ${GOAL_P50_MS} ms and p99 <= ${GOAL_P99_MS} ms (default responder, ${CHUNKS.toLocaleString('en')} chunks in the workspace), and the gateway's share of it`,

  async run(ctx) {
    const STORE_JS = path.join(DIST, 'apps', 'knowledge', 'src', 'vector-store', 'postgres-vector-store.js');
    const HASHING_JS = path.join(DIST, 'apps', 'knowledge', 'src', 'embeddings', 'hashing-embeddings.js');
    const ENTITLEMENTS_JS = path.join(DIST, 'libs', 'identity', 'src', 'entitlements.js');
    for (const f of [STORE_JS, HASHING_JS, ENTITLEMENTS_JS]) if (!fs.existsSync(f)) throw new Error(`${path.relative(infra.ROOT, f)} is missing: build first (npm run build)`);
    require('reflect-metadata'); // the compiled modules use decorators
    const { PostgresVectorStore } = require(STORE_JS);
    const { HashingEmbeddings } = require(HASHING_JS);
    const { entitlementsOf, DEFAULT_PLAN_LIMITS } = require(ENTITLEMENTS_JS);
    const System = infra.loadSystem();

    // -- the system ------------------------------------------------------------------------------
    const { dbName, dbUrl, nats, redisUrl, useRedis, logDir, webhookSecretKey } = await infra.prepareSystem(ctx);
    // --cpu-profile: the apps record a V8 CPU profile of the one-at-a-time rounds.
    let profile = null;
    if (ctx.options.cpuProfile) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-bench-prof-'));
      profile = { dir, control: path.join(dir, 'control'), env: { NODE_OPTIONS: `${ctx.options.env.NODE_OPTIONS || ''} --require ${path.join(__dirname, 'lib', 'cpu-profile-preload.js')}`.trim(), BENCH_CPU_PROFILE_DIR: dir } };
      ctx.log(`CPU profiles go to ${dir} (figures measured with the profiler on are slower: use them to compare shares, not as results)`);
    }
    // Every listener on a free port: the benchmark runs beside `npm start` (3000-3002, 9464-9472).
    const ports = await infra.systemPorts(infra.loadLauncher().APPS);
    const env = {
      ...infra.systemEnv({ dbUrl, nats, webhookSecretKey }, ports),
      RATE_LIMIT_REQUESTS: '1000000000',
      RATE_LIMIT_PREFIX: `sa:bench:${randomBytes(4).toString('hex')}:`,
      RPC_TIMEOUT_MS: '10000',
      // Every load connection comes from this one address.
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      ...(useRedis ? { REDIS_URL: redisUrl } : {}),
      ...ctx.options.env,
      ...(profile ? profile.env : {}),
    };
    const system = new System({ root: infra.ROOT, env: { PATH: process.env.PATH, ...env }, output: { kind: 'files', dir: logDir }, opsPorts: ports.opsPorts, onEvent: (l) => ctx.log(`system: ${l}`) });
    ctx.defer('stop the apps', () => system.stop());
    const t0 = Date.now();
    await system.start();
    await system.waitReady(120000);
    ctx.log(`8 apps ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (gateway ${system.gatewayUrl})`);

    const ws = await infra.admin(dbUrl, ['workspace', 'create', '--name', 'Bench chat', '--plan', 'scale', '--messages-per-month', String(MESSAGES_PER_MONTH)]);
    const tok = await infra.admin(dbUrl, ['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--name', 'bench-chat']);
    const botRes = await fetch(`${system.baseUrl}/bots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Help centre', language: 'en' }),
    });
    if (botRes.status !== 201) throw new Error(`POST /v1/bots answered ${botRes.status}: ${await botRes.text()}`);
    const botId = (await botRes.json()).data.id;

    // The caller context the gateway's AuthGuard builds for this token (auth.guard.ts).
    const entitlements = entitlementsOf(
      { plan: ws.plan, botSlots: ws.bot_slots, tierSlots: ws.tier_slots, messagesPerMonth: ws.messages_per_month, pagesPerBot: ws.pages_per_bot, billingStatus: ws.status, enterpriseWebhooks: ws.enterprise_webhooks },
      DEFAULT_PLAN_LIMITS,
    );
    if (entitlements.messagesPerMonth !== MESSAGES_PER_MONTH) throw new Error(`the workspace's quota is ${entitlements.messagesPerMonth}, expected ${MESSAGES_PER_MONTH}`);
    const scopes = tok.scopes;
    if (!Array.isArray(scopes) || !scopes.includes('chat:invoke')) throw new Error(`the token's scopes are ${JSON.stringify(scopes)}`);
    const callerCtx = (requestId) => ({ tenantId: ws.id, tokenId: tok.id, scopes, botIds: tok.bot_ids ?? null, requestId, entitlements });

    // -- the knowledge ---------------------------------------------------------------------------
    const documents = Math.ceil(CHUNKS / CHUNKS_PER_DOCUMENT);
    const tc = Date.now();
    const corpus = faqCorpus({ documents, chunksPerDocument: CHUNKS_PER_DOCUMENT, questions: WARMUP + REQUESTS, seed: 11 });
    const questions = corpus.questions;
    ctx.log(`generated ${documents} FAQ pages and ${questions.length} questions in ${Date.now() - tc} ms`);

    const pg = infra.pool({ connectionString: dbUrl, max: 4, application_name: 'bench-chat' });
    ctx.defer('close the pool', () => pg.end());
    const embeddings = new HashingEmbeddings();
    const embedderId = `hashing:${embeddings.model}:${embeddings.dimensions}`; // as createEmbeddingsFromConfig names it
    const store = new PostgresVectorStore(pg);
    const docIds = corpus.documents.map(() => randomUUID());
    const docBot = corpus.documents.map((_, i) => (i % 10 < 3 ? botId : null));
    let written = 0;
    const tl = Date.now();
    await pg.query(
      `INSERT INTO knowledge.documents (id, tenant_id, chatbot_id, title, source_url, source_type, status, chunk_count, embedder, attempts, finished_at)
       SELECT u.id, $1, u.bot, u.title, u.url, 'url', 'ready', u.n, $2, 1, clock_timestamp()
         FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::int[]) AS u(id, bot, title, url, n)`,
      [
        ws.id,
        embedderId,
        docIds,
        docBot,
        corpus.documents.map((d) => d.title),
        corpus.documents.map((d) => d.sourceUrl),
        corpus.documents.map((d, i) => Math.min(d.chunks.length, CHUNKS - i * CHUNKS_PER_DOCUMENT)),
      ],
    );
    let batch = [];
    for (let d = 0; d < corpus.documents.length; d++) {
      const doc = corpus.documents[d];
      for (let c = 0; c < doc.chunks.length && written + batch.length < CHUNKS; c++) {
        const text = doc.chunks[c].text;
        batch.push({ id: randomUUID(), tenantId: ws.id, documentId: docIds[d], chatbotId: docBot[d], ordinal: c, text, title: doc.title, sourceUrl: doc.sourceUrl, embedder: embedderId, vector: embeddings.embedSync(text) });
        if (batch.length === 1000) {
          await store.upsert(batch);
          written += batch.length;
          batch = [];
        }
      }
    }
    if (batch.length) {
      await store.upsert(batch);
      written += batch.length;
    }
    await pg.query('VACUUM ANALYZE knowledge.chunks');
    await pg.query('ANALYZE knowledge.documents');
    const stored = await store.count(ws.id);
    if (stored !== CHUNKS) throw new Error(`the store counts ${stored} chunks, expected ${CHUNKS}`);
    const ready = Number((await pg.query(`SELECT count(*) FROM knowledge.documents WHERE tenant_id = $1 AND status = 'ready'`, [ws.id])).rows[0].count);
    const chunkChars = Number((await pg.query(`SELECT avg(char_length(text))::int AS n FROM knowledge.chunks WHERE tenant_id = $1`, [ws.id])).rows[0].n);
    ctx.log(`stored ${stored} chunks (${chunkChars} characters on average) of ${ready} ready documents in ${((Date.now() - tl) / 1000).toFixed(1)} s`);

    // -- direct NATS clients, the knowledge check --------------------------------------------------
    const rpc = await NestRpc.connect(nats.url, 'bench-chat-direct');
    ctx.defer('close the NATS client', () => rpc.close());
    const http = new SseClient(system.gatewayUrl, { sockets: Math.max(1, ...CONCURRENCY) });
    ctx.defer('close the HTTP client', () => http.close());
    const authHeader = { authorization: `Bearer ${tok.token}` };

    const kb = await (await fetch(`${system.baseUrl}/kb`, { headers: authHeader })).json();
    if (!kb.data || !kb.data.length || kb.data.some((d) => d.status !== 'ready')) throw new Error(`GET /v1/kb: ${JSON.stringify(kb).slice(0, 300)}`);

    const searchReq = (q, requestId) => rpc.send('knowledge.passage.search', { query: q.text, chatbotId: botId, k: 5 }, callerCtx(requestId));
    const c0 = now();
    const firstHits = await searchReq(questions[0], `bench-cold-${randomUUID()}`);
    const coldMs = now() - c0;
    if (!firstHits.length) throw new Error('the knowledge service found nothing for the first question: the chunks are not searchable');
    ctx.log(`first search through the knowledge service (loads its index of ${CHUNKS} vectors): ${coldMs.toFixed(0)} ms`);

    // -- the three ways of asking ----------------------------------------------------------------
    const invalid = [];
    const problems = { gateway: 0, direct: 0, search: 0 };
    const problem = (mode, what) => {
      problems[mode]++;
      if (problems[mode] <= 5) invalid.push(`${mode}: ${what}`);
    };
    let seq = 0;
    const sessionOf = (mode) => `bench-${mode}-${++seq}-${randomBytes(3).toString('hex')}`;

    async function viaGateway(q, requestId = `bench-gw-${randomUUID()}`) {
      const sessionId = sessionOf('gw');
      const startedAt = now();
      let r;
      try {
        r = await http.post('/v1/chat', { message: q.text, chatbotId: botId, sessionId }, { ...authHeader, 'x-request-id': requestId });
      } catch (err) {
        problem('gateway', err.message);
        return null;
      }
      if (r.status !== 200 || !r.frames.length || r.finishReason !== 'stop') {
        problem('gateway', `status ${r.status}, ${r.frames.length} frames, finish_reason ${r.finishReason}: ${r.raw.slice(0, 200)}`);
        return null;
      }
      if (r.headers['x-session-id'] !== sessionId) problem('gateway', `x-session-id ${r.headers['x-session-id']} instead of ${sessionId}`);
      return { requestId, startedAt, ttfb: r.firstFrameMs, headers: r.headersMs, total: r.endMs, text: r.text, frames: r.frames.length };
    }

    async function viaNats(q, requestId = `bench-direct-${randomUUID()}`) {
      const sessionId = sessionOf('direct');
      const startedAt = now();
      let r;
      try {
        r = await chatTurn(rpc, { message: q.text, chatbotId: botId, sessionId }, callerCtx(requestId));
      } catch (err) {
        problem('direct', err.message);
        return null;
      }
      if (r.error || r.firstByteMs === null || !r.end) {
        problem('direct', `turn ended with ${JSON.stringify(r.error || 'no delta')}`);
        return null;
      }
      if (r.started.session_id !== sessionId) problem('direct', `session ${r.started.session_id} instead of ${sessionId}`);
      return { requestId, startedAt, ttfb: r.firstByteMs, start: r.startMs, firstDelta: r.firstDeltaMs, total: r.endMs, text: r.text, unanswered: r.end.unanswered };
    }

    async function search(q, requestId = `bench-search-${randomUUID()}`) {
      const s0 = now();
      try {
        const hits = await searchReq(q, requestId);
        return { ms: now() - s0, hits };
      } catch (err) {
        problem('search', err.message);
        return null;
      }
    }
    const MODES = { gateway: viaGateway, direct: viaNats, search };

    /** Rounds of the three modes on the same question, one request at a time, in rotating order. */
    async function rounds(qs, label) {
      const out = { gateway: [], direct: [], search: [] };
      const order = ['gateway', 'direct', 'search'];
      for (let i = 0; i < qs.length; i++) {
        for (let k = 0; k < 3; k++) {
          const mode = order[(i + k) % 3];
          out[mode][i] = await MODES[mode](qs[i]);
        }
        if (label && (i + 1) % 100 === 0) ctx.log(`  ${label}: ${i + 1} of ${qs.length} rounds`);
      }
      return out;
    }

    // Warm-up: JIT of every process on the path, pools, caches (discarded).
    const tw = Date.now();
    await rounds(questions.slice(REQUESTS, REQUESTS + WARMUP));
    ctx.log(`warm-up: ${WARMUP} rounds in ${((Date.now() - tw) / 1000).toFixed(1)} s`);
    if (invalid.length) throw new Error(`requests fail already in the warm-up:\n${invalid.join('\n')}`);

    const main = questions.slice(0, REQUESTS);
    const cpuGroups = async () => {
      const g = Object.fromEntries(APPS.map((a) => [a, [system.pid(a)].filter(Boolean)]));
      g['nats-server'] = [nats.pid].filter(Boolean);
      // Every PostgreSQL process: the backends and the WAL writer, checkpointer and autovacuum
      // workers that the turns' commits keep busy (the other databases are idle).
      g.postgres = infra.pidsByName('postgres');
      if (useRedis) g['redis-server'] = infra.pidsByName('redis-server');
      return g;
    };
    ctx.log(`measuring ${REQUESTS} rounds (gateway, direct, search), one request at a time...`);
    if (profile) {
      fs.writeFileSync(profile.control, 'start one-at-a-time gateway,chat,knowledge,bots');
      await infra.sleep(300);
    }
    const meter = await cpuMeter(cpuGroups, 'bench process (clients)');
    const seq1 = await rounds(main, 'one at a time');
    const cpu1 = await meter();
    if (profile) {
      fs.writeFileSync(profile.control, 'stop one-at-a-time');
      await infra.sleep(2000);
      ctx.log(`CPU profiles of the one-at-a-time rounds: node bench/tools/profile-summary.js ${path.join(profile.dir, 'one-at-a-time')}`);
    }

    const summarise = (res) => ({
      gateway: { ttfb: stats(res.gateway.map((r) => r && r.ttfb)), headers: stats(res.gateway.map((r) => r && r.headers)), total: stats(res.gateway.map((r) => r && r.total)) },
      direct: { ttfb: stats(res.direct.map((r) => r && r.ttfb)), start: stats(res.direct.map((r) => r && r.start)), firstDelta: stats(res.direct.map((r) => r && r.firstDelta)), total: stats(res.direct.map((r) => r && r.total)) },
      search: stats(res.search.map((r) => r && r.ms)),
    });
    const s1 = summarise(seq1);
    const paired = [];
    for (let i = 0; i < REQUESTS; i++) if (seq1.gateway[i] && seq1.direct[i]) paired.push(seq1.gateway[i].ttfb - seq1.direct[i].ttfb);
    const pairedDiff = stats(paired);
    ctx.log(`one at a time: gateway TTFB p50 ${s1.gateway.ttfb.p50} p99 ${s1.gateway.ttfb.p99} ms; direct p50 ${s1.direct.ttfb.p50} p99 ${s1.direct.ttfb.p99} ms; search p50 ${s1.search.p50} p99 ${s1.search.p99} ms`);

    // Quality: same answer both ways, answered from the knowledge, the asked page found.
    let sameText = 0;
    let compared = 0;
    let answered = 0;
    let onTopic = 0;
    let pageFound = 0;
    let quoted = 0;
    const docIndex = new Map(docIds.map((id, i) => [id, i]));
    for (let i = 0; i < REQUESTS; i++) {
      const g = seq1.gateway[i];
      const d = seq1.direct[i];
      if (g && d) {
        compared++;
        if (g.text === d.text) sameText++;
      }
      if (main[i].expect) {
        onTopic++;
        if (d && !d.unanswered) answered++;
        // The reply quotes the first sentence of the answer to the question asked.
        if (d && d.text.includes(main[i].expect.answer.split(/(?<=\.) /)[0])) quoted++;
        const s = seq1.search[i];
        if (s && s.hits.some((h) => docIndex.get(h.document_id) === main[i].expect.document)) pageFound++;
      }
    }

    // -- more in flight ------------------------------------------------------------------------------
    const concurrent = {};
    for (const c of CONCURRENCY) {
      concurrent[c] = {};
      for (const mode of ['gateway', 'direct', 'search']) {
        await pool(Math.min(WARMUP, 50), c, (i) => MODES[mode](questions[REQUESTS + (i % Math.max(1, WARMUP))]));
        const res = [];
        const m = await cpuMeter(cpuGroups, 'bench process (clients)');
        const t = now();
        await pool(REQUESTS, c, async (i) => {
          res[i] = await MODES[mode](main[i]);
        });
        const wallS = (now() - t) / 1000;
        const cpu = await m();
        const values = res.map((r) => r && (mode === 'search' ? r.ms : r.ttfb));
        concurrent[c][mode] = { ttfb: stats(values), total: mode === 'search' ? null : stats(res.map((r) => r && r.total)), perSecond: round(REQUESTS / wallS, 1), cpu };
        ctx.log(`${c} in flight, ${mode}: ${mode === 'search' ? 'latency' : 'TTFB'} p50 ${concurrent[c][mode].ttfb.p50} p99 ${concurrent[c][mode].ttfb.p99} ms, ${concurrent[c][mode].perSecond}/s`);
      }
    }

    // -- single hops, one at a time -------------------------------------------------------------------
    const sql = new Client({ connectionString: dbUrl, application_name: 'bench-chat-hops' });
    await sql.connect();
    ctx.defer('close the SQL client', () => sql.end());
    const month = `${new Date().getUTCFullYear()}-${String(new Date().getUTCMonth() + 1).padStart(2, '0')}-01`;
    const hopFns = {
      'chat.health.ping (a NATS round trip into a Nest service)': (id) => rpc.send('chat.health.ping', {}, callerCtx(id)),
      'bots.bot.describe': (id) => rpc.send('bots.bot.describe', { ids: [botId] }, callerCtx(id)),
      'bots.bot.check': (id) => rpc.send('bots.bot.check', { ids: [botId] }, callerCtx(id)),
      'SQL: session check (chat.sessions by id)': () => sql.query(`SELECT chatbot_id FROM chat.sessions WHERE tenant_id = $1 AND session_id = $2`, [ws.id, `bench-none-${randomUUID()}`]),
      'SQL: quota upsert (chat.usage, one commit)': () =>
        sql.query(
          `INSERT INTO chat.usage AS u (tenant_id, month, messages) SELECT $1, $2::date, 1 WHERE $3::int > 0
           ON CONFLICT (tenant_id, month) DO UPDATE SET messages = u.messages + 1 WHERE u.messages < $3::int RETURNING messages`,
          [ws.id, month, MESSAGES_PER_MONTH],
        ),
    };
    const hops = {};
    for (const name of Object.keys(hopFns)) hops[name] = [];
    for (let i = 0; i < Math.min(WARMUP, 50); i++) for (const fn of Object.values(hopFns)) await fn(`bench-hop-${randomUUID()}`);
    for (let i = 0; i < REQUESTS; i++) {
      for (const [name, fn] of Object.entries(hopFns)) {
        const h0 = now();
        await fn(`bench-hop-${randomUUID()}`);
        hops[name].push(now() - h0);
      }
    }
    const hopStats = Object.fromEntries(Object.entries(hops).map(([k, v]) => [k, stats(v)]));
    for (const [k, v] of Object.entries(hopStats)) ctx.log(`hop ${k}: p50 ${v.p50} p99 ${v.p99} ms`);

    // -- in-process: the same work without NATS, Nest or the other services --------------------------
    // The knowledge service's store and the chat service's responder, compiled, in this process
    // over the same database: what the turn's own computation costs, hop overhead aside.
    const { extractiveAnswer } = require(path.join(DIST, 'apps', 'chat', 'src', 'answer', 'extractive-responder.js'));
    const { resolveReplyLanguage } = require(path.join(DIST, 'apps', 'chat', 'src', 'answer', 'language.js'));
    const hybridStore = new PostgresVectorStore(pg);
    const vectorStore = new PostgresVectorStore(pg, { textWeight: 0 });
    const local = { 'hashing embedding of the question': [], 'PostgresVectorStore.search, hybrid (vector + full text)': [], 'PostgresVectorStore.search, vector side only': [], 'reply language (resolveReplyLanguage)': [], 'extractive answer (5 passages)': [] };
    const localSearch = (st, q) => st.search({ tenantId: ws.id, chatbotId: botId, embedder: embedderId, vector: embeddings.embedSync(q.text), text: q.text, k: 5 });
    const localRound = async (q, record) => {
      const t = [now()];
      const vector = embeddings.embedSync(q.text);
      t.push(now());
      const hits = await hybridStore.search({ tenantId: ws.id, chatbotId: botId, embedder: embedderId, vector, text: q.text, k: 5 });
      t.push(now());
      await localSearch(vectorStore, q);
      t.push(now());
      const { language } = resolveReplyLanguage({ text: q.text, botLanguage: 'en' });
      t.push(now());
      const answer = extractiveAnswer({ question: q.text, passages: hits.map((h) => ({ text: h.text, score: h.score, document_id: h.documentId, title: h.title, source_url: h.sourceUrl })), language });
      for await (const piece of answer.chunks) void piece;
      t.push(now());
      if (record) Object.values(local).forEach((list, k) => list.push(t[k + 1] - t[k]));
    };
    for (let i = 0; i < Math.min(WARMUP, 50); i++) await localRound(questions[REQUESTS + (i % Math.max(1, WARMUP))], false);
    for (const q of main) await localRound(q, true);
    const localStats = Object.fromEntries(Object.entries(local).map(([k, v]) => [k, stats(v)]));
    for (const [k, v] of Object.entries(localStats)) ctx.log(`in-process ${k}: p50 ${v.p50} p99 ${v.p99} ms`);

    // The full-text side's work bound (PostgresVectorStore textMatchBudget, default 1500 rows):
    // the same hybrid search with smaller budgets, and whether the reply still quotes the answer.
    const budgets = {};
    for (const budget of [1500, 400, 200]) {
      const st = new PostgresVectorStore(pg, { textMatchBudget: budget });
      for (let i = 0; i < Math.min(WARMUP, 30); i++) await localSearch(st, questions[REQUESTS + (i % Math.max(1, WARMUP))]);
      const ms = [];
      let ok = 0;
      let asked = 0;
      for (const q of main) {
        const b0 = now();
        const hits = await localSearch(st, q);
        ms.push(now() - b0);
        if (!q.expect) continue;
        asked++;
        const answer = extractiveAnswer({ question: q.text, passages: hits.map((h) => ({ text: h.text, score: h.score, document_id: h.documentId, title: h.title, source_url: h.sourceUrl })), language: 'en' });
        if (answer.text.includes(q.expect.answer.split(/(?<=\.) /)[0])) ok++;
      }
      budgets[budget] = { search: stats(ms), replyQuotesAnswerPercent: round((ok / Math.max(1, asked)) * 100, 1) };
      ctx.log(`in-process hybrid search, textMatchBudget ${budget}: p50 ${budgets[budget].search.p50} p99 ${budgets[budget].search.p99} ms; the reply quotes the asked answer for ${budgets[budget].replyQuotesAnswerPercent} %`);
    }

    // -- the wiretap: where each turn's time goes ----------------------------------------------------
    let timeline = null;
    if (TIMELINE > 0) {
      const tap = await Wiretap.start(nats.url);
      ctx.defer('close the wiretap', () => tap.close());
      tap.enabled = true;
      const tq = Array.from({ length: TIMELINE }, (_, i) => main[i % main.length]);
      const gw = [];
      const di = [];
      for (let i = 0; i < tq.length; i++) {
        const first = i % 2 === 0;
        if (first) gw.push(await viaGateway(tq[i]));
        di.push(await viaNats(tq[i]));
        if (!first) gw.push(await viaGateway(tq[i]));
      }
      await infra.sleep(200);
      tap.enabled = false;
      timeline = { gateway: segments(tap, gw, 'gateway'), direct: segments(tap, di, 'direct'), otherMessages: Object.fromEntries(tap.other) };
      for (const [k, v] of Object.entries(timeline.gateway.p50)) ctx.log(`timeline (gateway) ${k}: p50 ${v} ms`);
      await tap.close();
    }

    // -- the table -------------------------------------------------------------------------------------
    const g = s1.gateway.ttfb;
    const d = s1.direct.ttfb;
    const sr = s1.search;
    const share = (a, b) => (a === null || b === null || !b ? null : round(a / b, 2));
    const rows = [
      { figure: `TTFB p50 ms, POST /v1/chat (first SSE frame), 1 at a time, ${REQUESTS} turns`, goal: `<= ${GOAL_P50_MS} ms`, measured: g.p50, baseline: d.p50, ratio: share(g.p50, d.p50), pass: g.p50 !== null && g.p50 <= GOAL_P50_MS },
      { figure: 'TTFB p99 ms, POST /v1/chat, 1 at a time', goal: `<= ${GOAL_P99_MS} ms`, measured: g.p99, baseline: d.p99, ratio: share(g.p99, d.p99), pass: g.p99 !== null && g.p99 <= GOAL_P99_MS },
      { figure: 'total p50 ms (to the end of the stream), 1 at a time', goal: '-', measured: s1.gateway.total.p50, baseline: s1.direct.total.p50, ratio: share(s1.gateway.total.p50, s1.direct.total.p50), pass: null },
      { figure: 'total p99 ms, 1 at a time', goal: '-', measured: s1.gateway.total.p99, baseline: s1.direct.total.p99, ratio: share(s1.gateway.total.p99, s1.direct.total.p99), pass: null },
      { figure: "gateway's share of TTFB p50 ms (gateway - direct; ratio = share)", goal: '-', measured: g.p50 === null ? null : round(g.p50 - d.p50, 2), baseline: g.p50, ratio: share(g.p50 - d.p50, g.p50), pass: null },
      { figure: "gateway's share of TTFB p99 ms (gateway - direct)", goal: '-', measured: g.p99 === null ? null : round(g.p99 - d.p99, 2), baseline: g.p99, ratio: share(g.p99 - d.p99, g.p99), pass: null },
      { figure: 'gateway - direct TTFB per round, median ms (same question)', goal: '-', measured: pairedDiff.p50, baseline: null, ratio: null, pass: null },
      { figure: 'TTFB p50 ms, chat.turn.start direct over NATS (no gateway)', goal: '-', measured: d.p50, baseline: g.p50, ratio: share(d.p50, g.p50), pass: null },
      { figure: 'TTFB p99 ms, direct over NATS', goal: '-', measured: d.p99, baseline: g.p99, ratio: share(d.p99, g.p99), pass: null },
      { figure: 'knowledge.passage.search p50 ms over NATS (retrieval alone; ratio = share of TTFB)', goal: '-', measured: sr.p50, baseline: g.p50, ratio: share(sr.p50, g.p50), pass: null },
      { figure: 'knowledge.passage.search p99 ms over NATS', goal: '-', measured: sr.p99, baseline: g.p99, ratio: share(sr.p99, g.p99), pass: null },
    ];
    for (const c of CONCURRENCY) {
      const x = concurrent[c];
      rows.push(
        { figure: `TTFB p50 ms, POST /v1/chat, ${c} in flight (${x.gateway.perSecond} turns/s)`, goal: `(<= ${GOAL_P50_MS} ms)`, measured: x.gateway.ttfb.p50, baseline: x.direct.ttfb.p50, ratio: share(x.gateway.ttfb.p50, x.direct.ttfb.p50), pass: null },
        { figure: `TTFB p99 ms, POST /v1/chat, ${c} in flight`, goal: `(<= ${GOAL_P99_MS} ms)`, measured: x.gateway.ttfb.p99, baseline: x.direct.ttfb.p99, ratio: share(x.gateway.ttfb.p99, x.direct.ttfb.p99), pass: null },
        { figure: `knowledge.passage.search p50 ms, ${c} in flight`, goal: '-', measured: x.search.ttfb.p50, baseline: x.gateway.ttfb.p50, ratio: share(x.search.ttfb.p50, x.gateway.ttfb.p50), pass: null },
      );
    }
    if (timeline) {
      for (const [k, v] of Object.entries(timeline.gateway.p50)) rows.push({ figure: `where TTFB goes, p50 ms: ${k}`, goal: '-', measured: v, baseline: timeline.gateway.ttfbP50, ratio: share(v, timeline.gateway.ttfbP50), pass: null });
    }
    // (bots.bot.describe / check, the embedding and the language are in the timeline or the JSON.)
    for (const [k, v] of Object.entries(hopStats)) if (!k.startsWith('bots.')) rows.push({ figure: `single hop p50 ms: ${k}`, goal: '-', measured: v.p50, baseline: null, ratio: null, pass: null });
    for (const [k, v] of Object.entries(localStats)) if (/search|extractive/.test(k)) rows.push({ figure: `in-process p50 ms: ${k}`, goal: '-', measured: v.p50, baseline: null, ratio: null, pass: null });
    for (const [b, v] of Object.entries(budgets)) {
      if (Number(b) === 1500) continue;
      rows.push({ figure: `in-process p50 ms: hybrid search, textMatchBudget ${b} instead of 1500 (reply quotes the asked answer ${v.replyQuotesAnswerPercent} % vs ${budgets[1500].replyQuotesAnswerPercent} %)`, goal: '-', measured: v.search.p50, baseline: budgets[1500].search.p50, ratio: share(v.search.p50, budgets[1500].search.p50), pass: null });
    }
    for (const c of CONCURRENCY) {
      const cpu = concurrent[c].gateway.cpu.seconds;
      const total = Object.values(cpu).reduce((a, b) => a + b, 0);
      const top = Object.entries(cpu).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, v]) => `${k} ${round((v * 1000) / REQUESTS, 1)}`).join(', ');
      rows.push({ figure: `CPU ms per turn through the gateway, all processes, ${c} in flight (${top})`, goal: '-', measured: round((total * 1000) / REQUESTS, 2), baseline: null, ratio: null, pass: null });
    }
    rows.push(
      { figure: 'answered from the knowledge (on-topic questions) %', goal: '-', measured: round((answered / Math.max(1, onTopic)) * 100, 1), baseline: null, ratio: null, pass: null },
      { figure: 'reply quotes the answer to the question asked (on-topic) %', goal: '-', measured: round((quoted / Math.max(1, onTopic)) * 100, 1), baseline: null, ratio: null, pass: null },
      { figure: 'asked page among the 5 passages retrieved %', goal: '-', measured: round((pageFound / Math.max(1, onTopic)) * 100, 1), baseline: null, ratio: null, pass: null },
      { figure: 'same answer through the gateway and direct %', goal: '100 %', measured: round((sameText / Math.max(1, compared)) * 100, 1), baseline: null, ratio: null, pass: sameText === compared },
      { figure: 'CPU % used by processes outside the benchmark (1 at a time)', goal: `< ${NOISE_WARN_PERCENT} %`, measured: cpu1.otherProcessesPercent, baseline: null, ratio: null, pass: cpu1.otherProcessesPercent < NOISE_WARN_PERCENT ? null : false },
      ...CONCURRENCY.map((c) => {
        const worst = Math.max(...Object.values(concurrent[c]).map((x) => x.cpu.otherProcessesPercent));
        return { figure: `CPU % used by processes outside the benchmark (${c} in flight, worst mode)`, goal: `< ${NOISE_WARN_PERCENT} %`, measured: worst, baseline: null, ratio: null, pass: worst < NOISE_WARN_PERCENT ? null : false };
      }),
      { figure: 'failed requests (errors, non-200, broken streams)', goal: '0', measured: problems.gateway + problems.direct + problems.search, baseline: null, ratio: null, pass: problems.gateway + problems.direct + problems.search === 0 },
    );
    for (const c of CONCURRENCY) {
      for (const [mode, x] of Object.entries(concurrent[c])) {
        if (x.cpu.otherProcessesPercent >= NOISE_WARN_PERCENT) ctx.log(`WARNING: ${x.cpu.otherProcessesPercent} % of a core was used by other processes during the ${c}-in-flight ${mode} run (${x.cpu.busiestOtherProcesses.slice(0, 3).map((p) => `${p.comm} ${p.percent} %`).join(', ')})`);
      }
    }
    if (cpu1.otherProcessesPercent >= NOISE_WARN_PERCENT) ctx.log(`WARNING: ${cpu1.otherProcessesPercent} % of a core was used by other processes during the measurement: figures are off, run again`);

    const turns = REQUESTS * 2;
    const cpuPerTurnMs = Object.fromEntries(Object.entries(cpu1.seconds).map(([k, s]) => [k, round((s * 1000) / turns, 2)]));
    return {
      rows,
      invalid,
      details: {
        database: dbName,
        chunks: CHUNKS,
        documents,
        averageChunkCharacters: chunkChars,
        embedder: embedderId,
        requests: REQUESTS,
        warmupRounds: WARMUP,
        coldFirstSearchMs: round(coldMs, 1),
        oneAtATime: s1,
        gatewayMinusDirectPerRound: pairedDiff,
        concurrent,
        hops: hopStats,
        inProcess: localStats,
        textMatchBudgets: budgets,
        timeline,
        cpuOneAtATime: cpu1,
        cpuMsPerTurnOneAtATime: { note: 'CPU ms per chat turn (gateway and direct turns together; the search requests are included in knowledge)', ...cpuPerTurnMs },
        quality: { onTopic, answered, quoted, pageFound, compared, sameText },
        problems,
        sampleQuestions: main.slice(0, 5).map((q, i) => ({ question: q.text, answer: seq1.direct[i] && seq1.direct[i].text })),
      },
    };
  },
};

/** Per-turn segments from the wiretap's timestamps and the client's own times. */
function segments(tap, results, mode) {
  const names = [
    [mode === 'gateway' ? 'gateway in: HTTP request -> chat.turn.start on NATS' : 'client in: request -> chat.turn.start on NATS', (r, e) => e['chat.turn.start >'] - r.startedAt],
    ['chat: start received -> bots.bot.describe sent', (r, e) => e['bots.bot.describe >'] - e['chat.turn.start >']],
    ['bots.bot.describe round trip', (r, e) => e['bots.bot.describe <'] - e['bots.bot.describe >']],
    ['chat: session check + quota upsert + language', (r, e) => e['knowledge.passage.search >'] - e['bots.bot.describe <']],
    ['knowledge: received -> bots.bot.check sent', (r, e) => e['bots.bot.check >'] - e['knowledge.passage.search >']],
    ['bots.bot.check round trip', (r, e) => e['bots.bot.check <'] - e['bots.bot.check >']],
    ['knowledge: embed + vector store search + reply', (r, e) => e['knowledge.passage.search <'] - e['bots.bot.check <']],
    ['chat: extractive answer + start reply', (r, e) => e['chat.turn.start <'] - e['knowledge.passage.search <']],
    ['first delta later than the start reply (0 when before it)', (r, e) => Math.max(0, e['first delta'] - e['chat.turn.start <'])],
    [mode === 'gateway' ? 'gateway out: start reply + first delta -> first SSE frame at the client' : 'client out: -> first delta and start reply at the client', (r, e) => r.startedAt + r.ttfb - Math.max(e['chat.turn.start <'], e['first delta'])],
  ];
  const values = Object.fromEntries(names.map(([n]) => [n, []]));
  let complete = 0;
  for (const r of results) {
    if (!r) continue;
    const e = tap.timeline(r.requestId);
    if (['chat.turn.start >', 'chat.turn.start <', 'bots.bot.describe >', 'bots.bot.describe <', 'knowledge.passage.search >', 'knowledge.passage.search <', 'bots.bot.check >', 'bots.bot.check <', 'first delta'].some((k) => e[k] === undefined)) continue;
    complete++;
    for (const [n, f] of names) values[n].push(f(r, e));
  }
  const all = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, stats(v)]));
  return {
    turns: results.filter(Boolean).length,
    complete,
    ttfbP50: stats(results.filter(Boolean).map((r) => r.ttfb)).p50,
    p50: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.p50])),
    stats: all,
  };
}
