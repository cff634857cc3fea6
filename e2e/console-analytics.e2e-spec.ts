import type { Page } from 'playwright-core';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsolePeople, signInPage, workspaceWithPeople } from './support/console-people';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { newWidgetSession, widgetUrl } from './support/widget';

/**
 * The console's Analytics page and API (issue 19) against the running system: the figures are
 * GET /v1/analytics's; top and unanswered questions come from the chats sent through the real
 * gateway (extractive responder, hashing embedder); "Add an answer" stores a `qa` document
 * (knowledge.document.add-qa) and the next chat answers with it, after which the question leaves
 * the unanswered list. Bad input is 400, another workspace's bot 404, a member may not add answers.
 * Issue 35: conversations and visitor messages split by channel (API chats, a widget chat), in the
 * API and in the page's "By channel" table.
 */
const s = e2eState();
const MARS = 'Do you deliver parcels to Mars?';
const MARS_ANSWER = 'Yes: parcels to Mars leave every Tuesday by rocket, and delivery takes nine months.';
const HOURS = 'What are your opening hours?';

/** A visitor's chat through the bot's widget (channel `widget`), in a session the server mints. */
async function widgetChat(bot: string, message: string): Promise<void> {
  const res = await postSse('', { message, sessionId: await newWidgetSession(bot) }, 'unused', { baseUrl: widgetUrl(bot, 'chat') });
  expect(res.status).toBe(200);
  expect(res.finishReason).toBe('stop');
}

async function chat(p: ConsolePeople, bot: string, message: string): Promise<string> {
  const res = await postSse('/chat', { message, chatbotId: bot }, p.ws.token);
  expect(res.status).toBe(200);
  expect(res.finishReason).toBe('stop');
  return res.text;
}

/** A named workspace with a bot that has no knowledge yet, and a few chats: every reply unanswered. */
async function withChats(name?: string): Promise<{ p: ConsolePeople; bot: string }> {
  const p = await workspaceWithPeople('scale', name);
  const bot = (await p.ws.api.post('/bots', { name: 'Front desk', language: 'en' })).body.data.id as string;
  for (const q of [MARS, 'Do you deliver parcels to mars', HOURS]) await chat(p, bot, q);
  return { p, bot };
}

