import { admin } from './support/admin';
import { waitFor } from './support/apps';
import { request } from './support/api';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { e2eState } from './support/state';
import { WebhookReceiver, startWebhookReceiver } from './support/webhook-receiver';
import { newWidgetSession } from './support/widget';

/**
 * Killing the webhook-dispatcher (SIGKILL) loses no event and sends none twice: events wait in
 * JetStream and in the delivery log, and a delivery whose request was in flight at the kill is
 * recorded as interrupted instead of being sent again (no automatic retries, spec part 6).
 */
describe('webhook delivery across a dispatcher crash', () => {
  const s = e2eState();
  let mini: MiniSystem;
  let receiver: WebhookReceiver;
  let ws: string;
  let bot: string;
  let session: string;
  let hook: string;
  let dispatchers = 0;
  // Short leases and ack wait so a dead dispatcher's work is taken over within seconds.
  // The endpoint's concurrency is set, not the default: it is the bound on what a kill interrupts.
  const ENDPOINT_CONCURRENCY = 8;
  const dispatcherEnv = { WEBHOOK_LEASE_MS: '2000', WEBHOOK_ACK_WAIT_MS: '3000', WEBHOOK_SWEEP_MS: '200', WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY) };
  const startDispatcher = () => mini.start('webhook-dispatcher', dispatcherEnv, `webhook-dispatcher-${++dispatchers}`);
  const dispatcher = () => mini.apps.get(`webhook-dispatcher-${dispatchers}`)!;
  const ticket = (i: number, tag: string) =>
    request('POST', '', { sessionId: session, email: 'c@example.com', subject: `${tag} ${i}`, message: 'hi' }, { baseUrl: `${mini.baseUrl.replace(/\/v1$/, '')}/widget/v1/bots/${bot}/tickets` });
  const deliveries = async () => (await admin<{ data: any[] }>(['webhook', 'deliveries', '--webhook', hook, '--limit', '500'], mini.databaseUrl)).data;
  const receivedIds = () => receiver.received.map((r) => r.headers['x-service-event-id'] as string);

  beforeAll(async () => {
    receiver = await startWebhookReceiver(s.receiverPort);
    mini = await startMiniSystem(['gateway', 'bots', 'chat']);
    startDispatcher();
    const w = await admin<{ id: string }>(['workspace', 'create', '--name', 'Crash test', '--plan', 'scale'], mini.databaseUrl);
    ws = w.id;
    const tok = await admin<{ token: string }>(['token', 'create', '--workspace', ws, '--scopes', 'all'], mini.databaseUrl);
    const res = await request('POST', '/bots', { name: 'Crash bot' }, { baseUrl: mini.baseUrl, token: tok.token });
    expect(res.status).toBe(201);
    bot = res.body.data.id;
    session = await newWidgetSession(bot, mini.baseUrl.replace(/\/v1$/, ''));
    hook = (await admin<{ id: string }>(['webhook', 'create', '--workspace', ws, '--url', receiver.url('/crash'), '--events', 'ticket.created'], mini.databaseUrl)).id;
  });

  afterAll(async () => {
    await mini?.stop();
    await receiver?.stop();
  });

  it('events raised while the dispatcher is dead are each delivered once after it starts again', async () => {
    await dispatcher().kill('SIGKILL');
    for (let i = 0; i < 20; i++) expect((await ticket(i, 'down')).status).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received).toHaveLength(0);
    startDispatcher();
    await waitFor(async () => receiver.received.length, (n) => n >= 20, 30000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received).toHaveLength(20);
    expect(new Set(receivedIds()).size).toBe(20);
    const rows = await deliveries();
    expect(rows).toHaveLength(20);
    expect(rows.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
  });

  it('a kill in the middle of delivering loses nothing and sends nothing twice', async () => {
    receiver.received.length = 0;
    receiver.behave('/crash', { status: 200, delayMs: 250 });
    const total = 40;
    for (let i = 0; i < total; i++) expect((await ticket(i, 'mid')).status).toBe(201);
    await waitFor(async () => receiver.received.length, (n) => n >= 6, 20000, 20);
    await dispatcher().kill('SIGKILL');
    const atKill = receiver.received.length;
    startDispatcher();

    const rows = await waitFor(
      deliveries,
      (d) => d.length === 20 + total && d.every((x) => x.status === 'succeeded' || x.status === 'failed'),
      40000,
      500,
    );
    await new Promise((r) => setTimeout(r, 1000));
    const ids = receivedIds();
    // Nothing twice: every event reached the endpoint at most once.
    expect(new Set(ids).size).toBe(ids.length);
    const mid = rows.slice(0, total); // newest first: the 40 of this test
    const succeeded = mid.filter((d) => d.status === 'succeeded');
    const interrupted = mid.filter((d) => d.status === 'failed');
    // Nothing lost: each event has its delivery, either sent or recorded as interrupted in flight.
    expect(succeeded.length + interrupted.length).toBe(total);
    for (const d of interrupted) expect(d.error).toMatch(/^interrupted/);
    // The endpoint holds each request 250 ms, so requests were in flight at the kill: at least one,
    // at most the endpoint's concurrency.
    expect(interrupted.length).toBeGreaterThanOrEqual(1);
    expect(interrupted.length).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);
    for (const d of succeeded) expect(ids).toContain(d.event_id);
    expect(receiver.received.length).toBeGreaterThan(atKill);
  }, 90000);
});
