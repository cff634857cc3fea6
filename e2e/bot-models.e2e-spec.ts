import * as fs from 'node:fs';
import { Client } from 'pg';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsoleSystem, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { type ConsoleClient, signInPage } from './support/console';
import { AnthropicStandIn, ModelStandIn, anthropicStandInUsage, questionOf, startAnthropicStandIn, startModelStandIn } from './support/model-stand-in';
import { postSse } from './support/sse';

/**
 * Models per workspace (issue 32, item 2) against a system of its own. The installation's chat
 * model is one local OpenAI-compatible stand-in ("house"); the workspace adds an Anthropic
 * connection (a stand-in speaking the Messages API) and an OpenAI-compatible one (a second
 * stand-in), both checking their keys and recording what they receive. Shown: the key is
 * write-only (in no answer, no log, no column in plain text, not in the audit log); "Test
 * connection" says a 401 plainly; a bot answers through its own connection at its temperature
 * while another uses the installation's model; a provider that fails before answering ends the
 * stream with an error and nothing is stored or counted; a private address is blocked without the
 * operator's allow-list; members read and may not change.
 */
const PASSWORD = 'correct horse battery staple';
const OWNER = 'olga.owner@models.example';
const MEMBER = 'mia.member@models.example';
const ANTHROPIC_KEY = 'sk-ant-e2e-7f3c9a51d2b84e6f';
const OWN_KEY = 'sk-own-e2e-2c8e41b7a9d35f06';