describe('console: the Analytics API (issue 19)', () => {
  let a: { p: ConsolePeople; bot: string };
  let b: { p: ConsolePeople; bot: string };
  const route = (p: ConsolePeople, suffix = '') => `/api/workspaces/${p.ws.id}/analytics${suffix}`;
  // "Add an answer" posts to the Knowledge page's route for a Q&A pair.
  const qaRoute = (p: ConsolePeople) => `/api/workspaces/${p.ws.id}/knowledge/qa`;

  beforeAll(async () => {
    [a, b] = [await withChats(), await withChats()];
  });

  it('the summary is GET /v1/analytics’s, for all bots or one; the questions group wordings and list the unanswered ones', async () => {
    const summary = await a.p.member.get(route(a.p));
    expect(summary.status).toBe(200);
    expect(summary.body.data).toEqual((await a.p.ws.api.get('/analytics')).body.data);
    expect(summary.body.data.unanswered).toEqual({ count: 3, total: 3, rate: 100 });
    expect((await a.p.member.get(route(a.p, `?bot=${a.bot}`))).body.data).toEqual((await a.p.ws.api.get(`/analytics?chatbotId=${a.bot}`)).body.data);

    const questions = await a.p.member.get(route(a.p, '/questions?days=7'));
    expect(questions.status).toBe(200);
    expect(questions.body.data).toEqual({
      days: 7,
      top: [
        { question: 'Do you deliver parcels to mars', times: 2, last_asked_at: expect.any(String) },
        { question: HOURS, times: 1, last_asked_at: expect.any(String) },
      ],
      unanswered: [
        { question: 'Do you deliver parcels to mars', times: 2, last_asked_at: expect.any(String) },
        { question: HOURS, times: 1, last_asked_at: expect.any(String) },
      ],
    });
  });

  it('refuses bad input (400), another workspace’s bot (404), and "Add an answer" by a member (403) or without the CSRF token', async () => {
    expect((await a.p.member.get(route(a.p, '/questions?days=0'))).status).toBe(400);
    expect((await a.p.member.get(route(a.p, '/questions?days=lots'))).status).toBe(400);
    expect((await a.p.member.get(route(a.p, '?bot=not-a-uuid'))).status).toBe(400);
    expect((await a.p.member.get(route(a.p, `?bot=${b.bot}`))).status).toBe(404);
    expect((await a.p.member.get(route(a.p, `/questions?bot=${b.bot}`))).status).toBe(404);
    expect((await a.p.member.post(qaRoute(a.p), { question: HOURS, answer: 'Nine to five.' })).status).toBe(403);
    expect((await a.p.admin.request('POST', qaRoute(a.p), { question: HOURS, answer: 'Nine to five.' }, { csrf: null })).status).toBe(403);
    expect((await a.p.admin.post(qaRoute(a.p), { question: HOURS, answer: '' })).status).toBe(400);
    expect((await a.p.admin.post(qaRoute(a.p), { question: 'x'.repeat(301), answer: 'Nine to five.' })).status).toBe(400);
    expect((await a.p.admin.post(qaRoute(a.p), { question: HOURS, answer: 'Nine to five.', chatbotId: b.bot })).status).toBe(404);
    // Nothing was stored by any of these.
    expect(((await a.p.ws.api.get('/kb')).body.data as { source_type: string }[]).filter((d) => d.source_type === 'qa')).toEqual([]);
  });

  it('an answer added by an admin is a qa document of the bot, in the audit log, and answers the next chat', async () => {
    const added = await b.p.admin.post(qaRoute(b.p), { question: HOURS, answer: 'We are open from nine to five, Monday to Saturday.', chatbotId: b.bot });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual(expect.objectContaining({ source_type: 'qa', title: HOURS, chatbot_id: b.bot }));
    const doc = added.body.data.id as string;
    await waitFor(async () => ((await b.p.ws.api.get('/kb')).body.data as { id: string; status: string }[]).find((d) => d.id === doc)?.status, (st) => st === 'ready', 20000);
    expect(await chat(b.p, b.bot, HOURS)).toContain('nine to five, Monday to Saturday');
    const questions = (await b.p.member.get(route(b.p, '/questions'))).body.data;
    expect(questions.unanswered.map((q: { question: string }) => q.question)).toEqual(['Do you deliver parcels to mars']);
    const audit = (await b.p.owner.get(`/api/workspaces/${b.p.ws.id}/audit`)).body.data as { action: string; target_id: string; details: Record<string, unknown> }[];
    expect(audit.find((e) => e.action === 'knowledge.qa_added')).toEqual(expect.objectContaining({ target_id: doc, details: { question: HOURS, chatbot_id: b.bot } }));
  });
  it('splits conversations and visitor messages by channel (issue 35), for all bots or one, over `days` days', async () => {
    await widgetChat(a.bot, HOURS);
    const split = await a.p.member.get(route(a.p, '/channels'));
    expect(split.status).toBe(200);
    // Three API chats (each a conversation of its own) and the widget chat, every reply unanswered (no knowledge).
    const channels = [
      { channel: 'api', conversations: 3, messages: 3, unanswered: 3 },
      { channel: 'widget', conversations: 1, messages: 1, unanswered: 1 },
    ];
    expect(split.body.data).toEqual({ days: 30, channels });
    // The split adds up to the summary's sessions.
    expect((await a.p.ws.api.get('/analytics')).body.data.sessions.total).toBe(4);
    expect((await a.p.member.get(route(a.p, `/channels?bot=${a.bot}&days=7`))).body.data).toEqual({ days: 7, channels });
    expect((await b.p.member.get(route(b.p, '/channels'))).body.data.channels.map((c: { channel: string }) => c.channel)).toEqual(['api']);
    expect((await a.p.member.get(route(a.p, '/channels?days=0'))).status).toBe(400);
    expect((await a.p.member.get(route(a.p, '/channels?days=366'))).status).toBe(400);
    expect((await a.p.member.get(route(a.p, `/channels?bot=${b.bot}`))).status).toBe(404);
  });
});

