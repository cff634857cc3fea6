'use strict';
// Issue #36, item 5 ("Many visitors at once"): BENCH_WIDGET_STREAMS (5,000) widget chat answers
// streaming at once (POST /widget/v1/bots/:botId/chat, SSE) across two gateway replicas, through
// the real system. Measured: the memory each open stream costs the gateways (and the chat
// service), and the time to first byte of a new visitor's answer while they are open, against the
// same probes on the quiet system in the same run.
//
//   1. a private nats-server, a fresh database, the compiled apps (bench/lib/infra.js, as every
//      benchmark; all but the console; those a widget turn does not use with DB_POOL_SIZE=1, as
//      PostgreSQL's slots are shared with the machine), and a second gateway replica: another
//      gateway process on its own port with the same NATS and database. The chat service's model is an OpenAI-
//      compatible stand-in in a child process (bench/lib/held-model.js) that holds every answer
//      open: its first piece after 10 ms, then a piece every BENCH_WIDGET_STREAMS_GAP_MS (5 s:
//      a slow model, which also keeps the gateway's idle timeout from ending the stream) until the
//      benchmark releases them. A `scale` workspace and one bot; the widget's limits raised for
//      the run (every stream comes from 127.0.0.1): WIDGET_RATE_LIMIT_REQUESTS,
//      HTTP_MAX_CONNECTIONS_PER_ADDRESS=0, the bot's monthly widget budget (PLAN_LIMITS), and
//      CHAT_MAX_TURN_MS (10 min: the answers stay open longer than the default 2 min);
//   2. quiet baseline: BENCH_WIDGET_STREAMS_PROBES (200) probes one at a time, alternating
//      between the replicas: a new visitor's widget chat (no session: one is minted) read to its
//      first SSE frame (TTFB), then closed as a visitor who leaves (the turn is cancelled); the
//      memory of both gateways and the chat service (RSS and V8 heap used, median of 5 samples 1 s
//      apart, then right after one full GC: bench/lib/gc-preload.js, preloaded into the apps), and
//      their CPU over 10 s of quiet;
//   3. the streams: BENCH_WIDGET_STREAMS opened, BENCH_WIDGET_STREAMS_OPENING (100) at a time
//      waiting for their first frame, each on its own connection (no agent), alternating between
//      the replicas; every one must answer 200 and stay open. With all of them open: the same
//      memory samples and 10 s of CPU, the gateways' sa_chat_streams_open gauges and the NATS
//      server's subscriptions, then the same probes as the baseline;
//   4. release: the stand-in ends the answers, BENCH_WIDGET_STREAMS_END_RATE (100) a second (0:
//      all at once, which the chat service does not survive: bench/README.md); every stream must
//      end with finish_reason "stop".
//   Memory per open stream = (memory with the streams open - quiet memory) / streams open. RSS
//   keeps the heap's high-water mark and garbage not yet collected, so the heap used after a full
//   GC (what the streams keep alive) is given beside it.
//
// Environment: BENCH_WIDGET_STREAMS (5000; --smoke 200), BENCH_WIDGET_STREAMS_PROBES (200;
// --smoke 20), BENCH_WIDGET_STREAMS_OPENING (100), BENCH_WIDGET_STREAMS_GAP_MS (5000),
// BENCH_WIDGET_STREAMS_END_RATE (100).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const infra = require('./lib/infra');
const { round } = require('./lib/load');
const { startHeldModel } = require('./lib/held-model');
const { openSseStream } = require('./lib/sse-stream');

