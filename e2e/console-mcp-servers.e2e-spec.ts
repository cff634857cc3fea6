import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { Client } from 'pg';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { type LocalMcpServer, type LocalOAuthServer, startLocalMcpServer, startLocalOAuthServer } from '@sa/testing';
import { expectNoSeriousAxeViolations, SCREENSHOT_DIR, useBrowser } from './support/browser';
import { waitFor } from './support/apps';
import { ConsoleClient, signInPage } from './support/console';
import { ConsoleSystem, PeopleOfWorkspace, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { e2eState } from './support/state';

/**
 * The console's MCP servers of a bot (issue 34, item 3) against a system of its own (gateway,
 * bots, console) and a real MCP server on 127.0.0.1 built with the official SDK, over https with
 * a certificate of this run that the bots service trusts (NODE_EXTRA_CA_CERTS) and a bearer
 * token it checks. The outbound policy allows 127.0.0.1 and the server's port, as an operator
 * would allow an internal server. Shown: an owner adds the server and syncs its tools (defaults:
 * confirmation unless read-only); the token is in no answer, column, audit entry or log; flags
 * change and survive a sync; a server on a private address the policy refuses syncs to an error;
 * members read and are refused every change; admins change; every change is audit-logged. Then
 * the section in Chromium: an owner adds a server through the dialog and it syncs, switches a
 * flag, axe clean, docs/screenshots/console-bot-mcp-servers.png; a member sees no control.
 * OAuth as a client: a second SDK MCP server protected by a real authorization server
 * (oidc-provider: DCR, PKCE, introspection), both https with the run's certificate. Over the API:
 * Connect answers the authorization URL, the consent's Allow sends the browser to the console's
 * callback, which connects and syncs; a used, forged or another person's state is a 400 and
 * stores nothing. In Chromium: Add MCP server with OAuth, the authorization server's Allow, back
 * on the bot's page connected with the tools; axe clean; docs/screenshots/console-bot-mcp-oauth.png.
 */
const PASSWORD = 'correct horse battery staple';
const TOKEN = 'mcp-e2e-token-4c1d9a7e3b2f6058';
const ADMIN = 'adam.admin@mcp.example';

/** A self-signed certificate for 127.0.0.1 (openssl), or null without openssl. */
function selfSigned(dir: string): { key: string; cert: string; certFile: string } | null {
  const r = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) return null;
  return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'), certFile: path.join(dir, 'cert.pem') };
}

