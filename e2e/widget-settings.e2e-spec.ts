import { createHmac } from 'node:crypto';
import { Client } from 'pg';
import { admin, runAdmin } from './support/admin';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { jsonOf, rawHttp } from './support/raw-http';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { startTestSite } from './support/test-site';
import { newWidgetSession } from './support/widget';

/**
 * Issue 18, the widget API's side: per-bot allowed origins (CORS and 403 origin_not_allowed),
 * GET …/config, identify with userHash, the chat's last frame naming its message and sources, and
 * settings changes that take effect at once (bots.widget.changed evicts the gateway's copy).
 * Settings are changed with the admin CLI, as an operator would.
 */
describe('widget settings on the widget API (issue 18)', () => {
  const s = e2eState();
  const url = (botId: string, path: string) => `${s.gatewayUrl}/widget/v1/bots/${botId}/${path}`;
  const SHOP = 'https://shop.example.com';
  let ws: TestWorkspace;
  let bot: string;
  let site: { close: () => Promise<void> } | undefined;
  let db: Client;

  const widgetSet = (...args: string[]) => admin<any>(['widget', 'set', '--bot', bot, ...args]);
  const metric = async (reason: string): Promise<number> => {
    const text = await (await fetch(`${s.opsUrls['gateway']}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('sa_widget_refusals_total{') && l.includes(`reason="${reason}"`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  beforeAll(async () => {
    site = await startTestSite(s.sitePort);
    ws = await newWorkspace(['--plan', 'scale']);
    bot = (await ws.api.post('/bots', { name: 'Shop helper' })).body.data.id;
    const kb = await ws.api.post('/kb/ingest', { title: 'Pricing', url: `http://127.0.0.1:${s.sitePort}/pricing`, chatbotId: bot });
    expect(kb.status).toBe(202);
    await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === kb.body.data.id)?.status, (st) => st === 'ready', 30000);
    db = new Client({ connectionString: s.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await site?.close();
    await db?.end();
  });

  it('GET …/config: defaults, then what the CLI set, at once (no-cache); unknown bot 404', async () => {
    const first = await request('GET', '', undefined, { baseUrl: url(bot, 'config') });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.body).toEqual({ data: { bot_id: bot, name: 'Shop helper', language: 'en', theme: { color: '#1a5fcc', position: 'right', greeting: null, launcher_text: null }, identity: false, starter_questions: [] } });

    const shown = await admin<any>(['widget', 'show', '--bot', bot]);
    expect(shown).toEqual({ chatbot_id: bot, allowed_origins: [], theme: first.body.data.theme, identity_secret: { set: false, created_at: null }, updated_at: null });

    const set = await widgetSet('--color', '#0B6E4F', '--position', 'left', '--greeting', 'Hello from the shop!', '--launcher-text', 'Ask us');
    expect(set.theme).toEqual({ color: '#0b6e4f', position: 'left', greeting: 'Hello from the shop!', launcher_text: 'Ask us' });
    // The gateway cached the bot 30 s; bots.widget.changed dropped it, so the change shows now.
    const after = await request('GET', '', undefined, { baseUrl: url(bot, 'config') });
    expect(after.body.data.theme).toEqual(set.theme);
    await widgetSet('--no-greeting', '--no-launcher-text', '--position', 'right', '--color', '#1a5fcc');
    expect((await request('GET', '', undefined, { baseUrl: url(bot, 'config') })).body.data.theme).toEqual({ color: '#1a5fcc', position: 'right', greeting: null, launcher_text: null });

    expect((await request('GET', '', undefined, { baseUrl: url('00000000-0000-4000-8000-000000000000', 'config') })).status).toBe(404);
    const bad = await runAdmin(['widget', 'set', '--bot', bot, '--origins', 'https://shop.example.com/path']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error/i);

    const audit = await db.query(`SELECT actor_kind, action, details FROM people.audit_log WHERE target_id = $1 ORDER BY id`, [bot]);
    expect(audit.rows.map((r) => `${r.actor_kind}:${r.action}`)).toEqual(['cli:widget.updated', 'cli:widget.updated']);
  });

  it('allowed origins: preflight granted / refused, 403 origin_not_allowed before the body is read, no Origin passes, empty list grants all', async () => {
    const pre = (origin: string) => rawHttp(url(bot, 'chat'), { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    // No list: every origin.
    expect((await pre('https://anywhere.example')).headers['access-control-allow-origin']).toBe('https://anywhere.example');

    const before = await metric('origin_not_allowed');
    const set = await widgetSet('--origins', `${SHOP.toUpperCase()},${SHOP}:443,http://localhost:8080`);
    expect(set.allowed_origins).toEqual([SHOP, 'http://localhost:8080']);

    const granted = await pre(SHOP);
    expect(granted.status).toBe(204);
    expect(granted.headers['access-control-allow-origin']).toBe(SHOP);
    expect(granted.headers['access-control-allow-methods']).toBe('GET, POST');
    expect(granted.headers['access-control-allow-headers']).toBe('Content-Type');
    expect(granted.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(granted.headers['vary'])).toMatch(/origin/i);
    const refused = await pre('https://evil.example');
    expect(refused.status).toBe(204);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();

    // Another origin: 403 even with a body that is not JSON at all (refused before it is read).
    const evil = await rawHttp(url(bot, 'chat'), { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{not json' });
    expect(evil.status).toBe(403);
    expect(jsonOf(evil)).toMatchObject({ code: 'origin_not_allowed' });
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const evilConfig = await request('GET', '', undefined, { baseUrl: url(bot, 'config'), headers: { origin: 'https://evil.example' } });
    expect(evilConfig.status).toBe(403);
    const sessions = await request('POST', '', {}, { baseUrl: url(bot, 'sessions'), headers: { origin: 'http://localhost:8081' } });
    expect(sessions.status).toBe(403);
    expect(await metric('origin_not_allowed')).toBeGreaterThanOrEqual(before + 3);

    // The shop itself: granted, with the exposed headers.
    const ok = await request('POST', '', {}, { baseUrl: url(bot, 'sessions'), headers: { origin: SHOP } });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect((ok.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain('x-ratelimit-remaining');
    // No Origin (a server, curl): not checked.
    expect((await request('GET', '', undefined, { baseUrl: url(bot, 'config') })).status).toBe(200);

    // Emptied again: every origin at once.
    await widgetSet('--no-origins');
    expect((await request('GET', '', undefined, { baseUrl: url(bot, 'config'), headers: { origin: 'https://evil.example' } })).status).toBe(200);
  });

  it('identify: a valid userHash links the visitor; a wrong one, or a bot without a secret, is 403 invalid_user_hash and stores nothing', async () => {
    const noSecretSession = await newWidgetSession(bot);
    const noSecret = await request('POST', '', { sessionId: noSecretSession, externalUserId: 'user-7', email: 'seven@example.com', userHash: 'a'.repeat(64) }, { baseUrl: url(bot, 'identify') });
    expect(noSecret.status).toBe(403);
    expect(noSecret.body).toMatchObject({ code: 'invalid_user_hash' });
    expect((await request('POST', '', { sessionId: noSecretSession, externalUserId: 'user-7' }, { baseUrl: url(bot, 'identify') })).status).toBe(400);

    const made = await admin<{ secret: string; created_at: string }>(['widget', 'rotate-secret', '--bot', bot]);
    expect(made.secret).toMatch(/^wsk_[A-Za-z0-9_-]{43}$/);
    expect((await request('GET', '', undefined, { baseUrl: url(bot, 'config') })).body.data.identity).toBe(true);
    expect((await admin<any>(['widget', 'show', '--bot', bot])).identity_secret).toEqual({ set: true, created_at: made.created_at });
    const audit = await db.query(`SELECT details FROM people.audit_log WHERE target_id = $1 AND action = 'widget.secret_rotated'`, [bot]);
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows)).not.toContain(made.secret.slice(4));

    const wrongSession = await newWidgetSession(bot);
    const wrong = await request('POST', '', { sessionId: wrongSession, externalUserId: 'user-8', email: 'eight@example.com', userHash: createHmac('sha256', made.secret).update('user-9').digest('hex') }, { baseUrl: url(bot, 'identify') });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ code: 'invalid_user_hash' });

    const goodSession = await newWidgetSession(bot);
    const userHash = createHmac('sha256', made.secret).update('user-8').digest('hex').toUpperCase();
    const good = await request('POST', '', { sessionId: goodSession, externalUserId: 'user-8', email: 'eight@example.com', userHash }, { baseUrl: url(bot, 'identify') });
    expect(good.status).toBe(200);
    expect(good.body.data).toEqual({ session_id: goodSession, identified: true });
    const lead = await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === goodSession), (l) => !!l);
    expect(lead).toMatchObject({ external_user_id: 'user-8', email: 'eight@example.com' });
    const leads = (await ws.api.get('/leads')).body.data;
    expect(leads.find((l: any) => l.session_id === noSecretSession || l.session_id === wrongSession)).toBeUndefined();
    expect(leads.filter((l: any) => l.external_user_id === 'user-7' || l.email === 'seven@example.com')).toEqual([]);
  });

  it("the widget chat's last frame carries message_id and source_urls; /v1/chat's does not", async () => {
    const sessionId = await newWidgetSession(bot);
    const res = await postSse('', { message: 'How much does the premium heater cost?', sessionId }, 'unused', { baseUrl: url(bot, 'chat') });
    expect(res.status).toBe(200);
    expect(res.finishReason).toBe('stop');
    const last = res.frames[res.frames.length - 1];
    const [, assistant] = (await ws.api.get(`/conversations/${sessionId}`)).body.data;
    expect(last).toEqual({
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }],
      message_id: assistant.id,
      source_urls: [`http://127.0.0.1:${s.sitePort}/pricing`],
    });
    expect(res.frames.slice(0, -1).every((f) => f.message_id === undefined)).toBe(true);
    // The message id is the one feedback takes.
    expect((await request('POST', '', { sessionId, messageId: last.message_id, feedback: 'positive' }, { baseUrl: url(bot, 'feedback') })).status).toBe(200);

    const rest = await postSse('/chat', { message: 'How much does the premium heater cost?', chatbotId: bot }, ws.token);
    expect(rest.frames[rest.frames.length - 1]).toEqual({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }] });
  });
});
