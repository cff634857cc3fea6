import { randomUUID } from 'node:crypto';
import { connect, NatsConnection } from 'nats';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { signInPage, workspacePeople, WorkspacePeople } from './support/console';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { postSse } from './support/sse';
import { e2eState } from './support/state';

/**
 * "Why this answer" (issue 32) against the running system: a chat turn keeps the passages it was
 * given on its answer; the console's transcript gives them to owners and admins, never to members;
 * GET /v1/conversations/{sessionId} is exactly as before; the chat service refuses them to API
 * tokens and member scopes over NATS; the Conversations page shows them in Chromium (axe, a
 * screenshot for docs/console.md, 1280 pixels and narrow).
 */
const s = e2eState();
const PASSWORD = 'correct horse battery staple';
const TITLE = 'Aurora lamp guide';
const FACT = 'The Aurora lamp warranty lasts <em>five years</em> from the day of delivery.';
const QUESTION = 'How long is the Aurora lamp warranty?';
/** The members of ChatMessage (spec part 2): the public API's messages have exactly these. */
const CHAT_MESSAGE_KEYS = ['channel', 'chatbot_id', 'content', 'created_at', 'feedback', 'id', 'provider_message_id', 'role', 'session_id', 'source_urls', 'tenant_id'];

let ws: TestWorkspace;
let people: WorkspacePeople;
let documentId: string;
let sessionId: string;

beforeAll(async () => {
  ws = await newWorkspace(['--plan', 'growth']);
  people = await workspacePeople(ws.id, PASSWORD);
  const bot = (await ws.api.post('/bots', { name: 'Lamp helper', language: 'en' })).body.data.id as string;
  const text = `${FACT} Returns are free within 30 days. The lamp has three brightness levels and a warm white colour.`;
  const kb = await ws.api.post('/kb/ingest', { title: TITLE, text, chatbotId: bot });
  expect(kb.status).toBe(202);
  documentId = kb.body.data.id;
  await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === documentId)?.status, (st) => st === 'ready', 20000);
  sessionId = `why-${randomUUID()}`;
  const answer = await postSse('/chat', { message: QUESTION, sessionId, chatbotId: bot }, ws.token);
  expect(answer.status).toBe(200);
}, 120000);

const detailPath = () => `/api/workspaces/${ws.id}/conversations/${sessionId}`;

