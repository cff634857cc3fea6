import { admin } from './support/admin';
import { request } from './support/api';
import { SpawnedApp, waitFor } from './support/apps';
import { freePort } from './support/infra';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';
import { newWidgetSession } from './support/widget';
import { ModelStandIn, startModelStandIn } from './support/model-stand-in';

/**
 * Rolling restarts under load (issue #8): a replica of gateway, chat, knowledge or
 * webhook-dispatcher gets SIGTERM while requests run through it. It must finish what it accepted
 * (chat answers stream to their end, documents are processed or handed back, webhook requests in
 * flight complete) and exit 0, and no request accepted by the system may fail.
 *
 * Chat answers come from a local model server (OpenAI streaming wire format) that takes about a
 * second per answer, so every SIGTERM lands in the middle of streams.
 */
const PIECES = ['Our shop ', 'opens at ', 'nine ', 'and closes ', 'at five.'];
const ANSWER = PIECES.join('');
const GAP_MS = 200;

describe('graceful shutdown: rolling restarts under load lose nothing accepted', () => {
  const s = e2eState();
  let mini: MiniSystem;
  let model: ModelStandIn;
  let token: string;
  let wsId: string;
  let bot: string;
  const gatewayPorts: Record<string, number> = {};
  const opsPorts: Record<string, number> = {};

  /** Starts a replica with a known ops port and waits until it is ready. */
  async function replica(app: string, key: string, env: Record<string, string> = {}): Promise<SpawnedApp> {
    opsPorts[key] = await freePort();
    const spawned = mini.start(app, { ...env, OPS_PORT: String(opsPorts[key]) }, key);
    await waitFor(() => fetch(`http://127.0.0.1:${opsPorts[key]}/readyz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 30000);
    return spawned;
  }

  async function stopGracefully(key: string): Promise<number | null> {
    const app = mini.apps.get(key)!;
    app.process.kill('SIGTERM');
    return app.exited;
  }

  const chat = (gatewayPort: number, sessionId: string) =>
    postSse('/chat', { message: 'When do you open?', chatbotId: bot, sessionId }, token, { baseUrl: `http://127.0.0.1:${gatewayPort}/v1` });

  beforeAll(async () => {
    model = await startModelStandIn(() => ({ pieces: PIECES, gapMs: GAP_MS }));
    mini = await startMiniSystem(['gateway', 'bots'], {
      CHAT_MODEL_PROVIDER: 'openai',
      CHAT_MODEL_BASE_URL: model.baseUrl,
      CHAT_MODEL_NAME: 'm',
      CHAT_MODEL_API_KEY: 'sk-test',
      CHAT_MODEL_MAX_RETRIES: '0',
      SHUTDOWN_GRACE_MS: '15000',
      RPC_TIMEOUT_MS: '5000',
      WEBHOOK_SWEEP_MS: '200',
    });
    // The mini system's first gateway is "gateway"; add the replicas each test rolls.
    gatewayPorts['gateway'] = Number(mini.env['GATEWAY_PORT']);
    for (const [app, key] of [
      ['gateway', 'gateway-2'],
      ['chat', 'chat-1'],
      ['chat', 'chat-2'],
      ['knowledge', 'knowledge-1'],
      ['knowledge', 'knowledge-2'],
    ] as const) {
      if (app === 'gateway') gatewayPorts[key] = await freePort();
      await replica(app, key, app === 'gateway' ? { GATEWAY_PORT: String(gatewayPorts[key]) } : {});
    }
    wsId = (await admin<{ id: string }>(['workspace', 'create', '--name', 'Rolling', '--plan', 'scale', '--messages-per-month', '100000'], mini.databaseUrl)).id;
    token = (await admin<{ token: string }>(['token', 'create', '--workspace', wsId, '--scopes', 'all'], mini.databaseUrl)).token;
    const res = await request('POST', '/bots', { name: 'Rolling bot' }, { baseUrl: mini.baseUrl, token });
    expect(res.status).toBe(201);
    bot = res.body.data.id;
  }, 120000);

  afterAll(async () => {
    await mini?.stop();
    await model?.close();
  });

  it('chat: the replica that gets SIGTERM streams every answer it started to the end', async () => {
    const results: { status: number; text: string; finishReason: string | null }[] = [];
    const load = Promise.all(Array.from({ length: 12 }, (_, i) => new Promise((r) => setTimeout(r, i * 80)).then(() => chat(gatewayPorts['gateway'], `chat-roll-${i}`)).then((res) => results.push(res))));
    await new Promise((r) => setTimeout(r, 500));
    const code = await stopGracefully('chat-1');
    await load;
    expect(code).toBe(0);
    expect(results).toHaveLength(12);
    for (const r of results) expect({ status: r.status, text: r.text, end: r.finishReason }).toEqual({ status: 200, text: ANSWER, end: 'stop' });
    // The other replica carries on alone; a new one joins (the rolling restart's second half).
    expect((await chat(gatewayPorts['gateway'], 'chat-after')).text).toBe(ANSWER);
    await replica('chat', 'chat-3');
  });

  it('gateway: requests accepted by the stopping gateway finish; new ones go to the other', async () => {
    const failures: string[] = [];
    let served = 0;
    const order = ['gateway', 'gateway-2'];
    const worker = async (w: number) => {
      for (let i = 0; i < 6; i++) {
        for (const key of i % 2 ? [...order].reverse() : order) {
          try {
            const res = await chat(gatewayPorts[key], `gw-${w}-${i}`);
            if (res.status !== 200 || res.text !== ANSWER) failures.push(`${key}: ${res.status} ${res.text}`);
            else served++;
            break;
          } catch (err) {
            // Refused before it was accepted (the listener is closed): try the other gateway.
            const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
            if (cause !== 'ECONNREFUSED') failures.push(`${key}: ${cause}`);
          }
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));
    await new Promise((r) => setTimeout(r, 700));
    const code = await stopGracefully('gateway');
    await load;
    expect(code).toBe(0);
    expect(failures).toEqual([]);
    expect(served).toBe(36);
  });

  it('knowledge: documents taken by the stopping replica are finished or handed back, none fails', async () => {
    const api = (path: string, body?: unknown) => request(body ? 'POST' : 'GET', path, body, { baseUrl: `http://127.0.0.1:${gatewayPorts['gateway-2']}/v1`, token });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await api('/kb/ingest', { title: `Doc ${i}`, text: `Document number ${i}. ${'Opening hours are nine to five. '.repeat(200)}`, chatbotId: bot });
      expect(res.status).toBe(202);
      ids.push(res.body.data.id);
    }
    const code = await stopGracefully('knowledge-1');
    expect(code).toBe(0);
    const docs = await waitFor(
      async () => (await api(`/kb?chatbotId=${bot}`)).body.data.filter((d: any) => ids.includes(d.id)),
      (d: any[]) => d.length === 30 && d.every((x) => x.status === 'ready' || x.status === 'failed'),
      60000,
    );
    expect(docs.filter((d: any) => d.status !== 'ready').map((d: any) => `${d.title}: ${d.failure_reason}`)).toEqual([]);
    await replica('knowledge', 'knowledge-3');
  });

  describe('webhook-dispatcher', () => {
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      receiver = await startWebhookReceiver(s.receiverPort);
      receiver.behave('/rolling', { status: 200, delayMs: 400 });
      await replica('webhook-dispatcher', 'dispatcher-1');
      await replica('webhook-dispatcher', 'dispatcher-2');
      await admin(['webhook', 'create', '--workspace', wsId, '--url', receiver.url('/rolling'), '--events', 'ticket.created'], mini.databaseUrl);
    });
    afterAll(async () => {
      await receiver?.stop();
    });

    it('requests in flight at SIGTERM complete and are recorded; every event is delivered once', async () => {
      const session = await newWidgetSession(bot, `http://127.0.0.1:${gatewayPorts['gateway-2']}`);
      const tickets = Array.from({ length: 40 }, (_, i) =>
        request('POST', '', { sessionId: session, email: 'c@example.com', subject: `Rolling ${i}`, message: 'hi' }, { baseUrl: `http://127.0.0.1:${gatewayPorts['gateway-2']}/widget/v1/bots/${bot}/tickets` }),
      );
      expect((await Promise.all(tickets)).map((r) => r.status).filter((st) => st !== 201)).toEqual([]);
      await waitFor(async () => receiver.on('/rolling').length, (n) => n >= 5, 20000);
      const code = await stopGracefully('dispatcher-1');
      expect(code).toBe(0);
      await waitFor(async () => receiver.on('/rolling').length, (n) => n >= 40, 60000);
      await new Promise((r) => setTimeout(r, 1500));
      const ids = receiver.on('/rolling').map((r) => r.headers['x-service-event-id']);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
      const hooks = await admin<{ data: { id: string }[] }>(['webhook', 'list', '--workspace', wsId], mini.databaseUrl);
      const rows = (await admin<{ data: any[] }>(['webhook', 'deliveries', '--webhook', hooks.data[0].id, '--limit', '500'], mini.databaseUrl)).data;
      expect(rows).toHaveLength(40);
      expect(rows.filter((d) => d.status !== 'succeeded').map((d) => JSON.stringify(d))).toEqual([]);
    });
  });
});
