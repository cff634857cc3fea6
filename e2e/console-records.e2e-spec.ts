import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { admin } from './support/admin';
import { client, request } from './support/api';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { signInPage, workspacePeople, WorkspacePeople } from './support/console';
import { TestWorkspace, uniqueName } from './support/fixtures';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { startTestSite, TestSite } from './support/test-site';
import { newWidgetSession, widgetUrl } from './support/widget';

/**
 * The console's Conversations, Leads and Bookings (issue 19) against the running system: the
 * console API (filters, transcript with sources and lead, lead status changes with who and when,
 * visible through GET /v1/leads, the CSV export, bookings moved exactly as PATCH /v1/bookings/{id}
 * with its 409s), then the three pages in Debian's Chromium with axe and the screenshots of docs/console.md.
 */
const s = e2eState();
const PASSWORD = 'correct horse battery staple';
const BUYER = 'I want to buy the premium plan for my company today, my email is jane@northwind.io and my phone is +44 20 7946 0958';
const FORMULA_NAME = '=HYPERLINK("http://evil.example","click")';
const QUESTION = 'How much is the premium heater?';
let site: TestSite;

beforeAll(async () => {
  site = await startTestSite(s.sitePort);
});
afterAll(async () => {
  await site?.close();
});

interface Fixture extends WorkspacePeople {
  ws: TestWorkspace;
  bot: string;
  otherBot: string;
  /** Sessions: an API chat that became a hot lead, a widget chat with a source, a small-talk API chat. */
  buyer: string;
  widget: string;
  smallTalk: string;
  formLead: string;
  bookings: { id: string; name: string }[];
}

async function workspace(name: string | null): Promise<TestWorkspace> {
  const ws = await admin<{ id: string }>(['workspace', 'create', '--name', name ?? uniqueName('Workspace'), '--plan', 'scale', '--messages-per-month', '1000']);
  const tok = await admin<{ id: string; token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all']);
  return { id: ws.id, token: tok.token, tokenId: tok.id, api: client(tok.token) };
}

const widgetPost = (bot: string, route: string, body: unknown) => request('POST', '', body, { baseUrl: widgetUrl(bot, route) });

/** A workspace with people, two bots, a knowledge document, chats through the API and the widget, leads and bookings. */
async function fixture(named: boolean): Promise<Fixture> {
  const ws = await workspace(named ? 'Acme Support' : null);
  const tag = randomBytes(4).toString('hex');
  const people = await workspacePeople(ws.id, PASSWORD, named);
  const bot = (await ws.api.post('/bots', { name: named ? 'Front desk' : uniqueName('Front desk'), language: 'en' })).body.data.id as string;
  const otherBot = (await ws.api.post('/bots', { name: named ? 'Sales' : uniqueName('Sales'), language: 'en' })).body.data.id as string;
  const kb = await ws.api.post('/kb/ingest', { title: 'Pricing', url: `${site.origin}/pricing`, chatbotId: bot });
  expect(kb.status).toBe(202);
  await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === kb.body.data.id)?.status, (st) => st === 'ready', 20000);

  const buyer = `api-buyer-${tag}`;
  const smallTalk = `api-hello-${tag}`;
  expect((await postSse('/chat', { message: 'Hello there, how are you?', sessionId: smallTalk, chatbotId: otherBot }, ws.token)).status).toBe(200);
  expect((await postSse('/chat', { message: BUYER, sessionId: buyer, chatbotId: bot }, ws.token)).status).toBe(200);
  const widget = await newWidgetSession(bot);
  const answer = await postSse('', { message: QUESTION, sessionId: widget }, 'unused', { baseUrl: widgetUrl(bot, 'chat') });
  expect(answer.text).toContain('900 dollars');
  const [, assistant] = (await ws.api.get(`/conversations/${widget}`)).body.data;
  expect((await widgetPost(bot, 'feedback', { sessionId: widget, messageId: assistant.id, feedback: 'positive' })).status).toBe(200);
  const formSession = await newWidgetSession(bot);
  const form = await widgetPost(bot, 'leads', { sessionId: formSession, name: FORMULA_NAME, email: 'grace@example.org', company: 'Navy', message: 'Please send a quote' });
  expect(form.status).toBeLessThan(300);
  await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === buyer), (l) => Boolean(l), 20000);

  const bookings: { id: string; name: string }[] = [];
  for (const [name, hour] of [
    ['Lin Chen', 10],
    ['Ravi Patel', 11],
    ['Sofia Rossi', 14],
  ] as const) {
    const bk = await widgetPost(bot, 'bookings', { name, email: `${name.split(' ')[0]!.toLowerCase()}-${tag}@example.com`, phone: '+65 6123 4567', requestedSlot: `2027-03-0${bookings.length + 1}T${hour}:00:00+08:00`, timeZone: 'Asia/Singapore', notes: 'A demo for <b>three</b> people' });
    expect(bk.status).toBe(201);
    bookings.push({ id: bk.body.data.id, name });
  }
  return { ws, bot, otherBot, ...people, buyer, widget, smallTalk, formLead: form.body.data.id, bookings };
}