describe('console: the Analytics page in a browser (issue 19)', () => {
  const br = useBrowser();
  let w: { p: ConsolePeople; bot: string };

  beforeAll(async () => {
    w = await withChats('Acme Analytics');
  });

  /** Pixels drawn on a chart's canvas (not transparent). */
  const inked = (page: Page, name: RegExp) =>
    page.getByRole('img', { name }).evaluate((c) => {
      // Runs in the page; the e2e tsconfig has no DOM types, so the canvas is typed by what is used.
      const canvas = c as unknown as { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null };
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
      return n;
    });

  it('an admin sees the charts with the API’s figures, answers an unanswered question with "Add an answer", and the next chat answers it', async () => {
    const page = br.page();
    await signInPage(page, w.p.emails.admin);
    await page.getByRole('link', { name: 'Analytics', exact: true }).click();
    await page.waitForURL(`${s.consoleUrl}/w/${w.p.ws.id}/analytics`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();

    const api = (await w.p.ws.api.get('/analytics')).body.data;
    const today = api.daily.at(-1);
    expect([today.user_messages, today.assistant_messages]).toEqual([3, 3]);
    // The figures.
    const figures = page.getByRole('definition');
    await page.getByText(`${api.unanswered.rate}% (3 of 3 replies)`).waitFor();
    expect(await figures.allInnerTexts()).toEqual([String(api.sessions.total), String(api.sessions.avg_messages), '100% (3 of 3 replies)', '0', '0']);
    // Messages per day: a drawn chart, and the same figures in its table (every day of the window).
    await page.getByText('Messages per day (UTC): 3 visitor messages, 3 bot replies.').waitFor();
    expect(await inked(page, /^Messages per day:/)).toBeGreaterThan(500);
    await page.getByText('Messages per day as a table').click();
    const rows = page.getByRole('region', { name: 'Messages per day table' }).getByRole('row');
    expect(await rows.count()).toBe(api.daily.length + 1);
    expect(await rows.last().getByRole('cell').allInnerTexts()).toEqual([String(today.user_messages), String(today.assistant_messages)]);
    expect(await rows.last().getByRole('rowheader').innerText()).toBe(today.day);
    // Replies: answered, unanswered, rated.
    expect(await inked(page, /^Bot replies:/)).toBeGreaterThan(500);
    await page.getByText('Bot replies as a table').click();
    const replies = page.getByRole('region', { name: 'Bot replies table' });
    expect(await replies.getByRole('row').allInnerTexts()).toEqual(['Answered\t0', 'Unanswered\t3', 'Rated helpful\t0', 'Rated unhelpful\t0']);

    // Top questions and unanswered ones.
    const top = page.getByRole('region', { name: 'Top questions table' });
    await top.getByRole('rowheader', { name: 'Do you deliver parcels to mars' }).waitFor();
    const unanswered = page.getByRole('region', { name: 'Unanswered questions table' });
    await unanswered.getByRole('rowheader', { name: HOURS }).waitFor();
    await expectNoSeriousAxeViolations(page, 'the Analytics page');

    // "Add an answer" to the Mars question (the wording can be edited in the dialog).
    await unanswered.getByRole('button', { name: 'Add an answer: Do you deliver parcels to mars' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an answer' });
    await dialog.waitFor();
    expect(await dialog.getByRole('textbox', { name: /^Question/ }).inputValue()).toBe('Do you deliver parcels to mars');
    await dialog.getByRole('textbox', { name: /^Question/ }).fill(MARS);
    await dialog.getByRole('textbox', { name: /^Answer/ }).fill(MARS_ANSWER);
    await expectNoSeriousAxeViolations(page, 'the Add an answer dialog');
    await dialog.getByRole('button', { name: 'Save answer' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText(`Answer added for “${MARS}”.`).waitFor();
    const qa = ((await w.p.ws.api.get('/kb')).body.data as { id: string; title: string; source_type: string; chatbot_id: string | null; status: string }[]).filter((d) => d.source_type === 'qa');
    expect(qa).toEqual([expect.objectContaining({ title: MARS, chatbot_id: null })]);
    await waitFor(async () => ((await w.p.ws.api.get('/kb')).body.data as { id: string; status: string }[]).find((d) => d.id === qa[0]!.id)?.status, (st) => st === 'ready', 20000);

    // The next visitor asking gets the answer; the question leaves the unanswered list.
    expect(await chat(w.p, w.bot, 'Do you deliver parcels to Mars?')).toContain('every Tuesday by rocket');
    await page.reload();
    await unanswered.getByRole('rowheader', { name: HOURS }).waitFor();
    expect(await unanswered.getByRole('rowheader', { name: 'Do you deliver parcels to Mars?' }).count()).toBe(0);
    await top.getByRole('rowheader', { name: 'Do you deliver parcels to Mars?' }).waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the Analytics page after the answer');
    await screenshot(page, 'analytics');
    expect(br.cspViolations()).toEqual([]);
  });

  it('a member sees the analytics of one bot (?bot=) without "Add an answer", and the conversations by channel', async () => {
    await widgetChat(w.bot, 'Can I pay by card?');
    const page = br.page();
    await signInPage(page, w.p.emails.member);
    await page.goto(`${s.consoleUrl}/w/${w.p.ws.id}/analytics?bot=${w.bot}`);
    expect(await page.getByLabel('Bot', { exact: true }).inputValue()).toBe(w.bot);
    await page.getByRole('region', { name: 'Unanswered questions table' }).getByRole('rowheader', { name: HOURS }).waitFor();
    expect(await page.getByRole('button', { name: /^Add an answer/ }).count()).toBe(0);

    // Issue 35: the API chats and the widget chat, by channel, as the console's API counts them.
    const byChannel = page.getByRole('table', { name: 'By channel' });
    await byChannel.getByRole('rowheader', { name: 'Widget' }).waitFor();
    const split = (await w.p.member.get(`/api/workspaces/${w.p.ws.id}/analytics/channels?bot=${w.bot}`)).body.data.channels as { channel: string; conversations: number; messages: number; unanswered: number }[];
    expect(split.map((c) => [c.channel, c.conversations, c.messages])).toEqual([
      ['api', 4, 4],
      ['widget', 1, 1],
    ]);
    // Text content: the column headings are upper-cased by CSS only.
    expect(await byChannel.getByRole('columnheader').allTextContents()).toEqual(['Channel', 'Conversations', 'Messages', 'Unanswered replies']);
    const rows = byChannel.getByRole('row');
    expect(await rows.count()).toBe(3);
    const row = async (i: number) => [await rows.nth(i).getByRole('rowheader').textContent(), ...(await rows.nth(i).getByRole('cell').allTextContents())];
    expect(await row(1)).toEqual(['API', '4', '4', String(split[0]!.unanswered)]);
    expect(await row(2)).toEqual(['Widget', '1', '1', String(split[1]!.unanswered)]);
    await page.getByLabel('Bot', { exact: true }).selectOption({ label: 'All bots' });
    await page.waitForURL(`${s.consoleUrl}/w/${w.p.ws.id}/analytics`);
    await expectNoSeriousAxeViolations(page, 'the Analytics page (member)');
  });
});
