import type { Page } from 'playwright-core';
import { WhatsAppStandIn, signedWhatsAppNotification, startWhatsAppStandIn, whatsappTextNotification } from '@sa/testing';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsoleClient } from './support/console';
import { ConsoleSystem, startConsoleSystem } from './support/console-system';

/**
 * Handoff over a provider channel (issue 35, "The Handoff page works for a WhatsApp conversation")
 * in Debian's Chromium: a WhatsApp visitor asks for a person through a signed webhook delivery →
 * the owner's Handoff page lists the conversation with its channel → the owner takes it over and
 * replies in the page → the reply leaves through the WhatsApp stand-in's send API (the Cloud API's
 * wire format), addressed to the visitor's number, and shows in the page's transcript. The bot
 * answers with the offline default (hashing embedder + extractive answers).
 */
const PASSWORD = 'correct horse battery staple';
const OWNER = { email: 'omar.owner@handoff-wa.example', name: 'Omar Owner' };
const WA = { phoneNumberId: '106540352242923', token: 'EAAG-e2e-handoff-whatsapp-token', appSecret: 'wa-app-secret-handoff-41c7', verifyToken: 'wa-verify-handoff-8e2' };
const VISITOR = { number: '919811122233', name: 'Ravi' };
const ASK = 'I want to talk to a person please';
const REPLY = 'Hello Ravi, this is Omar from the shop. How can I help you today?';

describe('console: Handoff of a WhatsApp conversation (issue 35)', () => {
  const b = useBrowser();
  let sys: ConsoleSystem;
  let wa: WhatsAppStandIn;
  let ws: { id: string };
  let owner: ConsoleClient;
  let webhookUrl: string;

  beforeAll(async () => {
    wa = await startWhatsAppStandIn({ phoneNumberId: WA.phoneNumberId, accessToken: WA.token });
    sys = await startConsoleSystem(
      { CHANNELS_WHATSAPP_API_BASE: wa.baseUrl, CHANNELS_POLL_MS: '200', CHANNELS_RETRY_BASE_MS: '200' },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'console', 'channels'], allowPorts: [Number(new URL(wa.baseUrl).port)] },
    );
    ws = await sys.admin<{ id: string }>(['workspace', 'create', '--name', 'Acme WhatsApp Desk', '--plan', 'scale']);
    await sys.admin(['user', 'create', '--workspace', ws.id, '--email', OWNER.email, '--role', 'owner', '--password-stdin', '--name', OWNER.name], `${PASSWORD}\n`);
    owner = new ConsoleClient(sys.consoleUrl);
    expect((await owner.signIn(OWNER.email, PASSWORD)).status).toBe(200);
    const bot = await waitFor(() => owner.post(`/api/workspaces/${ws.id}/bots`, { name: 'Shop desk', language: 'en' }), (r) => r.status === 201, 20000, 250);
    const connection = await owner.post(`/api/workspaces/${ws.id}/bots/${bot.body.data.id}/channels`, {
      kind: 'whatsapp',
      name: 'Shop on WhatsApp',
      settings: { phone_number_id: WA.phoneNumberId },
      secrets: { access_token: WA.token, app_secret: WA.appSecret, verify_token: WA.verifyToken },
    });
    expect(connection.status).toBe(201);
    webhookUrl = connection.body.data.webhook_url;
    expect(webhookUrl).toBe(`${sys.gatewayUrl}/channels/v1/whatsapp/${connection.body.data.id}`);
  }, 240000);

  afterAll(async () => {
    await sys?.stop();
    await wa?.close();
  });

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${sys.consoleUrl}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'API tokens' }).waitFor({ timeout: 15000 });
  }

  it('a WhatsApp visitor asks for a person → the Handoff page shows it as WhatsApp → the owner takes over and replies → the reply goes out on WhatsApp to the visitor', async () => {
    // The visitor writes on WhatsApp; Meta delivers it signed with the app secret.
    const note = whatsappTextNotification(WA.phoneNumberId, { from: VISITOR.number, name: VISITOR.name, text: ASK });
    const delivered = await fetch(webhookUrl, { method: 'POST', ...signedWhatsAppNotification(WA.appSecret, note) });
    expect(delivered.status).toBe(200);
    const queue = await waitFor(async () => (await owner.get(`/api/workspaces/${ws.id}/handoffs`)).body.data as { channel: string; question: string | null }[], (q) => q.length === 1, 30000, 200);
    expect(queue[0]).toMatchObject({ channel: 'whatsapp', question: ASK, state: 'requested' });

    // The owner opens the Handoff page: the queue names the channel, and so does the conversation.
    const desk = b.page();
    await signIn(desk, OWNER.email);
    await desk.getByRole('link', { name: 'Handoff' }).click();
    await desk.waitForURL(/\/handoff$/);
    const row = desk.getByRole('row').filter({ hasText: 'Waiting for a person' });
    await row.waitFor({ timeout: 15000 });
    await row.getByText('WhatsApp', { exact: true }).waitFor();
    await row.getByText(ASK).waitFor();
    await row.getByRole('button', { name: 'Open conversation 1 (WhatsApp)' }).click();
    const transcript = desk.getByRole('list', { name: 'Transcript' });
    await transcript.getByText(ASK).waitFor();
    await desk.getByRole('status').filter({ hasText: 'on WhatsApp' }).waitFor();

    await desk.getByRole('button', { name: 'Take over' }).click();
    await desk.getByText(`Taken over by ${OWNER.name}`).first().waitFor();
    const replyBox = desk.getByRole('textbox', { name: /Your reply/ });
    await desk.getByText('Sent to the visitor on WhatsApp.').waitFor();

    // The reply: through the WhatsApp send API, exactly that text, to the visitor's number; and in the transcript.
    const sentBefore = wa.sent.length;
    await replyBox.fill(REPLY);
    await desk.getByRole('button', { name: 'Reply' }).click();
    await transcript.getByText(REPLY).waitFor({ timeout: 15000 });
    await waitFor(async () => wa.sent.filter((s) => s.text === REPLY).length, (n) => n >= 1, 30000, 100);
    await desk.waitForTimeout(1500); // room for a duplicate send to show up
    const personal = wa.sent.slice(sentBefore).filter((s) => s.text === REPLY);
    expect(personal).toHaveLength(1);
    expect(personal[0]).toMatchObject({ to: VISITOR.number, text: REPLY });
    const call = wa.requests.find((r) => r.method === 'POST' && (r.body as { text?: { body?: string } }).text?.body === REPLY)!;
    expect(call.path).toMatch(new RegExp(`/${WA.phoneNumberId}/messages$`));
    expect(call.headers['authorization']).toBe(`Bearer ${WA.token}`);
    expect(await replyBox.inputValue()).toBe('');

    await desk.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(desk, 'the Handoff page with a WhatsApp conversation');
    await screenshot(desk, 'handoff-whatsapp');
  });
});
