import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsoleClient, signInPage } from './support/console';
import { ConsoleSystem, PeopleOfWorkspace, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { ModelStandIn, startModelStandIn, toolResultsOf, toolsOf } from './support/model-stand-in';
import { ShopApi, startShopApi } from './support/shop-api';
import { postSse, SseResult } from './support/sse';

/**
 * The records of actions (issue 34, item 5) against a system of its own, with real turns: the
 * installation's model is the OpenAI stand-in, which calls the bot's actions; the actions call a
 * local HTTPS "shop API" (trusted through NODE_EXTRA_CA_CERTS, allowed by the outbound policy).
 * Three turns of one conversation call three actions: an order lookup (succeeds), a catalogue whose
 * answer is longer than a record keeps (cut to 1000 characters), and an action for verified
 * visitors only (refused for this anonymous session). Shown: owners and admins get each call with
 * its answer in the console's transcript (state, HTTP status, duration, input, cut result), members
 * never; the Analytics page's route counts them per action for every member, with the bot rules; the
 * action's status text is stored and reaches the stream; the header secret is in no response and no
 * record. In Chromium: the owner opens the calls with the keyboard, the member has none, the
 * Analytics page lists the calls per action (axe clean; docs/screenshots/console-action-records.png
 * and console-analytics-actions.png); the Edit action form's "Status text" shows, changes and empties it.
 */
const PASSWORD = 'correct horse battery staple';
const OWNER = 'olga.owner@records.example';
const ADMIN = 'ada.admin@records.example';
const MEMBER = 'mia.member@records.example';
const SECRET = 'sk-shop-records-4e1b7c9a2d53f806';
const STATUS_TEXT = 'Checking your order…';
const QUESTIONS = { order: 'Where is my order A-1001?', catalogue: 'What lamps are in your catalogue?', mine: 'Show me all my orders, please.' };
const ANSWERS = { order: 'Your order A-1001 has shipped.', catalogue: 'We have many lamps.', mine: 'I cannot look up your orders in this conversation.' };
/** The catalogue's answer: far longer than a record keeps. */
const CATALOGUE = { items: Array.from({ length: 200 }, (_, i) => `Aurora lamp model ${i + 1}`) };

describe('console: the records of actions (issue 34, item 5)', () => {
  let sys: ConsoleSystem;
  let model: ModelStandIn;
  let shop: ShopApi;
  let db: Client;
  let a: PeopleOfWorkspace;
  let adminClient: ConsoleClient;
  let bot: string;
  let orderAction: string;
  const sessionId = `records-${randomUUID()}`;
  const streams: SseResult[] = [];
  /** Every response body the tests read, to show the secret is in none. */
  const seen: string[] = [];
  const get = async (client: ConsoleClient, path: string) => {
    const res = await client.get(`/api/workspaces/${a.ws.id}${path}`);
    seen.push(res.text);
    return res;
  };
  const detail = () => `/conversations/${encodeURIComponent(sessionId)}`;

  beforeAll(async () => {
    shop = await startShopApi({
      routes: (method, url) => (method === 'GET' && url.pathname === '/catalogue' ? { status: 200, json: CATALOGUE } : null),
    });
    // The model asks for the tool its visitor's question needs (when offered), then answers from the result.
    model = await startModelStandIn((body) => {
      const offered = toolsOf(body).map((t) => t.name);
      const question = String([...body.messages].reverse().find((m: { role: string }) => m.role === 'user')?.content ?? '');
      const which = question === QUESTIONS.order ? 'order' : question === QUESTIONS.catalogue ? 'catalogue' : question === QUESTIONS.mine ? 'mine' : null;
      if (!which) return { pieces: ['Hello.'] };
      const tool = { order: 'order_status', catalogue: 'catalogue', mine: 'my_orders' }[which];
      const input = { order: { order_id: 'A-1001' }, catalogue: { q: 'lamps' }, mine: {} }[which];
      // my_orders is called even when not offered to this anonymous session: refused either way.
      if (toolResultsOf(body).length === 0 && (offered.includes(tool) || which === 'mine')) return { pieces: [], toolCalls: [{ name: tool, input }] };
      return { pieces: [ANSWERS[which]] };
    });
    sys = await startConsoleSystem(
      {
        CHAT_MODEL_PROVIDER: 'openai',
        CHAT_MODEL_BASE_URL: model.baseUrl,
        CHAT_MODEL_NAME: 'house-model',
        CHAT_MODEL_MAX_RETRIES: '0',
        NODE_EXTRA_CA_CERTS: shop.caFile,
      },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'console'], allowPorts: [shop.port] },
    );
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    a = await workspaceWithPeople(sys, 'Acme Records', { owner: OWNER, member: MEMBER, password: PASSWORD });
    await sys.admin(['user', 'create', '--workspace', a.ws.id, '--email', ADMIN, '--role', 'admin', '--password-stdin'], `${PASSWORD}\n`);
    adminClient = new ConsoleClient(sys.consoleUrl);
    expect((await adminClient.signIn(ADMIN, PASSWORD)).status).toBe(200);

    bot = (await waitFor(() => a.owner.post(`/api/workspaces/${a.ws.id}/bots`, { name: 'Order desk', language: 'en' }), (r) => r.status === 201, 20000)).body.data.id;
    const actions = `/api/workspaces/${a.ws.id}/bots/${bot}/actions`;
    const headers = [{ name: 'X-Api-Key', value: SECRET }];
    const order = await a.owner.post(actions, {
      name: 'order_status',
      description: 'Where an order is: its status and carrier.',
      method: 'GET',
      url: `${shop.origin}/orders/{order_id}`,
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      headers,
      status_text: `  ${STATUS_TEXT}  `,
    });
    expect([order.status, order.body.data?.status_text]).toEqual([201, STATUS_TEXT]);
    orderAction = order.body.data.id;
    const catalogue = await a.owner.post(actions, {
      name: 'catalogue',
      description: 'Searches the catalogue.',
      method: 'GET',
      url: `${shop.origin}/catalogue?q={q}`,
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      headers,
    });
    expect([catalogue.status, catalogue.body.data.status_text]).toEqual([201, null]);
    const mine = await a.owner.post(actions, {
      name: 'my_orders',
      description: "The verified visitor's orders.",
      method: 'GET',
      url: `${shop.origin}/my-orders?customer={customer}`,
      parameters: { type: 'object', properties: { customer: { type: 'string' } }, required: ['customer'] },
      verified_only: true,
      user_id_param: 'customer',
    });
    expect(mine.status).toBe(201);

    // One conversation, three turns (through the public API, as a customer's server would).
    for (const which of ['order', 'catalogue', 'mine'] as const) {
      const res = await postSse('/chat', { message: QUESTIONS[which], sessionId, chatbotId: bot }, a.token, { baseUrl: sys.apiUrl });
      expect([which, res.status, res.finishReason]).toEqual([which, 200, 'stop']);
      expect(res.text).toContain(ANSWERS[which]);
      streams.push(res);
      seen.push(res.raw);
    }
  }, 240000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
    await Promise.all([model?.close(), shop?.close()]);
  });

  it('the status text is stored with the action, trimmed, and labels the running call in the stream; null removes it', async () => {
    const path = `/bots/${bot}/actions/${orderAction}`;
    expect((await get(a.member, path)).body.data.status_text).toBe(STATUS_TEXT);
    const running = streams[0]!.frames.find((f) => f.action?.name === 'order_status' && f.action?.state === 'running');
    expect(running?.action.label).toBe(STATUS_TEXT);
    // Bad values are 400 at the field; a change without it keeps it.
    for (const bad of ['', 'x'.repeat(81), 'two\nlines']) {
      const res = await a.owner.patch(`/api/workspaces/${a.ws.id}${path}`, { status_text: bad });
      expect([JSON.stringify(bad), res.status, res.body.error?.issues?.[0]?.path]).toEqual([JSON.stringify(bad), 400, ['body', 'status_text']]);
    }
    expect((await a.owner.patch(`/api/workspaces/${a.ws.id}${path}`, { description: 'Where an order is.' })).body.data.status_text).toBe(STATUS_TEXT);
    expect((await a.member.patch(`/api/workspaces/${a.ws.id}${path}`, { status_text: 'Mine now' })).status).toBe(403);
    expect((await a.owner.patch(`/api/workspaces/${a.ws.id}${path}`, { status_text: null })).body.data.status_text).toBeNull();
    expect((await a.owner.patch(`/api/workspaces/${a.ws.id}${path}`, { status_text: STATUS_TEXT })).body.data.status_text).toBe(STATUS_TEXT);
  });

  it('owners and admins get each call with its answer: state, HTTP status, duration, input, a cut result', async () => {
    for (const who of [a.owner, adminClient]) {
      const res = await get(who, detail());
      expect(res.status).toBe(200);
      const messages = res.body.data.messages as any[];
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ['user', QUESTIONS.order],
        ['assistant', ANSWERS.order],
        ['user', QUESTIONS.catalogue],
        ['assistant', ANSWERS.catalogue],
        ['user', QUESTIONS.mine],
        ['assistant', ANSWERS.mine],
      ]);
      for (const m of messages.filter((x) => x.role === 'user')) expect('actions' in m).toBe(false);
      const [order, catalogue, mine] = messages.filter((x) => x.role === 'assistant').map((x) => x.actions);
      expect(order).toEqual([
        {
          id: expect.any(String),
          name: 'order_status',
          source: 'custom',
          state: 'ran',
          ok: true,
          http_status: 200,
          error: null,
          duration_ms: expect.any(Number),
          result: JSON.stringify({ order_id: 'A-1001', status: 'shipped' }),
          input: { order_id: 'A-1001' },
          created_at: expect.any(String),
        },
      ]);
      expect(catalogue).toHaveLength(1);
      expect(catalogue[0]).toMatchObject({ name: 'catalogue', state: 'ran', ok: true, http_status: 200, input: { q: 'lamps' } });
      expect(catalogue[0].result).toHaveLength(1000);
      expect(JSON.stringify(CATALOGUE).startsWith(catalogue[0].result.slice(0, 999))).toBe(true);
      // Refused before it ran: an anonymous session, an action for verified visitors only.
      expect(mine).toEqual([expect.objectContaining({ name: 'my_orders', source: 'custom', state: 'refused', ok: null, http_status: null, duration_ms: 0, result: '' })]);
      expect(mine[0].error).toEqual(expect.any(String));
    }
    // The shop got the lookup and the catalogue (with the header), never the refused call.
    expect(shop.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /orders/A-1001', 'GET /catalogue']);
    expect(shop.requests.every((r) => r.headers['x-api-key'] === SECRET)).toBe(true);
  });

  it('members get the transcript without any record; the public API has none either', async () => {
    const res = await get(a.member, detail());
    expect(res.status).toBe(200);
    expect(res.body.data.messages).toHaveLength(6);
    for (const m of res.body.data.messages) expect('actions' in m).toBe(false);
    expect(res.text).not.toContain('order_status');
    const pub = await request('GET', `/conversations/${encodeURIComponent(sessionId)}`, undefined, { token: a.token, baseUrl: sys.apiUrl });
    seen.push(JSON.stringify(pub.body));
    expect(pub.status).toBe(200);
    expect(JSON.stringify(pub.body)).not.toContain('order_status');
  });

  it('the Analytics route counts the calls per action, for every member, with the bot rules', async () => {
    const expected = [
      { name: 'catalogue', source: 'custom', calls: 1, succeeded: 1, failed: 0, refused: 0, cancelled: 0, awaiting: 0, avg_duration_ms: expect.any(Number), last_called_at: expect.any(String) },
      { name: 'my_orders', source: 'custom', calls: 1, succeeded: 0, failed: 0, refused: 1, cancelled: 0, awaiting: 0, avg_duration_ms: null, last_called_at: expect.any(String) },
      { name: 'order_status', source: 'custom', calls: 1, succeeded: 1, failed: 0, refused: 0, cancelled: 0, awaiting: 0, avg_duration_ms: expect.any(Number), last_called_at: expect.any(String) },
    ];
    const byName = (list: { name: string }[]) => [...list].sort((x, y) => x.name.localeCompare(y.name));
    for (const [who, query] of [
      [a.member, ''],
      [a.owner, `?bot=${bot}`],
      [a.member, `?bot=${bot}&days=1`],
    ] as const) {
      const res = await get(who, `/analytics/actions${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      expect(byName(res.body.data.actions)).toEqual(expected);
    }
    expect((await get(a.member, `/analytics/actions?bot=${randomUUID()}`)).status).toBe(404);
    for (const bad of ['?days=0', '?days=366', '?bot=nope']) expect([bad, (await get(a.member, `/analytics/actions${bad}`)).status]).toEqual([bad, 400]);
    // Another workspace sees none of them.
    const b = await workspaceWithPeople(sys, 'Other Records', { owner: 'oscar.owner@records.example', member: 'milo.member@records.example', password: PASSWORD });
    const theirs = await b.owner.get(`/api/workspaces/${b.ws.id}/analytics/actions`);
    expect([theirs.status, theirs.body.data.actions]).toEqual([200, []]);
    expect((await b.owner.get(`/api/workspaces/${b.ws.id}/analytics/actions?bot=${bot}`)).status).toBe(404);
    expect((await b.owner.get(`/api/workspaces/${b.ws.id}/conversations/${encodeURIComponent(sessionId)}`)).status).toBe(404);
  });

  it('the header secret is in no response and no record', async () => {
    expect(seen.length).toBeGreaterThan(5);
    for (const text of seen) expect(text).not.toContain(SECRET);
    const { rows } = await db.query(`SELECT row_to_json(c)::text AS row FROM chat.action_calls c WHERE tenant_id = $1`, [a.ws.id]);
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.row).not.toContain(SECRET);
  });

  describe('in Chromium', () => {
    const br = useBrowser();

    const openTranscript = async (email: string) => {
      const page = br.page();
      await signInPage(page, email, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${a.ws.id}/conversations?session=${encodeURIComponent(sessionId)}`);
      const transcript = page.getByRole('list', { name: 'Transcript' });
      await transcript.getByText(ANSWERS.mine).waitFor();
      return { page, transcript };
    };

    it('an owner opens the calls of each answer with the keyboard and reads them as text; axe clean', async () => {
      const { page, transcript } = await openTranscript(OWNER);
      const summaries = transcript.getByText('Action called (1)', { exact: true });
      expect(await summaries.count()).toBe(3);
      for (let i = 0; i < 3; i++) {
        await summaries.nth(i).focus();
        await page.keyboard.press('Enter');
      }
      const lists = transcript.getByRole('list', { name: 'Actions the bot called' });
      await lists.first().waitFor();
      const [order, catalogue, mine] = [lists.nth(0), lists.nth(1), lists.nth(2)];
      await order.getByText('order_status', { exact: true }).waitFor();
      await order.getByText('Succeeded', { exact: true }).waitFor();
      await order.getByText('HTTP status', { exact: true }).waitFor();
      await order.getByText('200', { exact: true }).waitFor();
      await order.getByText(/^\d+(\.\d)? m?s$/).waitFor();
      await order.getByText('{"order_id":"A-1001"}', { exact: true }).waitFor();
      await order.getByText('{"order_id":"A-1001","status":"shipped"}', { exact: true }).waitFor();
      await catalogue.getByText('(cut to the first 1000 characters)', { exact: false }).waitFor();
      await mine.getByText('Refused', { exact: true }).waitFor();
      await page.waitForLoadState('networkidle');
      await expectNoSeriousAxeViolations(page, 'Conversations with the action calls open');
      expect(await page.content()).not.toContain(SECRET);
      await order.scrollIntoViewIfNeeded();
      await screenshot(page, 'action-records');
      // Narrow: nothing scrolls sideways.
      await page.setViewportSize({ width: 768, height: 900 });
      await page.waitForTimeout(100);
      expect(await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')).toBe(false);
      expect(br.cspViolations()).toEqual([]);
    });

    it('a member sees the transcript without any call', async () => {
      const { transcript } = await openTranscript(MEMBER);
      await transcript.getByText(ANSWERS.order).waitFor();
      expect(await transcript.getByText(/Actions? called/).count()).toBe(0);
      expect(await transcript.getByText('order_status').count()).toBe(0);
    });

    it('"Status text" in the Edit action form shows the stored text; emptied and saved, the action has none', async () => {
      const page = br.page();
      await signInPage(page, OWNER, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${a.ws.id}/bots/${bot}`);
      const section = page.getByRole('region', { name: 'Actions', exact: true });
      const row = section.getByRole('row', { name: /^order_status/ });
      await row.getByRole('button', { name: 'Edit' }).click();
      const edit = section.getByRole('form', { name: 'Edit action “order_status”' });
      const field = edit.getByLabel('Status text (optional)', { exact: true });
      expect(await field.inputValue()).toBe(STATUS_TEXT);
      await edit.getByText(`${STATUS_TEXT.length} of 80 characters`, { exact: false }).waitFor();
      await field.fill('Looking up your order…');
      await edit.getByRole('button', { name: 'Save action' }).click();
      await edit.waitFor({ state: 'detached' });
      expect((await a.owner.get(`/api/workspaces/${a.ws.id}/bots/${bot}/actions/${orderAction}`)).body.data.status_text).toBe('Looking up your order…');
      await row.getByRole('button', { name: 'Edit' }).click();
      await edit.getByLabel('Status text (optional)', { exact: true }).fill('');
      await expectNoSeriousAxeViolations(page, 'the Edit action form with its status text');
      await edit.getByRole('button', { name: 'Save action' }).click();
      await edit.waitFor({ state: 'detached' });
      const saved = (await a.owner.get(`/api/workspaces/${a.ws.id}/bots/${bot}/actions/${orderAction}`)).body.data;
      expect([saved.status_text, saved.headers]).toEqual([null, [{ name: 'X-Api-Key', has_value: true }]]);
      expect(await page.content()).not.toContain(SECRET);
    });

    it('the Analytics page lists the calls per action; axe clean', async () => {
      const page = br.page();
      await signInPage(page, MEMBER, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${a.ws.id}/analytics`);
      const section = page.getByRole('region', { name: 'Actions', exact: true });
      const table = section.getByRole('region', { name: 'Calls per action table' });
      await table.waitFor();
      const row = table.getByRole('row', { name: /^order_status/ });
      await row.waitFor();
      expect(await row.getByRole('cell').allTextContents()).toEqual(['Custom', '1', '1', '0', '0', '0', expect.stringMatching(/^\d+(\.\d)? m?s$/)]);
      const refused = table.getByRole('row', { name: /^my_orders/ });
      expect(await refused.getByRole('cell').allTextContents()).toEqual(['Custom', '1', '0', '0', '1', '0', '—']);
      await page.waitForLoadState('networkidle');
      await expectNoSeriousAxeViolations(page, 'Analytics with the calls per action');
      await section.scrollIntoViewIfNeeded();
      await screenshot(page, 'analytics-actions');
      expect(br.cspViolations()).toEqual([]);
    });
  });
});
