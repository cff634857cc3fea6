'use strict';
// Issue #36: what clients meet when a replica dies under load. Two replicas of every app (two
// Systems, A and B, on one database and one private nats-server, each with its own gateway, MCP
// server and console ports), a steady mixed load spread over both gateways and both MCP servers,
// and then, one app after the other, `kill -9` of B's replica of that app, a few seconds of load
// with it dead, its restart, and the next app.
//
// The load (each loop one request at a time, all at once):
//   reads     GET /v1/bots, /v1/kb, /v1/leads, /v1/bookings, /v1/conversations, /v1/analytics and
//             the widget's GET …/config: idempotent, so every one must succeed;
//   writes    POST /v1/bots (a unique name), POST /v1/kb/ingest (a unique title) and the widget's
//             lead form (a unique e-mail): never run twice; a failure must be a 503 with Retry-After;
//   mcp       tools/call of list_bots, list_knowledge and get_analytics (reads) over MCP;
//   chat      the widget's chat (an SSE stream): ends with `stop`, or with `error` when the chat
//             replica answering it died (the message is then not charged).
// Clients reach the two gateways (and the two MCP servers) as they would through a load balancer:
// in turn; a request refused or cut at the connection (the gateway replica itself died) is sent to
// the other gateway when it is idempotent, as a balancer retries it (counted apart), and is an
// unknown outcome otherwise.
//
// Printed: client-visible failures by kind and by the app killed at the time; writes stored twice
// (names, titles, e-mails); webhook deliveries lost or duplicated (a receiver subscribed to every
// event counts event ids); messages charged for answers that were not stored.
//
// Environment: BENCH_FAILOVER_STEADY_MS (3000) load before each kill, BENCH_FAILOVER_DEAD_MS
// (6000) load with the replica dead (longer than RPC_LOST_AFTER_MS, 3.5 s), BENCH_FAILOVER_APPS
// (every app) the apps to kill, comma separated.
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const infra = require('./lib/infra');

const STEADY_MS = Number(process.env.BENCH_FAILOVER_STEADY_MS || 3000);
const DEAD_MS = Number(process.env.BENCH_FAILOVER_DEAD_MS || 6000);
const READ_LOOPS = 3;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A webhook endpoint that answers 200 at once and counts every event id it receives. */
function startReceiver() {
  const seen = new Map();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['x-service-event-id'];
      if (id) seen.set(id, (seen.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ seen, port: server.address().port, url: (p) => `http://127.0.0.1:${server.address().port}${p}`, close: () => new Promise((r) => server.close(r)) }),
    ),
  );
}

/** A connection-level failure: the request never got a response (refused, reset, cut). */
const connectionError = (err) => {
  const code = err?.cause?.code ?? err?.code ?? '';
  return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(code) || /other side closed|socket hang up|fetch failed|terminated/i.test(String(err?.message ?? ''));
};

/** The connection was refused: nothing was sent, so any request may go to another replica. */
const refused = (err) => (err?.cause?.code ?? err?.code) === 'ECONNREFUSED';

/** A request in flight on a gateway replica when it died: its connection is cut (a balancer answers 502). */
const CUT = 'connection cut with its gateway replica (outcome unknown)';

/** The JSON of every SSE event of a body (its `data:` lines); for the MCP answer and the chat stream. */
function frames(text) {
  return text
    .split('\n\n')
    .map((block) =>
      block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n'),
    )
    .filter(Boolean)
    .map((data) => {
      try {
        return JSON.parse(data);
      } catch {
        return null;
      }
    });
}

