import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import type { CallerContext } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import {
  SlackStandIn,
  TelegramStandIn,
  WhatsAppStandIn,
  signedSlackDelivery,
  signedWhatsAppNotification,
  slackEventDelivery,
  slackMessageEvent,
  slackTs,
  slackUrlVerification,
  startSlackStandIn,
  startTelegramStandIn,
  startWhatsAppStandIn,
  telegramDelivery,
  telegramTextUpdate,
  whatsappTextNotification,
  whatsappVerifyQuery,
} from '@sa/testing';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { ConsoleSystem, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import type { ConsoleClient } from './support/console';

/**
 * Channels (issue 35), the webhook providers end to end: the gateway's public webhook route, the
 * channels service (signature checks, idempotent storage, the answering and sending workers),
 * chat and leads, with WhatsApp, Telegram and Slack played by local stand-ins that speak their
 * wire formats (signed deliveries in, their send APIs out). The bot answers from its knowledge
 * with the offline default (hashing embedder + extractive answers).
 */
const PASSWORD = 'correct horse battery staple';
const HOURS = 'Our shop in Kochi opens at 10 am and closes at 7 pm, Monday to Saturday. On Sundays the shop is closed.';
const TG = { token: '7011223344:AAF-e2eTelegramToken_x9', secret: 'tg-secret-e2e-3f1a9c' };
const WA = { phoneNumberId: '106540352242922', token: 'EAAG-e2e-whatsapp-access-token', appSecret: 'wa-app-secret-e2e-77d2', verifyToken: 'wa-verify-e2e-5b1' };
const SL = { botToken: 'xoxb-e2e-slack-bot-token-1', signingSecret: 'slack-signing-secret-e2e-90ab' };

describe('channels: WhatsApp, Telegram and Slack through their webhooks (issue 35)', () => {
  let sys: ConsoleSystem;
  let tg: TelegramStandIn;
  let wa: WhatsAppStandIn;
  let sl: SlackStandIn;
  let db: Client;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let ctx: CallerContext;
  let ws: { id: string };
  let token: string;
  let owner: ConsoleClient;
  let bot: string;
  const conn = {} as Record<'telegram' | 'whatsapp' | 'slack', { id: string; webhook_url: string }>;
  const created = (v: { id: string; webhook_url: string | null }) => ({ id: v.id, webhook_url: v.webhook_url! });

  const api = (method: string, path: string, body?: unknown) => request(method, path, body, { token, baseUrl: sys.apiUrl });
  const post = (url: string, d: { body: Buffer; headers: Record<string, string> }) => fetch(url, { method: 'POST', headers: d.headers, body: d.body });
  const inboundCount = async (connectionId: string) => Number((await db.query(`SELECT count(*) FROM channels.inbound WHERE connection_id = $1`, [connectionId])).rows[0].count);

  beforeAll(async () => {
    tg = await startTelegramStandIn({ token: TG.token });
    wa = await startWhatsAppStandIn({ phoneNumberId: WA.phoneNumberId, accessToken: WA.token });
    sl = await startSlackStandIn({ botToken: SL.botToken });
    const port = (u: string) => Number(new URL(u).port);
    sys = await startConsoleSystem(
      { CHANNELS_TELEGRAM_API_BASE: tg.baseUrl, CHANNELS_WHATSAPP_API_BASE: wa.baseUrl, CHANNELS_SLACK_API_BASE: sl.baseUrl, CHANNELS_POLL_MS: '200', CHANNELS_RETRY_BASE_MS: '200', CHANNELS_CONVERSATION_GAP_MS: '1500' },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'console', 'channels'], allowPorts: [port(tg.baseUrl), port(wa.baseUrl), port(sl.baseUrl)] },
    );
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    ({ ws, token, owner } = await workspaceWithPeople(sys, 'Acme Channels', { owner: 'owen@channels.example', member: 'mina@channels.example', password: PASSWORD }));
    nc = await connect({ servers: sys.natsUrl });
    rpc = new RpcClient(nc, 10000);
    ctx = {
      tenantId: ws.id,
      tokenId: null,
      scopes: [],
      botIds: null,
      requestId: 'e2e-channels',
      entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 1000, pagesPerBot: 100, widgetMessagesPerBotPerMonth: 100, webhooks: true },
    };
    bot = (await waitFor(() => api('POST', '/bots', { name: 'Shop desk', language: 'en' }), (r) => r.status === 201, 20000)).body.data.id;
    await api('POST', '/kb/ingest', { title: 'Opening hours', text: HOURS, chatbotId: bot });
    await waitFor(async () => (await api('GET', `/kb?chatbotId=${bot}`)).body.data, (docs: any[]) => docs.length === 1 && docs[0].status === 'ready', 60000, 250);
    conn.telegram = created(await rpc.send('channels.connection.create', { botId: bot, kind: 'telegram', secrets: { bot_token: TG.token, webhook_secret: TG.secret } }, ctx));
    conn.whatsapp = created(
      await rpc.send(
        'channels.connection.create',
        { botId: bot, kind: 'whatsapp', settings: { phone_number_id: WA.phoneNumberId }, secrets: { access_token: WA.token, app_secret: WA.appSecret, verify_token: WA.verifyToken } },
        ctx,
      ),
    );
    conn.slack = created(await rpc.send('channels.connection.create', { botId: bot, kind: 'slack', secrets: { bot_token: SL.botToken, signing_secret: SL.signingSecret } }, ctx));
  }, 240000);

  afterAll(async () => {
    await nc?.close();
    await db?.end();
    await sys?.stop();
    await Promise.all([tg?.close(), wa?.close(), sl?.close()]);
  });

  it('a connection keeps its credentials sealed: never returned, not stored in the clear', async () => {
    const listed = await rpc.send('channels.connection.list', { botId: bot }, ctx);
    expect(listed.map((c) => c.kind).sort()).toEqual(['slack', 'telegram', 'whatsapp']);
    const text = JSON.stringify(listed);
    for (const secret of [TG.token, TG.secret, WA.token, WA.appSecret, WA.verifyToken, SL.botToken, SL.signingSecret]) expect(text).not.toContain(secret);
    expect(listed.find((c) => c.kind === 'telegram')).toMatchObject({ secrets_set: ['bot_token', 'webhook_secret'], status: 'pending', webhook_url: `${sys.gatewayUrl}/channels/v1/telegram/${conn.telegram.id}` });
    const stored = JSON.stringify((await db.query(`SELECT secrets FROM channels.connections WHERE tenant_id = $1`, [ws.id])).rows);
    for (const secret of [TG.token, WA.appSecret, SL.signingSecret]) expect(stored).not.toContain(secret);
  });

  it('Telegram: a message with the secret token is answered from the knowledge; a wrong token is 401 and stores nothing; a retried update is answered once', async () => {
    const update = telegramTextUpdate({ text: 'What time do you open?', from: { id: 5550001, first_name: 'Tara' } });
    const wrong = await post(conn.telegram.webhook_url, telegramDelivery(update, 'not-the-secret'));
    expect(wrong.status).toBe(401);
    const missing = await post(conn.telegram.webhook_url, telegramDelivery(update, null));
    expect(missing.status).toBe(401);
    expect(await inboundCount(conn.telegram.id)).toBe(0);

    const first = await post(conn.telegram.webhook_url, telegramDelivery(update, TG.secret));
    expect(first.status).toBe(200);
    const again = await post(conn.telegram.webhook_url, telegramDelivery(update, TG.secret)); // Telegram retries until it gets a 2xx in time
    expect(again.status).toBe(200);
    await waitFor(async () => tg.sent.length, (n) => n >= 1, 30000, 100);
    await new Promise((r) => setTimeout(r, 1500)); // room for a duplicate to show up
    expect(tg.sent).toHaveLength(1);
    expect(tg.sent[0]!.params).toMatchObject({ chat_id: 5550001, reply_parameters: { message_id: (update as any).message.message_id } });
    expect(String(tg.sent[0]!.params['text'])).toContain('10 am');
    expect(await inboundCount(conn.telegram.id)).toBe(1);
    const users = (await db.query(`SELECT channel, provider_message_id FROM chat.messages WHERE tenant_id = $1 AND role = 'user' AND channel = 'telegram'`, [ws.id])).rows;
    expect(users).toEqual([{ channel: 'telegram', provider_message_id: `5550001:${(update as any).message.message_id}` }]);
  });

  it('WhatsApp: the verify handshake echoes the challenge; a signed message is answered; a bad signature is 401; a retry is answered once; the sender becomes the lead\'s phone', async () => {
    const q = whatsappVerifyQuery(WA.verifyToken, '1158201444');
    const hs = await fetch(`${conn.whatsapp.webhook_url}?${new URLSearchParams(q)}`);
    expect([hs.status, await hs.text(), hs.headers.get('x-content-type-options')]).toEqual([200, '1158201444', 'nosniff']);
    const badHs = await fetch(`${conn.whatsapp.webhook_url}?${new URLSearchParams(whatsappVerifyQuery('guess'))}`);
    expect(badHs.status).toBe(403);

    const note = whatsappTextNotification(WA.phoneNumberId, { from: '919800012345', name: 'Priya', text: 'What time do you open on Saturday?', id: 'wamid.HBgMOTE5ODAwMDEyMzQ1FQIAEhgUM0E1' });
    const signed = signedWhatsAppNotification(WA.appSecret, note);
    const forged = signedWhatsAppNotification('someone-elses-secret', note);
    expect((await post(conn.whatsapp.webhook_url, forged)).status).toBe(401);
    expect((await post(conn.whatsapp.webhook_url, { body: signed.body, headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect(await inboundCount(conn.whatsapp.id)).toBe(0);

    expect((await post(conn.whatsapp.webhook_url, signed)).status).toBe(200);
    expect((await post(conn.whatsapp.webhook_url, signed)).status).toBe(200);
    await waitFor(async () => wa.sent.length, (n) => n >= 1, 30000, 100);
    await new Promise((r) => setTimeout(r, 1500));
    expect(wa.sent).toHaveLength(1);
    expect(wa.sent[0]).toMatchObject({ to: '919800012345', contextMessageId: 'wamid.HBgMOTE5ODAwMDEyMzQ1FQIAEhgUM0E1' });
    expect(wa.sent[0]!.text).toContain('10 am');

    // A buying question makes a lead; its phone is the WhatsApp number.
    const buying = whatsappTextNotification(WA.phoneNumberId, { from: '919800012345', name: 'Priya', text: 'We want to buy 40 heaters for our hotel next month, what is the price for a bulk order?' });
    expect((await post(conn.whatsapp.webhook_url, signedWhatsAppNotification(WA.appSecret, buying))).status).toBe(200);
    const leads = await waitFor(async () => (await api('GET', `/leads?chatbotId=${bot}`)).body.data as any[], (l) => l.some((x) => x.channel === 'whatsapp'), 30000, 200);
    expect(leads.find((x) => x.channel === 'whatsapp')).toMatchObject({ channel: 'whatsapp', phone: '+919800012345' });
  });

  it('Slack: url_verification is answered; a signed message is answered in its thread; a stale or bad signature is 401; a retry is answered once', async () => {
    const challenge = slackUrlVerification(SL.signingSecret);
    const ch = await post(conn.slack.webhook_url, challenge);
    expect([ch.status, (await ch.text()).includes(challenge.challenge)]).toEqual([200, true]);

    const ts = slackTs();
    const event = slackMessageEvent({ channel: 'C0SUPPORT', channel_type: 'channel', user: 'U0VISITOR', text: 'When do you open?', ts, thread_ts: ts });
    const stale = slackEventDelivery(SL.signingSecret, event, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect((await post(conn.slack.webhook_url, stale)).status).toBe(401);
    const good = slackEventDelivery(SL.signingSecret, event);
    const tampered = { body: Buffer.from(good.body.toString().replace('When do you open?', 'When do you close?')), headers: good.headers };
    expect((await post(conn.slack.webhook_url, tampered)).status).toBe(401);
    expect(await inboundCount(conn.slack.id)).toBe(0);

    expect((await post(conn.slack.webhook_url, good)).status).toBe(200);
    const retry = signedSlackDelivery(SL.signingSecret, good.body, { retryNum: 1, retryReason: 'http_timeout' });
    expect((await post(conn.slack.webhook_url, retry)).status).toBe(200);
    await waitFor(async () => sl.posts.length, (n) => n >= 1, 30000, 100);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sl.posts).toHaveLength(1);
    expect(sl.posts[0]).toMatchObject({ channel: 'C0SUPPORT', thread_ts: ts });
    expect(sl.posts[0]!.text).toContain('10 am');
  });

  it('GET /v1/conversations shows each channel; unknown connections are 404', async () => {
    const sessions = (await api('GET', `/conversations?chatbotId=${bot}`)).body.data as any[];
    expect(new Set(sessions.map((s) => s.channel))).toEqual(new Set(['telegram', 'whatsapp', 'slack']));
    const messages = (await api('GET', `/conversations/${sessions.find((s) => s.channel === 'telegram').session_id}`)).body.data as any[];
    expect(messages.map((m) => [m.role, m.channel])).toEqual([
      ['user', 'telegram'],
      ['assistant', 'telegram'],
    ]);
    expect(messages[0].provider_message_id).toMatch(/^5550001:\d+$/);
    expect((await fetch(`${sys.gatewayUrl}/channels/v1/telegram/00000000-0000-4000-8000-000000000000`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(404);
    expect((await fetch(`${sys.gatewayUrl}/channels/v1/fax/${conn.telegram.id}`, { method: 'POST', body: '{}' })).status).toBe(404);
    // The Telegram connection under the WhatsApp path: not found either.
    expect((await fetch(`${sys.gatewayUrl}/channels/v1/whatsapp/${conn.telegram.id}`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it("each channel's turns count toward the workspace's monthly message quota (as /v1/chat's do)", async () => {
    const users = Number((await db.query(`SELECT count(*) FROM chat.messages WHERE tenant_id = $1 AND role = 'user' AND channel IN ('telegram', 'whatsapp', 'slack')`, [ws.id])).rows[0].count);
    const [usage] = (await db.query(`SELECT messages FROM chat.usage WHERE tenant_id = $1`, [ws.id])).rows;
    expect(users).toBeGreaterThanOrEqual(4);
    expect(usage.messages).toBe(users);
  });

  it("a provider's 429 is waited out (its Retry-After) and the reply still goes once; a permanent refusal shows as the connection's last error", async () => {
    sl.rateLimitNext(1, 2);
    const ts = slackTs();
    const asked = Date.now();
    expect((await post(conn.slack.webhook_url, slackEventDelivery(SL.signingSecret, slackMessageEvent({ channel: 'C0SUPPORT', channel_type: 'channel', user: 'U0OTHER', text: 'When do you open?', ts })))).status).toBe(200);
    await waitFor(async () => sl.posts.filter((p) => p.thread_ts === ts).length, (n) => n >= 1, 30000, 100);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(2000);
    expect(sl.requests.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(sl.posts.filter((p) => p.thread_ts === ts)).toHaveLength(1);

    // A channel the app was removed from: Slack says channel_not_found, which no retry changes.
    sl.refuseNext(1, 'channel_not_found');
    const lost = slackTs();
    expect((await post(conn.slack.webhook_url, slackEventDelivery(SL.signingSecret, slackMessageEvent({ channel: 'C0GONE', channel_type: 'channel', user: 'U0OTHER', text: 'When do you open?', ts: lost })))).status).toBe(200);
    const failed = await waitFor(async () => (await rpc.send('channels.connection.list', { botId: bot }, ctx)).find((c) => c.kind === 'slack')!, (c) => c.status === 'error', 30000, 100);
    expect(failed.last_error).toMatch(/channel_not_found/);
    expect(failed.last_error).not.toContain(SL.botToken);
    expect((await db.query(`SELECT d.state FROM channels.deliveries d JOIN channels.inbound i ON d.source = 'inbound:' || i.id WHERE i.provider_message_id = $1`, [`C0GONE:${lost}`])).rows).toEqual([{ state: 'failed' }]);
  });

  it("replies are paced per conversation (CHANNELS_CONVERSATION_GAP_MS, here 1.5 s) and keep their order", async () => {
    const from = { id: 5550009, first_name: 'Pia' };
    const first = telegramTextUpdate({ text: 'What time do you open?', from });
    const second = telegramTextUpdate({ text: 'When do you close on Saturday?', from });
    expect((await post(conn.telegram.webhook_url, telegramDelivery(first, TG.secret))).status).toBe(200);
    expect((await post(conn.telegram.webhook_url, telegramDelivery(second, TG.secret))).status).toBe(200);
    const seen: { at: number; replyTo: number }[] = [];
    const toPia = () => tg.sent.filter((m) => m.params['chat_id'] === 5550009);
    await waitFor(
      async () => {
        for (const m of toPia().slice(seen.length)) seen.push({ at: Date.now(), replyTo: (m.params['reply_parameters'] as any).message_id });
        return seen.length;
      },
      (n) => n >= 2,
      30000,
      20,
    );
    expect(seen.map((x) => x.replyTo)).toEqual([(first as any).message.message_id, (second as any).message.message_id]);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1300);
  });

  it('hostile requests get clear 4xx answers and store nothing', async () => {
    const url = conn.telegram.webhook_url;
    const before = await inboundCount(conn.telegram.id);
    // Too large: refused before anything is read (the spec's error shape).
    const big = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG.secret }, body: `{"pad":"${'x'.repeat(600 * 1024)}"}` });
    expect(big.status).toBe(400);
    expect(await big.json()).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/too large/) });
    // Not JSON, with the right secret: 400; not a JSON content type: still checked, still refused.
    const notJson = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG.secret }, body: '{"update_id": 1, "message": ' });
    expect(notJson.status).toBe(400);
    const form = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
    expect(form.status).toBe(401);
    // A GET with the right secret is not an update.
    expect((await fetch(url, { headers: { 'x-telegram-bot-api-secret-token': TG.secret } })).status).toBeGreaterThanOrEqual(400);
    expect(await inboundCount(conn.telegram.id)).toBe(before);
    // Nothing answered 5xx, and the service is still up.
    expect((await post(url, telegramDelivery(telegramTextUpdate({ text: 'Still there?', from: { id: 5550003, first_name: 'Ivo' } }), TG.secret))).status).toBe(200);
  });

  it("a console takeover's reply goes out through the channel the conversation came from", async () => {
    const update = telegramTextUpdate({ text: 'I want to talk to a person please', from: { id: 5550002, first_name: 'Hana' } });
    expect((await post(conn.telegram.webhook_url, telegramDelivery(update, TG.secret))).status).toBe(200);
    const queue = await waitFor(async () => (await owner.get(`/api/workspaces/${ws.id}/handoffs`)).body.data as any[], (q) => q.some((h) => h.channel === 'telegram'), 30000, 200);
    const session = queue.find((h) => h.channel === 'telegram').session_id;
    const before = tg.sent.length;
    expect((await owner.post(`/api/workspaces/${ws.id}/handoffs/${session}/take`, {})).status).toBe(200);
    expect((await owner.post(`/api/workspaces/${ws.id}/handoffs/${session}/reply`, { text: 'Hello Hana, Owen here. How can I help?' })).status).toBe(201);
    await waitFor(async () => tg.sent.length, (n) => n > before + 0 && tg.sent.some((s) => s.params['text'] === 'Hello Hana, Owen here. How can I help?'), 30000, 100);
    const personal = tg.sent.find((s) => s.params['text'] === 'Hello Hana, Owen here. How can I help?')!;
    expect(personal.params['chat_id']).toBe(5550002);
    // While the person holds it the bot stays silent: the visitor's next message is stored, not answered.
    const sentBefore = tg.sent.length;
    expect((await post(conn.telegram.webhook_url, telegramDelivery(telegramTextUpdate({ text: 'Thanks! When do you open?', from: { id: 5550002, first_name: 'Hana' } }), TG.secret))).status).toBe(200);
    await waitFor(async () => (await db.query(`SELECT state FROM channels.inbound WHERE session_id = $1 ORDER BY received_at DESC LIMIT 1`, [session])).rows[0]?.state, (st) => st === 'held', 30000, 100);
    expect(tg.sent.length).toBe(sentBefore);
  });

  it("a Slack conversation taken over: the person's reply is posted in the visitor's thread", async () => {
    const ts = slackTs();
    expect((await post(conn.slack.webhook_url, slackEventDelivery(SL.signingSecret, slackMessageEvent({ channel: 'C0SUPPORT', channel_type: 'channel', user: 'U0HUMAN', text: 'Can I talk to a human?', ts })))).status).toBe(200);
    const queue = await waitFor(async () => (await owner.get(`/api/workspaces/${ws.id}/handoffs`)).body.data as any[], (q) => q.some((h) => h.channel === 'slack'), 30000, 200);
    const session = queue.find((h) => h.channel === 'slack').session_id;
    expect((await owner.post(`/api/workspaces/${ws.id}/handoffs/${session}/take`, {})).status).toBe(200);
    expect((await owner.post(`/api/workspaces/${ws.id}/handoffs/${session}/reply`, { text: 'Owen here, happy to help.' })).status).toBe(201);
    const [post1] = await waitFor(async () => sl.posts.filter((p) => p.text === 'Owen here, happy to help.'), (p) => p.length >= 1, 30000, 100);
    expect(post1).toMatchObject({ channel: 'C0SUPPORT', thread_ts: ts });
  });
});
