import { admin } from './support/admin';
import { request } from './support/api';
import { spawnApp, waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { postSse } from './support/sse';
import { e2eState } from './support/state';

/** The visitor widget's public API: no token, the bot in the path names the workspace. */
describe('visitor widget API (/widget/v1/bots/{botId}/…)', () => {
  const s = e2eState();
  const widget = (botId: string, path: string) => `${s.gatewayUrl}/widget/v1/bots/${botId}/${path}`;
  const post = (botId: string, path: string, body: unknown) => request('POST', '', body, { baseUrl: widget(botId, path) });
  let ws: TestWorkspace;
  let bot: string;

  beforeAll(async () => {
    ws = await newWorkspace(['--plan', 'scale']);
    bot = (await ws.api.post('/bots', { name: 'Widget bot' })).body.data.id;
    const kb = await ws.api.post('/kb/ingest', { title: 'Plans', text: 'The premium plan costs 49 dollars a month and includes phone support.', chatbotId: bot });
    await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === kb.body.data.id)?.status, (st) => st === 'ready', 20000);
  });

  it('a visitor chats through the widget (SSE, channel widget), leaves contact details, and becomes a lead', async () => {
    const sessionId = 'widget-visitor-1';
    const first = await postSse('', { message: 'How much is the premium plan?', sessionId }, 'unused', { baseUrl: widget(bot, 'chat') });
    expect(first.status).toBe(200);
    expect(first.text).toContain('49 dollars');
    const second = await postSse('', { message: 'I want to buy it for my company today. My email is sam@northwind.io and my phone is +1 415 555 0133', sessionId }, 'unused', { baseUrl: widget(bot, 'chat') });
    expect(second.status).toBe(200);
    const messages = (await ws.api.get(`/conversations/${sessionId}`)).body.data;
    expect(messages).toHaveLength(4);
    expect(messages.every((m: any) => m.channel === 'widget' && m.chatbot_id === bot)).toBe(true);
    const lead = await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === sessionId), (l) => !!l, 20000);
    expect(lead).toEqual(expect.objectContaining({ chatbot_id: bot, email: 'sam@northwind.io', captured_via: 'conversational', channel: 'widget' }));
    expect(['hot', 'warm']).toContain(lead.score_band);
  });

  it('feedback on an assistant message of the session counts in analytics; other messages are 404', async () => {
    const sessionId = 'widget-feedback';
    await postSse('', { message: 'Does the premium plan include phone support?', sessionId }, 'unused', { baseUrl: widget(bot, 'chat') });
    const [, assistant] = (await ws.api.get(`/conversations/${sessionId}`)).body.data;
    const ok = await post(bot, 'feedback', { sessionId, messageId: assistant.id, feedback: 'positive' });
    expect(ok.status).toBe(200);
    expect((await ws.api.get(`/conversations/${sessionId}`)).body.data[1].feedback).toBe('positive');
    expect((await ws.api.get('/analytics')).body.data.feedback.positive).toBeGreaterThanOrEqual(1);
    expect((await post(bot, 'feedback', { sessionId: 'another-session', messageId: assistant.id, feedback: 'negative' })).status).toBe(404);
    expect((await post(bot, 'feedback', { sessionId, messageId: assistant.id, feedback: 'meh' })).status).toBe(400);
  });

  it('identify, the lead form, bookings, tickets and handoff', async () => {
    const identify = await post(bot, 'identify', { sessionId: 'widget-identified', externalUserId: 'user-42', name: 'Ada' });
    expect(identify.status).toBe(200);
    const identified = await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === 'widget-identified'), (l) => !!l);
    expect(identified).toEqual(expect.objectContaining({ external_user_id: 'user-42', captured_via: 'inferred' }));

    const form = await post(bot, 'leads', { name: 'Grace', email: 'grace@example.org', company: 'Navy', message: 'Please send a quote' });
    expect(form.status).toBe(201);
    expect(form.body.data).toEqual(expect.objectContaining({ email: 'grace@example.org', captured_via: 'form', chatbot_id: bot }));
    expect((await post(bot, 'leads', { name: 'No contact' })).status).toBe(400);

    const booking = await post(bot, 'bookings', { name: 'Lin', email: 'lin@example.com', phone: '+65 6123 4567', requestedSlot: '2027-03-01T10:00:00+08:00', timeZone: 'Asia/Singapore' });
    expect(booking.status).toBe(201);
    expect(booking.body.data).toEqual(expect.objectContaining({ status: 'pending', chatbot_id: bot, tenant_id: ws.id, name: 'Lin' }));
    const listed = (await ws.api.get('/bookings')).body.data.map((b: any) => b.id);
    expect(listed).toContain(booking.body.data.id);
    expect((await ws.api.patch(`/bookings/${booking.body.data.id}`, { action: 'confirm' })).body.data.status).toBe('confirmed');
    expect((await post(bot, 'bookings', { name: 'Lin', email: 'not-an-email', phone: '1234' })).status).toBe(400);

    const ticket = await post(bot, 'tickets', { sessionId: 'widget-ticket', email: 'help@example.com', subject: 'Broken heater', message: 'It leaks.' });
    expect(ticket.status).toBe(201);
    expect(ticket.body.data).toEqual(expect.objectContaining({ subject: 'Broken heater', chatbot_id: bot }));
    const handoff = await post(bot, 'handoff', { sessionId: 'widget-ticket', reason: 'wants a person' });
    expect(handoff.status).toBe(200);
    expect(handoff.body.data).toEqual({ session_id: 'widget-ticket', handoff: true });
  });

  it('bookings made through the widget go through every allowed and forbidden transition', async () => {
    const make = async (slot: string) => {
      const res = await post(bot, 'bookings', { name: 'Visitor', email: 'visitor@example.com', phone: '+44 20 7946 0000', requestedSlot: slot, timeZone: 'Europe/London' });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const patch = async (id: string, body: unknown) => (await ws.api.patch(`/bookings/${id}`, body)).status;
    const a = await make('2027-04-01T09:00:00+01:00');
    expect(await patch(a, { action: 'reschedule' })).toBe(400);
    expect(await patch(a, { action: 'reschedule', requestedSlot: '2027-04-02T09:00:00' })).toBe(400);
    expect(await patch(a, { action: 'reschedule', requestedSlot: '2027-04-02T09:00:00+01:00' })).toBe(200);
    expect(await patch(a, { action: 'confirm' })).toBe(200);
    expect(await patch(a, { action: 'confirm' })).toBe(409);
    expect(await patch(a, { action: 'reject' })).toBe(409);
    expect(await patch(a, { action: 'reschedule', requestedSlot: '2027-04-03T09:00:00+01:00' })).toBe(200);
    expect(await patch(a, { action: 'cancel', cancelComment: 'Plans changed' })).toBe(200);
    expect(await patch(a, { action: 'cancel' })).toBe(409);
    expect(await patch(a, { action: 'reschedule', requestedSlot: '2027-04-04T09:00:00+01:00' })).toBe(409);
    const b = await make('2027-05-01T09:00:00+01:00');
    expect(await patch(b, { action: 'reject', rejectionComment: 'x'.repeat(501) })).toBe(400);
    expect(await patch(b, { action: 'reject', rejectionComment: 'Fully booked that day' })).toBe(200);
    expect(await patch(b, { action: 'confirm' })).toBe(409);
    expect(await patch(b, { action: 'cancel' })).toBe(409);
    const got = (await ws.api.get(`/bookings/${b}`)).body.data;
    expect(got).toEqual(expect.objectContaining({ status: 'rejected', rejection_comment: 'Fully booked that day', rejected_at: expect.any(String) }));
    const stranger = await newWorkspace();
    expect((await stranger.api.get(`/bookings/${b}`)).status).toBe(404);
    expect((await stranger.api.patch(`/bookings/${b}`, { action: 'cancel' })).status).toBe(404);
  });

  it('an unknown bot is 404, a lapsed workspace 402; no field can reach another workspace', async () => {
    expect((await post('00000000-0000-4000-8000-000000000000', 'handoff', { sessionId: 'x' })).status).toBe(404);
    expect((await post('not-a-bot', 'handoff', { sessionId: 'x' })).status).toBe(404);
    const lapsed = await newWorkspace(['--plan', 'growth']);
    const lapsedBot = (await lapsed.api.post('/bots', { name: 'Lapsed' })).body.data.id;
    await admin(['workspace', 'update', '--id', lapsed.id, '--status', 'past_due']);
    const res = await waitFor(() => post(lapsedBot, 'handoff', { sessionId: 'x' }), (r) => r.status === 402);
    expect(res.body.code).toBe('api_locked');
    // A booking sent to this bot lands in this bot's workspace, whatever the body says.
    const sneaky = await post(bot, 'bookings', { name: 'Eve', email: 'eve@example.com', phone: '+1 555 0100', chatbotId: lapsedBot, tenant_id: lapsed.id });
    expect(sneaky.status).toBe(400);
  });

  it('rate-limits per visitor session, whatever the client IP (429 with Retry-After)', async () => {
    const port = await freePort();
    const gw = spawnApp('gateway', { GATEWAY_PORT: String(port), TRUST_PROXY: 'true', WIDGET_RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_PREFIX: `${s.rateLimitPrefix}widget-session-test:` });
    try {
      await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200);
      const url = `http://127.0.0.1:${port}/widget/v1/bots/${bot}/handoff`;
      // Each request from another address (X-Forwarded-For, trusted here), all in one session.
      const from = (ip: string, sessionId: string) => request('POST', '', { sessionId }, { baseUrl: url, headers: { 'x-forwarded-for': ip } });
      const responses = [];
      for (let i = 1; i <= 5; i++) responses.push(await from(`198.51.100.${i}`, 'one-session'));
      expect(responses.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      expect(responses[3].status).toBe(429);
      expect(Number(responses[3].headers.get('retry-after'))).toBeGreaterThan(0);
      expect(responses[3].body.retry_after).toBeGreaterThan(0);
      // Another session from a fresh address is not affected.
      expect((await from('198.51.100.50', 'another-session')).status).toBe(200);
    } finally {
      await gw.kill();
    }
  });

  it('rate-limits per client IP (429 with Retry-After)', async () => {
    const port = await freePort();
    const gw = spawnApp('gateway', { GATEWAY_PORT: String(port), WIDGET_RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_PREFIX: `${s.rateLimitPrefix}widget-test:` });
    try {
      await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200);
      const url = `http://127.0.0.1:${port}/widget/v1/bots/${bot}/handoff`;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await request('POST', '', { sessionId: `rl-${i}` }, { baseUrl: url })).status);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses[3]).toBe(429);
    } finally {
      await gw.kill();
    }
  });
});