module.exports = {
  name: 'failover',
  goal: 'two replicas of every app; kill -9 one replica of each app in turn under mixed load (REST reads and writes, MCP, widget chat): 0 failed idempotent requests, 0 writes run twice, every unknown outcome a 503 with Retry-After, 0 webhook deliveries lost or duplicated',

  async run(ctx) {
    const smoke = Boolean(ctx.options.smoke);
    const { System, APPS } = infra.loadLauncher();
    const killed = (process.env.BENCH_FAILOVER_APPS ? process.env.BENCH_FAILOVER_APPS.split(',').map((s) => s.trim()) : smoke ? ['bots', 'chat'] : [...APPS]).filter((a) => APPS.includes(a));
    // B runs a second replica of every app; in a smoke run only of the gateway, MCP and the apps it
    // kills (the rest of B's gateway's services are A's), to fit a default PostgreSQL's 100 connections.
    const appsB = smoke ? APPS.filter((a) => ['gateway', 'mcp', ...killed].includes(a)) : [...APPS];
    const steadyMs = smoke ? 1500 : STEADY_MS;
    const deadMs = smoke ? 4500 : DEAD_MS;
    const receiver = await startReceiver();
    ctx.defer('stop the webhook receiver', () => receiver.close());

    // Each replica holds up to DB_POOL_SIZE connections and about two more (outbox relay and listeners).
    const maxConnections = Number((await infra.withAdminDb((c) => c.query('SHOW max_connections'))).rows[0].max_connections);
    const poolSize = Number(ctx.options.env.DB_POOL_SIZE || (smoke ? 3 : 4));
    const needed = (APPS.length + appsB.length) * (poolSize + 2) + 10;
    if (maxConnections < needed) {
      throw new Error(`PostgreSQL allows ${maxConnections} connections; two replicas of ${appsB.length} apps need up to ${needed} (ALTER SYSTEM SET max_connections = ${Math.ceil(needed / 50) * 50}; then restart PostgreSQL)`);
    }
    const prepared = await infra.prepareSystem(ctx);
    const { dbName, dbUrl, redisUrl, useRedis, logDir } = prepared;
    const shared = {
      RATE_LIMIT_REQUESTS: '1000000000',
      RATE_LIMIT_PREFIX: `sa:bench:${randomBytes(4).toString('hex')}:`,
      WIDGET_RATE_LIMIT_REQUESTS: '1000000000',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      // Twenty-two processes on one PostgreSQL: each holds its pool and a few listening
      // connections, and the default pools (10) would pass max_connections (100 here).
      DB_POOL_SIZE: String(poolSize),
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      OUTBOUND_ALLOWED_PORTS: `80,443,${receiver.port}`,
      // A dead chat replica's reservations come back within the run (default 30 s).
      CHAT_RESERVATION_SWEEP_MS: '500',
      CHAT_RESERVATION_ORPHAN_MS: String(Math.max(2000, Math.floor(deadMs / 2))),
      ...(useRedis ? { REDIS_URL: redisUrl } : {}),
      ...ctx.options.env,
    };
    const systems = {};
    for (const side of ['A', 'B']) {
      const ports = await infra.systemPorts(APPS);
      const env = { ...infra.systemEnv(prepared, ports), ...shared, CHAT_REPLICA_ID: `bench-chat-${side}` };
      systems[side] = new System({
        root: infra.ROOT,
        env: { PATH: process.env.PATH, ...env },
        output: { kind: 'files', dir: `${logDir}/${side}` },
        opsPorts: ports.opsPorts,
        onEvent: (l) => ctx.log(`system ${side}: ${l}`),
      });
      ctx.defer(`stop system ${side}`, () => systems[side].stop());
    }
    const t0 = Date.now();
    await systems.A.start();
    await systems.B.start(appsB);
    await Promise.all([systems.A.waitReady(180000), systems.B.waitReady(180000)]);
    ctx.log(`two replicas of ${appsB.length === APPS.length ? `all ${APPS.length} apps` : appsB.join(', ')} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const connections = async () => Number((await infra.withAdminDb((c) => c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [dbName]))).rows[0].n);
    let peakConnections = await connections();

    const reader = new Client({ connectionString: dbUrl, application_name: 'bench-failover-reader' });
    await reader.connect();
    ctx.defer('close the reader', () => reader.end());
    const ws = await infra.admin(dbUrl, ['workspace', 'create', '--name', 'Bench failover', '--plan', 'scale', '--bot-slots', '100000', '--messages-per-month', '10000000']);
    const tok = await infra.admin(dbUrl, ['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--name', 'bench-failover']);
    const token = tok.token;
    const hook = await infra.admin(dbUrl, ['webhook', 'create', '--workspace', ws.id, '--url', receiver.url('/hooks'), '--events', 'all'], {
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      OUTBOUND_ALLOWED_PORTS: `80,443,${receiver.port}`,
      WEBHOOK_SECRET_KEY: prepared.webhookSecretKey,
    });
    const gateways = [systems.A.gatewayUrl, systems.B.gatewayUrl];
    const mcps = [systems.A.mcpUrl, systems.B.mcpUrl];
    const first = await infra.api(systems.A.baseUrl, token, 'POST', '/bots', { name: 'Failover front desk' });
    if (first.status !== 201) throw new Error(`POST /v1/bots answered ${first.status}: ${first.text.slice(0, 300)}`);
    const botId = first.body.data.id;
    const doc = await infra.api(systems.A.baseUrl, token, 'POST', '/kb/ingest', { title: 'Delivery', text: 'We deliver on every weekday from nine to five. Returns are free within 30 days.', chatbotId: botId });
    if (doc.status !== 202) throw new Error(`POST /v1/kb/ingest answered ${doc.status}: ${doc.text.slice(0, 300)}`);
    ctx.log(`workspace ${ws.id}, bot ${botId}, webhook ${hook.id} for every event -> ${receiver.url('/hooks')}`);

    // -- the client --------------------------------------------------------------------------------
    let phase = 'steady';
    const results = [];
    let rr = 0;
    let lbRetries = 0;
    const record = (kind, what, outcome, detail) => results.push({ phase, kind, what, outcome, detail });

    /** One request through the "load balancer": gateway (or MCP server) in turn; a connection failure of an idempotent request goes to the other. */
    const send = async (targets, idempotent, makeRequest) => {
      const i = rr++ % 2;
      try {
        return await makeRequest(targets[i]);
      } catch (err) {
        // As a balancer does (nginx's proxy_next_upstream, an Envoy retry on connect-failure): a
        // refused connection is tried on the other gateway whatever the method; a connection cut
        // after the request was sent, only when the request is idempotent.
        if (!(refused(err) || (idempotent && connectionError(err)))) throw err;
        lbRetries++;
        return makeRequest(targets[1 - i]);
      }
    };
    const rest = (method, path, body) => (base) =>
      fetch(`${base}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() }));
    const widget = (method, path, body, accept = 'application/json') => (base) =>
      fetch(`${base}/widget/v1/bots/${botId}${path}`, {
        method,
        headers: { accept, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() }));

    /** What a failed answer was: a 503 with Retry-After (an unknown outcome said plainly), or anything else. */
    const failure = (r) => (r.status === 503 ? (r.retryAfter ? '503 with Retry-After' : '503 without Retry-After') : `HTTP ${r.status}`);
    const guard = async (kind, what, fn) => {
      try {
        await fn();
      } catch (err) {
        record(kind, what, connectionError(err) ? CUT : `client error: ${err.message}`);
      }
    };

    const READS = ['/bots', '/kb', '/leads', '/bookings', '/conversations', '/analytics'];
    const readOnce = async (n) => {
      const path = READS[n % (READS.length + 1)];
      const what = path ?? 'widget config';
      await guard('read', what, async () => {
        const r = await send(gateways, true, path ? rest('GET', path) : widget('GET', '/config'));
        record('read', what, r.status === 200 ? 'ok' : failure(r), r.status === 200 ? undefined : r.text.slice(0, 200));
      });
    };
    const written = { bots: new Map(), docs: new Map(), leads: new Map() };
    const writeOnce = async (n) => {
      const tag = `${n}-${randomBytes(3).toString('hex')}`;
      const which = n % 3;
      const [what, map, key, make, expected] =
        which === 0
          ? ['POST /v1/bots', written.bots, `Failover ${tag}`, (k) => rest('POST', '/bots', { name: k }), 201]
          : which === 1
            ? ['POST /v1/kb/ingest', written.docs, `Failover doc ${tag}`, (k) => rest('POST', '/kb/ingest', { title: k, text: `Note ${tag}: parcels leave the warehouse at noon.` }), 202]
            : ['widget lead form', written.leads, `failover-${tag}@example.com`, (k) => widget('POST', '/leads', { name: `Visitor ${tag}`, email: k, message: 'Please call me back.' }), 201];
      await guard('write', what, async () => {
        const r = await send(gateways, false, make(key));
        const outcome = r.status === expected ? 'ok' : failure(r);
        map.set(key, outcome);
        record('write', what, outcome, r.status === expected ? undefined : r.text.slice(0, 200));
      });
    };
    const TOOLS = [
      ['list_bots', {}],
      ['list_knowledge', {}],
      ['get_analytics', {}],
    ];
    const mcpOnce = async (n) => {
      const [name, args] = TOOLS[n % TOOLS.length];
      await guard('mcp', name, async () => {
        const r = await send(mcps, true, (url) =>
          fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
            body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: args } }),
          }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type') ?? '', text: await res.text() })),
        );
        if (r.status !== 200) return record('mcp', name, failure(r), r.text.slice(0, 200));
        const msg = r.type.startsWith('text/event-stream') ? frames(r.text).find((f) => f && f.id === n) : JSON.parse(r.text);
        if (!msg || msg.error) return record('mcp', name, `JSON-RPC error`, JSON.stringify(msg?.error ?? r.text.slice(0, 200)));
        if (msg.result?.isError) return record('mcp', name, 'tool error', JSON.stringify(msg.result.content).slice(0, 200));
        record('mcp', name, 'ok');
      });
    };
    const chatOnce = async (n) => {
      await guard('chat', 'widget chat', async () => {
        const r = await send(gateways, false, widget('POST', '/chat', { message: n % 2 ? 'When do you deliver?' : 'Are returns free?' }, 'text/event-stream'));
        if (r.status !== 200) return record('chat', 'widget chat', failure(r), r.text.slice(0, 200));
        const last = frames(r.text).filter(Boolean).at(-1);
        const finish = last?.choices?.[0]?.finish_reason ?? null;
        record('chat', 'widget chat', finish === 'stop' ? 'ok' : finish === 'error' ? 'stream ended with finish_reason "error"' : `stream ended without a finish (${finish})`, finish === 'stop' ? undefined : JSON.stringify(last?.error ?? last).slice(0, 200));
      });
    };

    let running = true;
    const loop = async (fn) => {
      let n = 0;
      while (running) await fn(n++);
    };
    const loops = [...Array.from({ length: READ_LOOPS }, () => loop(readOnce)), loop(writeOnce), loop(mcpOnce), loop(chatOnce)];

    // -- the kills -----------------------------------------------------------------------------------
    const timeline = [];
    await sleep(steadyMs);
    for (const app of killed) {
      phase = `${app} killed`;
      const at = Date.now();
      await systems.B.stopApp(app, 'SIGKILL');
      await sleep(deadMs);
      phase = `${app} restarting`;
      systems.B.startApp(app);
      const port = systems.B.opsPort(app);
      const deadline = Date.now() + 60000;
      for (;;) {
        const st = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status).catch(() => 0);
        if (st === 200) break;
        if (Date.now() > deadline) throw new Error(`${app} (B) was not ready 60 s after its restart`);
        await sleep(200);
      }
      timeline.push({ app, deadMs: deadMs, readyAgainMs: Date.now() - at - deadMs });
      ctx.log(`${app}: killed, ${deadMs} ms of load without it, ready again ${Date.now() - at - deadMs} ms after its restart; ${results.length} requests so far`);
      peakConnections = Math.max(peakConnections, await connections());
      phase = 'steady';
      await sleep(steadyMs);
    }
    running = false;
    await Promise.all(loops);

    // -- what was stored, and what the webhook saw ---------------------------------------------------------------
    const invalid = [];
    const counted = async (sql, keys) => new Map((await reader.query(sql, [ws.id, keys])).rows.map((r) => [r.k, r.n]));
    const twice = [];
    const missing = [];
    const check = (label, map, stored) => {
      for (const [key, outcome] of map) {
        const n = stored.get(key) ?? 0;
        if (n > 1) twice.push(`${label} ${key} stored ${n} times`);
        if (outcome === 'ok' && n === 0) missing.push(`${label} ${key} acknowledged but not stored`);
      }
    };
    check('bot', written.bots, await counted(`SELECT name AS k, count(*)::int AS n FROM bots.bots WHERE tenant_id = $1 AND name = ANY($2) GROUP BY name`, [...written.bots.keys()]));
    check('document', written.docs, await counted(`SELECT title AS k, count(*)::int AS n FROM knowledge.documents WHERE tenant_id = $1 AND title = ANY($2) GROUP BY title`, [...written.docs.keys()]));
    check('lead', written.leads, await counted(`SELECT email AS k, count(*)::int AS n FROM leads.leads WHERE tenant_id = $1 AND email = ANY($2) GROUP BY email`, [...written.leads.keys()]));

    // Deliveries drain (at most 60 s), then every delivery row's event must have reached the receiver exactly once.
    const drainDeadline = Date.now() + 60000;
    let open = null;
    for (;;) {
      open = (await reader.query(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE tenant_id = $1 AND status IN ('pending', 'sending')`, [ws.id])).rows[0].n;
      if (open === 0 || Date.now() > drainDeadline) break;
      await sleep(500);
    }
    const deliveries = (await reader.query(`SELECT event_id::text AS id, status, last_error FROM webhooks.deliveries WHERE tenant_id = $1`, [ws.id])).rows;
    // A dispatcher killed during a request records it as interrupted and does not send it again (the
    // endpoint may have it: docs/decisions/webhooks.md); the receiver tells whether it arrived.
    const interrupted = deliveries.filter((d) => d.status === 'failed' && String(d.last_error ?? '').startsWith('interrupted'));
    const lost = deliveries.filter((d) => !receiver.seen.has(d.id));
    const duplicated = [...receiver.seen.values()].filter((n) => n > 1).length;
    let unpublished = 0;
    for (const { schema } of (await reader.query(`SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'outbox'`)).rows) {
      unpublished += (await reader.query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE published_at IS NULL`)).rows[0].n;
    }
    // Messages charged for answers not stored: the month's count against the stored visitor messages.
    await sleep(Number(shared.CHAT_RESERVATION_ORPHAN_MS) + 1500);
    const charge = (
      await reader.query(
        `SELECT (SELECT coalesce(sum(messages), 0)::int FROM chat.widget_usage WHERE tenant_id = $1) AS charged,
                (SELECT count(*)::int FROM chat.messages WHERE tenant_id = $1 AND role = 'user' AND channel = 'widget') AS stored,
                (SELECT count(*)::int FROM chat.turn_reservations WHERE tenant_id = $1) AS open`,
        [ws.id],
      )
    ).rows[0];

    // -- the figures ---------------------------------------------------------------------------------------
    const by = (rows, key) => {
      const out = {};
      for (const r of rows) out[key(r)] = (out[key(r)] ?? 0) + 1;
      return out;
    };
    const failures = results.filter((r) => r.outcome !== 'ok');
    const idempotentFailed = failures.filter((r) => r.kind === 'read' || r.kind === 'mcp');
    // A dead gateway cannot answer 503: what it held is cut, and is counted apart.
    const unknownNot503 = failures.filter((r) => r.kind === 'write' && r.outcome !== '503 with Retry-After' && r.outcome !== CUT);
    const cut = failures.filter((r) => r.outcome === CUT);
    const chatBroken = failures.filter((r) => r.kind === 'chat');
    for (const [k, n] of Object.entries(by(failures, (r) => `${r.phase} | ${r.kind} ${r.what} | ${r.outcome}`))) ctx.log(`  failure: ${k}: ${n}`);
    for (const r of failures.slice(0, 10)) if (r.detail) ctx.log(`  e.g. ${r.kind} ${r.what} (${r.phase}): ${r.detail}`);
    const kinds = ['read', 'write', 'mcp', 'chat'];
    const total = by(results, (r) => r.kind);
    ctx.log(`requests: ${kinds.map((k) => `${k} ${total[k] ?? 0}`).join(', ')}; sent to the other gateway after a connection failure (a balancer's retry): ${lbRetries}`);
    ctx.log(
      `webhook deliveries: ${deliveries.length} rows (${open} still open, ${interrupted.length} recorded as interrupted, of which ${interrupted.filter((d) => receiver.seen.has(d.id)).length} had arrived), ` +
        `${receiver.seen.size} distinct events received, ${lost.length} never received, ${duplicated} received more than once; outbox rows unpublished: ${unpublished}`,
    );
    ctx.log(`PostgreSQL connections of the two systems: at most ${peakConnections} seen (max_connections ${maxConnections}, DB_POOL_SIZE ${shared.DB_POOL_SIZE})`);
    ctx.log(`widget messages charged ${charge.charged}, stored ${charge.stored}, reservations open ${charge.open}`);
    if (results.length < 50) invalid.push(`only ${results.length} requests were made: the load did not run`);

    const rows = [
      { figure: 'idempotent requests failed (REST and widget reads, MCP reads)', goal: '0', measured: idempotentFailed.length, baseline: (total.read ?? 0) + (total.mcp ?? 0), ratio: null, pass: idempotentFailed.length === 0 },
      { figure: 'writes whose failure was not a 503 with Retry-After (a cut connection apart)', goal: '0', measured: unknownNot503.length, baseline: total.write ?? 0, ratio: null, pass: unknownNot503.length === 0 },
      { figure: 'writes answered 503 with Retry-After (outcome unknown, said plainly)', goal: '-', measured: failures.filter((r) => r.kind === 'write' && r.outcome === '503 with Retry-After').length, baseline: total.write ?? 0, ratio: null, pass: null },
      { figure: 'writes stored twice / acknowledged but not stored', goal: '0 / 0', measured: `${twice.length} / ${missing.length}`, baseline: null, ratio: null, pass: twice.length === 0 && missing.length === 0 },
      { figure: 'widget chats ended with an error (their chat replica died)', goal: '-', measured: chatBroken.filter((r) => r.outcome !== CUT).length, baseline: total.chat ?? 0, ratio: null, pass: chatBroken.every((r) => r.outcome.includes('"error"') || r.outcome === '503 with Retry-After' || r.outcome === CUT) },
      { figure: 'requests cut with their gateway replica (in flight when it was killed): writes / chats', goal: '-', measured: `${cut.filter((r) => r.kind === 'write').length} / ${cut.filter((r) => r.kind === 'chat').length}`, baseline: results.length, ratio: null, pass: null },
      { figure: 'widget messages charged without a stored answer', goal: '0', measured: charge.charged - charge.stored, baseline: charge.stored, ratio: null, pass: charge.charged === charge.stored && charge.open === 0 },
      { figure: 'webhook deliveries lost / duplicated (and outbox events left unpublished)', goal: '0 / 0', measured: `${lost.length} / ${duplicated}`, baseline: deliveries.length, ratio: null, pass: lost.length === 0 && duplicated === 0 && open === 0 && unpublished === 0 },
      { figure: 'requests a balancer sent to the other gateway (connection refused or cut)', goal: '-', measured: lbRetries, baseline: results.length, ratio: null, pass: null },
    ];
    for (const t of twice.slice(0, 5)) ctx.log(`  ${t}`);
    for (const m of missing.slice(0, 5)) ctx.log(`  ${m}`);
    return {
      rows,
      invalid,
      details: {
        database: dbName,
        killed,
        steadyMs,
        deadMs,
        timeline,
        requests: total,
        failures: by(failures, (r) => `${r.phase} | ${r.kind} ${r.what} | ${r.outcome}`),
        examples: failures.slice(0, 20),
        writes: { twice, missing },
        webhooks: { rows: deliveries.length, open, interrupted: interrupted.length, received: receiver.seen.size, lost: lost.length, duplicated, unpublished },
        charge,
        postgres: { peakConnections, maxConnections, dbPoolSize: Number(shared.DB_POOL_SIZE) },
      },
    };
  },
};
