import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { Client } from 'pg';
import { CHANNEL_FIELDS, CHANNEL_KINDS, CHANNEL_WEBHOOK_PATH, ChannelKind } from '@sa/contracts';
import { SecretBox } from '@sa/secret-box';
import { expectNoSeriousAxeViolations, SCREENSHOT_DIR, useBrowser } from './support/browser';
import { waitFor } from './support/apps';
import { ConsoleClient, signInPage } from './support/console';
import { ConsoleSystem, PeopleOfWorkspace, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { e2eState } from './support/state';

/**
 * The console's channel connections of a bot (issue 35) against a system of its own (gateway,
 * bots, chat, channels, console). Over the API: an owner adds a Telegram connection; its
 * credentials are in no answer (`secrets_set` names them), sealed in the database, in no other
 * column, audit entry or log; it is `pending` with its webhook URL on the gateway's public origin;
 * a name, the enabled flag and one credential change (the other stays); members read and are
 * refused every change (403); admins change; bad bodies and ids are 400, another bot's connection
 * 404; every change is audit-logged with the kind, the name and the credentials' names only.
 * Then the section in Chromium: the Add channel dialog asks for exactly the contract's fields of
 * each kind (credentials as password inputs, required ones required); an owner adds a Telegram
 * connection, sees it pending with its webhook URL (Copy puts it on the clipboard), edits its name
 * (credential inputs empty, "stored — leave empty to keep"); the credentials are never in the page;
 * axe clean; docs/screenshots/console-bot-channels.png; a member sees it without a control; the
 * owner deletes it after confirming.
 */
const PASSWORD = 'correct horse battery staple';
const OWNER = 'olga.owner@channels.example';
const MEMBER = 'mia.member@channels.example';
const ADMIN = 'adam.admin@channels.example';
// Made-up credentials of the shapes Telegram uses (a bot token "<bot id>:<35 characters>"; a secret_token of A-Z, a-z, 0-9, _ and -).
const BOT_TOKEN = '7012345678:AAHe2eBotTokenQv9mZr4TnW8yB1cD3fG5hJ';
const WEBHOOK_SECRET = 'e2e_webhook_secret_4c1d9a7e3b2f6058';
const NEW_WEBHOOK_SECRET = 'e2e_rotated_secret_91b0c2d7e6a54f38';
const UI_BOT_TOKEN = '7012345679:AAHuiBotTokenXk2pLm7sQw3eRt6yUi8oPa';
const UI_WEBHOOK_SECRET = 'ui_webhook_secret_0f9e8d7c6b5a4321';
const SECRETS = [BOT_TOKEN, WEBHOOK_SECRET, NEW_WEBHOOK_SECRET, UI_BOT_TOKEN, UI_WEBHOOK_SECRET];
const PUBLIC_URL = 'https://support.example.test';

type Entry = { action: string; target_id: string; details: Record<string, unknown> };

describe('console: channel connections of a bot (issue 35)', () => {
  let sys: ConsoleSystem;
  let db: Client;
  let a: PeopleOfWorkspace;
  let admin: ConsoleClient;
  let bot: string;
  let otherBot: string;
  let apiConnection: string;
  const channels = (suffix = '', botId = bot) => `/api/workspaces/${a.ws.id}/bots/${botId}/channels${suffix}`;

  beforeAll(async () => {
    sys = await startConsoleSystem({ GATEWAY_PUBLIC_URL: PUBLIC_URL }, { apps: ['gateway', 'bots', 'chat', 'channels', 'console'] });
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    a = await workspaceWithPeople(sys, 'Acme Channels', { owner: OWNER, member: MEMBER, password: PASSWORD });
    await sys.admin(['user', 'create', '--workspace', a.ws.id, '--email', ADMIN, '--role', 'admin', '--password-stdin'], `${PASSWORD}\n`);
    admin = new ConsoleClient(sys.consoleUrl);
    expect((await admin.signIn(ADMIN, PASSWORD)).status).toBe(200);
    for (const name of ['Help desk', 'Sales desk']) {
      const created = await a.owner.post(`/api/workspaces/${a.ws.id}/bots`, { name, language: 'en' });
      expect(created.status).toBe(201);
      if (name === 'Help desk') bot = created.body.data.id;
      else otherBot = created.body.data.id;
    }
  }, 180000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
  });

  it('an owner adds a Telegram connection: pending, its webhook URL, the credentials named but in no answer and sealed in the database', async () => {
    const created = await a.owner.post(channels(), { kind: 'telegram', name: 'Support on Telegram', secrets: { bot_token: BOT_TOKEN, webhook_secret: WEBHOOK_SECRET } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toEqual({
      id: expect.any(String),
      bot_id: bot,
      kind: 'telegram',
      name: 'Support on Telegram',
      settings: {},
      secrets_set: ['bot_token', 'webhook_secret'],
      enabled: true,
      status: 'pending',
      last_error: null,
      last_error_at: null,
      last_inbound_at: null,
      last_outbound_at: null,
      webhook_url: `${PUBLIC_URL}${CHANNEL_WEBHOOK_PATH}/telegram/${id}`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    for (const secret of SECRETS) expect(created.text).not.toContain(secret);
    apiConnection = id;

    const listed = await a.owner.get(channels());
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([created.body.data]);
    for (const secret of SECRETS) expect(listed.text).not.toContain(secret);
    // Another bot of the workspace has none.
    expect((await a.owner.get(channels('', otherBot))).body.data).toEqual([]);

    // Stored sealed with the installation's key, each credential on its own.
    const { rows } = await db.query(`SELECT secrets FROM channels.connections WHERE id = $1`, [id]);
    const box = new SecretBox(Buffer.from(e2eState().env['WEBHOOK_SECRET_KEY']!, 'hex'));
    expect(JSON.stringify(rows[0].secrets)).not.toContain(BOT_TOKEN);
    expect(box.open(rows[0].secrets.bot_token)).toBe(BOT_TOKEN);
    expect(box.open(rows[0].secrets.webhook_secret)).toBe(WEBHOOK_SECRET);
  });

  it('changes the name, turns it off and on, replaces one credential (the other stays); no answer carries a credential', async () => {
    const renamed = await a.owner.patch(channels(`/${apiConnection}`), { name: 'Telegram help' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Telegram help', secrets_set: ['bot_token', 'webhook_secret'], enabled: true, status: 'pending' });

    const off = await a.owner.patch(channels(`/${apiConnection}`), { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ enabled: false, status: 'disabled' });
    const on = await admin.patch(channels(`/${apiConnection}`), { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ enabled: true, status: 'pending' });

    const rotated = await a.owner.patch(channels(`/${apiConnection}`), { secrets: { webhook_secret: NEW_WEBHOOK_SECRET } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secrets_set).toEqual(['bot_token', 'webhook_secret']);
    for (const res of [renamed, off, on, rotated]) for (const secret of SECRETS) expect(res.text).not.toContain(secret);
    const { rows } = await db.query(`SELECT secrets FROM channels.connections WHERE id = $1`, [apiConnection]);
    const box = new SecretBox(Buffer.from(e2eState().env['WEBHOOK_SECRET_KEY']!, 'hex'));
    expect(box.open(rows[0].secrets.webhook_secret)).toBe(NEW_WEBHOOK_SECRET);
    expect(box.open(rows[0].secrets.bot_token)).toBe(BOT_TOKEN);
  });

  it('refuses bad bodies and ids (400), another bot’s connection (404), and every change by a member (403), who reads', async () => {
    for (const body of [
      {},
      { kind: 'fax' },
      { kind: 'telegram', secrets: { bot_token: BOT_TOKEN, webhook_secret: WEBHOOK_SECRET }, extra: true },
      { kind: 'telegram', name: '', secrets: { bot_token: BOT_TOKEN, webhook_secret: WEBHOOK_SECRET } },
      { kind: 'telegram', name: 'x'.repeat(81), secrets: { bot_token: BOT_TOKEN, webhook_secret: WEBHOOK_SECRET } },
      { kind: 'telegram', secrets: { bot_token: 12345, webhook_secret: WEBHOOK_SECRET } },
      { kind: 'telegram', secrets: 'not an object' },
      // The kind's rules: a required credential missing, a setting or credential it does not take.
      { kind: 'telegram', secrets: { bot_token: BOT_TOKEN } },
      { kind: 'telegram', settings: { imap_host: 'mail.example.com' }, secrets: { bot_token: BOT_TOKEN, webhook_secret: WEBHOOK_SECRET } },
      { kind: 'telegram', secrets: { bot_token: BOT_TOKEN, webhook_secret: WEBHOOK_SECRET, access_token: 'nope' } },
    ]) {
      const res = await a.owner.post(channels(), body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      for (const secret of SECRETS) expect(res.text).not.toContain(secret);
    }
    expect((await a.owner.patch(channels(`/${apiConnection}`), { enabled: 'yes' })).status).toBe(400);
    expect((await a.owner.patch(channels(`/${apiConnection}`), { kind: 'slack' })).status).toBe(400);
    expect((await a.owner.patch(channels('/not-a-uuid'), { name: 'x' })).status).toBe(400);
    expect((await a.owner.post(channels('', 'not-a-uuid'), { kind: 'telegram' })).status).toBe(400);
    // The connection is not the other bot's.
    expect((await a.owner.patch(channels(`/${apiConnection}`, otherBot), { name: 'Moved' })).status).toBe(404);
    expect((await a.owner.delete(channels(`/${apiConnection}`, otherBot))).status).toBe(404);

    const read = await a.member.get(channels());
    expect(read.status).toBe(200);
    expect(read.body.data.map((c: { name: string }) => c.name)).toEqual(['Telegram help']);
    expect((await a.member.post(channels(), { kind: 'telegram', secrets: { bot_token: BOT_TOKEN, webhook_secret: WEBHOOK_SECRET } })).status).toBe(403);
    expect((await a.member.patch(channels(`/${apiConnection}`), { name: 'By a member' })).status).toBe(403);
    expect((await a.member.delete(channels(`/${apiConnection}`))).status).toBe(403);
    // Writes need the CSRF token.
    expect((await a.owner.request('PATCH', channels(`/${apiConnection}`), { name: 'No csrf' }, { csrf: null })).status).toBe(403);
    expect((await a.owner.get(channels())).body.data[0].name).toBe('Telegram help');
  });

  it('an admin deletes it; every change is audit-logged with the kind, the name and the credentials’ names; no credential is in an audit entry, a column or a log', async () => {
    expect((await admin.delete(channels(`/${apiConnection}`))).status).toBe(204);
    expect((await a.owner.get(channels())).body.data).toEqual([]);
    expect((await admin.delete(channels(`/${apiConnection}`))).status).toBe(404);

    const audit = await a.owner.get(`/api/workspaces/${a.ws.id}/audit?limit=100`);
    expect(audit.status).toBe(200);
    const ours = (audit.body.data as Entry[]).filter((e) => e.target_id === apiConnection).reverse();
    expect(ours.map((e) => e.action)).toEqual(['channel.created', 'channel.updated', 'channel.updated', 'channel.updated', 'channel.updated', 'channel.deleted']);
    expect(ours[0]!.details).toEqual({ bot_id: bot, kind: 'telegram', name: 'Support on Telegram', secrets_set: ['bot_token', 'webhook_secret'] });
    expect(ours[1]!.details).toEqual({ bot_id: bot, kind: 'telegram', name: 'Telegram help', changed: ['name'] });
    expect(ours[2]!.details).toEqual({ bot_id: bot, kind: 'telegram', name: 'Telegram help', changed: ['enabled'], enabled: false });
    expect(ours[4]!.details).toEqual({ bot_id: bot, kind: 'telegram', name: 'Telegram help', changed: ['secrets'], secrets_changed: ['webhook_secret'] });
    expect(ours[5]!.details).toEqual({ bot_id: bot, kind: 'telegram', name: 'Telegram help' });
    for (const secret of SECRETS) expect(audit.text).not.toContain(secret);

    const columns = await db.query(`SELECT table_schema, table_name, column_name FROM information_schema.columns
      WHERE data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY') AND table_schema NOT IN ('pg_catalog', 'information_schema')`);
    for (const c of columns.rows) {
      for (const secret of [BOT_TOKEN, WEBHOOK_SECRET, NEW_WEBHOOK_SECRET]) {
        const hit = await db.query(`SELECT 1 FROM "${c.table_schema}"."${c.table_name}" WHERE "${c.column_name}"::text LIKE $1 LIMIT 1`, [`%${secret}%`]);
        expect([`${c.table_schema}.${c.table_name}.${c.column_name}`, hit.rowCount]).toEqual([`${c.table_schema}.${c.table_name}.${c.column_name}`, 0]);
      }
    }
    for (const [name, app] of sys.mini.apps) {
      const log = app.logFile ? fs.readFileSync(app.logFile, 'utf8') : app.stderrTail();
      expect([name, SECRETS.filter((secret) => log.includes(secret))]).toEqual([name, []]);
    }
  });

  describe('the section in Chromium', () => {
    const br = useBrowser();

    async function openSection(page: Page, email: string): Promise<Locator> {
      await signInPage(page, email, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${a.ws.id}/bots/${bot}`);
      const section = page.getByRole('region', { name: 'Channels', exact: true });
      await section.getByRole('heading', { name: 'Channels', level: 2 }).waitFor();
      await section.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
      return section;
    }

    /** The inputs of the Add channel dialog besides Name: [name attribute, type, required]. */
    async function kindInputs(dialog: Locator): Promise<[string, string, boolean][]> {
      return dialog.locator('input:not([name="name"])').evaluateAll((els) => (els as unknown as { name: string; type: string; required: boolean }[]).map((e) => [e.name, e.type, e.required] as [string, string, boolean]));
    }

    const LABELS: Record<ChannelKind, string> = { email: 'E-mail', whatsapp: 'WhatsApp', telegram: 'Telegram', slack: 'Slack' };

    it('the Add channel dialog asks for exactly the contract’s settings and credentials of each kind', async () => {
      const page = br.page();
      const section = await openSection(page, OWNER);
      await section.getByRole('button', { name: 'Add channel' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add channel' });
      const kind = dialog.getByLabel('Kind', { exact: true });
      expect(await kind.locator('option').allTextContents()).toEqual(CHANNEL_KINDS.map((k) => LABELS[k]));
      for (const k of CHANNEL_KINDS) {
        await kind.selectOption({ label: LABELS[k] });
        const wanted: [string, string, boolean][] = [
          ...CHANNEL_FIELDS[k].settings.map((s): [string, string, boolean] => [s.replace(/\?$/, ''), s.endsWith('_port') || s.endsWith('_port?') ? 'number' : 'text', !s.endsWith('?')]),
          ...CHANNEL_FIELDS[k].secrets.map((s): [string, string, boolean] => [s.replace(/\?$/, ''), 'password', !s.endsWith('?')]),
        ];
        await waitFor(() => kindInputs(dialog), (got) => JSON.stringify(got) === JSON.stringify(wanted), 5000).catch(async () => {
          expect([k, await kindInputs(dialog)]).toEqual([k, wanted]);
        });
        // Every input has a label; the optional ones say so.
        for (const [name, , required] of wanted) {
          const label = await dialog.locator(`input[name="${name}"]`).evaluate((e) => (e as unknown as { labels: ArrayLike<{ textContent: string | null }> | null }).labels?.[0]?.textContent ?? '');
          expect([k, name, label.length > 0, label.endsWith('(optional)')]).toEqual([k, name, true, !required]);
        }
      }
      await kind.selectOption({ label: 'E-mail' });
      await expectNoSeriousAxeViolations(page, 'the Add channel dialog (e-mail)');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    });

    it('an owner adds a Telegram channel: pending with its webhook URL, copied; edits its name with the credentials kept; never shown; axe clean; the screenshot', async () => {
      const page = br.page();
      await br.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sys.consoleUrl });
      const section = await openSection(page, OWNER);
      await section.getByText('No channels yet.').waitFor();
      await section.getByRole('button', { name: 'Add channel' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add channel' });
      await dialog.getByLabel('Kind', { exact: true }).selectOption({ label: 'Telegram' });
      await dialog.getByRole('textbox', { name: /^Name/ }).fill('Telegram support');
      await dialog.getByLabel(/^Bot token/).fill(UI_BOT_TOKEN);
      await dialog.getByLabel(/^Webhook secret/).fill(UI_WEBHOOK_SECRET);
      await expectNoSeriousAxeViolations(page, 'the Add channel dialog (Telegram)');
      // Keyboard: Enter in the last input submits the form.
      await dialog.getByLabel(/^Webhook secret/).press('Enter');
      await dialog.waitFor({ state: 'detached' });

      const card = section.getByRole('region', { name: 'Telegram support', exact: true });
      await card.waitFor({ timeout: 10000 });
      const id = (await a.owner.get(channels())).body.data.find((c: { name: string }) => c.name === 'Telegram support').id as string;
      await card.getByText('Pending', { exact: true }).waitFor();
      const url = `${PUBLIC_URL}${CHANNEL_WEBHOOK_PATH}/telegram/${id}`;
      expect(await card.getByLabel('Webhook URL', { exact: true }).inputValue()).toBe(url);
      await card.getByRole('button', { name: 'Copy webhook URL' }).click();
      await card.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(url);
      await card.getByText('Bot token, Webhook secret (stored, never shown)').waitFor();
      for (const secret of SECRETS) expect(await page.content()).not.toContain(secret);

      await card.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit the channel “Telegram support”' });
      const name = edit.getByRole('textbox', { name: 'Name', exact: true });
      expect(await name.inputValue()).toBe('Telegram support');
      for (const label of [/^Bot token/, /^Webhook secret/]) {
        const input = edit.getByLabel(label);
        expect([await input.inputValue(), await input.getAttribute('placeholder'), await input.getAttribute('type')]).toEqual(['', 'stored — leave empty to keep', 'password']);
      }
      expect(await edit.getByRole('checkbox', { name: 'Enabled' }).isChecked()).toBe(true);
      await expectNoSeriousAxeViolations(page, 'the Edit channel dialog');
      await name.fill('Telegram desk');
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.waitFor({ state: 'detached' });
      await section.getByRole('region', { name: 'Telegram desk', exact: true }).waitFor();
      const saved = (await a.owner.get(channels())).body.data.find((c: { id: string }) => c.id === id);
      expect(saved).toMatchObject({ name: 'Telegram desk', secrets_set: ['bot_token', 'webhook_secret'], status: 'pending' });
      const { rows } = await db.query(`SELECT secrets FROM channels.connections WHERE id = $1`, [id]);
      const box = new SecretBox(Buffer.from(e2eState().env['WEBHOOK_SECRET_KEY']!, 'hex'));
      expect(box.open(rows[0].secrets.bot_token)).toBe(UI_BOT_TOKEN);
      for (const secret of SECRETS) expect(await page.content()).not.toContain(secret);
      await expectNoSeriousAxeViolations(page, 'the Channels section');

      await page.waitForTimeout(100);
      const area = (await section.boundingBox())!;
      const scrollY = (await page.evaluate('window.scrollY')) as number;
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({
        path: path.join(process.env['SCREENSHOT_DIR'] || SCREENSHOT_DIR, 'console-bot-channels.png'),
        fullPage: true,
        clip: { x: 0, y: Math.max(0, area.y + scrollY - 2), width: 1280, height: Math.ceil(area.height + 18) },
        animations: 'disabled',
        caret: 'hide',
      });
    });

    it('a member sees the channel, its status and webhook URL, without any control', async () => {
      const page = br.page();
      const section = await openSection(page, MEMBER);
      const card = section.getByRole('region', { name: 'Telegram desk', exact: true });
      await card.getByText('Pending', { exact: true }).waitFor();
      expect(await card.getByLabel('Webhook URL', { exact: true }).inputValue()).toMatch(new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}${CHANNEL_WEBHOOK_PATH}/telegram/`));
      for (const button of ['Add channel', 'Edit', 'Delete']) expect([button, await section.getByRole('button', { name: button }).count()]).toEqual([button, 0]);
      await expectNoSeriousAxeViolations(page, 'the Channels section (member)');
    });

    it('an owner deletes the channel after confirming', async () => {
      const page = br.page();
      const section = await openSection(page, OWNER);
      const card = section.getByRole('region', { name: 'Telegram desk', exact: true });
      await card.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Delete the channel “Telegram desk”?' });
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      expect((await a.owner.get(channels())).body.data).toHaveLength(1);
      await card.getByRole('button', { name: 'Delete' }).click();
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await confirm.waitFor({ state: 'detached' });
      await section.getByText('No channels yet.').waitFor();
      expect((await a.owner.get(channels())).body.data).toEqual([]);
    });
  });
});
