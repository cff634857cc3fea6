import { Client } from 'pg';
import type { Locator, Page } from 'playwright-core';
import { messagesFor } from '../apps/widget/src/i18n';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser, widgetScreenshot } from './support/browser';
import { ConsoleClient } from './support/console';
import { ConsoleSystem, startConsoleSystem } from './support/console-system';
import { freePort } from './support/infra';
import { ModelStandIn, questionOf, startModelStandIn } from './support/model-stand-in';
import { startWidgetSite, WidgetSite } from './support/widget-site';

/**
 * Handoff (issue 19) against the real system in Debian's Chromium: a visitor on a customer's site
 * asks for a person in the widget → owners and admins get an e-mail (the mail outbox, a real local
 * SMTP server) and the conversation.handoff webhook still fires → the console's Handoff page lists
 * it → an admin takes it over and replies → the visitor's open widget shows the reply without a
 * reload, and the bot stays silent on the visitor's next message (no model call) → hand back → the
 * bot answers again. The model is the OpenAI-wire stand-in.
 */
const en = messagesFor('en');
const BOT_ANSWER = 'We are open from nine to five on weekdays.';
const PASSWORD = 'correct horse battery staple';
const OWNER = { email: 'olivia.owner@acme.example', name: 'Olivia Owner' };
const ADMIN = { email: 'ada.admin@acme.example', name: 'Ada Admin' };
const MEMBER = { email: 'max.member@acme.example', name: 'Max Member' };
const HOOK_PATH = '/handoff-hooks';

