import { Client } from 'pg';
import { admin } from './support/admin';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { freePort } from './support/infra';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { startTcpProxy, TcpProxy } from './support/tcp-proxy';
import { startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';
import { newWidgetSession } from './support/widget';

/**
 * Crash safety (issue #9): under steady load (chat, ingestion, bookings, tickets raising webhook
 * events), each service in turn is killed with SIGKILL and started again; then NATS is restarted,
 * and PostgreSQL goes away for a while (every connection dropped through a proxy, as in a database
 * restart). Afterwards: every request that got a 2xx is in the database, no document is stuck,
 * no event is delivered twice (each is delivered once, except a request in flight at the very
 * moment its dispatcher died, which is recorded as interrupted: spec part 6 has no automatic
 * retries; the database going away interrupts none), and the system was ready again within the
 * time limit after each kill.
 */
const READY_LIMIT_MS = Number(process.env['CRASH_READY_LIMIT_MS'] ?? 5000);
/** Each load loop starts a request at most this often (4 loops: at most about 27 requests a second in all). */
const LOAD_PERIOD_MS = Number(process.env['CRASH_LOAD_PERIOD_MS'] ?? 150);
const SERVICES = ['bots', 'knowledge', 'chat', 'leads', 'bookings', 'mcp', 'webhook-dispatcher', 'evaluations', 'channels', 'gateway'];

describe('crash safety: kill -9 each service under load, restart NATS and PostgreSQL', () => {
  const s = e2eState();
  let mini: MiniSystem & { nats: { restart(downMs?: number): Promise<void> } };
  let pg: TcpProxy;
  let receiver: WebhookReceiver;
  let token: string;
  let wsId: string;
  let bot: string;
  let ticketSession: string;
  const opsPorts: Record<string, number> = {};
  let mcpPort = 0;
  const appEnv = (app: string) => ({ OPS_PORT: String(opsPorts[app]), ...(app === 'mcp' ? { MCP_PORT: String(mcpPort) } : {}) });
  const ok = { chats: [] as string[], docs: [] as string[], bookings: [] as string[], tickets: [] as string[] };
  const readyMs: Record<string, number> = {};
  const appReadyMs: Record<string, number> = {};
  const slowFirst: Record<string, number> = {};
  /** When the webhook dispatcher was killed (once, or twice if its first restart was slow). */
  const dispatcherKills: number[] = [];

  let lastReadyz = '';
  const gatewayReady = () =>
    fetch(`${mini.baseUrl.replace(/\/v1$/, '')}/readyz`, { signal: AbortSignal.timeout(2000) })
      .then(async (r) => {
        lastReadyz = await r.text();
        return r.status;
      })
      .catch(() => 0);
  const widget = (route: string, body: unknown) => request('POST', '', body, { baseUrl: `${mini.baseUrl.replace(/\/v1$/, '')}/widget/v1/bots/${bot}/${route}` });

  beforeAll(async () => {
    receiver = await startWebhookReceiver(s.receiverPort);
    const dbHost = new URL(s.databaseUrl);
    pg = await startTcpProxy(dbHost.hostname, Number(dbHost.port || 5432));
    mini = (await startMiniSystem(
      [],
      {
        KNOWLEDGE_LEASE_MS: '2500',
        KNOWLEDGE_POLL_MS: '200',
        WEBHOOK_LEASE_MS: '2000',
        WEBHOOK_ACK_WAIT_MS: '3000',
        WEBHOOK_SWEEP_MS: '200',
        RPC_TIMEOUT_MS: '3000',
      },
      {
        appDatabaseUrl: (url) => {
          const u = new URL(url);
          u.host = `127.0.0.1:${pg.port}`;
          return u.toString();
        },
      },
    ).catch(async (err) => {
      throw err;
    })) as never;
    mcpPort = await freePort();
    for (const app of SERVICES) {
      opsPorts[app] = await freePort();
      mini.start(app, appEnv(app));
    }
    await waitFor(gatewayReady, (st) => st === 200, 60000).catch((err) => {
      const exited = [...mini.apps].filter(([, a]) => a.process.exitCode !== null).map(([name, a]) => `${name} exited ${a.process.exitCode}: ${a.stderrTail()}`);
      throw new Error(`${(err as Error).message}: ${lastReadyz} ${exited.join('\n')}`);
    });
    wsId = (await admin<{ id: string }>(['workspace', 'create', '--name', 'Crash', '--plan', 'scale', '--messages-per-month', '100000'], mini.databaseUrl)).id;
    token = (await admin<{ token: string }>(['token', 'create', '--workspace', wsId, '--scopes', 'all'], mini.databaseUrl)).token;
    bot = (await request('POST', '/bots', { name: 'Crash bot' }, { baseUrl: mini.baseUrl, token })).body.data.id;
    ticketSession = await newWidgetSession(bot, mini.baseUrl.replace(/\/v1$/, ''));
    await admin(['webhook', 'create', '--workspace', wsId, '--url', receiver.url('/crash-safety'), '--events', 'ticket.created'], mini.databaseUrl);
  }, 120000);

  afterAll(async () => {
    await mini?.stop();
    await pg?.close();
    await receiver?.stop();
  });

  it('loses nothing that was acknowledged, and recovers by itself', async () => {
    let running = true;
    let n = 0;
    // A steady load: each loop starts a request every LOAD_PERIOD_MS at most (less often when one
    // takes longer, with 40 ms between), the same offered load whatever the Node version. An as-fast-as-
    // possible loop offered twice as much under Node 24 (673 tickets in a run against 344 under
    // Node 20), and a start's time under load grew with it.
    const loop = async (fn: (i: number) => Promise<void>) => {
      while (running) {
        const started = Date.now();
        await fn(n++).catch(() => undefined);
        await new Promise((r) => setTimeout(r, Math.max(40, LOAD_PERIOD_MS - (Date.now() - started))));
      }
    };
    const loops = [
      loop(async (i) => {
        const res = await postSse('/chat', { message: `Question ${i}: do you deliver?`, chatbotId: bot, sessionId: `crash-${i}` }, token, { baseUrl: mini.baseUrl });
        // A chat turn is acknowledged by its last frame, not by the 200 that opens the stream:
        // `finish_reason: "stop"` means complete and stored; a stream cut by a killed chat service
        // ends with "error" (or not at all) and promises nothing (docs/api.md, "How a stream ends").
        if (res.status === 200 && res.finishReason === 'stop') ok.chats.push(`crash-${i}`);
      }),
      loop(async (i) => {
        const res = await request('POST', '/kb/ingest', { title: `Doc ${i}`, text: `Fact number ${i}: we deliver on weekdays.`, chatbotId: bot }, { baseUrl: mini.baseUrl, token });
        if (res.status === 202) ok.docs.push(res.body.data.id);
      }),
      loop(async (i) => {
        const res = await widget('bookings', { name: `Visitor ${i}`, email: 'v@example.com', phone: '+1 555 0100', requestedSlot: new Date(Date.UTC(2028, 0, 1) + i * 3600_000).toISOString() });
        if (res.status === 201) ok.bookings.push(res.body.data.id);
      }),
      loop(async (i) => {
        const res = await widget('tickets', { sessionId: ticketSession, email: 'c@example.com', subject: `Ticket ${i}`, message: 'help' });
        if (res.status === 201) ok.tickets.push(res.body.data.id);
      }),
    ];

    try {
      await new Promise((r) => setTimeout(r, 1500));
      const killAndRestart = async (app: string) => {
        await mini.apps.get(app)!.kill('SIGKILL');
        const killed = Date.now();
        if (app === 'webhook-dispatcher') dispatcherKills.push(killed);
        mini.start(app, appEnv(app));
        // The app's own readiness (its ops port) is timed beside the system's (the gateway's
        // /readyz, every service answering), so a slow figure says which of the two was slow.
        const own = waitFor(() => fetch(`http://127.0.0.1:${opsPorts[app]}/readyz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 30000, 50).then(() => Date.now() - killed);
        await waitFor(gatewayReady, (st) => st === 200, 30000, 50);
        const ms = Date.now() - killed;
        appReadyMs[app] = await own.catch(() => -1);
        await new Promise((r) => setTimeout(r, 1000));
        return ms;
      };
      for (const app of SERVICES) {
        readyMs[app] = await killAndRestart(app);
        // A shared CI runner can stall a process start for seconds (CPU steal, another job's
        // burst): a restart over the limit is killed and measured once more, both figures are
        // printed, and the second must be within the limit. A start that is slow every time fails.
        if (readyMs[app] > READY_LIMIT_MS) {
          slowFirst[app] = readyMs[app];
          readyMs[app] = await killAndRestart(app);
        }
      }
      // NATS restarts (its JetStream store kept): every app reconnects on its own.
      const natsRestart = async (): Promise<number> => {
        const natsDown = Date.now();
        await mini.nats.restart(500);
        await waitFor(gatewayReady, (st) => st === 200, 30000, 50);
        const ms = Date.now() - natsDown;
        await new Promise((r) => setTimeout(r, 1000));
        return ms;
      };
      // PostgreSQL goes away for two seconds: every connection drops, new ones are refused.
      const pgOutage = async (): Promise<number> => {
        pg.cut();
        await new Promise((r) => setTimeout(r, 2000));
        const pgBack = Date.now();
        pg.restore();
        await waitFor(
          async () => Promise.all(SERVICES.map((app) => fetch(`http://127.0.0.1:${opsPorts[app]}/readyz`).then((r) => r.status).catch(() => 0))),
          (st) => st.every((x) => x === 200),
          30000,
          50,
        ).catch((err) => {
          // Which app did not come back, and why: an exit code and the end of its standard error.
          const exited = [...mini.apps].filter(([, a]) => a.process.exitCode !== null || a.process.signalCode !== null);
          const why = exited.map(([name, a]) => `${name} exited (${a.process.exitCode ?? a.process.signalCode}): ${a.stderrTail()}`);
          throw new Error(`${(err as Error).message} (apps in order: ${SERVICES.join(', ')}) ${why.join('\n') || 'every app process is still running'}`);
        });
        const ms = Date.now() - pgBack;
        await new Promise((r) => setTimeout(r, 1500));
        return ms;
      };
      // The same rule as for the apps: an outage recovered over the limit is caused and measured once more.
      for (const [what, outage] of [['nats restart', natsRestart], ['postgres back', pgOutage]] as const) {
        readyMs[what] = await outage();
        if (readyMs[what] > READY_LIMIT_MS) {
          slowFirst[what] = readyMs[what];
          readyMs[what] = await outage();
        }
      }
    } finally {
      running = false;
      await Promise.all(loops);
    }

    console.log(`crash safety: ready again after (ms) ${JSON.stringify(readyMs)}; the app itself ready after (ms) ${JSON.stringify(appReadyMs)}; first restarts over the limit, measured again: ${JSON.stringify(slowFirst)}; acknowledged: ${JSON.stringify(Object.fromEntries(Object.entries(ok).map(([k, v]) => [k, v.length])))}`);
    for (const [what, ms] of Object.entries(readyMs)) expect([what, ms <= READY_LIMIT_MS ? 'within the limit' : `${ms} ms (first ${slowFirst[what] ?? '-'} ms)`]).toEqual([what, 'within the limit']);
    for (const list of Object.values(ok)) expect(list.length).toBeGreaterThan(5);

    const api = (path: string) => request('GET', path, undefined, { baseUrl: mini.baseUrl, token });
    // Every chat answered to the end (finish_reason stop) has its question and its answer saved.
    for (const session of ok.chats) {
      const msgs = (await api(`/conversations/${session}`)).body.data;
      expect([session, msgs.some((m: any) => m.role === 'user'), msgs.some((m: any) => m.role === 'assistant')]).toEqual([session, true, true]);
    }
    // Every accepted booking exists.
    for (const id of ok.bookings) expect([id, (await api(`/bookings/${id}`)).status]).toEqual([id, 200]);
    // Every accepted document is processed: none left queued or processing.
    const docs = await waitFor(
      async () => (await api(`/kb?chatbotId=${bot}`)).body.data.filter((d: any) => ok.docs.includes(d.id)),
      (d: any[]) => d.length === ok.docs.length && d.every((x) => x.status === 'ready'),
      90000,
      500,
    );
    expect(docs.filter((d: any) => d.status !== 'ready').map((d: any) => `${d.id} ${d.status} ${d.failure_reason}`)).toEqual([]);
    // Every ticket raised exactly one event with one delivery; none was sent twice. Read straight
    // from the delivery log: a run raises hundreds of tickets, past what one page of the admin CLI lists.
    const hook = (await admin<{ data: { id: string }[] }>(['webhook', 'list', '--workspace', wsId], mini.databaseUrl)).data[0].id;
    const db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
    const deliveries = async () =>
      (
        await db.query<{ id: string; event_id: string; status: string; status_code: number | null; error: string | null; started_ms: number | null }>(
          `SELECT id, event_id, status, last_status_code AS status_code, last_error AS error, (extract(epoch FROM last_attempt_at) * 1000)::float8 AS started_ms
             FROM webhooks.deliveries WHERE webhook_id = $1`,
          [hook],
        )
      ).rows;
    // Waited on by a summary, which a failure prints: how many, and how many of each status.
    const summary = (r: { status: string }[]) => ({ deliveries: r.length, tickets: ok.tickets.length, byStatus: r.reduce<Record<string, number>>((n, d) => ({ ...n, [d.status]: (n[d.status] ?? 0) + 1 }), {}) });
    const rows = await waitFor(
      async () => summary(await deliveries()),
      (x) => x.deliveries >= x.tickets && Object.keys(x.byStatus).every((st) => st === 'succeeded' || st === 'failed'),
      90000,
      500,
    )
      .then(() => deliveries())
      .finally(() => db.end());
    expect(new Set(rows.map((d) => d.event_id)).size).toBe(rows.length);
    const received = receiver.on('/crash-safety').map((r) => r.headers['x-service-event-id'] as string);
    expect(new Set(received).size).toBe(received.length);
    const receivedTickets = new Set(receiver.on('/crash-safety').map((r) => r.body.data.ticket_id));
    const missing = ok.tickets.filter((t) => !receivedTickets.has(t));
    const interrupted = rows.filter((d) => d.status === 'failed');
    expect(missing.length).toBeLessThanOrEqual(interrupted.length);
    // Only a kill of the dispatcher interrupts a delivery: the one whose request was in flight and
    // one whose outcome was being written, started in the moments before. Restarting NATS or
    // PostgreSQL interrupts none (an outcome is written once the database is back).
    expect(interrupted.length).toBeLessThanOrEqual(2 * dispatcherKills.length);
    for (const d of interrupted) {
      const started = d.started_ms ?? Number.NaN;
      // Printed, a failure says why.
      const why = `${d.id}: ${d.status_code ?? '-'} ${d.error} (started ${d.started_ms === null ? '-' : new Date(d.started_ms).toISOString()}; dispatcher kills ${dispatcherKills.map((k) => new Date(k).toISOString()).join(', ')})`;
      expect([why, dispatcherKills.some((k) => started > k - 3000 && started <= k + 100)]).toEqual([why, true]);
    }
  }, 600000);
});
