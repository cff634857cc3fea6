import { Client } from 'pg';
import { waitFor } from './support/apps';
import { ConsoleClient } from './support/console';
import { ConsoleSystem, startConsoleSystem } from './support/console-system';
import { request } from './support/api';
import { newWidgetSession, widgetUrl } from './support/widget';

/**
 * Issue 30: ten anonymous widget sessions asking for a person sent 30 e-mails (one per owner and
 * admin each), about 180 a minute from one address. Each owner and admin now gets at most one
 * handoff e-mail per window (CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS, 6 s here), the next one a digest
 * of what waits; the conversation.handoff webhook still fires for every handoff. The e-mails are
 * counted in the mail outbox (bookings.emails) and at the real local SMTP server.
 */
const WINDOW_SECONDS = 6;
const PASSWORD = 'correct horse battery staple';
const PEOPLE = [
  { email: 'olivia.owner@flood.example', role: 'owner' },
  { email: 'ada.admin@flood.example', role: 'admin' },
  { email: 'alan.admin@flood.example', role: 'admin' },
  { email: 'max.member@flood.example', role: 'member' },
] as const;
const MAILED = PEOPLE.filter((p) => p.role !== 'member').map((p) => p.email);
const HOOK_PATH = '/flood-hooks';

describe('handoff e-mails: a cap per person and a digest (issue 30)', () => {
  let sys: ConsoleSystem;
  let ws: { id: string };
  let botId: string;
  let db: Client;

  const outbox = async (): Promise<{ to_address: string; subject: string }[]> =>
    (await db.query(`SELECT to_address, subject FROM bookings.emails WHERE tenant_id = $1 AND kind = 'handoff' ORDER BY created_at`, [ws.id])).rows;
  const perPerson = (rows: { to_address: string }[]) => Object.fromEntries(MAILED.map((e) => [e, rows.filter((r) => r.to_address === e).length]));

  beforeAll(async () => {
    sys = await startConsoleSystem({ CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS: String(WINDOW_SECONDS) });
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    ws = await sys.admin<{ id: string }>(['workspace', 'create', '--name', 'Flood & Co', '--plan', 'scale']);
    for (const p of PEOPLE) await sys.admin(['user', 'create', '--workspace', ws.id, '--email', p.email, '--role', p.role, '--password-stdin'], `${PASSWORD}\n`);
    const { token } = await sys.admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all']);
    const bot = await waitFor(() => request('POST', '/bots', { name: 'Front desk', language: 'en' }, { token, baseUrl: sys.apiUrl }), (r) => r.status === 201, 20000);
    botId = bot.body.data.id;
    const owner = new ConsoleClient(sys.consoleUrl);
    expect((await owner.signIn(PEOPLE[0].email, PASSWORD)).status).toBe(200);
    const hook = await waitFor(() => owner.post(`/api/workspaces/${ws.id}/webhooks`, { name: 'Handoffs', url: sys.receiver.url(HOOK_PATH), events: ['conversation.handoff'] }), (r) => r.status === 201, 20000, 250);
    expect(hook.status).toBe(201);
  }, 180000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
  });

  it('ten handoffs in a burst: one e-mail each at once, then one digest listing the other nine; ten webhooks', async () => {
    const sessions = await Promise.all(Array.from({ length: 10 }, () => newWidgetSession(botId, sys.gatewayUrl)));
    const started = Date.now();
    for (const [i, sessionId] of sessions.entries()) {
      const res = await request('POST', '', { sessionId, reason: `Visitor ${i} wants a person <b>now</b>\r\nBcc: evil@example.com` }, { baseUrl: widgetUrl(botId, 'handoff', sys.gatewayUrl) });
      expect(res.status).toBe(200);
    }

    // Every handoff raises its webhook.
    await waitFor(async () => sys.receiver.on(HOOK_PATH).length, (n) => n >= 10, 30000, 200);
    expect(new Set(sys.receiver.on(HOOK_PATH).filter((h) => h.body.event === 'conversation.handoff').map((h) => h.body.data.session_id)).size).toBe(10);

    // At once: exactly one e-mail per owner and admin, none for the member.
    await waitFor(outbox, (rows) => rows.length >= MAILED.length, 20000, 200);
    if (Date.now() - started < (WINDOW_SECONDS - 1) * 1000) expect(perPerson(await outbox())).toEqual(Object.fromEntries(MAILED.map((e) => [e, 1])));

    // After the window: one digest each, naming the nine conversations that waited.
    await waitFor(outbox, (rows) => rows.length >= 2 * MAILED.length, (WINDOW_SECONDS + 30) * 1000, 250);
    await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000 + 2000));
    const rows = await outbox();
    expect(perPerson(rows)).toEqual(Object.fromEntries(MAILED.map((e) => [e, 2])));
    expect(rows.some((r) => r.to_address === PEOPLE[3].email)).toBe(false);
    for (const email of MAILED) {
      const subjects = rows.filter((r) => r.to_address === email).map((r) => r.subject);
      expect(subjects).toEqual(['A visitor asks for a person (Flood & Co)', '9 visitors ask for a person (Flood & Co)']);
    }

    // As sent over SMTP: the digest lists the waiting conversations; visitor text stays on its line and in no header.
    const digest = await waitFor(async () => sys.smtp.to(MAILED[1]!), (m) => m.length >= 2, 30000, 200);
    const body = digest[1]!.text;
    expect(body).toContain('9 conversations in the workspace "Flood & Co" asked for a person');
    expect(body).toContain(`${sys.consoleUrl}/w/${ws.id}/handoff`);
    expect(digest.every((m) => !m.headers['bcc'])).toBe(true);
    expect(body).not.toMatch(/\nBcc:/);
  }, 120000);
});
