import { createHmac } from 'node:crypto';
import { admin } from './support/admin';
import { request, UUID } from './support/api';
import { spawnApp, waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { mcpConnect, errorOf } from './support/mcp';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { newWidgetSession } from './support/widget';

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
    const sessionId = await newWidgetSession(bot);
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
    const sessionId = await newWidgetSession(bot);
    await postSse('', { message: 'Does the premium plan include phone support?', sessionId }, 'unused', { baseUrl: widget(bot, 'chat') });
    const [, assistant] = (await ws.api.get(`/conversations/${sessionId}`)).body.data;
    const ok = await post(bot, 'feedback', { sessionId, messageId: assistant.id, feedback: 'positive' });
    expect(ok.status).toBe(200);
    expect((await ws.api.get(`/conversations/${sessionId}`)).body.data[1].feedback).toBe('positive');
    expect((await ws.api.get('/analytics')).body.data.feedback.positive).toBeGreaterThanOrEqual(1);
    expect((await post(bot, 'feedback', { sessionId: await newWidgetSession(bot), messageId: assistant.id, feedback: 'negative' })).status).toBe(404);
    expect((await post(bot, 'feedback', { sessionId: 'another-session', messageId: assistant.id, feedback: 'negative' })).status).toBe(403);
    expect((await post(bot, 'feedback', { sessionId, messageId: assistant.id, feedback: 'meh' })).status).toBe(400);
  });

  it('identify, the lead form, bookings, tickets and handoff', async () => {
    const identifiedSession = await newWidgetSession(bot);
    const { secret } = await admin<{ secret: string }>(['widget', 'rotate-secret', '--bot', bot]);
    const userHash = createHmac('sha256', secret).update('user-42').digest('hex');
    const identify = await post(bot, 'identify', { sessionId: identifiedSession, externalUserId: 'user-42', name: 'Ada', userHash });
    expect(identify.status).toBe(200);
    expect(identify.body.data).toEqual({ session_id: identifiedSession, identified: true });
    const identified = await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === identifiedSession), (l) => !!l);
    expect(identified).toEqual(expect.objectContaining({ external_user_id: 'user-42', captured_via: 'inferred' }));

    const form = await post(bot, 'leads', { name: 'Grace', email: 'grace@example.org', company: 'Navy', message: 'Please send a quote' });
    expect(form.status).toBe(201);
    expect(form.body.data).toEqual({ id: expect.any(String), session_id: expect.stringMatching(/^form-/), status: 'received', created_at: expect.any(String) });
    const stored = (await ws.api.get('/leads')).body.data.find((l: any) => l.id === form.body.data.id);
    expect(stored).toEqual(expect.objectContaining({ email: 'grace@example.org', captured_via: 'form', chatbot_id: bot }));
    expect((await post(bot, 'leads', { name: 'No contact' })).status).toBe(400);

    const booking = await post(bot, 'bookings', { name: 'Lin', email: 'lin@example.com', phone: '+65 6123 4567', requestedSlot: '2027-03-01T10:00:00+08:00', timeZone: 'Asia/Singapore' });
    expect(booking.status).toBe(201);
    expect(booking.body.data).toEqual(expect.objectContaining({ status: 'pending', chatbot_id: bot, name: 'Lin', email: 'lin@example.com', time_zone: 'Asia/Singapore' }));
    expect(booking.body.data.tenant_id).toBeUndefined();
    const listed = (await ws.api.get('/bookings')).body.data.map((b: any) => b.id);
    expect(listed).toContain(booking.body.data.id);
    expect((await ws.api.patch(`/bookings/${booking.body.data.id}`, { action: 'confirm' })).body.data.status).toBe('confirmed');
    expect((await post(bot, 'bookings', { name: 'Lin', email: 'not-an-email', phone: '1234' })).status).toBe(400);

    const ticketSession = await newWidgetSession(bot);
    const ticket = await post(bot, 'tickets', { sessionId: ticketSession, email: 'help@example.com', subject: 'Broken heater', message: 'It leaks.' });
    expect(ticket.status).toBe(201);
    expect(ticket.body.data).toEqual({ id: expect.any(String), session_id: ticketSession, status: 'received', created_at: expect.any(String) });
    const handoff = await post(bot, 'handoff', { sessionId: ticketSession, reason: 'wants a person' });
    expect(handoff.status).toBe(200);
    expect(handoff.body.data).toEqual({ session_id: ticketSession, handoff: true });
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
      const [one, another] = [await newWidgetSession(bot), await newWidgetSession(bot)];
      const responses = [];
      for (let i = 1; i <= 5; i++) responses.push(await from(`198.51.100.${i}`, one));
      expect(responses.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      expect(responses[3].status).toBe(429);
      expect(Number(responses[3].headers.get('retry-after'))).toBeGreaterThan(0);
      expect(responses[3].body.retry_after).toBeGreaterThan(0);
      // Another session from a fresh address is not affected.
      expect((await from('198.51.100.50', another)).status).toBe(200);
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
      const sessions = await Promise.all(Array.from({ length: 5 }, () => newWidgetSession(bot)));
      const statuses: number[] = [];
      for (const sessionId of sessions) statuses.push((await request('POST', '', { sessionId }, { baseUrl: url })).status);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses[3]).toBe(429);
    } finally {
      await gw.kill();
    }
  });
  describe('sessions belong to one bot and are minted by the server (issue 14)', () => {
    const refusals = async (url: string, reason: string): Promise<number> => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('sa_widget_refusals_total{') && l.includes(`reason="${reason}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    };

    it("a sibling bot cannot read or overwrite a visitor's lead, identify, ticket, hand off, rate or book with the visitor's session (403)", async () => {
      const sibling = (await ws.api.post('/bots', { name: 'Sibling bot' })).body.data.id;
      // The victim chats with bot 1 (the server starts the session) and leaves contact details.
      const chat = await postSse('', { message: 'I want to buy the premium plan for my company today. My email is victim@northwind.io and my phone is +1 415 555 0199' }, 'unused', {
        baseUrl: widget(bot, 'chat'),
      });
      expect(chat.status).toBe(200);
      const victim = chat.headers.get('x-session-id')!;
      const before = await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === victim), (l) => !!l, 20000);
      const [, assistant] = (await ws.api.get(`/conversations/${victim}`)).body.data;
      const forbiddenBefore = await refusals(s.opsUrls['gateway'], 'session_forbidden');

      const attacks: [string, Record<string, unknown>][] = [
        ['leads', { sessionId: victim, email: 'x@evil.example' }],
        ['identify', { sessionId: victim, externalUserId: 'evil', email: 'x@evil.example', userHash: 'a'.repeat(64) }],
        ['tickets', { sessionId: victim, email: 'x@evil.example', subject: 'Mine now', message: 'hi' }],
        ['handoff', { sessionId: victim, reason: 'evil' }],
        ['feedback', { sessionId: victim, messageId: assistant.id, feedback: 'negative' }],
        ['bookings', { sessionId: victim, name: 'Eve', email: 'x@evil.example', phone: '+1 555 0100' }],
      ];
      const answers = [];
      for (const [route, body] of attacks) {
        const res = await post(sibling, route, body);
        answers.push({ route, status: res.status, code: res.body?.code, tenant: res.text.includes(ws.id) });
      }
      expect(answers).toEqual(attacks.map(([route]) => ({ route, status: 403, code: 'session_forbidden', tenant: false })));
      const chatThere = await postSse('', { message: 'what did I say?', sessionId: victim }, 'unused', { baseUrl: widget(sibling, 'chat') });
      expect([chatThere.status, chatThere.json?.code]).toEqual([403, 'session_forbidden']);

      const after = (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === victim);
      expect(after).toEqual(expect.objectContaining({ email: 'victim@northwind.io', external_user_id: null, chatbot_id: bot }));
      expect(after.email).toBe(before.email);
      expect((await ws.api.get(`/conversations/${victim}`)).body.data).toHaveLength(2);
      expect((await ws.api.get(`/conversations/${victim}`)).body.data[1].feedback).toBeNull();
      expect(await refusals(s.opsUrls['gateway'], 'session_forbidden')).toBeGreaterThanOrEqual(forbiddenBefore + attacks.length + 1);
    });

    it('refuses a visitor-chosen session id, and a session of POST /v1/chat, with the same answer as a foreign one', async () => {
      await ws.api.post('/chat', { message: 'hello', chatbotId: bot, sessionId: 'developer-chosen' });
      for (const sessionId of ['visitor-chosen-id', 'developer-chosen']) {
        const res = await post(bot, 'handoff', { sessionId });
        expect([res.status, res.body]).toEqual([403, { error: 'Forbidden', code: 'session_forbidden', message: expect.any(String) }]);
        const lead = await post(bot, 'leads', { sessionId, email: 'a@example.com' });
        expect([lead.status, lead.body]).toEqual([403, res.body]);
        const chat = await postSse('', { message: 'hi', sessionId }, 'unused', { baseUrl: widget(bot, 'chat') });
        expect([chat.status, chat.json]).toEqual([403, res.body]);
      }
    });

    it('mints a fresh high-entropy session (POST …/sessions) that only its bot accepts; a chat without one starts one', async () => {
      const res = await request('POST', '', undefined, { baseUrl: widget(bot, 'sessions') });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ data: { session_id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } });
      const again = await post(bot, 'sessions', {});
      expect(again.status).toBe(201);
      expect(again.body.data.session_id).not.toBe(res.body.data.session_id);
      expect((await post(bot, 'sessions', { sessionId: 'mine' })).status).toBe(400);
      expect((await post(bot, 'handoff', { sessionId: res.body.data.session_id })).status).toBe(200);
      const chat = await postSse('', { message: 'hello' }, 'unused', { baseUrl: widget(bot, 'chat') });
      expect(chat.headers.get('x-session-id')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await post(bot, 'handoff', { sessionId: chat.headers.get('x-session-id') })).status).toBe(200);
    });

    it('the lead form answer carries nothing the visitor did not send (no tenant id, no stored phone, no quote)', async () => {
      const sessionId = await newWidgetSession(bot);
      const chat = await postSse('', { message: 'Quote for 40 heaters please, call me on +1 415 555 0177', sessionId }, 'unused', { baseUrl: widget(bot, 'chat') });
      expect(chat.status).toBe(200);
      await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === sessionId)?.phone, (p) => !!p, 20000);
      const res = await post(bot, 'leads', { sessionId, email: 'buyer@example.com' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ data: { id: expect.stringMatching(UUID), session_id: sessionId, status: 'received', created_at: expect.any(String) } });
      expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);
      // The generated values are fixed in shape above; a random uuid may hold "555" by chance, so the
      // leak checks read the answer with those values taken out.
      const rest = [res.body.data.id, res.body.data.created_at, sessionId].reduce((t, v) => t.split(v).join(''), res.text);
      expect(rest).not.toContain(ws.id);
      expect(rest).not.toContain('555');
      expect(rest).not.toContain('heaters');
      const stored = (await ws.api.get('/leads')).body.data.find((l: any) => l.id === res.body.data.id);
      expect(stored).toEqual(expect.objectContaining({ session_id: sessionId, email: 'buyer@example.com', phone: expect.stringContaining('555') }));
    });
  });

  it("widget chat has its own budget per bot (PLAN_LIMITS): used up it is 402 widget_budget_exhausted, while /v1/chat and MCP ask_bot still answer", async () => {
    const port = await freePort();
    const opsPort = await freePort();
    const gw = spawnApp('gateway', { GATEWAY_PORT: String(port), OPS_PORT: String(opsPort), PLAN_LIMITS: JSON.stringify({ growth: { widgetMessagesPerBotPerMonth: 3 } }) });
    try {
      await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200);
      const small = await newWorkspace(['--plan', 'growth', '--messages-per-month', '3']);
      const [one, two] = [(await small.api.post('/bots', { name: 'Site one' })).body.data.id, (await small.api.post('/bots', { name: 'Site two' })).body.data.id];
      const gateway = `http://127.0.0.1:${port}`;
      const widgetChat = (botId: string, i: number) => postSse('', { message: `question ${i}` }, 'unused', { baseUrl: `${gateway}/widget/v1/bots/${botId}/chat` });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push(await widgetChat(one, i));
      expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 402, 402]);
      expect(statuses[3].json).toEqual(expect.objectContaining({ error: 'Payment Required', code: 'widget_budget_exhausted' }));
      // Another bot (another site) has its own budget.
      expect((await widgetChat(two, 0)).status).toBe(200);
      // The workspace's own quota (3) is untouched by the widget.
      expect((await postSse('/chat', { message: 'owner question', chatbotId: one }, small.token, { baseUrl: `${gateway}/v1` })).status).toBe(200);
      const mcp = await mcpConnect(small.token);
      try {
        expect(errorOf(await mcp.call('ask_bot', { message: 'owner question over MCP', chatbotId: one }))).toBeUndefined();
      } finally {
        await mcp.close();
      }
      const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
      expect(metrics).toMatch(/^sa_widget_refusals_total\{[^}]*reason="budget_exhausted"[^}]*\} 2$/m);
    } finally {
      await gw.kill();
    }
  });
});