describe('console: Handoff (issue 19)', () => {
  const b = useBrowser();
  let sys: ConsoleSystem;
  let model: ModelStandIn;
  let site: WidgetSite;
  let ws: { id: string; name: string };
  let botId: string;
  let token: string;

  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${sys.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    model = await startModelStandIn(() => ({ pieces: [BOT_ANSWER] }));
    const sitePort = await freePort();
    sys = await startConsoleSystem(
      {
        CHAT_MODEL_PROVIDER: 'openai',
        CHAT_MODEL_BASE_URL: model.baseUrl,
        CHAT_MODEL_NAME: 'test-model',
        CHAT_MODEL_API_KEY: 'sk-test-key',
        CHAT_MODEL_MAX_RETRIES: '0',
        WIDGET_REPLIES_WAIT_MS: '8000',
      },
      { allowPorts: [sitePort] },
    );
    site = await startWidgetSite({ gatewayUrl: sys.gatewayUrl, port: sitePort });
    ws = await sys.admin<{ id: string; name: string }>(['workspace', 'create', '--name', 'Acme Support', '--plan', 'scale']);
    for (const [who, role] of [
      [OWNER, 'owner'],
      [ADMIN, 'admin'],
      [MEMBER, 'member'],
    ] as const) {
      await sys.admin(['user', 'create', '--workspace', ws.id, '--email', who.email, '--role', role, '--password-stdin', '--name', who.name], `${PASSWORD}\n`);
    }
    token = (await sys.admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all'])).token;
    const bot = await waitFor(() => api('POST', '/bots', { name: 'Front desk', language: 'en' }), (r) => r.status === 201, 20000);
    botId = ((await bot.json()) as any).data.id;
    const owner = new ConsoleClient(sys.consoleUrl);
    expect((await owner.signIn(OWNER.email, PASSWORD)).status).toBe(200);
    const hook = await waitFor(() => owner.post(`/api/workspaces/${ws.id}/webhooks`, { name: 'Handoffs', url: sys.receiver.url(HOOK_PATH), events: ['conversation.handoff'] }), (r) => r.status === 201, 20000, 250);
    expect(hook.status).toBe(201);
    await sys.admin(['widget', 'set', '--bot', botId, '--origins', site.origin]);
  }, 180000);

  afterAll(async () => {
    await sys?.stop();
    await site?.close();
    await model?.close();
  });

  const panel = (page: Page) => page.getByRole('dialog', { name: 'Front desk' });
  const messageBox = (dialog: Locator) => dialog.getByRole('textbox', { name: en.message_label }).filter({ visible: true }).first();
  const log = (dialog: Locator) => dialog.getByRole('log');
  const modelCalls = () => model.requests.length;
  /** The bot's widget messages counted this month (its widget budget). */
  async function widgetBudgetUsed(): Promise<number> {
    const db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    try {
      return Number((await db.query(`SELECT coalesce(sum(messages), 0)::int AS n FROM chat.widget_usage WHERE tenant_id = $1`, [ws.id])).rows[0].n);
    } finally {
      await db.end();
    }
  }

  async function visitorSays(dialog: Locator, text: string): Promise<void> {
    await messageBox(dialog).fill(text);
    await dialog.getByRole('button', { name: en.send, exact: true }).click();
  }

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${sys.consoleUrl}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'API tokens' }).waitFor({ timeout: 15000 });
  }

  it('a visitor asks for a person → e-mail and webhook → an admin takes over and replies live → the bot is silent → hand back → the bot answers again', async () => {
    // The visitor chats with the bot, then asks for a person.
    const visitor = b.page();
    await visitor.goto(site.pageUrl({ bot: botId }));
    await visitor.getByRole('button', { name: en.launcher_open, exact: true }).click();
    const dialog = panel(visitor);
    await dialog.waitFor({ state: 'visible' });
    await visitorSays(dialog, 'When are you open?');
    await log(dialog).getByText(BOT_ANSWER).waitFor({ timeout: 20000 });
    expect(modelCalls()).toBe(1);
    await dialog.getByRole('button', { name: en.handoff, exact: true }).click();
    await dialog.getByText(en.handoff_done).waitFor();
    const sessionId = JSON.parse((await visitor.evaluate(`localStorage.getItem(${JSON.stringify(`sa-widget:${botId}`)})`)) as string).sessionId as string;

    // Owners and admins are e-mailed (members are not); the webhook keeps working.
    for (const who of [OWNER, ADMIN]) {
      const [mail] = await waitFor(async () => sys.smtp.to(who.email), (m) => m.length >= 1, 30000, 200);
      expect(mail!.headers['subject']).toBe('A visitor asks for a person (Acme Support)');
      expect(mail!.text).toContain(`${sys.consoleUrl}/w/${ws.id}/handoff`);
    }
    expect(sys.smtp.to(MEMBER.email)).toEqual([]);
    const hook = await waitFor(async () => sys.receiver.on(HOOK_PATH).find((r) => r.body?.data?.session_id === sessionId), (r) => !!r, 30000, 200);
    expect(hook!.body.data).toEqual(expect.objectContaining({ chatbot_id: botId, channel: 'widget', kind: 'explicit' }));

    // The API: a member reads the queue but may not take over; another workspace's person sees nothing.
    const member = new ConsoleClient(sys.consoleUrl);
    expect((await member.signIn(MEMBER.email, PASSWORD)).status).toBe(200);
    const queue = await member.get(`/api/workspaces/${ws.id}/handoffs`);
    expect(queue.status).toBe(200);
    expect(queue.body.data).toEqual([expect.objectContaining({ session_id: sessionId, chatbot_id: botId, state: 'requested', kind: 'explicit', taken_by_label: null })]);
    const forbidden = await member.post(`/api/workspaces/${ws.id}/handoffs/${encodeURIComponent(sessionId)}/take`);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'forbidden_role']);
    const unknown = await member.get(`/api/workspaces/${ws.id}/handoffs/no-such-session`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);

    // The admin opens the Handoff page, the conversation, and takes it over.
    const adminContext = await b.newContext();
    const desk = await adminContext.newPage();
    await signIn(desk, ADMIN.email);
    await desk.getByRole('link', { name: 'Handoff' }).click();
    await desk.waitForURL(/\/handoff$/);
    const row = desk.getByRole('row').filter({ hasText: 'Waiting for a person' });
    await row.waitFor({ timeout: 15000 });
    await row.getByRole('button', { name: /Open conversation 1/ }).click();
    const transcript = desk.getByRole('list', { name: 'Transcript' });
    await transcript.getByText('When are you open?').waitFor();
    await transcript.getByText(BOT_ANSWER).waitFor();
    await desk.getByRole('button', { name: 'Take over' }).click();
    await desk.getByText(`Taken over by ${ADMIN.name}`).first().waitFor();

    // Someone else cannot take it while the admin holds it (409), nor reply.
    const owner = new ConsoleClient(sys.consoleUrl);
    expect((await owner.signIn(OWNER.email, PASSWORD)).status).toBe(200);
    const clash = await owner.post(`/api/workspaces/${ws.id}/handoffs/${encodeURIComponent(sessionId)}/take`);
    expect([clash.status, clash.body.code]).toEqual([409, 'conflict']);
    expect(clash.body.message).toContain(ADMIN.name);
    const notTheirs = await owner.post(`/api/workspaces/${ws.id}/handoffs/${encodeURIComponent(sessionId)}/reply`, { text: 'Hello' });
    expect(notTheirs.status).toBe(409);
    const blank = await owner.post(`/api/workspaces/${ws.id}/handoffs/${encodeURIComponent(sessionId)}/reply`, { text: '   ' });
    expect(blank.status).toBe(400);

    // The admin replies; the visitor's open widget shows it without a reload, with who wrote it.
    const reply = "Hi, this is Ada. Which branch do you mean?";
    await desk.getByRole('textbox', { name: /Your reply/ }).fill(reply);
    await desk.getByRole('button', { name: 'Reply' }).click();
    await transcript.getByText(reply).waitFor();
    await log(dialog).getByText(reply).waitFor({ timeout: 20000 });
    await log(dialog).getByText(ADMIN.name, { exact: true }).first().waitFor();
    await dialog.getByText(en.handoff_taken.replace('{name}', ADMIN.name)).waitFor();
    await expectNoSeriousAxeViolations(visitor, 'the widget with a person answering');
    await widgetScreenshot(visitor, 'widget-handoff');

    // A reloaded page listens again: the admin's next reply arrives too.
    await visitor.reload();
    await visitor.getByRole('button', { name: en.launcher_open, exact: true }).click();
    await dialog.waitFor({ state: 'visible' });
    await log(dialog).getByText(reply).waitFor();
    const second = 'Still there? I can check the branch for you.';
    await desk.getByRole('textbox', { name: /Your reply/ }).fill(second);
    await desk.getByRole('button', { name: 'Reply' }).click();
    await log(dialog).getByText(second).waitFor({ timeout: 20000 });

    // The visitor writes again: stored, shown to the admin, and the bot stays silent (no model call, nothing counted).
    const budgetBefore = await widgetBudgetUsed();
    expect(budgetBefore).toBe(1);
    await visitorSays(dialog, 'The one on Main Street, please.');
    await transcript.getByText('The one on Main Street, please.').waitFor({ timeout: 15000 });
    await visitor.waitForTimeout(500);
    expect(modelCalls()).toBe(1);
    expect(await widgetBudgetUsed()).toBe(budgetBefore);
    expect(await log(dialog).getByText(BOT_ANSWER).count()).toBe(1);
    // The REST transcript has the person's reply as an assistant message of the session.
    const messages = (await (await api('GET', `/conversations/${encodeURIComponent(sessionId)}`)).json()) as any;
    expect(messages.data.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'When are you open?'],
      ['assistant', BOT_ANSWER],
      ['assistant', reply],
      ['assistant', second],
      ['user', 'The one on Main Street, please.'],
    ]);

    await desk.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(desk, 'the Handoff page');
    await screenshot(desk, 'handoff');

    // Hand back: the widget says so, and the bot answers the next message again.
    await desk.getByRole('button', { name: 'Hand back' }).click();
    await desk.getByText('Handed back to the bot').first().waitFor();
    await dialog.getByText(en.handoff_released).waitFor({ timeout: 20000 });
    await visitorSays(dialog, 'And on Saturdays?');
    await waitFor(async () => log(dialog).getByText(BOT_ANSWER).count(), (n) => n === 2, 20000, 100);
    expect(modelCalls()).toBe(2);
    expect(await widgetBudgetUsed()).toBe(2);
    expect(questionOf(model.requests[1]!.body)).toContain('And on Saturdays?');
    const after = await member.get(`/api/workspaces/${ws.id}/handoffs`);
    expect(after.body.data).toEqual([]);
    const all = await member.get(`/api/workspaces/${ws.id}/handoffs?include=all`);
    expect(all.body.data).toEqual([expect.objectContaining({ session_id: sessionId, state: 'released' })]);
    await adminContext.close();
  });
});