const STREAMS = Math.max(10, Number(process.env.BENCH_WIDGET_STREAMS || 5000));
const PROBES = Math.max(5, Number(process.env.BENCH_WIDGET_STREAMS_PROBES || 200));
const OPENING = Math.max(1, Number(process.env.BENCH_WIDGET_STREAMS_OPENING || 100));
const GAP_MS = Math.max(100, Number(process.env.BENCH_WIDGET_STREAMS_GAP_MS || 5000));
/** Answers the stand-in ends per second after the measurement; 0: all at once (see README: a burst fails). */
const END_RATE = Math.max(0, Number(process.env.BENCH_WIDGET_STREAMS_END_RATE ?? 100));
const SMOKE_STREAMS = 200;
const SMOKE_PROBES = 20;
const CPU_WINDOW_MS = 10000;
/** Descriptors a process needs beyond its streams (libraries, logs, NATS, pg, Redis ...). */
const FD_MARGIN = 500;
const OPEN_TIMEOUT_MS = 300_000;
const END_TIMEOUT_MS = 180_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function stats(values) {
  const s = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return { n: 0, min: null, p50: null, p95: null, p99: null, max: null, mean: null };
  const r2 = (x) => round(x, 2);
  return { n: s.length, min: r2(s[0]), p50: r2(percentile(s, 50)), p95: r2(percentile(s, 95)), p99: r2(percentile(s, 99)), max: r2(s[s.length - 1]), mean: r2(s.reduce((a, b) => a + b, 0) / s.length) };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The soft limit on open files of a process (`Max open files` in /proc/<pid>/limits). */
function openFilesLimit(pid = 'self') {
  const line = fs
    .readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const [soft, hard] = line.slice('Max open files'.length).trim().split(/\s+/);
  return { soft: soft === 'unlimited' ? Infinity : Number(soft), hard: hard === 'unlimited' ? Infinity : Number(hard) };
}

function openFiles(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** Resident memory of a process, bytes (VmRSS). */
function rssOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : null;
}

const CLK_TCK = 100;
function cpuSecondsOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/**
 * The sum of a metric's series in an app's Prometheus metrics (its ops port), those whose labels
 * contain `labels` (e.g. `channel="widget"`); every series also carries `service`.
 */
async function metricOf(opsUrl, name, labels = '') {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    const i = line.lastIndexOf(' ');
    if (labels && !line.slice(name.length, i).includes(labels)) continue;
    sum += Number(line.slice(i + 1));
  }
  return sum;
}

/**
 * Each process's memory: as it is (median of 5 samples 1 s apart of RSS and the V8 heap used,
 * from its /metrics), then right after a full garbage collection (bench/lib/gc-preload.js): RSS,
 * heap used and `external` (Buffers and other memory outside the V8 heap) as process.memoryUsage()
 * gives them.
 */
async function memory(procs, gcDir) {
  const samples = Object.fromEntries(Object.keys(procs).map((k) => [k, { rss: [], heap: [] }]));
  for (let i = 0; i < 5; i++) {
    if (i) await sleep(1000);
    for (const [k, p] of Object.entries(procs)) {
      samples[k].rss.push(rssOf(p.pid));
      samples[k].heap.push(await metricOf(p.opsUrl, 'nodejs_heap_size_used_bytes'));
    }
  }
  const n = String(++gcRound);
  fs.writeFileSync(`${gcDir}/control`, `gc ${n}\n`);
  const afterGc = {};
  const deadline = Date.now() + 30000;
  for (const [k, p] of Object.entries(procs)) {
    const file = `${gcDir}/${p.gcName}-${n}.json`;
    while (!fs.existsSync(file) && Date.now() < deadline) await sleep(100);
    await sleep(50); // written in one call; a read at the very moment could see it half-written
    afterGc[k] = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
  }
  return Object.fromEntries(
    Object.entries(samples).map(([k, s]) => [
      k,
      { rssBytes: median(s.rss), heapUsedBytes: median(s.heap), afterGc: afterGc[k] && { rssBytes: afterGc[k].rss, heapUsedBytes: afterGc[k].heapUsed, externalBytes: afterGc[k].external, gcMs: round(afterGc[k].gcMs, 1) } },
    ]),
  );
}
let gcRound = 0;

/** CPU of each process over `ms`, percent of one core. */
async function cpu(procs, ms) {
  const before = Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, cpuSecondsOf(p.pid)]));
  const t0 = Date.now();
  await sleep(ms);
  const wall = (Date.now() - t0) / 1000;
  return Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, round(((cpuSecondsOf(p.pid) - before[k]) / wall) * 100, 1)]));
}

/** Subscriptions the NATS server holds now (/subsz). */
async function natsSubscriptions(monitorUrl) {
  if (!monitorUrl) return null;
  return (await (await fetch(`${monitorUrl}/subsz`)).json()).num_subscriptions;
}

