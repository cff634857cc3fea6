import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { verifyWebhook } from '@sa/webhooks';
import { admin, runAdmin } from './support/admin';
import { SpawnedApp, spawnApp, waitFor } from './support/apps';
import { TestWorkspace, newWorkspace } from './support/fixtures';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { ReceivedWebhook, WebhookReceiver, startWebhookReceiver } from './support/webhook-receiver';
import { request, UUID } from './support/api';
import { newWidgetSession } from './support/widget';

const LEAD_FIELDS = [
  'lead_id', 'session_id', 'chatbot_id', 'score', 'band', 'category', 'summary', 'sentiment', 'name', 'email', 'phone', 'country', 'region', 'external_user_id', 'qualification', 'captured_via',
];
const BUYER = 'I want to buy the premium plan for my company, my email is jane@acme.io, call me at +44 20 7946 0958';

interface Created {
  id: string;
  secret: string;
  deliveries_enabled: boolean;
}

/** Webhooks end to end (spec part 6): registration, signed delivery, the log, redelivery, timeouts. */
describe('webhooks', () => {
  const s = e2eState();
  let receiver: WebhookReceiver;
  const widget = (botId: string, path: string, body: unknown) => request('POST', '', body, { baseUrl: `${s.gatewayUrl}/widget/v1/bots/${botId}/${path}` });

  beforeAll(async () => {
    receiver = await startWebhookReceiver(s.receiverPort);
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  const register = (ws: string, path: string, events: string, extra: string[] = []) =>
    admin<Created>(['webhook', 'create', '--workspace', ws, '--url', receiver.url(path), '--events', events, ...extra]);
  const byEvent = (path: string, event: string) => receiver.on(path).filter((r) => r.headers['x-service-event'] === event);
  const newBot = async (ws: TestWorkspace, name = 'Helper') => (await ws.api.post('/bots', { name, language: 'en' })).body.data.id as string;

  function expectSigned(r: ReceivedWebhook, secret: string) {
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(r.headers['x-service-timestamp']).toMatch(/^\d+$/);
    expect(r.headers['x-service-delivery-id']).toMatch(UUID);
    expect(r.headers['x-service-event-id']).toMatch(UUID);
    const verdict = verifyWebhook({ rawBody: r.rawBody, headers: r.headers, secret });
    expect(verdict).toEqual(expect.objectContaining({ ok: true }));
    expect(Object.keys(r.body)).toEqual(['event', 'timestamp', 'data']);
    expect(r.body.event).toBe(r.headers['x-service-event']);
    expect(r.body.timestamp).toBe(Number(r.headers['x-service-timestamp']));
    expect(Math.abs(r.body.timestamp - Date.now() / 1000)).toBeLessThan(60);
  }

  it('a chat, a widget booking, a ticket and a handoff each produce a signed delivery the receiver helper accepts', async () => {
    const ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    const bot = await newBot(ws);
    const path = `/all/${ws.id}`;
    const hook = await register(ws.id, path, 'all');
    expect(hook.id).toMatch(UUID);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/);
    expect(hook.deliveries_enabled).toBe(true);

    expect((await postSse('/chat', { message: BUYER, sessionId: 'wh-chat', chatbotId: bot }, ws.token)).status).toBe(200);
    expect((await widget(bot, 'bookings', { name: 'Lin', email: 'lin@example.com', phone: '+65 6123 4567', requestedSlot: '2027-03-01T10:00:00+08:00', timeZone: 'Asia/Singapore' })).status).toBe(201);
    const ticketSession = await newWidgetSession(bot);
    expect((await widget(bot, 'tickets', { sessionId: ticketSession, email: 'help@example.com', subject: 'Broken heater', message: 'It leaks.' })).status).toBe(201);
    expect((await widget(bot, 'handoff', { sessionId: ticketSession, reason: 'wants a person' })).status).toBe(200);

    const kinds = ['lead.created', 'booking.created', 'ticket.created', 'conversation.handoff'];
    await waitFor(async () => kinds.map((k) => byEvent(path, k).length), (n) => n.every((c) => c >= 1), 30000);
    for (const kind of kinds) {
      const [r] = byEvent(path, kind);
      expectSigned(r, hook.secret);
      expect(r.body.data.chatbot_id).toBe(bot);
    }

    const lead = byEvent(path, 'lead.created')[0].body.data;
    expect(Object.keys(lead).sort()).toEqual([...LEAD_FIELDS].sort());
    expect(lead).toEqual(expect.objectContaining({ session_id: 'wh-chat', email: 'jane@acme.io', captured_via: 'conversational', lead_id: expect.stringMatching(UUID) }));
    expect(['hot', 'warm', 'cold']).toContain(lead.band);
    expect(byEvent(path, 'ticket.created')[0].body.data).toEqual(expect.objectContaining({ ticket_id: expect.stringMatching(UUID), subject: 'Broken heater', email: 'help@example.com', session_id: ticketSession }));
    expect(byEvent(path, 'booking.created')[0].body.data).toEqual(expect.objectContaining({ booking_id: expect.stringMatching(UUID), name: 'Lin', status: 'pending', time_zone: 'Asia/Singapore' }));
    expect(byEvent(path, 'conversation.handoff')[0].body.data).toEqual(expect.objectContaining({ session_id: ticketSession, kind: 'explicit', reason: 'wants a person' }));

    // Every delivery has its own id; the receiver helper rejects what was not sent as signed.
    const all = receiver.on(path);
    expect(new Set(all.map((r) => r.headers['x-service-delivery-id'])).size).toBe(all.length);
    const r = byEvent(path, 'ticket.created')[0];
    const tampered = Buffer.from(r.rawBody.toString('utf8').replace('Broken heater', 'Broken boiler'));
    expect(verifyWebhook({ rawBody: tampered, headers: r.headers, secret: hook.secret })).toEqual(expect.objectContaining({ ok: false, reason: 'signature_mismatch' }));
    expect(verifyWebhook({ rawBody: r.rawBody, headers: r.headers, secret: 'whsec_wrong' })).toEqual(expect.objectContaining({ ok: false, reason: 'signature_mismatch' }));
    expect(verifyWebhook({ rawBody: r.rawBody, headers: r.headers, secret: hook.secret, now: r.body.timestamp + 301 })).toEqual(
      expect.objectContaining({ ok: false, reason: 'timestamp_out_of_tolerance' }),
    );

    // The last delivery status is shown beside the webhook.
    const listed = await admin<{ data: any[] }>(['webhook', 'list', '--workspace', ws.id]);
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toEqual(expect.objectContaining({ id: hook.id, url: receiver.url(path), bot_id: null }));
    expect(listed.data[0]).not.toHaveProperty('secret');
    expect(listed.data[0].last_delivery).toEqual(expect.objectContaining({ status: 'succeeded', status_code: 200 }));
    expect(JSON.stringify(listed)).not.toContain(hook.secret);
  });

  it('a signing secret stored as issued (before encryption at rest) is encrypted when a dispatcher starts, and deliveries still verify with it', async () => {
    const ws = await newWorkspace(['--plan', 'scale']);
    const bot = await newBot(ws);
    const path = `/legacy/${ws.id}`;
    const legacySecret = `whsec_legacy${randomBytes(16).toString('hex')}`;
    const pg = new Client({ connectionString: s.databaseUrl });
    await pg.connect();
    let replica: SpawnedApp | null = null;
    try {
      const { rows } = await pg.query<{ id: string }>(
        `INSERT INTO webhooks.webhooks (tenant_id, url, events, bot_id, secret) VALUES ($1, $2, ARRAY['ticket.created'], NULL, $3) RETURNING id`,
        [ws.id, receiver.url(path), legacySecret],
      );
      // A dispatcher starting (here one more replica, with the system's key) encrypts such rows.
      replica = spawnApp('webhook-dispatcher');
      const stored = await waitFor(
        async () => (await pg.query<{ secret: string }>(`SELECT secret FROM webhooks.webhooks WHERE id = $1`, [rows[0].id])).rows[0].secret,
        (v) => v.startsWith('v1:'),
        30000,
      );
      expect(stored).not.toContain(legacySecret.slice('whsec_'.length));
      const ticket = await widget(bot, 'tickets', { sessionId: await newWidgetSession(bot), email: 'legacy@example.com', subject: 'Old hook', message: 'Still signed?' });
      expect(ticket.status).toBe(201);
      await waitFor(async () => byEvent(path, 'ticket.created').length, (n) => n >= 1, 30000);
      expectSigned(byEvent(path, 'ticket.created')[0], legacySecret);
    } finally {
      await replica?.kill();
      await pg.end();
    }
  });

  it('delivers only subscribed kinds, within the bot scope, and only for plans that include webhooks', async () => {
    const ws = await newWorkspace(['--plan', 'scale']);
    const [a, b] = [await newBot(ws, 'Bot A'), await newBot(ws, 'Bot B')];
    await register(ws.id, `/scoped/${ws.id}`, 'ticket.created', ['--bot', a]);
    await register(ws.id, `/bookings/${ws.id}`, 'booking.created');
    const growth = await newWorkspace(['--plan', 'growth']);
    const gBot = await newBot(growth);
    const gHook = await register(growth.id, `/growth/${growth.id}`, 'ticket.created');
    expect(gHook.deliveries_enabled).toBe(false);

    for (const bot of [a, b]) expect((await widget(bot, 'tickets', { sessionId: await newWidgetSession(bot), email: 'x@example.com', subject: `from ${bot}`, message: 'hi' })).status).toBe(201);
    expect((await widget(b, 'bookings', { name: 'Kim', email: 'kim@example.com', phone: '+82 2 1234 5678' })).status).toBe(201);
    expect((await widget(gBot, 'tickets', { sessionId: await newWidgetSession(gBot), email: 'g@example.com', subject: 'growth', message: 'hi' })).status).toBe(201);

    await waitFor(async () => [receiver.on(`/scoped/${ws.id}`).length, receiver.on(`/bookings/${ws.id}`).length], ([x, y]) => x >= 1 && y >= 1, 20000);
    await new Promise((r) => setTimeout(r, 1500));
    const scoped = receiver.on(`/scoped/${ws.id}`);
    expect(scoped).toHaveLength(1);
    expect(scoped[0].body.data.chatbot_id).toBe(a);
    expect(receiver.on(`/bookings/${ws.id}`).map((r) => r.body.event)).toEqual(['booking.created']);
    expect(receiver.on(`/growth/${growth.id}`)).toHaveLength(0);

    // Upgrading to Scale turns deliveries on for the next event.
    await admin(['workspace', 'update', '--id', growth.id, '--plan', 'scale']);
    const upgradedSession = await newWidgetSession(gBot);
    await waitFor(
      async () => {
        await widget(gBot, 'tickets', { sessionId: upgradedSession, email: 'g@example.com', subject: 'after upgrade', message: 'hi' });
        return receiver.on(`/growth/${growth.id}`).length;
      },
      (n) => n >= 1,
      20000,
      1000,
    );
    expect(receiver.on(`/growth/${growth.id}`).every((r) => r.body.data.subject === 'after upgrade')).toBe(true);
  });

  it('refuses private, internal and plain-http public endpoints, unknown events and other workspaces’ bots at registration', async () => {
    const ws = await newWorkspace(['--plan', 'scale']);
    const other = await newWorkspace(['--plan', 'scale']);
    const otherBot = await newBot(other);
    const refused = async (url: string, events = 'all', extra: string[] = []) => {
      const r = await runAdmin(['webhook', 'create', '--workspace', ws.id, '--url', url, '--events', events, ...extra]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      return r.stderr;
    };
    expect(await refused('https://10.0.0.5/hook')).toMatch(/private|blocked|not allowed/i);
    expect(await refused('https://169.254.169.254/latest')).toMatch(/link-local|blocked|not allowed/i);
    expect(await refused('https://localhost/hook')).toMatch(/internal/i);
    expect(await refused('https://[::1]/hook')).toMatch(/loopback|blocked|not allowed/i);
    expect(await refused('http://93.184.216.34/hook')).toMatch(/https/);
    expect(await refused('ftp://93.184.216.34/hook')).toMatch(/http/);
    expect(await refused('https://93.184.216.34/hook', 'lead.created,order.paid')).toMatch(/order\.paid/);
    expect(await refused('https://93.184.216.34/hook', 'all', ['--bot', otherBot])).toMatch(/no bot/);
    const ok = await admin<Created>(['webhook', 'create', '--workspace', ws.id, '--url', 'https://93.184.216.34/hook', '--events', 'lead.created,ticket.created']);
    expect(ok.secret).toMatch(/^whsec_/);
    // Deleting is scoped to the workspace named.
    expect((await runAdmin(['webhook', 'delete', '--id', ok.id, '--workspace', other.id])).code).toBe(1);
    expect(await admin(['webhook', 'delete', '--id', ok.id, '--workspace', ws.id])).toEqual({ id: ok.id, deleted: true });
    expect((await admin<{ data: unknown[] }>(['webhook', 'list', '--workspace', ws.id])).data).toHaveLength(0);
  });

  it('a redirect is a failure and is not followed; a manual redeliver signs afresh with the same delivery id', async () => {
    const ws = await newWorkspace(['--plan', 'scale']);
    const bot = await newBot(ws);
    const path = `/redirect/${ws.id}`;
    receiver.behave(path, { status: 302, headers: { location: receiver.url(`/followed/${ws.id}`) } });
    const hook = await register(ws.id, path, 'ticket.created');
    expect((await widget(bot, 'tickets', { sessionId: await newWidgetSession(bot), email: 'r@example.com', subject: 'redirect me', message: 'hi' })).status).toBe(201);
    const [failed] = await waitFor(
      async () => (await admin<{ data: any[] }>(['webhook', 'deliveries', '--webhook', hook.id])).data,
      (d) => d.length === 1 && d[0].status === 'failed',
      20000,
      200,
    );
    expect(failed).toEqual(expect.objectContaining({ event: 'ticket.created', status_code: 302, attempts: 1, error: expect.stringMatching(/redirect/) }));
    expect(failed.attempt_log).toEqual([expect.objectContaining({ attempt: 1, trigger: 'event', status_code: 302, duration_ms: expect.any(Number) })]);
    expect(receiver.on(`/followed/${ws.id}`)).toHaveLength(0);
    const first = receiver.on(path)[0];
    const listed = (await admin<{ data: any[] }>(['webhook', 'list', '--workspace', ws.id])).data[0];
    expect(listed.last_delivery).toEqual(expect.objectContaining({ status: 'failed', status_code: 302 }));

    receiver.behave(path, { status: 204 });
    await new Promise((r) => setTimeout(r, 1100)); // a later second, so the new timestamp differs
    const redelivered = await admin<any>(['webhook', 'redeliver', '--delivery', failed.id]);
    expect(redelivered).toEqual(expect.objectContaining({ id: failed.id, status: 'succeeded', status_code: 204, attempts: 2 }));
    expect(redelivered.attempt_log.map((a: any) => [a.attempt, a.trigger, a.status_code])).toEqual([
      [1, 'event', 302],
      [2, 'manual', 204],
    ]);
    const second = receiver.on(path)[1];
    expect(second.headers['x-service-delivery-id']).toBe(first.headers['x-service-delivery-id']);
    expect(Number(second.headers['x-service-timestamp'])).toBeGreaterThan(Number(first.headers['x-service-timestamp']));
    expect(second.headers['x-service-signature']).not.toBe(first.headers['x-service-signature']);
    expect(second.body.data).toEqual(first.body.data);
    expectSigned(second, hook.secret);
    // A delivery being sent or pending cannot be redelivered; an unknown one is an error.
    expect((await runAdmin(['webhook', 'redeliver', '--delivery', '00000000-0000-4000-8000-000000000000'])).code).toBe(1);
  });

  it('a 15-second endpoint is cut at 10 s and recorded, while other endpoints and chat are not slowed', async () => {
    const slowWs = await newWorkspace(['--plan', 'scale']);
    const slowBot = await newBot(slowWs);
    const slowPath = `/slow/${slowWs.id}`;
    receiver.behave(slowPath, { status: 200, delayMs: 15000 });
    const slowHook = await register(slowWs.id, slowPath, 'ticket.created');
    const fastWs = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    const fastBot = await newBot(fastWs);
    const fastPath = `/fast/${fastWs.id}`;
    await register(fastWs.id, fastPath, 'ticket.created');

    const chatMs = async (n: number) => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        expect((await postSse('/chat', { message: 'What are your opening hours?', sessionId: `lat-${i}` }, fastWs.token)).status).toBe(200);
        times.push(performance.now() - t0);
      }
      return times.sort((x, y) => x - y)[Math.floor(n / 2)];
    };
    const before = await chatMs(15);

    const started = Date.now();
    const slowSession = await newWidgetSession(slowBot);
    const fastSession = await newWidgetSession(fastBot);
    for (let i = 0; i < 4; i++) expect((await widget(slowBot, 'tickets', { sessionId: slowSession, email: 's@example.com', subject: `slow ${i}`, message: 'hi' })).status).toBe(201);
    await waitFor(async () => receiver.on(slowPath).length, (n) => n === 4, 10000);
    // The slow endpoint now holds four requests; another endpoint is served at once.
    const t0 = Date.now();
    expect((await widget(fastBot, 'tickets', { sessionId: fastSession, email: 'f@example.com', subject: 'fast', message: 'hi' })).status).toBe(201);
    await waitFor(async () => receiver.on(fastPath).length, (n) => n === 1, 5000, 20);
    expect(Date.now() - t0).toBeLessThan(3000);
    const during = await chatMs(15);
    expect(Date.now() - started).toBeLessThan(10000); // measured while the slow requests were in flight
    expect(during).toBeLessThan(before * 2 + 25);

    const deliveries = await waitFor(
      async () => (await admin<{ data: any[] }>(['webhook', 'deliveries', '--webhook', slowHook.id])).data,
      (d) => d.length === 4 && d.every((x) => x.status === 'failed'),
      20000,
      500,
    );
    for (const d of deliveries) {
      expect(d.error).toMatch(/timed out after 10000 ms/);
      expect(d.status_code).toBeNull();
      expect(d.duration_ms).toBeGreaterThanOrEqual(9900);
      expect(d.duration_ms).toBeLessThan(12000);
    }
  }, 90000);
});