describe('Why this answer: the API', () => {
  it('the answer keeps its passages; owners and admins get them in the console, members do not', async () => {
    for (const who of [people.owner, people.admin]) {
      const res = await who.get(detailPath());
      expect(res.status).toBe(200);
      const [question, reply] = res.body.data.messages;
      expect(question.role).toBe('user');
      expect('passages' in question).toBe(false);
      expect(reply.role).toBe('assistant');
      expect(reply.passages.length).toBeGreaterThanOrEqual(1);
      expect(reply.passages[0]).toEqual({ document_id: documentId, title: TITLE, chunk: expect.any(String), score: expect.any(Number), text: expect.stringContaining(FACT), source_url: null });
      expect(reply.passages[0].text.length).toBeLessThanOrEqual(1000);
    }
    const member = await people.member.get(detailPath());
    expect(member.status).toBe(200);
    expect(member.body.data.messages.map((m: any) => Object.keys(m).sort())).toEqual([CHAT_MESSAGE_KEYS, CHAT_MESSAGE_KEYS]);
    expect(member.text).not.toContain('passages');
  });

  it('GET /v1/conversations/{sessionId} is unchanged: exactly the ChatMessage members, no passages', async () => {
    const res = await ws.api.get(`/conversations/${sessionId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: any) => Object.keys(m).sort())).toEqual([CHAT_MESSAGE_KEYS, CHAT_MESSAGE_KEYS]);
    expect(res.text).not.toContain('passages');
  });

  it('over NATS, chat.conversation.transcript answers a person with the owner/admin scopes only', async () => {
    const nc: NatsConnection = await connect({ servers: s.natsUrl });
    try {
      const ctx = (over: Record<string, unknown>) => ({
        tenantId: ws.id,
        tokenId: null,
        scopes: ['bots:read', 'bots:write', 'kb:read', 'kb:write', 'conversations:read'],
        botIds: null,
        requestId: `e2e-${randomUUID()}`,
        entitlements: { plan: 'growth', botSlots: 3, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5000, pagesPerBot: 50, widgetMessagesPerBotPerMonth: 2000, webhooks: false },
        ...over,
      });
      const rpc = async (c: unknown): Promise<{ response?: any; err?: any }> => {
        const subject = 'chat.conversation.transcript';
        const msg = await nc.request(subject, Buffer.from(JSON.stringify({ pattern: subject, id: randomUUID(), data: { ctx: c, data: { sessionId } } })), { timeout: 10_000 });
        return JSON.parse(Buffer.from(msg.data).toString('utf8'));
      };
      const ok = await rpc(ctx({}));
      expect(ok.response[1].passages[0].document_id).toBe(documentId);
      for (const refused of [ctx({ tokenId: ws.tokenId }), ctx({ scopes: ['bots:read', 'kb:read', 'conversations:read'] })]) {
        const r = await rpc(refused);
        expect([r.response, JSON.stringify(r.err)]).toEqual([undefined, expect.stringContaining('insufficient_scope')]);
      }
    } finally {
      await nc.drain();
    }
  });
});

describe('Why this answer: the Conversations page in a browser', () => {
  const br = useBrowser();

  const open = async (email: string) => {
    const page = br.page();
    await signInPage(page, email, PASSWORD);
    await page.goto(`${s.consoleUrl}/w/${ws.id}/conversations?session=${encodeURIComponent(sessionId)}`);
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText(QUESTION).waitFor();
    return { page, transcript };
  };

  it('an owner opens "Why this answer" with the keyboard and reads the passage as text; axe clean at 1280 pixels and narrow', async () => {
    const { page, transcript } = await open(people.emails.owner);
    const summary = transcript.getByText('Why this answer', { exact: true });
    await summary.focus();
    await page.keyboard.press('Enter');
    const passages = transcript.getByRole('list', { name: 'Passages the bot was given' });
    await passages.waitFor();
    // The passage's markup is shown as the characters it is, never as HTML.
    await passages.getByText(FACT, { exact: false }).waitFor();
    expect(await passages.locator('em').count()).toBe(0);
    await passages.getByText(TITLE, { exact: true }).waitFor();
    await passages.getByText(/^Score \d+\.\d{2}$/).first().waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'Conversations with "Why this answer" open');
    await screenshot(page, 'why-answer');

    // The console's narrow width (768 px, as console-tables checks every page): no page scrolls
    // sideways; on a phone (390 px) the open disclosure still fits inside its message.
    await page.setViewportSize({ width: 768, height: 900 });
    await passages.getByText(FACT, { exact: false }).waitFor();
    await page.waitForTimeout(100);
    expect(await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')).toBe(false);
    await expectNoSeriousAxeViolations(page, 'Conversations with "Why this answer" open, 768 pixels wide');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(100);
    const fits = await transcript.locator('.transcript__why').first().evaluate((el) => {
      const message = el.closest('.transcript__message')!.getBoundingClientRect();
      const box = el.getBoundingClientRect();
      return el.scrollWidth <= el.clientWidth + 1 && box.left >= message.left && box.right <= message.right;
    });
    expect(fits).toBe(true);

    // Closed again with the keyboard.
    await summary.focus();
    await page.keyboard.press('Enter');
    await passages.waitFor({ state: 'hidden' });
    expect(br.cspViolations()).toEqual([]);
  });

  it('a member sees the transcript without "Why this answer"', async () => {
    const { transcript } = await open(people.emails.member);
    await transcript.getByText('Bot', { exact: true }).waitFor();
    expect(await transcript.getByText('Why this answer').count()).toBe(0);
  });
});