describe('models per workspace: connections, keys, test connection, a model per bot (issue 32)', () => {
  let sys: ConsoleSystem;
  let house: ModelStandIn;
  let own: ModelStandIn;
  let claude: AnthropicStandIn;
  let db: Client;
  let ws: { id: string };
  let token: string;
  let owner: ConsoleClient;
  let member: ConsoleClient;
  let botA: string;
  let botB: string;
  let anthropicId: string;
  const models = () => `/api/workspaces/${ws.id}/models`;
  const chat = (bot: string, message: string, sessionId: string) => postSse('/chat', { message, sessionId, chatbotId: bot }, token, { baseUrl: sys.apiUrl });
  const messagesUsed = async (): Promise<number> => Number((await db.query(`SELECT coalesce(sum(messages), 0)::int AS n FROM chat.usage WHERE tenant_id = $1`, [ws.id])).rows[0].n);

  beforeAll(async () => {
    house = await startModelStandIn(() => ({ pieces: ['House model: ', 'the heater costs 900 dollars.'] }));
    own = await startModelStandIn(() => ({ pieces: ['Own model: ', 'the heater costs 900 dollars.'] }), { apiKey: OWN_KEY, models: ['own-chat'] });
    claude = await startAnthropicStandIn(() => ({ pieces: ['Claude: ', 'the heater ', 'costs 900 dollars.'] }), { apiKey: ANTHROPIC_KEY, models: ['claude-haiku-4-5'] });
    const portOf = (url: string) => Number(new URL(url).port);
    sys = await startConsoleSystem(
      { CHAT_MODEL_PROVIDER: 'openai', CHAT_MODEL_BASE_URL: house.baseUrl, CHAT_MODEL_NAME: 'house-model', CHAT_MODEL_MAX_RETRIES: '0', MODEL_CONNECTION_MAX_RETRIES: '0' },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'console'], allowPorts: [portOf(own.baseUrl), portOf(claude.baseUrl)] },
    );
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    ({ ws, token, owner, member } = await workspaceWithPeople(sys, 'Acme Models', { owner: OWNER, member: MEMBER, password: PASSWORD }));
    const bot = (name: string) => waitFor(() => request('POST', '/bots', { name, language: 'en' }, { token, baseUrl: sys.apiUrl }), (r) => r.status === 201, 20000);
    botA = (await bot('Claude desk')).body.data.id;
    botB = (await bot('House desk')).body.data.id;
    expect((await request('POST', '/kb/ingest', { title: 'Heaters', text: 'The premium solar water heater costs 900 dollars including installation.' }, { token, baseUrl: sys.apiUrl })).status).toBe(202);
    await waitFor(async () => (await request('GET', '/kb', undefined, { token, baseUrl: sys.apiUrl })).body.data[0]?.status, (st) => st === 'ready', 60000, 250);
  }, 180000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
    await Promise.all([house?.close(), own?.close(), claude?.close()]);
  });

  it('an owner adds connections; the key is write-only; bad input is 400 with the field; a name is taken once', async () => {
    const created = await owner.post(models(), { name: 'Claude', kind: 'anthropic', base_url: claude.baseUrl, model: 'claude-haiku-4-5', api_key: ANTHROPIC_KEY });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      name: 'Claude',
      kind: 'anthropic',
      base_url: claude.baseUrl,
      model: 'claude-haiku-4-5',
      has_key: true,
      bots: 0,
      embeddings: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    anthropicId = created.body.data.id;
    expect(created.text).not.toContain(ANTHROPIC_KEY);
    const listed = await owner.get(models());
    expect(listed.body.data.map((c: { name: string }) => c.name)).toEqual(['Claude']);
    expect(listed.text).not.toContain(ANTHROPIC_KEY);

    const bad: [unknown, string][] = [
      [{ name: 'No key', kind: 'anthropic', model: 'claude-haiku-4-5' }, 'api_key'],
      [{ name: 'Files', kind: 'openai', base_url: 'file:///etc/passwd', model: 'x', api_key: 'k' }, 'base_url'],
      [{ name: 'Which', kind: 'gemini', model: 'x', api_key: 'k' }, 'kind'],
      [{ name: ' ', kind: 'ollama', model: 'llama3.2' }, 'name'],
      [{ name: 'Extra', kind: 'ollama', model: 'llama3.2', secret: 'x' }, 'secret'],
    ];
    for (const [body, field] of bad) {
      const res = await owner.post(models(), body);
      expect([res.status, JSON.stringify(body)]).toEqual([400, JSON.stringify(body)]);
      expect(JSON.stringify(res.body.error.issues)).toContain(field);
    }
    expect((await owner.post(models(), { name: 'claude', kind: 'ollama', model: 'llama3.2' })).status).toBe(409);
    // The stored key never goes to a new address: a new base URL needs the key again.
    const moved = await owner.patch(`${models()}/${anthropicId}`, { base_url: 'https://collector.example/anthropic' });
    expect(moved.status).toBe(400);
    expect(moved.body.error.issues).toEqual([expect.objectContaining({ path: ['body', 'api_key'] })]);
    expect((await owner.get(models())).body.data[0].base_url).toBe(claude.baseUrl);
  });

  it('"Test connection" answers ok, then shows the provider\'s 401 plainly; the key is never in the message', async () => {
    const ok = await owner.post(`${models()}/${anthropicId}/test`, {});
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ ok: true, status: 200, message: expect.stringContaining('Connected') });
    expect(claude.requests.at(-1)!.headers['x-api-key']).toBe(ANTHROPIC_KEY);

    const wrongKey = 'sk-ant-e2e-WRONG-0000000000';
    expect((await owner.patch(`${models()}/${anthropicId}`, { api_key: wrongKey })).status).toBe(200);
    const refused = await owner.post(`${models()}/${anthropicId}/test`, {});
    expect(refused.body.data).toMatchObject({ ok: false, status: 401 });
    expect(refused.body.data.message).toMatch(/^The provider refused the key \(HTTP 401\)/);
    expect(refused.body.data.message).toContain('invalid x-api-key');
    expect(refused.text).not.toContain(wrongKey);
    expect((await owner.patch(`${models()}/${anthropicId}`, { api_key: ANTHROPIC_KEY })).status).toBe(200);

    // An OpenAI-compatible server: an unknown model is said plainly; the known one chats and embeds.
    const compatible = await owner.post(models(), { name: 'Own server', kind: 'openai', base_url: own.baseUrl, model: 'no-such-model', api_key: OWN_KEY });
    const unknown = await owner.post(`${models()}/${compatible.body.data.id}/test`, { use: 'chat' });
    expect(unknown.body.data).toMatchObject({ ok: false, status: 404, message: expect.stringMatching(/does not know this model/) });
    expect(unknown.body.data.message).toBe('The provider does not know this model, or the base URL is wrong (HTTP 404): 404 The model `no-such-model` does not exist or you do not have access to it.');
    expect((await owner.patch(`${models()}/${compatible.body.data.id}`, { model: 'own-chat' })).status).toBe(200);
    const chatTest = await owner.post(`${models()}/${compatible.body.data.id}/test`, { use: 'chat' });
    expect([chatTest.status, chatTest.text]).toEqual([200, expect.stringContaining('"ok":true')]);
    expect((await owner.post(`${models()}/${compatible.body.data.id}/test`, { use: 'embeddings' })).body.data).toMatchObject({ ok: true, message: expect.stringMatching(/embeds into \d+ dimensions/) });
    expect(own.requests.filter((r) => r.status === 200).every((r) => r.headers['authorization'] === `Bearer ${OWN_KEY}`)).toBe(true);
    expect((await owner.post(`${models()}/${anthropicId}/test`, { use: 'embeddings' })).body.data).toMatchObject({ ok: false, message: expect.stringMatching(/Anthropic has no embeddings API/) });
  });

  it('a private address is blocked by the outbound guard before anything is sent', async () => {
    const inside = await owner.post(models(), { name: 'Inside', kind: 'ollama', base_url: 'http://10.20.30.40:11434', model: 'llama3.2' });
    expect(inside.status).toBe(201);
    const res = await owner.post(`${models()}/${inside.body.data.id}/test`, {});
    expect(res.body.data).toMatchObject({ ok: false, status: null });
    expect(res.body.data.message).toMatch(/^Blocked by the outbound policy: .*OUTBOUND_ALLOW_CIDRS/);
    expect((await owner.delete(`${models()}/${inside.body.data.id}`)).status).toBe(204);
  });

  it("a bot answers through its own connection at its temperature while another uses the installation's model", async () => {
    const behaviour = (bot: string) => `/api/workspaces/${ws.id}/bots/${bot}/behaviour`;
    expect((await owner.patch(behaviour(botA), { model_connection_id: anthropicId, temperature: 0.3 })).body.data).toMatchObject({ model_connection_id: anthropicId, temperature: 0.3 });
    const before = claude.requests.length;
    const a = await chat(botA, 'How much is the premium heater?', 'models-a');
    expect(a.status).toBe(200);
    expect(a.text).toBe('Claude: the heater costs 900 dollars.');
    expect(a.finishReason).toBe('stop');
    const sent = claude.requests.slice(before).find((r) => r.path === '/v1/messages')!;
    expect(sent.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent.headers['anthropic-version']).toEqual(expect.any(String));
    expect(sent.body).toMatchObject({ model: 'claude-haiku-4-5', temperature: 0.3, stream: true });
    expect(questionOf(sent.body)).toBe('How much is the premium heater?');
    expect(JSON.stringify(sent.body.system)).toContain('Answer only from the numbered knowledge passages below.');
    expect(JSON.stringify(sent.body.system)).toContain('900 dollars');
    // Tokens from Anthropic's usage report.
    const usage = anthropicStandInUsage(sent.body, ['Claude: ', 'the heater ', 'costs 900 dollars.']);
    const stored = await db.query(`SELECT prompt_tokens, completion_tokens FROM chat.messages WHERE tenant_id = $1 AND session_id = 'models-a' AND role = 'assistant'`, [ws.id]);
    expect(stored.rows).toEqual([{ prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens }]);

    const houseBefore = house.requests.length;
    const b = await chat(botB, 'How much is the premium heater?', 'models-b');
    expect(b.text).toBe('House model: the heater costs 900 dollars.');
    expect(house.requests.length).toBe(houseBefore + 1);
    expect(house.requests.at(-1)!.body.temperature).toBe(0.2);
    expect((await owner.get(models())).body.data.find((c: { id: string }) => c.id === anthropicId).bots).toBe(1);
  });

  it('a provider that fails before answering ends the stream with an error: nothing is stored or counted', async () => {
    expect((await owner.patch(`${models()}/${anthropicId}`, { model: 'claude-retired' })).status).toBe(200);
    const used = await messagesUsed();
    const res = await chat(botA, 'How much is the premium heater?', 'models-fail');
    expect(res.status).toBe(200);
    expect(res.finishReason).toBe('error');
    expect(res.frames.at(-1).error).toEqual({ code: 'service_unavailable', message: "The bot's model is unavailable; nothing was stored or counted" });
    expect(await messagesUsed()).toBe(used);
    expect((await db.query(`SELECT count(*)::int AS n FROM chat.messages WHERE tenant_id = $1 AND session_id = 'models-fail'`, [ws.id])).rows[0].n).toBe(0);
    expect((await owner.patch(`${models()}/${anthropicId}`, { model: 'claude-haiku-4-5' })).status).toBe(200);
    expect((await chat(botA, 'How much is the premium heater?', 'models-back')).text).toBe('Claude: the heater costs 900 dollars.');
  });

  it('members read the connections and may not change, test or delete them; another workspace cannot see them', async () => {
    expect((await member.get(models())).status).toBe(200);
    expect((await member.post(models(), { name: 'Mine', kind: 'ollama', model: 'llama3.2' })).status).toBe(403);
    expect((await member.patch(`${models()}/${anthropicId}`, { name: 'Mine' })).status).toBe(403);
    expect((await member.post(`${models()}/${anthropicId}/test`, {})).status).toBe(403);
    expect((await member.delete(`${models()}/${anthropicId}`)).status).toBe(403);
    const other = await workspaceWithPeople(sys, 'Other models', { owner: 'oscar.owner@models.example', member: 'milo.member@models.example', password: PASSWORD });
    expect((await other.owner.post(`/api/workspaces/${other.ws.id}/models/${anthropicId}/test`, {})).status).toBe(404);
    const behaviour = await other.owner.patch(`/api/workspaces/${other.ws.id}/bots/${botA}/behaviour`, { model_connection_id: anthropicId });
    expect(behaviour.status).toBe(404);
  });

  it('the key is in no log, no audit entry and no column in plain text', async () => {
    const audit = await owner.get(`/api/workspaces/${ws.id}/audit`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['model.connection_created', 'model.connection_updated', 'model.connection_tested']));
    const dump = await db.query(`SELECT row_to_json(c)::text AS row FROM bots.model_connections c`);
    expect(dump.rows.length).toBeGreaterThan(0);
    for (const { row } of dump.rows) {
      expect(row).not.toContain(ANTHROPIC_KEY);
      expect(row).not.toContain(OWN_KEY);
    }
    // Every text column of every table of the database.
    const columns = await db.query(`SELECT table_schema, table_name, column_name FROM information_schema.columns
      WHERE data_type IN ('text', 'character varying', 'jsonb', 'json') AND table_schema NOT IN ('pg_catalog', 'information_schema')`);
    for (const c of columns.rows) {
      const hit = await db.query(`SELECT 1 FROM "${c.table_schema}"."${c.table_name}" WHERE "${c.column_name}"::text LIKE $1 OR "${c.column_name}"::text LIKE $2 LIMIT 1`, [`%${ANTHROPIC_KEY}%`, `%${OWN_KEY}%`]);
      expect([`${c.table_schema}.${c.table_name}.${c.column_name}`, hit.rowCount]).toEqual([`${c.table_schema}.${c.table_name}.${c.column_name}`, 0]);
    }
    for (const [name, app] of sys.mini.apps) {
      const log = app.logFile ? fs.readFileSync(app.logFile, 'utf8') : app.stderrTail();
      expect([name, log.includes(ANTHROPIC_KEY) || log.includes(OWN_KEY)]).toEqual([name, false]);
    }
  });

  it('switching the embedding model re-embeds the knowledge in the background while chat keeps answering from the old index', async () => {
    const embedding = `/api/workspaces/${ws.id}/embedding`;
    const start = (await owner.get(embedding)).body.data;
    expect(start).toMatchObject({ connection_id: null, status: 'ready', embedder: expect.stringMatching(/^hashing:/) });
    for (const [title, text] of [
      ['Warranty', 'Every heater has a ten year warranty on the tank and two years on the electronics.'],
      ['Opening hours', 'The showroom is open Monday to Friday from 9 to 17 and on Saturday morning.'],
      ['Delivery', 'Delivery within the city is free; elsewhere it costs 40 dollars.'],
    ]) {
      expect((await request('POST', '/kb/ingest', { title, text }, { token, baseUrl: sys.apiUrl })).status).toBe(202);
    }
    await waitFor(async () => (await request('GET', '/kb', undefined, { token, baseUrl: sys.apiUrl })).body.data, (d: { status: string }[]) => d.length === 4 && d.every((x) => x.status === 'ready'), 60000, 250);
    const embedder = await owner.post(models(), { name: 'Embedder', kind: 'openai', base_url: own.baseUrl, model: 'own-chat', api_key: OWN_KEY });
    expect(embedder.status).toBe(201);
    expect((await member.request('PUT', embedding, { connection_id: embedder.body.data.id })).status).toBe(403);
    expect((await owner.request('PUT', embedding, { connection_id: anthropicId })).status).toBe(400);

    own.embedDelayMs = 1500;
    const switched = await owner.request('PUT', embedding, { connection_id: embedder.body.data.id });
    expect(switched.status).toBe(200);
    expect(switched.body.data).toMatchObject({ status: 'reindexing', target_connection_id: embedder.body.data.id, total: 4 });
    // While the new index fills, the old one answers.
    const during = await waitFor(() => owner.get(embedding), (r) => r.body.data.status === 'reindexing' && r.body.data.done < r.body.data.total, 20000, 100);
    expect(during.body.data.embedder).toBe(start.embedder);
    const houseBefore = house.requests.length;
    const answer = await chat(botB, 'How much is the premium heater?', 'models-reindexing');
    expect(answer.text).toBe('House model: the heater costs 900 dollars.');
    expect(JSON.stringify(house.requests.slice(houseBefore).at(-1)!.body.messages[0])).toContain('900 dollars');
    expect((await owner.delete(`${models()}/${embedder.body.data.id}`)).status).toBe(409);

    own.embedDelayMs = 0;
    const done = await waitFor(() => owner.get(embedding), (r) => r.body.data.status === 'ready', 60000, 250);
    expect(done.body.data).toMatchObject({ connection_id: embedder.body.data.id, target_connection_id: null, done: 4, total: 4, error: null });
    expect(done.body.data.embedder).not.toBe(start.embedder);
    const embedRequests = own.requests.filter((r) => r.path === '/v1/embeddings');
    expect(embedRequests.length).toBeGreaterThan(0);
    expect(embedRequests.every((r) => r.headers['authorization'] === `Bearer ${OWN_KEY}`)).toBe(true);
    // The question is now embedded by the new model, and the answer still has its passage.
    const before = own.requests.length;
    const after = await chat(botB, 'How much is the premium heater?', 'models-reindexed');
    expect(after.text).toBe('House model: the heater costs 900 dollars.');
    expect(own.requests.slice(before).some((r) => r.path === '/v1/embeddings' && JSON.stringify(r.body.input).includes('premium heater'))).toBe(true);
    expect(JSON.stringify(house.requests.at(-1)!.body.messages[0])).toContain('900 dollars');
    expect((await owner.get(models())).body.data.find((c: { id: string }) => c.id === embedder.body.data.id).embeddings).toBe(true);
    // Another model on the same connection would be another index: refused; a new key is fine.
    expect((await owner.patch(`${models()}/${embedder.body.data.id}`, { model: 'other-embed' })).status).toBe(409);
    expect((await owner.patch(`${models()}/${embedder.body.data.id}`, { api_key: OWN_KEY })).status).toBe(200);
  });

  describe('in Chromium', () => {
    const br = useBrowser();

    it('an owner adds a connection on the Models page, tests it (a 401 is said plainly), and gives it to a bot', async () => {
      const page = br.page();
      await signInPage(page, OWNER, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${ws.id}/bots`);
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Models', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
      const add = page.getByRole('form', { name: 'Add a connection' });
      await add.getByLabel('Provider').selectOption({ label: 'Anthropic' });
      await add.getByLabel('Name').fill('Claude in the browser');
      await add.getByLabel('Base URL').fill(claude.baseUrl);
      await add.getByLabel('Model', { exact: true }).fill('claude-haiku-4-5');
      const key = add.getByLabel('API key');
      expect(await key.getAttribute('type')).toBe('password');
      await key.fill('sk-ant-e2e-typo-in-the-key-99');
      await add.getByRole('button', { name: 'Add connection' }).click();
      await add.getByRole('status').filter({ hasText: 'Connection “Claude in the browser” added.' }).waitFor();
      expect(await key.inputValue()).toBe('');
      const row = page.getByRole('row', { name: /Claude in the browser/ });
      await row.getByRole('button', { name: 'Test connection' }).click();
      const refused = row.getByRole('alert');
      await refused.waitFor({ timeout: 20000 });
      expect(await refused.textContent()).toMatch(/The provider refused the key \(HTTP 401\): .*invalid x-api-key/);
      expect(await page.content()).not.toContain('sk-ant-e2e-typo-in-the-key-99');

      await row.getByRole('button', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('New key').fill(ANTHROPIC_KEY);
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.waitFor({ state: 'detached' });
      await row.getByRole('button', { name: 'Test connection' }).click();
      const ok = row.getByRole('status');
      await ok.waitFor({ timeout: 20000 });
      expect(await ok.textContent()).toContain('Connected');
      await expectNoSeriousAxeViolations(page);
      await screenshot(page, 'models');
      expect(await page.content()).not.toContain(ANTHROPIC_KEY);

      // The bot's Behaviour: its model and temperature.
      await page.goto(`${sys.consoleUrl}/w/${ws.id}/bots/${botB}`);
      const form = page.getByRole('form', { name: 'Behaviour' });
      await form.getByLabel('Model', { exact: true }).selectOption({ label: 'Claude in the browser (Anthropic, claude-haiku-4-5)' });
      await form.getByLabel('Temperature').fill('0.7');
      await form.getByRole('button', { name: 'Save behaviour' }).click();
      await form.getByText('Behaviour saved.').waitFor();
      await expectNoSeriousAxeViolations(page);
      const saved = (await owner.get(`/api/workspaces/${ws.id}/bots/${botB}/behaviour`)).body.data;
      expect(saved).toMatchObject({ temperature: 0.7, model_connection_id: expect.any(String) });
      const res = await chat(botB, 'How much is the premium heater?', 'models-browser');
      expect(res.text).toBe('Claude: the heater costs 900 dollars.');
      expect(claude.requests.at(-1)!.body.temperature).toBe(0.7);
      expect((await owner.patch(`/api/workspaces/${ws.id}/bots/${botB}/behaviour`, { model_connection_id: null, temperature: null })).status).toBe(200);
    });

    it('an owner switches the embedding model on the Models page and watches the re-embedding', async () => {
      const second = await owner.post(models(), { name: 'Second embedder', kind: 'openai', base_url: own.baseUrl, model: 'own-chat', api_key: OWN_KEY });
      expect(second.status).toBe(201);
      own.embedDelayMs = 1500;
      const page = br.page();
      await signInPage(page, OWNER, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${ws.id}/models`);
      await page.getByRole('combobox', { name: 'Embedding model' }).selectOption({ label: 'Second embedder (OpenAI-compatible, own-chat)' });
      await page.getByRole('button', { name: 'Switch embedding model' }).click();
      const progress = page.getByRole('progressbar', { name: /^Re-embedding: \d of 4 documents$/ });
      await progress.waitFor({ timeout: 20000 });
      await page.getByText('The old index keeps answering until the new one is complete.').waitFor();
      await expectNoSeriousAxeViolations(page);
      await screenshot(page, 'models-reembedding');
      own.embedDelayMs = 0;
      await page.getByText(/Re-embedding complete/).waitFor({ timeout: 60000 });
      expect((await owner.get(`/api/workspaces/${ws.id}/embedding`)).body.data).toMatchObject({ connection_id: second.body.data.id, status: 'ready', done: 4, total: 4 });
    });

    it('a member sees the Models page read-only', async () => {
      const page = br.page();
      await signInPage(page, MEMBER, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${ws.id}/models`);
      await page.getByText('Owners and admins change models. You can see them here.').waitFor();
      await page.getByRole('row', { name: /Claude in the browser/ }).waitFor();
      expect(await page.getByRole('form', { name: 'Add a connection' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Test connection' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
      await expectNoSeriousAxeViolations(page);
      await screenshot(page, 'models-member');
    });
  });

  it("deleting a connection puts its bots back on the installation's model", async () => {
    expect((await owner.delete(`${models()}/${anthropicId}`)).status).toBe(204);
    expect((await owner.get(`/api/workspaces/${ws.id}/bots/${botA}/behaviour`)).body.data).toMatchObject({ model_connection_id: null, temperature: 0.3 });
    const res = await chat(botA, 'How much is the premium heater?', 'models-after');
    expect(res.text).toBe('House model: the heater costs 900 dollars.');
    expect(house.requests.at(-1)!.body.temperature).toBe(0.3);
    expect((await owner.delete(`${models()}/${anthropicId}`)).status).toBe(404);
  });
});