/** PostgreSQL connections that can still be opened (max_connections less those open, less the reserved ones). */
async function freeConnectionSlots() {
  const { Client } = require('pg');
  const c = new Client({ connectionString: infra.ADMIN_DATABASE_URL, application_name: 'bench-widget-streams' });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int - (SELECT count(*) FROM pg_stat_activity)::int AS free`);
    return rows[0].free;
  } finally {
    await c.end();
  }
}

module.exports = {
  name: 'widget-streams',
  goal: `${STREAMS.toLocaleString('en')} widget chat streams open at once across two gateway replicas: memory per open stream and time to first byte, against the quiet system`,

  async run(ctx) {
    const smoke = Boolean(ctx.options.smoke);
    const streams = smoke ? Math.min(STREAMS, SMOKE_STREAMS) : STREAMS;
    const probes = smoke ? Math.min(PROBES, SMOKE_PROBES) : PROBES;
    const invalid = [];

    // Each stream is a socket here, one in a gateway, one from the chat service to the model and
    // one in the stand-in; Node cannot raise its own limit, so say so before starting anything.
    const fds = openFilesLimit();
    ctx.log(`open files limit (ulimit -n) of this process: ${fds.soft} (hard ${fds.hard}); the apps and the stand-in inherit it`);
    if (fds.soft < streams + FD_MARGIN) throw new Error(`ulimit -n is ${fds.soft}: ${streams} streams need at least ${streams + FD_MARGIN} open files in this process and in the chat service; raise it (ulimit -n ${Math.min(fds.hard, 4 * streams)}) or set BENCH_WIDGET_STREAMS lower`);

    const { dbUrl, nats, redisUrl, useRedis, logDir, webhookSecretKey } = await infra.prepareSystem(ctx);
    const pgSlots = await freeConnectionSlots();
    ctx.log(`PostgreSQL: ${pgSlots} connection slots free before the apps start (the system takes about 60)`);
    const gcDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-bench-gc-'));
    ctx.defer('remove the GC control folder', () => fs.rmSync(gcDir, { recursive: true, force: true }));
    const modelPort = await infra.freePort();
    const model = await startHeldModel({ port: modelPort, gapMs: GAP_MS });
    ctx.defer('stop the model stand-in', () => model.close());
    ctx.log(`model stand-in ${model.baseUrl} (pid ${model.pid}): first piece after 10 ms, then one every ${GAP_MS} ms until released`);

    const { APPS } = infra.loadLauncher();
    const System = infra.loadSystem();
    const apps = APPS.filter((a) => a !== 'console');
    // The apps a widget turn goes through keep their pools; the others only answer /readyz, with
    // one connection each: PostgreSQL's slots (max_connections) are shared with whatever else
    // runs on the machine, and 5,000 turns must not fail for want of one.
    const path_ = ['gateway', 'bots', 'knowledge', 'chat'];
    const ports = await infra.systemPorts(apps);
    const env = {
      ...infra.systemEnv({ dbUrl, nats, webhookSecretKey }, ports),
      CHAT_MODEL_PROVIDER: 'openai',
      CHAT_MODEL_BASE_URL: model.baseUrl,
      CHAT_MODEL_NAME: 'bench-held-model',
      CHAT_MODEL_API_KEY: 'bench',
      CHAT_MODEL_MAX_RETRIES: '0',
      // The answers are held open for minutes; the default cuts a turn at 2 min.
      CHAT_MAX_TURN_MS: '600000',
      // Every visitor of the run comes from 127.0.0.1: the per-address limits would refuse them.
      WIDGET_RATE_LIMIT_REQUESTS: '1000000000',
      RATE_LIMIT_REQUESTS: '1000000000',
      ANONYMOUS_RATE_LIMIT_REQUESTS: '1000000000',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      RATE_LIMIT_PREFIX: `sa:bench:${randomBytes(4).toString('hex')}:`,
      // The bot's monthly widget budget (scale: 10,000) would end a full run early.
      PLAN_LIMITS: JSON.stringify({ scale: { widgetMessagesPerBotPerMonth: 100_000_000 } }),
      ...(useRedis ? { REDIS_URL: redisUrl } : {}),
      ...ctx.options.env,
      // Full collections on request, for the memory figures (bench/lib/gc-preload.js).
      NODE_OPTIONS: `${ctx.options.env.NODE_OPTIONS || ''} --require ${path.join(__dirname, 'lib', 'gc-preload.js')}`.trim(),
      BENCH_GC_DIR: gcDir,
    };
    const system = new System({ root: infra.ROOT, env: { PATH: process.env.PATH, ...env }, output: { kind: 'files', dir: logDir }, opsPorts: ports.opsPorts, onEvent: (l) => ctx.log(`system: ${l}`) });
    const others = new System({ root: infra.ROOT, env: { PATH: process.env.PATH, ...env, DB_POOL_SIZE: '1' }, output: { kind: 'files', dir: logDir }, opsPorts: ports.opsPorts, onEvent: (l) => ctx.log(`system: ${l}`) });
    ctx.defer('stop the apps', () => Promise.all([system.stop(), others.stop()]));
    const t0 = Date.now();
    await others.start(apps.filter((a) => !path_.includes(a)));
    await system.start(path_);
    await system.waitReady(120000);
    // The second replica: the same gateway on its own port (and ops port), the same NATS and database.
    const port2 = String(await infra.freePort());
    const ops2 = await infra.freePort();
    const replica = new System({
      root: infra.ROOT,
      env: { PATH: process.env.PATH, ...env, GATEWAY_PORT: port2 },
      output: { kind: 'files', dir: `${logDir}/replica-2` },
      opsPorts: { gateway: ops2 },
      onEvent: (l) => ctx.log(`replica 2: ${l}`),
    });
    ctx.defer('stop the second gateway', () => replica.stop());
    await replica.start(['gateway']);
    await replica.waitReady(120000);
    ctx.log(`${apps.length} apps and a second gateway ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (gateways ${system.gatewayUrl}, ${replica.gatewayUrl})`);

    const gateways = [
      { name: 'gateway 1', port: Number(new URL(system.gatewayUrl).port), pid: system.pid('gateway'), opsUrl: system.opsUrl('gateway') },
      { name: 'gateway 2', port: Number(port2), pid: replica.pid('gateway'), opsUrl: replica.opsUrl('gateway') },
    ];
    for (const g of gateways) g.gcName = `gateway-${g.port}`;
    const procs = {
      'gateway 1': gateways[0],
      'gateway 2': gateways[1],
      chat: { pid: system.pid('chat'), opsUrl: system.opsUrl('chat'), gcName: `chat-${system.pid('chat')}` },
    };
    for (const [k, p] of Object.entries(procs)) {
      const limit = openFilesLimit(p.pid);
      if (limit.soft < streams + FD_MARGIN) throw new Error(`${k} (pid ${p.pid}) may open ${limit.soft} files: too few for ${streams} streams`);
    }

    const ws = await infra.admin(dbUrl, ['workspace', 'create', '--name', 'Bench widget streams', '--plan', 'scale', '--messages-per-month', '100000000']);
    const tok = await infra.admin(dbUrl, ['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--name', 'bench-widget-streams']);
    const bot = await infra.api(system.baseUrl, tok.token, 'POST', '/bots', { name: 'Help centre', language: 'en' });
    if (bot.status !== 201) throw new Error(`POST /v1/bots answered ${bot.status}: ${bot.text.slice(0, 300)}`);
    const botId = bot.body.data.id;
    const chatPath = `/widget/v1/bots/${botId}/chat`;
    let visitor = 0;
    const open = (gw) => openSseStream({ port: gw.port, path: chatPath, body: { message: `Where is my order number ${++visitor}?` } });

    // -- probes: one new visitor at a time, read to the first frame, then gone -------------------
    async function probe(label) {
      const ttfb = [];
      const headers = [];
      const failures = [];
      for (let i = 0; i < probes; i++) {
        const s = open(gateways[i % 2]);
        const first = await Promise.race([s.firstFrame, sleep(30000).then(() => null)]);
        if (first === null || s.state.status !== 200) failures.push(`${label} probe ${i} (${gateways[i % 2].name}): status ${s.state.status}, ${s.state.error || 'no frame in 30 s'}`);
        else {
          ttfb.push(first);
          headers.push(s.state.headersMs);
        }
        s.destroy();
        await s.done;
        // A visitor every 20 ms at most: the probes measure the system, not a burst of their own.
        await sleep(20);
      }
      return { ttfb: stats(ttfb), headers: stats(headers), failures };
    }

    // Warm-up (JIT, caches, the bot in each gateway's cache), not measured.
    ctx.log('warm-up: 40 probes');
    await (async () => {
      for (let i = 0; i < 40; i++) {
        const s = open(gateways[i % 2]);
        await Promise.race([s.firstFrame, sleep(30000)]);
        s.destroy();
        await s.done;
      }
    })();
    await sleep(2000);

    ctx.log(`quiet baseline: ${probes} probes`);
    const quietProbes = await probe('quiet');
    for (const f of quietProbes.failures.slice(0, 5)) invalid.push(f);
    ctx.log(`quiet TTFB p50 ${quietProbes.ttfb.p50} ms, p99 ${quietProbes.ttfb.p99} ms`);
    await sleep(3000);
    const quietMemory = await memory(procs, gcDir);
    const quietCpu = await cpu(procs, CPU_WINDOW_MS);
    const quietSubs = await natsSubscriptions(nats.monitorUrl);
    const quietGauges = await Promise.all(gateways.map((g) => metricOf(g.opsUrl, 'sa_chat_streams_open', 'channel="widget"')));
    ctx.log(`quiet: ${Object.entries(quietMemory).map(([k, m]) => `${k} RSS ${round(m.rssBytes / 2 ** 20, 1)} MiB heap ${round(m.heapUsedBytes / 2 ** 20, 1)} MiB`).join(', ')}; CPU ${JSON.stringify(quietCpu)}`);

    // -- the streams -------------------------------------------------------------------------------
    ctx.log(`opening ${streams} streams, ${OPENING} at a time waiting for their first frame`);
    const held = [];
    const openingTtfb = [];
    const openFailures = [];
    const tOpen = Date.now();
    let next = 0;
    let lastLog = Date.now();
    const opener = async () => {
      while (next < streams && Date.now() - tOpen < OPEN_TIMEOUT_MS) {
        const i = next++;
        const s = open(gateways[i % 2]);
        s.gateway = gateways[i % 2].name;
        held.push(s);
        const first = await Promise.race([s.firstFrame, sleep(60000).then(() => null)]);
        if (first === null || s.state.status !== 200) openFailures.push(`stream ${i} (${s.gateway}): status ${s.state.status}, ${s.state.error || 'no frame in 60 s'}`);
        else openingTtfb.push(first);
        if (Date.now() - lastLog > 5000) {
          lastLog = Date.now();
          ctx.log(`  ${held.length} opened, ${openingTtfb.length} streaming, ${openFailures.length} failed, ${((Date.now() - tOpen) / 1000).toFixed(0)} s`);
        }
      }
    };
    await Promise.all(Array.from({ length: OPENING }, opener));
    const openS = (Date.now() - tOpen) / 1000;
    ctx.log(`${held.length} streams opened in ${openS.toFixed(1)} s (${round(held.length / openS, 1)}/s), ${openFailures.length} failed`);
    for (const f of openFailures.slice(0, 5)) invalid.push(f);
    if (openFailures.length > 5) invalid.push(`... ${openFailures.length} streams failed to open in all`);
    if (held.length < streams) invalid.push(`only ${held.length} of ${streams} streams were opened in ${OPEN_TIMEOUT_MS / 1000} s`);

    // Settle: the last ones' starts done, the gateways' allocation for them made.
    await sleep(3000);
    const alive = () => held.filter((s) => s.state.endMs === null).length;
    const openAtMemory = alive();
    const loadMemory = await memory(procs, gcDir);
    const loadCpu = await cpu(procs, CPU_WINDOW_MS);
    const loadSubs = await natsSubscriptions(nats.monitorUrl);
    const loadGauges = await Promise.all(gateways.map((g) => metricOf(g.opsUrl, 'sa_chat_streams_open', 'channel="widget"')));
    const fdsWith = Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, openFiles(p.pid)]));
    const modelStats = await model.stats();
    ctx.log(`with ${openAtMemory} open (gateways' gauges ${loadGauges.join(' + ')}, stand-in holds ${modelStats.held}): ${Object.entries(loadMemory).map(([k, m]) => `${k} RSS ${round(m.rssBytes / 2 ** 20, 1)} MiB heap ${round(m.heapUsedBytes / 2 ** 20, 1)} MiB (full GC: ${m.afterGc && m.afterGc.gcMs} ms)`).join(', ')}; CPU ${JSON.stringify(loadCpu)}; open files ${JSON.stringify(fdsWith)}`);

    ctx.log(`probes with ${alive()} streams open: ${probes}`);
    const loadProbes = await probe('loaded');
    for (const f of loadProbes.failures.slice(0, 5)) invalid.push(f);
    ctx.log(`loaded TTFB p50 ${loadProbes.ttfb.p50} ms, p99 ${loadProbes.ttfb.p99} ms`);
    const openAfterProbes = alive();
    if (openAfterProbes < held.length - openFailures.length) invalid.push(`${held.length - openFailures.length - openAfterProbes} streams ended before the release: ${[...new Set(held.filter((s) => s.state.endMs !== null && s.state.firstFrameMs !== null).map((s) => s.state.error || `finish_reason ${s.state.finishReason}`))].slice(0, 3).join('; ')}`);

    // -- release: every answer must end complete ---------------------------------------------------
    const tEnd = Date.now();
    if (END_RATE === 0) await model.release();
    else {
      ctx.log(`releasing the answers, ${END_RATE} per second`);
      // In tenths of a second, so the ends are spread as visitors' answers are.
      for (let left = Infinity; left > 0 && Date.now() - tEnd < END_TIMEOUT_MS; ) {
        left = (await model.release(Math.max(1, Math.round(END_RATE / 10)))).held;
        await sleep(100);
      }
    }
    const ended = await Promise.race([Promise.all(held.map((s) => s.done)), sleep(END_TIMEOUT_MS).then(() => null)]);
    const endS = (Date.now() - tEnd) / 1000;
    if (!ended) invalid.push(`${alive()} streams had not ended ${END_TIMEOUT_MS / 1000} s after the release`);
    const complete = held.filter((s) => s.state.finishReason === 'stop' && !s.state.error).length;
    const broken = held.filter((s) => s.state.firstFrameMs !== null && !(s.state.finishReason === 'stop' && !s.state.error));
    if (broken.length) invalid.push(`${broken.length} streams did not end complete: ${[...new Set(broken.map((s) => s.state.error || `finish_reason ${s.state.finishReason}`))].slice(0, 3).join('; ')}`);
    ctx.log(`released: ${complete} of ${held.length} ended with finish_reason stop in ${endS.toFixed(1)} s`);
    for (const s of held) if (s.state.endMs === null) s.destroy();

    // -- figures -----------------------------------------------------------------------------------
    const mib = (b) => round(b / 2 ** 20, 1);
    const field = (m, k, name) => (name.startsWith('gc.') ? m[k].afterGc && m[k].afterGc[name.slice(3)] : m[k][name]);
    const sum = (m, keys, name) => keys.reduce((a, k) => (a === null || field(m, k, name) == null ? null : a + field(m, k, name)), 0);
    const perStreamKiB = (keys, name) => {
      const [after, before] = [sum(loadMemory, keys, name), sum(quietMemory, keys, name)];
      return after === null || before === null ? null : round((after - before) / 1024 / Math.max(1, openAtMemory), 1);
    };
    const gw = ['gateway 1', 'gateway 2'];
    const ratio = (a, b) => (a !== null && b ? round(a / b, 2) : null);
    const failures = openFailures.length + quietProbes.failures.length + loadProbes.failures.length + broken.length;
    const rows = [
      { figure: `TTFB p50 of a new visitor with ${openAtMemory} streams open, ms (first SSE frame)`, goal: '-', measured: loadProbes.ttfb.p50, baseline: quietProbes.ttfb.p50, ratio: ratio(loadProbes.ttfb.p50, quietProbes.ttfb.p50), pass: null },
      { figure: `TTFB p95 with ${openAtMemory} streams open, ms`, goal: '-', measured: loadProbes.ttfb.p95, baseline: quietProbes.ttfb.p95, ratio: ratio(loadProbes.ttfb.p95, quietProbes.ttfb.p95), pass: null },
      { figure: `TTFB p99 with ${openAtMemory} streams open, ms`, goal: '-', measured: loadProbes.ttfb.p99, baseline: quietProbes.ttfb.p99, ratio: ratio(loadProbes.ttfb.p99, quietProbes.ttfb.p99), pass: null },
      { figure: `response headers p50 with ${openAtMemory} streams open, ms`, goal: '-', measured: loadProbes.headers.p50, baseline: quietProbes.headers.p50, ratio: ratio(loadProbes.headers.p50, quietProbes.headers.p50), pass: null },
      { figure: `TTFB p50 / p99 of the ${held.length} streams while opening (${OPENING} at a time), ms`, goal: '-', measured: `${stats(openingTtfb).p50} / ${stats(openingTtfb).p99}`, baseline: `${quietProbes.ttfb.p50} / ${quietProbes.ttfb.p99}`, ratio: ratio(stats(openingTtfb).p50, quietProbes.ttfb.p50), pass: null },
      ...[
        ['gateways (2 replicas)', gw],
        ['chat service', ['chat']],
      ].flatMap(([who, keys]) => [
        { figure: `${who} RSS, MiB`, goal: '-', measured: mib(sum(loadMemory, keys, 'rssBytes')), baseline: mib(sum(quietMemory, keys, 'rssBytes')), ratio: ratio(sum(loadMemory, keys, 'rssBytes'), sum(quietMemory, keys, 'rssBytes')), pass: null },
        { figure: `${who} RSS after a full GC, MiB`, goal: '-', measured: mib(sum(loadMemory, keys, 'gc.rssBytes')), baseline: mib(sum(quietMemory, keys, 'gc.rssBytes')), ratio: ratio(sum(loadMemory, keys, 'gc.rssBytes'), sum(quietMemory, keys, 'gc.rssBytes')), pass: null },
        { figure: `${who}: RSS per open stream, KiB`, goal: '-', measured: perStreamKiB(keys, 'rssBytes'), baseline: null, ratio: null, pass: null },
        { figure: `${who}: RSS per open stream after a full GC, KiB`, goal: '-', measured: perStreamKiB(keys, 'gc.rssBytes'), baseline: null, ratio: null, pass: null },
        { figure: `${who}: V8 heap used per open stream after a full GC, KiB`, goal: '-', measured: perStreamKiB(keys, 'gc.heapUsedBytes'), baseline: null, ratio: null, pass: null },
      ]),
      { figure: 'gateways CPU, % of one core (2 replicas, streams idle between pieces)', goal: '-', measured: round(loadCpu['gateway 1'] + loadCpu['gateway 2'], 1), baseline: round(quietCpu['gateway 1'] + quietCpu['gateway 2'], 1), ratio: null, pass: null },
      { figure: 'chat service CPU, % of one core (streams idle between pieces)', goal: '-', measured: loadCpu.chat, baseline: quietCpu.chat, ratio: null, pass: null },
      { figure: 'NATS subscriptions per open stream', goal: '-', measured: loadSubs !== null ? round((loadSubs - quietSubs) / Math.max(1, openAtMemory), 2) : null, baseline: null, ratio: null, pass: null },
      { figure: "streams open at the memory sample (client; gateways' gauges)", goal: String(streams), measured: `${openAtMemory}; ${loadGauges.map((g, i) => g - quietGauges[i]).join(' + ')}`, baseline: null, ratio: null, pass: openAtMemory === streams && loadGauges.reduce((a, g, i) => a + g - quietGauges[i], 0) === streams },
      { figure: 'streams ended complete after the release', goal: String(streams), measured: complete, baseline: null, ratio: null, pass: complete === streams },
      { figure: 'failed streams and probes', goal: '0', measured: failures, baseline: null, ratio: null, pass: failures === 0 },
    ];
    return {
      rows,
      invalid,
      details: {
        streams,
        probes,
        openingConcurrency: OPENING,
        modelGapMs: GAP_MS,
        openFilesLimit: fds,
        postgresSlotsFreeAtStart: pgSlots,
        openFilesWithStreams: fdsWith,
        openSeconds: round(openS, 1),
        endSecondsAfterRelease: round(endS, 1),
        endRatePerSecond: END_RATE || 'all at once',
        ttfb: { quiet: quietProbes, loaded: loadProbes, opening: stats(openingTtfb) },
        memory: { quiet: quietMemory, loaded: loadMemory, openAtSample: openAtMemory },
        cpuPercentOfOneCore: { quiet: quietCpu, loaded: loadCpu, windowMs: CPU_WINDOW_MS },
        natsSubscriptions: { quiet: quietSubs, loaded: loadSubs },
        gauges: { quiet: quietGauges, loaded: loadGauges },
        model: modelStats,
        failures: { open: openFailures.slice(0, 20), quiet: quietProbes.failures.slice(0, 20), loaded: loadProbes.failures.slice(0, 20) },
      },
    };
  },
};