describe('console: MCP servers of a bot (issue 34, item 3)', () => {
  let sys: ConsoleSystem;
  let db: Client;
  let mcp: LocalMcpServer;
  let rs: LocalMcpServer;
  let as: LocalOAuthServer;
  let a: PeopleOfWorkspace;
  let admin: ConsoleClient;
  let bot: string;
  let serverId: string;
  let tmp: string;
  const servers = (suffix = '') => `/api/workspaces/${a.ws.id}/bots/${bot}/mcp-servers${suffix}`;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-mcp-e2e-'));
    const pair = selfSigned(tmp);
    if (!pair) throw new Error('openssl is needed for this suite (a certificate for the local MCP server)');
    mcp = await startLocalMcpServer({ token: TOKEN, tls: pair });
    rs = await startLocalMcpServer({ tls: pair });
    as = await startLocalOAuthServer({ resource: rs.url, tls: { keyFile: path.join(tmp, 'key.pem'), certFile: pair.certFile, cert: pair.cert } });
    rs.oauth = { authorizationServer: as.issuer, active: (t) => as.active(t) };
    sys = await startConsoleSystem({ NODE_EXTRA_CA_CERTS: pair.certFile }, { apps: ['gateway', 'bots', 'console'], allowPorts: [mcp.port, rs.port, as.port] });
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    a = await workspaceWithPeople(sys, 'Acme MCP', { owner: 'olga.owner@mcp.example', member: 'mia.member@mcp.example', password: PASSWORD });
    await sys.admin(['user', 'create', '--workspace', a.ws.id, '--email', ADMIN, '--role', 'admin', '--password-stdin'], `${PASSWORD}\n`);
    admin = new ConsoleClient(sys.consoleUrl);
    expect((await admin.signIn(ADMIN, PASSWORD)).status).toBe(200);
    const created = await a.owner.post(`/api/workspaces/${a.ws.id}/bots`, { name: 'Shop desk', language: 'en' });
    expect(created.status).toBe(201);
    bot = created.body.data.id;
  }, 180000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
    await mcp?.stop();
    await as?.stop();
    await rs?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an owner adds a server with a bearer token and syncs its tools; the token is in no answer and sealed in the database', async () => {
    const created = await a.owner.post(servers(), { name: 'shop', url: mcp.url, token: TOKEN });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      bot_id: bot,
      name: 'shop',
      url: mcp.url,
      auth: 'bearer',
      has_token: true,
      oauth: null,
      tools: [],
      skipped: [],
      last_synced_at: null,
      error: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.text).not.toContain(TOKEN);
    serverId = created.body.data.id;

    const synced = await a.owner.post(servers(`/${serverId}/sync`));
    expect(synced.status).toBe(200);
    expect(synced.text).not.toContain(TOKEN);
    expect(synced.body.data.error).toBeNull();
    expect(synced.body.data.tools.map((t: { model_name: string; confirm: boolean; enabled: boolean }) => [t.model_name, t.confirm, t.enabled])).toEqual([
      ['shop_order_status', false, true],
      ['shop_cancel_order', true, true],
      ['shop_echo_auth', true, true],
      ['shop_fail', true, true],
      ['shop_slow', true, true],
    ]);
    // The server saw the token on every request (it answers 401 otherwise).
    expect(mcp.seen.length).toBeGreaterThan(0);
    expect(mcp.seen.every((r) => r.headers['authorization'] === `Bearer ${TOKEN}`)).toBe(true);

    const { rows } = await db.query(`SELECT row_to_json(s)::text AS row, s.auth_sealed FROM bots.mcp_servers s WHERE s.id = $1`, [serverId]);
    expect(rows[0].row).not.toContain(TOKEN);
    const box = new SecretBox(Buffer.from(e2eState().env['WEBHOOK_SECRET_KEY']!, 'hex'));
    expect(JSON.parse(box.open(rows[0].auth_sealed))).toEqual({ type: 'bearer', token: TOKEN });
  });

  it('flags change per tool and survive the next sync; a name the server does not list is a 400', async () => {
    const changed = await a.owner.patch(servers(`/${serverId}`), { tools: [{ name: 'order_status', verified_only: true }, { name: 'slow', enabled: false }] });
    expect(changed.status).toBe(200);
    const again = await a.owner.post(servers(`/${serverId}/sync`));
    const byName = (n: string) => again.body.data.tools.find((t: { name: string }) => t.name === n);
    expect(byName('order_status')).toMatchObject({ verified_only: true, confirm: false, enabled: true });
    expect(byName('slow')).toMatchObject({ enabled: false });
    const unknown = await a.owner.patch(servers(`/${serverId}`), { tools: [{ name: 'no_such_tool', enabled: true }] });
    expect(unknown.status).toBe(400);
  });

  it('checks bodies (400), names (409), and a server on a private address is refused by the outbound policy at sync (the error, not a 500)', async () => {
    for (const body of [
      { name: 'plain', url: 'http://mcp.example/mcp' },
      { name: '9bad', url: 'https://mcp.example/mcp' },
      { name: 'x', url: 'https://mcp.example/mcp', auth: 'bearer' },
      { name: 'x', url: 'https://mcp.example/mcp', auth: 'oauth', token: 'a-token' },
      { name: 'x', url: 'https://mcp.example/mcp', auth: 'oauth', oauth_client_secret: 'no-client-id' },
      { name: 'x', url: 'https://mcp.example/mcp', token: 'line\nbreak' },
      { name: 'x', url: 'https://mcp.example/mcp', extra: true },
    ]) {
      const res = await a.owner.post(servers(), body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await a.owner.post(servers(), { name: 'SHOP', url: 'https://mcp.example/mcp' })).status).toBe(409);
    // A new address of another origin needs the token again.
    expect((await a.owner.patch(servers(`/${serverId}`), { url: 'https://elsewhere.example/mcp' })).status).toBe(400);

    const privateOne = await a.owner.post(servers(), { name: 'internal', url: 'https://10.20.30.40/mcp', auth: 'none' });
    expect(privateOne.status).toBe(201);
    const refused = await a.owner.post(servers(`/${privateOne.body.data.id}/sync`));
    expect(refused.status).toBe(200);
    expect(refused.body.data.error).toMatch(/10\.20\.30\.40|private|not allowed/i);
    expect(refused.body.data.tools).toEqual([]);
    expect((await a.owner.delete(servers(`/${privateOne.body.data.id}`))).status).toBe(204);
  });

  it('members read and are refused every change; admins change', async () => {
    const read = await a.member.get(servers());
    expect(read.status).toBe(200);
    expect(read.body.data.map((s: { name: string }) => s.name)).toEqual(['shop']);
    expect(read.text).not.toContain(TOKEN);
    expect((await a.member.post(servers(), { name: 'm', url: 'https://mcp.example/mcp' })).status).toBe(403);
    expect((await a.member.patch(servers(`/${serverId}`), { tools: [{ name: 'fail', enabled: false }] })).status).toBe(403);
    expect((await a.member.post(servers(`/${serverId}/sync`))).status).toBe(403);
    expect((await a.member.delete(servers(`/${serverId}`))).status).toBe(403);
    const byAdmin = await admin.patch(servers(`/${serverId}`), { tools: [{ name: 'fail', enabled: false }] });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data.tools.find((t: { name: string }) => t.name === 'fail').enabled).toBe(false);
  });

  it('OAuth: Connect answers the authorization URL; the consent sends the browser to the callback, which connects and syncs once; wrong states are 400s', async () => {
    const created = await a.owner.post(servers(), { name: 'orders', url: rs.url, auth: 'oauth' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ auth: 'oauth', has_token: false, oauth: { client_id: null, has_client_secret: false, authorization_server: null } });
    const id = created.body.data.id;
    expect((await a.member.post(servers(`/${id}/oauth/start`))).status).toBe(403);
    const started = await a.owner.post(servers(`/${id}/oauth/start`));
    expect(started.status).toBe(200);
    const authUrl = new URL(started.body.data.authorization_url);
    expect(authUrl.origin).toBe(as.issuer);
    expect(authUrl.searchParams.get('redirect_uri')).toBe(`${sys.consoleUrl}/api/oauth/mcp-callback`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');

    const back = await as.consent(authUrl.toString());
    const callback = `${back.pathname}${back.search}`;
    // Not the person who started it (an admin of the same workspace): refused, nothing spent.
    const byOther = await admin.get(callback);
    expect([byOther.status, byOther.body.code]).toEqual([400, 'invalid_token']);
    // A forged state: refused.
    const forged = await a.owner.get(`/api/oauth/mcp-callback?state=${'x'.repeat(43)}&code=abc`);
    expect(forged.status).toBe(400);
    expect((await a.owner.get('/api/oauth/mcp-callback?code=abc')).status).toBe(400);
    // Not signed in: 401.
    expect((await new ConsoleClient(sys.consoleUrl).get(callback)).status).toBe(401);

    const done = await a.owner.get(callback);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/w/${a.ws.id}/bots/${bot}?mcp_server=${id}&mcp_oauth=connected`);
    const view = (await a.owner.get(servers())).body.data.find((x: { id: string }) => x.id === id);
    expect(view).toMatchObject({ has_token: true, error: null, oauth: { authorization_server: as.issuer } });
    expect(view.tools.map((t: { model_name: string }) => t.model_name)).toContain('orders_order_status');
    // Single use: the same callback again is a 400 and changes nothing.
    const again = await a.owner.get(callback);
    expect([again.status, again.body.code]).toEqual([400, 'invalid_token']);
    const { rows } = await db.query(`SELECT auth_sealed, oauth_sealed, oauth_state_hash FROM bots.mcp_servers WHERE id = $1`, [id]);
    expect(rows[0].oauth_state_hash).toBeNull();
    const box = new SecretBox(Buffer.from(e2eState().env['WEBHOOK_SECRET_KEY']!, 'hex'));
    const access = JSON.parse(box.open(rows[0].auth_sealed)).token as string;
    const refresh = JSON.parse(box.open(rows[0].oauth_sealed)).tokens.refresh_token as string;
    expect(JSON.stringify((await a.owner.get(servers())).body)).not.toContain(access);
    for (const [name, app] of sys.mini.apps) {
      const log = app.logFile ? fs.readFileSync(app.logFile, 'utf8') : app.stderrTail();
      expect([name, log.includes(access) || log.includes(refresh)]).toEqual([name, false]);
    }
    const audit = await a.owner.get(`/api/workspaces/${a.ws.id}/audit?limit=100`);
    expect((audit.body.data as { action: string; target_id: string }[]).filter((e) => e.target_id === id).map((e) => e.action)).toEqual(
      expect.arrayContaining(['mcp_server.connect_started', 'mcp_server.connected']),
    );
    expect((await a.owner.delete(servers(`/${id}`))).status).toBe(204);
  });

  it('every change is audit-logged with the name and host only; the token is in no audit entry, column or log', async () => {
    const audit = await a.owner.get(`/api/workspaces/${a.ws.id}/audit?limit=100`);
    expect(audit.status).toBe(200);
    const ours = (audit.body.data as { action: string; target_id: string; details: Record<string, unknown> }[]).filter((e) => e.action.startsWith('mcp_server.'));
    expect(new Set(ours.map((e) => e.action))).toEqual(
      new Set(['mcp_server.created', 'mcp_server.synced', 'mcp_server.updated', 'mcp_server.deleted', 'mcp_server.connect_started', 'mcp_server.connected']),
    );
    expect(ours.find((e) => e.action === 'mcp_server.created' && e.target_id === serverId)!.details).toEqual({ bot_id: bot, name: 'shop', host: `127.0.0.1:${mcp.port}`, auth: 'bearer' });
    expect(ours.find((e) => e.action === 'mcp_server.synced' && e.target_id === serverId)!.details).toMatchObject({ ok: true, tools: 5 });
    expect(audit.text).not.toContain(TOKEN);
    const columns = await db.query(`SELECT table_schema, table_name, column_name FROM information_schema.columns
      WHERE data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY') AND table_schema NOT IN ('pg_catalog', 'information_schema')`);
    for (const c of columns.rows) {
      const hit = await db.query(`SELECT 1 FROM "${c.table_schema}"."${c.table_name}" WHERE "${c.column_name}"::text LIKE $1 LIMIT 1`, [`%${TOKEN}%`]);
      expect([`${c.table_schema}.${c.table_name}.${c.column_name}`, hit.rowCount]).toEqual([`${c.table_schema}.${c.table_name}.${c.column_name}`, 0]);
    }
    for (const [name, app] of sys.mini.apps) {
      const log = app.logFile ? fs.readFileSync(app.logFile, 'utf8') : app.stderrTail();
      expect([name, log.includes(TOKEN)]).toEqual([name, false]);
    }
  });

  describe('the section in Chromium', () => {
    // The authorization server's page is https with this run's certificate.
    const br = useBrowser({ ignoreHTTPSErrors: true });

    async function openSection(page: Page, email: string): Promise<Locator> {
      await signInPage(page, email, PASSWORD, sys.consoleUrl);
      await page.goto(`${sys.consoleUrl}/w/${a.ws.id}/bots/${bot}`);
      const section = page.getByRole('region', { name: 'MCP servers', exact: true });
      await section.getByRole('heading', { name: 'shop', exact: true }).waitFor();
      return section;
    }

    /** The owner's section with the Add MCP server dialog open, name and URL filled. */
    async function addDialog(page: Page, name: string, url: string): Promise<{ section: Locator; dialog: Locator }> {
      const section = await openSection(page, 'olga.owner@mcp.example');
      await section.getByRole('button', { name: 'Add MCP server' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add MCP server' });
      await dialog.getByLabel('Name', { exact: true }).fill(name);
      await dialog.getByLabel('URL', { exact: true }).fill(url);
      return { section, dialog };
    }

    it('an owner adds a server in the dialog, it syncs, a flag is switched; axe clean; the screenshot', async () => {
      const page = br.page();
      const { section, dialog } = await addDialog(page, 'orders', mcp.url);
      await dialog.getByLabel('Token', { exact: true }).fill(TOKEN);
      await expectNoSeriousAxeViolations(page, 'the Add MCP server dialog');
      await dialog.getByRole('button', { name: 'Add and sync' }).click();
      await dialog.waitFor({ state: 'detached' });

      const tools = section.getByRole('region', { name: 'Tools of orders' });
      await tools.getByRole('rowheader', { name: 'orders_order_status' }).waitFor({ timeout: 20000 });
      expect(await page.content()).not.toContain(TOKEN);
      // Read-only: no confirmation by default; a write asks.
      expect(await tools.getByRole('checkbox', { name: 'Confirm orders_order_status' }).isChecked()).toBe(false);
      expect(await tools.getByRole('checkbox', { name: 'Confirm orders_cancel_order' }).isChecked()).toBe(true);

      const verified = tools.getByRole('checkbox', { name: 'Verified only orders_order_status' });
      // Clicks the visible label, as a person does (react-aria keeps the input visually hidden under its drawn box).
      await tools.locator('label').filter({ has: page.getByRole('checkbox', { name: 'Verified only orders_order_status' }) }).click();
      await waitFor(async () => (await a.owner.get(servers())).body.data.find((s: { name: string }) => s.name === 'orders').tools[0].verified_only, (v) => v === true, 10000);
      await waitFor(() => verified.isChecked(), (v) => v, 10000);
      await expectNoSeriousAxeViolations(page, 'the MCP servers section');

      await page.waitForTimeout(100);
      const box = (await section.boundingBox())!;
      const scrollY = (await page.evaluate('window.scrollY')) as number;
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({
        path: path.join(process.env['SCREENSHOT_DIR'] || SCREENSHOT_DIR, 'console-bot-mcp-servers.png'),
        fullPage: true,
        clip: { x: 0, y: Math.max(0, box.y + scrollY - 2), width: 1280, height: Math.ceil(box.height + 18) },
        animations: 'disabled',
        caret: 'hide',
      });
    });

    it('an owner adds a server with OAuth: Add and connect, Allow at the authorization server, back connected with its tools; axe clean; the screenshot', async () => {
      const page = br.page();
      const { dialog } = await addDialog(page, 'tickets', rs.url);
      await dialog.getByLabel('Authentication', { exact: true }).selectOption('oauth');
      // Optional fields: their labels end in "(optional)".
      await dialog.getByRole('textbox', { name: /^Client ID/ }).waitFor();
      await expectNoSeriousAxeViolations(page, 'the Add MCP server dialog with OAuth');
      await dialog.getByRole('button', { name: 'Add and connect' }).click();

      // The authorization server's consent page (another origin), then back to the bot's page.
      await page.waitForURL((u) => u.origin === as.issuer, { timeout: 20000 });
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.origin === sys.consoleUrl && u.searchParams.get('mcp_oauth') === 'connected', { timeout: 20000 });
      const back = page.getByRole('region', { name: 'MCP servers', exact: true });
      await back.getByText('Connected to tickets: its tools are listed below.').waitFor({ timeout: 20000 });
      const tools = back.getByRole('region', { name: 'Tools of tickets' });
      await tools.getByRole('rowheader', { name: 'tickets_order_status' }).waitFor({ timeout: 20000 });
      await back.getByRole('button', { name: 'Reconnect' }).waitFor();
      await back.getByText(/OAuth: connected at 127\.0\.0\.1/).waitFor();
      await expectNoSeriousAxeViolations(page, 'the MCP servers section after Connect');

      // The outcome's notice down to the connected server's card.
      const card = back.getByRole('region', { name: 'tickets', exact: true });
      await page.waitForTimeout(100);
      const notice = (await back.getByRole('status').filter({ hasText: 'Connected to tickets' }).boundingBox())!;
      const cardBox = (await card.boundingBox())!;
      const box = { y: notice.y - 50, height: cardBox.y + cardBox.height - notice.y + 40 };
      const scrollY = (await page.evaluate('window.scrollY')) as number;
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({
        path: path.join(process.env['SCREENSHOT_DIR'] || SCREENSHOT_DIR, 'console-bot-mcp-oauth.png'),
        fullPage: true,
        clip: { x: 0, y: Math.max(0, box.y + scrollY), width: 1280, height: Math.ceil(box.height) },
        animations: 'disabled',
        caret: 'hide',
      });
    });

    it('a member reads the servers and their tools without any control', async () => {
      const page = br.page();
      const section = await openSection(page, 'mia.member@mcp.example');
      await section.getByRole('region', { name: 'Tools of shop' }).getByRole('rowheader', { name: 'shop_order_status' }).waitFor();
      expect(await section.getByRole('button', { name: 'Add MCP server' }).count()).toBe(0);
      expect(await section.getByRole('button', { name: 'Sync tools' }).count()).toBe(0);
      expect(await section.getByRole('checkbox', { name: 'On shop_order_status' }).isDisabled()).toBe(true);
      await expectNoSeriousAxeViolations(page, 'the MCP servers section (member)');
    });
  });
});