const leadsOfRest = async (ws: TestWorkspace): Promise<any[]> => (await ws.api.get('/leads')).body.data;

describe('console: the Conversations, Leads and Bookings API (issue 19)', () => {
  let a: Fixture;
  let b: Fixture;
  const w = (f: Fixture, suffix: string) => `/api/workspaces/${f.ws.id}${suffix}`;

  beforeAll(async () => {
    [a, b] = [await fixture(false), await fixture(false)];
  }, 120000);

  it('conversations: a member lists them with search, channel and bot filters; a transcript carries sources, feedback and the lead; other sessions are 404', async () => {
    const ids = async (query: string) => ((await a.member.get(w(a, `/conversations${query}`))).body.data as any[]).map((c) => c.session_id);
    expect(await ids('')).toEqual(expect.arrayContaining([a.buyer, a.widget, a.smallTalk]));
    expect(await ids('?q=premium')).toEqual(expect.arrayContaining([a.buyer, a.widget]));
    expect(await ids('?q=premium')).not.toContain(a.smallTalk);
    expect(await ids('?channel=api')).toEqual(expect.arrayContaining([a.buyer, a.smallTalk]));
    expect(await ids('?channel=api')).not.toContain(a.widget);
    expect(await ids('?channel=widget')).toContain(a.widget);
    expect(await ids(`?chatbotId=${a.otherBot}`)).toEqual([a.smallTalk]);
    expect(await ids(`?channel=widget&chatbotId=${a.otherBot}`)).toEqual([]);

    const detail = await a.member.get(w(a, `/conversations/${a.widget}`));
    expect(detail.status).toBe(200);
    const [question, reply] = detail.body.data.messages;
    expect(question).toMatchObject({ role: 'user', content: QUESTION, channel: 'widget' });
    expect(reply).toMatchObject({ role: 'assistant', feedback: 'positive', source_urls: [`${site.origin}/pricing`] });
    expect((await a.member.get(w(a, `/conversations/${a.smallTalk}`))).body.data.lead).toBeNull();
    const buyer = (await a.member.get(w(a, `/conversations/${a.buyer}`))).body.data;
    expect(buyer.lead).toMatchObject({ session_id: a.buyer, email: 'jane@northwind.io', score_band: 'hot' });

    // Another workspace's session, an unknown one and bad filters.
    for (const path of [w(a, `/conversations/${b.buyer}`), w(a, '/conversations/nope-nothing-here')]) expect([(await a.member.get(path)).status]).toEqual([404]);
    expect((await a.member.get(w(b, '/conversations'))).status).toBe(404);
    for (const q of ['channel=fax', 'chatbotId=nope', 'limit=0', `q=${'x'.repeat(201)}`, 'colour=red']) expect([q, (await a.member.get(w(a, `/conversations?${q}`))).status]).toEqual([q, 400]);
    expect((await a.member.get(w(a, `/conversations?chatbotId=${b.bot}`))).status).toBe(404);
  });

  it('leads: filters by band, minimum score, status, channel and bot; pages with a cursor', async () => {
    const sessions = async (query: string) => ((await a.member.get(w(a, `/leads${query}`))).body.data as any[]).map((l) => l.session_id);
    expect(await sessions('?band=hot')).toContain(a.buyer);
    expect(await sessions('?band=cold')).not.toContain(a.buyer);
    expect(await sessions('?minScore=70')).toContain(a.buyer);
    expect(await sessions('?channel=api')).toEqual([a.buyer]);
    expect(await sessions(`?chatbotId=${a.otherBot}`)).toEqual([]);
    expect(await sessions('?status=won')).toEqual([]);
    const first = await a.member.get(w(a, '/leads?limit=1'));
    expect(first.body.data).toHaveLength(1);
    expect(first.body.next).toEqual(expect.any(String));
    const second = await a.member.get(w(a, `/leads?limit=1&cursor=${encodeURIComponent(first.body.next)}`));
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    expect(second.body.next).toBeNull();
    for (const q of ['band=boiling', 'minScore=101', 'minScore=x', 'status=closed', 'channel=fax', 'cursor=abc', 'limit=201']) expect([q, (await a.member.get(w(a, `/leads?${q}`))).status]).toEqual([q, 400]);
    // A cursor whose time is no real instant (issue 30) is refused as the cursor it is, not as a member the leads service reads.
    for (const at of ['2026-02-30T10:00:00Z', '2026-04-31T10:00:00.000Z', '0000-01-01T00:00:00Z']) {
      const bad = await a.member.get(w(a, `/leads?cursor=${encodeURIComponent(`${at}_${first.body.data[0].id}`)}`));
      expect([at, bad.status, bad.body.error.issues.map((i: any) => i.path.join('.'))]).toEqual([at, 400, ['query.cursor']]);
    }
  });

  it('an admin changes a lead\'s status: GET /v1/leads shows it, the detail has who and when, the audit log has it; members, other workspaces and bad input are refused', async () => {
    const lead = (await leadsOfRest(a.ws)).find((l) => l.session_id === a.buyer);
    expect(lead.status).toBe('new');
    const changed = await a.admin.post(w(a, `/leads/${lead.id}/status`), { status: 'contacted', note: 'Called, left a message' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: lead.id, status: 'contacted' });
    expect((await leadsOfRest(a.ws)).find((l) => l.id === lead.id).status).toBe('contacted');
    expect((await a.owner.post(w(a, `/leads/${lead.id}/status`), { status: 'qualified' })).status).toBe(200);
    expect((await leadsOfRest(a.ws)).find((l) => l.id === lead.id).status).toBe('qualified');

    const detail = (await a.member.get(w(a, `/leads/${lead.id}`))).body.data;
    expect(detail.lead).toMatchObject({ id: lead.id, status: 'qualified', intent_summary: expect.any(String) });
    expect(detail.history).toEqual([
      { id: expect.any(String), lead_id: lead.id, from_status: 'contacted', to_status: 'qualified', note: null, actor: { kind: 'person', id: expect.any(String), label: a.emails.owner }, created_at: expect.any(String) },
      { id: expect.any(String), lead_id: lead.id, from_status: 'new', to_status: 'contacted', note: 'Called, left a message', actor: { kind: 'person', id: expect.any(String), label: a.emails.admin }, created_at: expect.any(String) },
    ]);
    expect(Math.abs(Date.parse(detail.history[1].created_at) - Date.now())).toBeLessThan(120_000);
    expect(detail.messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);

    const audit = (await a.owner.get(w(a, '/audit?limit=50'))).body.data.filter((e: any) => e.action === 'lead.status_changed' && e.target_id === lead.id);
    expect(audit.map((e: any) => [e.actor.label, e.details.from, e.details.to])).toEqual([
      [a.emails.owner, 'contacted', 'qualified'],
      [a.emails.admin, 'new', 'contacted'],
    ]);

    const same = await a.admin.post(w(a, `/leads/${lead.id}/status`), { status: 'qualified' });
    expect([same.status, same.body.code]).toEqual([409, 'conflict']);
    const member = await a.member.post(w(a, `/leads/${lead.id}/status`), { status: 'won' });
    expect([member.status, member.body.code]).toEqual([403, 'forbidden_role']);
    const noCsrf = await a.admin.request('POST', w(a, `/leads/${lead.id}/status`), { status: 'won' }, { csrf: null });
    expect([noCsrf.status, noCsrf.body.code]).toEqual([403, 'csrf_failed']);
    const foreign = (await leadsOfRest(b.ws))[0];
    for (const r of [await a.admin.post(w(a, `/leads/${foreign.id}/status`), { status: 'won' }), await a.member.get(w(a, `/leads/${foreign.id}`))]) expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    for (const body of [{ status: 'closed' }, {}, { status: 'won', note: 'x'.repeat(1001) }, { status: 'won', by: 'someone' }, null]) {
      expect([JSON.stringify(body), (await a.admin.post(w(a, `/leads/${lead.id}/status`), body)).status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await a.admin.post(w(a, '/leads/not-a-uuid/status'), { status: 'won' })).status).toBe(400);
    expect((await leadsOfRest(a.ws)).find((l) => l.id === lead.id).status).toBe('qualified');
    expect((await leadsOfRest(b.ws)).find((l) => l.id === foreign.id).status).toBe('new');
  });

  it('the CSV export: every matching lead, a header row, formula cells neutralised; members may export; filters apply', async () => {
    const res = await fetch(`${s.consoleUrl}${w(a, '/leads/export')}`, { headers: { cookie: a.member.cookie! } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="leads-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await res.text();
    const rows: string[][] = parse(text, { bom: true });
    const header = rows[0]!;
    const col = (name: string) => header.indexOf(name);
    expect(header.slice(0, 6)).toEqual(['id', 'created_at', 'updated_at', 'status', 'score', 'score_band']);
    const rest = await leadsOfRest(a.ws);
    expect(rows.slice(1).map((r) => r[0]).sort()).toEqual(rest.map((l) => l.id).sort());
    const form = rows.find((r) => r[0] === a.formLead)!;
    expect(form[col('name')]).toBe(`'${FORMULA_NAME}`);
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    const buyer = rows.find((r) => r[col('session_id')] === a.buyer)!;
    expect([buyer[col('email')], buyer[col('phone')], buyer[col('bot')]]).toEqual(['jane@northwind.io', "'+442079460958", expect.stringContaining('Front desk')]);

    const hot = parse(await (await fetch(`${s.consoleUrl}${w(a, '/leads/export?channel=api')}`, { headers: { cookie: a.member.cookie! } })).text(), { bom: true }) as string[][];
    expect(hot.slice(1).map((r) => r[col('session_id')])).toEqual([a.buyer]);
    expect((await fetch(`${s.consoleUrl}${w(a, '/leads/export?band=boiling')}`, { headers: { cookie: a.member.cookie! } })).status).toBe(400);
    expect((await fetch(`${s.consoleUrl}${w(a, '/leads/export')}`)).status).toBe(401);
  });

  it('bookings: confirmed in the console, a second confirm over REST PATCH is 409; the console shows REST\'s 409s too; the visitor is e-mailed; members cannot', async () => {
    const [first, second, third] = a.bookings;
    const listed = await a.member.get(w(a, '/bookings?status=pending'));
    expect(listed.body.data.map((x: any) => x.id).sort()).toEqual(a.bookings.map((x) => x.id).sort());
    const confirmed = await a.admin.patch(w(a, `/bookings/${first!.id}`), { action: 'confirm' });
    expect([confirmed.status, confirmed.body.data.status]).toEqual([200, 'confirmed']);
    const rest = await a.ws.api.patch(`/bookings/${first!.id}`, { action: 'confirm' });
    expect([rest.status, rest.body.code]).toEqual([409, 'conflict']);
    // And the other way round: decided over REST, the console gets the same 409 and message.
    expect((await a.ws.api.patch(`/bookings/${second!.id}`, { action: 'reject', rejectionComment: 'Fully booked' })).status).toBe(200);
    const again = await a.admin.patch(w(a, `/bookings/${second!.id}`), { action: 'confirm' });
    expect([again.status, again.body.code]).toEqual([409, 'conflict']);
    expect(again.body.message).toBe((await a.ws.api.patch(`/bookings/${second!.id}`, { action: 'confirm' })).body.message);
    const cancelled = await a.owner.patch(w(a, `/bookings/${third!.id}`), { action: 'cancel', cancelComment: 'The office is closed that day' });
    expect(cancelled.body.data.status).toBe('cancelled');
    expect((await a.member.get(w(a, '/bookings?status=confirmed'))).body.data.map((x: any) => x.id)).toEqual([first!.id]);

    const member = await a.member.patch(w(a, `/bookings/${third!.id}`), { action: 'confirm' });
    expect([member.status, member.body.code]).toEqual([403, 'forbidden_role']);
    for (const body of [{ action: 'reschedule' }, { action: 'approve' }, { action: 'cancel', cancelComment: 'x'.repeat(501) }, { action: 'confirm', id: b.bookings[0]!.id }]) {
      expect([JSON.stringify(body), (await a.admin.patch(w(a, `/bookings/${first!.id}`), body)).status]).toEqual([JSON.stringify(body), 400]);
    }
    const foreign = await a.admin.patch(w(a, `/bookings/${b.bookings[0]!.id}`), { action: 'confirm' });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    expect((await b.ws.api.get(`/bookings/${b.bookings[0]!.id}`)).body.data.status).toBe('pending');

    const mails = await waitFor(
      async () => (await admin<{ data: { booking_id: string; kind: string }[] }>(['mail', 'list', '--workspace', a.ws.id])).data,
      (m) => m.some((x) => x.booking_id === third!.id && x.kind === 'cancel'),
      10000,
    );
    expect(mails.filter((m) => m.booking_id === first!.id).map((m) => m.kind)).toEqual(['confirm']);
    const audit = (await a.owner.get(w(a, '/audit?limit=50'))).body.data.filter((e: any) => e.target_kind === 'booking');
    expect(audit.map((e: any) => [e.action, e.actor.label])).toEqual([
      ['booking.cancel', a.emails.owner],
      ['booking.confirm', a.emails.admin],
    ]);
  });
});

describe('console: the Conversations, Leads and Bookings pages in a browser (issue 19)', () => {
  const br = useBrowser({ acceptDownloads: true });
  let f: Fixture;

  beforeAll(async () => {
    f = await fixture(true);
  }, 120000);

  /** Signs in and opens the page of this workspace (the screenshot's people may belong to other files' workspaces too). */
  async function open(page: Page, email: string, section: string, link: string): Promise<void> {
    await signInPage(page, email, PASSWORD);
    await page.goto(`${s.consoleUrl}/w/${f.ws.id}/tokens`);
    await page.getByRole('link', { name: link, exact: true }).click();
    await page.waitForURL(`${s.consoleUrl}/w/${f.ws.id}/${section}`);
  }

  it('Conversations: search, channel and bot filters, a transcript with its sources and feedback beside its lead', async () => {
    const page = br.page();
    await open(page, f.emails.member, 'conversations', 'Conversations');
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    const table = page.getByRole('region', { name: 'Conversations table' });
    for (const id of [f.buyer, f.widget, f.smallTalk]) await table.getByRole('link', { name: `(session ${id})` }).waitFor();

    await page.getByLabel('Channel', { exact: true }).selectOption({ label: 'Widget' });
    await page.waitForURL(/channel=widget/);
    await table.getByRole('link', { name: `(session ${f.buyer})` }).waitFor({ state: 'detached' });
    await page.getByLabel('Channel', { exact: true }).selectOption({ label: 'All channels' });
    await page.getByLabel('Bot', { exact: true }).selectOption({ label: 'Sales' });
    await table.getByRole('link', { name: `(session ${f.smallTalk})` }).waitFor();
    await table.getByRole('link', { name: `(session ${f.buyer})` }).waitFor({ state: 'detached' });
    await page.getByLabel('Bot', { exact: true }).selectOption({ label: 'All bots' });

    await page.getByLabel('Search messages').fill('premium');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=premium/);
    await table.getByRole('link', { name: `(session ${f.smallTalk})` }).waitFor({ state: 'detached' });
    await table.getByRole('link', { name: `(session ${f.widget})` }).click();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText(QUESTION).waitFor();
    await transcript.getByText(/900 dollars/).first().waitFor();
    await transcript.getByText('Rated helpful').waitFor();
    await transcript.getByRole('link', { name: `${site.origin}/pricing` }).waitFor();

    await table.getByRole('link', { name: `(session ${f.buyer})` }).click();
    await transcript.getByText(BUYER).waitFor();
    await page.getByRole('complementary').getByText(/^jane@northwind\.io/).waitFor();
    await page.getByRole('link', { name: 'Open the lead' }).waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the Conversations page');
    await screenshot(page, 'conversations');
    expect(br.cspViolations()).toEqual([]);
  });

  it('Leads: filters, a lead\'s detail, "Change status" visible through GET /v1/leads with who and when, "Export CSV" downloads a CSV that parses', async () => {
    const page = br.page();
    await open(page, f.emails.admin, 'leads', 'Leads');
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor();
    const table = page.getByRole('region', { name: 'Leads table' });
    await table.getByRole('link', { name: 'jane@northwind.io' }).waitFor();
    // The form lead's name is shown as text, never run or rendered as markup.
    await table.getByRole('link', { name: FORMULA_NAME }).waitFor();

    await page.getByLabel('Band', { exact: true }).selectOption({ label: 'Cold' });
    await table.getByRole('link', { name: 'jane@northwind.io' }).waitFor({ state: 'detached' });
    await page.getByLabel('Band', { exact: true }).selectOption({ label: 'Hot' });
    await page.getByLabel('Minimum score', { exact: true }).selectOption({ label: '70 or more' });
    await page.getByLabel('Channel', { exact: true }).selectOption({ label: 'API' });
    await table.getByRole('link', { name: FORMULA_NAME }).waitFor({ state: 'detached' });
    await table.getByRole('link', { name: 'jane@northwind.io' }).click();

    const detail = page.getByRole('region', { name: 'Lead', exact: true });
    await detail.getByText('The status has not been changed.').waitFor();
    await detail.getByRole('list', { name: 'Lead transcript' }).getByText(BUYER).waitFor();
    await page.getByLabel('New status', { exact: true }).selectOption({ label: 'Contacted' });
    await page.getByRole('textbox', { name: /^Note/ }).fill('Called <b>Jane</b>, she wants a demo');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByText('Status changed to Contacted.').waitFor();
    const history = page.getByRole('region', { name: 'Status history table' });
    const row = history.getByRole('row').nth(1);
    await row.getByText(f.emails.admin).waitFor();
    await row.getByText('New → Contacted').waitFor();
    await row.getByText('Called <b>Jane</b>, she wants a demo').waitFor();
    expect(await row.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const rest = (await leadsOfRest(f.ws)).find((l) => l.session_id === f.buyer);
    expect(rest.status).toBe('contacted');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^leads-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows: string[][] = parse(fs.readFileSync((await download.path())!, 'utf8'), { bom: true });
    const col = (name: string) => rows[0]!.indexOf(name);
    // The export follows the filters shown (hot, 70+, API): the buyer only, with the new status.
    expect(rows.slice(1).map((r) => [r[col('session_id')], r[col('status')]])).toEqual([[f.buyer, 'contacted']]);

    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Contacted' });
    await table.getByRole('link', { name: 'jane@northwind.io' }).waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the Leads page with a lead open');
    await screenshot(page, 'leads');
    expect(br.cspViolations()).toEqual([]);

    // The same status again: the service's 409 is shown.
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByRole('alert').getByText('The lead is already contacted').waitFor();
    expect((await leadsOfRest(f.ws)).find((l) => l.session_id === f.buyer).status).toBe('contacted');
  });

  it('Bookings: by status; Confirm in the console, then REST confirm is 409; a stale Confirm shows the 409 message; Cancel with a comment; Reschedule; members see no actions', async () => {
    const page = br.page();
    await open(page, f.emails.admin, 'bookings', 'Bookings');
    await page.getByRole('heading', { name: 'Bookings', level: 1 }).waitFor();
    const table = page.getByRole('region', { name: 'Bookings table' });
    const rowOf = (name: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
    await rowOf('Lin Chen').waitFor();
    await table.getByText('A demo for <b>three</b> people').first().waitFor();

    await rowOf('Lin Chen').getByRole('button', { name: 'Confirm' }).click();
    let dialog = page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await rowOf('Lin Chen').getByText('Confirmed').waitFor();
    const [lin, ravi, sofia] = f.bookings;
    const restConfirm = await f.ws.api.patch(`/bookings/${lin!.id}`, { action: 'confirm' });
    expect([restConfirm.status, restConfirm.body.code]).toEqual([409, 'conflict']);

    // Ravi's booking is decided over REST while the page still shows it pending.
    expect((await f.ws.api.patch(`/bookings/${ravi!.id}`, { action: 'reject', rejectionComment: 'Fully booked' })).status).toBe(200);
    await rowOf('Ravi Patel').getByRole('button', { name: 'Confirm' }).click();
    dialog = page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const expected = (await f.ws.api.patch(`/bookings/${ravi!.id}`, { action: 'confirm' })).body.message as string;
    await dialog.getByRole('alert').getByText(expected).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await rowOf('Ravi Patel').getByText('Rejected').waitFor();

    await rowOf('Sofia Rossi').getByRole('button', { name: 'Cancel' }).click();
    dialog = page.getByRole('alertdialog');
    await dialog.getByRole('textbox', { name: /^Comment/ }).fill('The office is closed that day');
    await dialog.getByRole('button', { name: 'Cancel booking' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await rowOf('Sofia Rossi').getByText('Cancelled').waitFor();
    expect((await f.ws.api.get(`/bookings/${sofia!.id}`)).body.data.status).toBe('cancelled');
    await waitFor(
      async () => (await admin<{ data: { booking_id: string; kind: string }[] }>(['mail', 'list', '--workspace', f.ws.id])).data,
      (m) => m.some((x) => x.booking_id === sofia!.id && x.kind === 'cancel') && m.some((x) => x.booking_id === lin!.id && x.kind === 'confirm'),
      10000,
    );

    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Confirmed' });
    await rowOf('Sofia Rossi').waitFor({ state: 'detached' });
    await rowOf('Lin Chen').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'All statuses' });
    await rowOf('Sofia Rossi').waitFor();
    await page.getByRole('heading', { name: 'Bookings', level: 1 }).focus();
    await page.evaluate(`document.querySelectorAll('.table-wrap').forEach((e) => { e.scrollLeft = 0; })`);
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the Bookings page');
    await screenshot(page, 'bookings');
    expect(br.cspViolations()).toEqual([]);

    // Reschedule Lin's confirmed booking: the new time (the browser's zone, UTC here) is sent with its offset.
    await rowOf('Lin Chen').getByRole('button', { name: 'Reschedule' }).click();
    dialog = page.getByRole('alertdialog');
    await dialog.getByLabel(/^New time/).fill('2027-04-01T09:30');
    await dialog.getByRole('button', { name: 'Reschedule' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const moved = (await f.ws.api.get(`/bookings/${lin!.id}`)).body.data;
    expect(Date.parse(moved.requested_slot)).toBe(Date.parse('2027-04-01T09:30:00Z'));
    await rowOf('Lin Chen').locator(`time[datetime="${moved.requested_slot}"]`).waitFor();

    const member = await (await br.newContext()).newPage();
    await open(member, f.emails.member, 'bookings', 'Bookings');
    await member.getByRole('region', { name: 'Bookings table' }).getByText('Lin Chen').waitFor();
    for (const name of ['Confirm', 'Reject', 'Reschedule', 'Cancel']) expect([name, await member.getByRole('button', { name, exact: true }).count()]).toEqual([name, 0]);
    await expectNoSeriousAxeViolations(member, 'the Bookings page (member)');
  });
});
