import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { databaseUrl, dropDatabase } from '../libs/testing/src/integration/databases';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { APPS } from '../tools/launcher/system';
import { PrivateNats, freePort, freePortRange, startPrivateNats } from './support/infra';
import { e2eState } from './support/state';

/**
 * The newcomer's first ten minutes (issue 31), as a newcomer has them: `npm start` on a fresh
 * database prints the console address and a one-time setup code; in Chromium the console opens
 * on "Set up", refuses a wrong code, and with the printed one creates the workspace and its
 * owner, who is signed in and led through a first bot, a text, a question whose answer quotes
 * the text, and the widget snippet. Then the setup page is closed and the printed code is dead.
 */
describe('first-run setup in the console (npm start on a fresh database)', () => {
  const s = e2eState();
  const b = useBrowser();
  let nats: PrivateNats;
  let child: ChildProcess;
  let out = '';
  let consoleUrl = '';
  let setupCode = '';
  const dbName = `sa_e2e_setup_${randomBytes(4).toString('hex')}`;
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-setup-key-'));
  const owner = { email: 'ada@example.com', password: 'a long enough password', name: 'Ada Lovelace', workspace: 'Lovelace Tea Rooms' };
  const FACT = 'Our tea room in Lyon is open from 9 am to 6 pm, Monday to Saturday.';

  const post = (body: Record<string, unknown>) =>
    fetch(`${consoleUrl}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json', origin: consoleUrl }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  beforeAll(async () => {
    nats = await startPrivateNats();
    const [gatewayPort, mcpPort, consolePort] = [await freePort(), await freePort(), await freePort()];
    const opsBase = await freePortRange(APPS.length);
    child = spawn(process.execPath, [path.join(s.root, 'tools', 'launcher', 'start.js')], {
      cwd: s.root,
      detached: true,
      env: {
        PATH: process.env['PATH'],
        DATABASE_URL: databaseUrl(dbName),
        WEBHOOK_SECRET_KEY_FILE: path.join(keyDir, 'webhook-secret-key'),
        NATS_URL: nats.url,
        GATEWAY_PORT: String(gatewayPort),
        MCP_PORT: String(mcpPort),
        CONSOLE_PORT: String(consolePort),
        OPS_PORT_BASE: String(opsBase),
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await waitFor(async () => out, (o) => o.includes('Press Ctrl-C to stop.'), 120000, 200).catch((err) => {
      throw new Error(`${(err as Error).message}\n${out.slice(-3000)}`);
    });
    consoleUrl = /Console: +(http:\/\/\S+)/.exec(out)![1];
    setupCode = /Setup code: +([0-9A-Z-]+)/.exec(out)?.[1] ?? '';
  }, 180000);

  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      process.kill(-child.pid, 'SIGINT');
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 30000))]);
      if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    }
    await nats?.stop();
    await dropDatabase(dbName);
    fs.rmSync(keyDir, { recursive: true, force: true });
  }, 60000);

  it('npm start prints a setup code of 32 characters next to the console address, and logs it nowhere else', () => {
    expect(setupCode).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){7}$/);
    expect(out.split(setupCode).length - 1).toBe(1);
  });

  it('the console opens on "Set up", refuses a wrong code, and with the printed one makes the owner, who is signed in and led to a first answer and the widget snippet', async () => {
    const page = b.page();
    await page.goto(consoleUrl);
    await page.getByRole('heading', { name: 'Set up', exact: true }).waitFor({ timeout: 15000 });
    expect(new URL(page.url()).pathname).toBe('/setup');
    // The sign-in page leads here too while nobody can sign in.
    await page.goto(`${consoleUrl}/sign-in`);
    await page.getByRole('heading', { name: 'Set up', exact: true }).waitFor();
    await expectNoSeriousAxeViolations(page, 'setup');
    await screenshot(page, 'setup');

    await page.getByLabel('Setup code').fill('AAAA-BBBB-CCCC-DDDD-EEEE');
    await page.getByLabel('Workspace name').fill(owner.workspace);
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Set up' }).click();
    await page.getByText('The setup code is not correct').waitFor();
    expect(new URL(page.url()).pathname).toBe('/setup');

    // Pasted in lower case with spaces: still the code.
    await page.getByLabel('Setup code').fill(` ${setupCode.toLowerCase()} `);
    await page.getByRole('button', { name: 'Set up' }).click();
    await page.getByRole('heading', { name: 'Get started' }).waitFor({ timeout: 15000 });
    expect(new URL(page.url()).pathname).toMatch(/^\/w\/[0-9a-f-]{36}\/get-started$/);
    // Signed in as the owner of the new workspace.
    const session = await page.evaluate(async () => (await fetch('/api/session')).json());
    expect(session).toEqual(expect.objectContaining({ person: expect.objectContaining({ email: owner.email, display_name: owner.name }), workspaces: [expect.objectContaining({ name: owner.workspace, role: 'owner' })] }));
    await expectNoSeriousAxeViolations(page, 'get started');

    // 1. A bot.
    await page.getByLabel('Name', { exact: true }).fill('Tea helper');
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByText('Your bot Tea helper is ready').waitFor();
    // 2. A text.
    await page.getByLabel('Title').fill('Opening hours');
    await page.getByLabel('Text', { exact: true }).fill(FACT);
    await page.getByRole('button', { name: 'Add text' }).click();
    await page.getByRole('list', { name: 'Knowledge added' }).getByText('Ready').waitFor({ timeout: 30000 });
    // 3. A question, answered from the text.
    await page.getByRole('textbox', { name: 'Question' }).fill('When is the tea room open?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('heading', { name: 'Answer of Tea helper' }).waitFor({ timeout: 20000 });
    expect(await page.locator('.answer__text').textContent()).toContain('9 am to 6 pm');
    // 4. The widget snippet of this bot.
    expect(await page.locator('#install-snippet').textContent()).toMatch(/<script src="http:\/\/[^"]+\/widget\/v1\/embed\.js" data-bot-id="[0-9a-f-]{36}"/);
    await expectNoSeriousAxeViolations(page, 'get started, done');
    await screenshot(page, 'get-started');
  });

  it('afterwards the setup page is closed for good and the printed code no longer works', async () => {
    const page = b.page();
    await page.goto(`${consoleUrl}/setup`);
    await page.getByRole('heading', { name: 'Setup is closed' }).waitFor({ timeout: 15000 });
    expect(await page.getByLabel('Setup code').count()).toBe(0);
    await expectNoSeriousAxeViolations(page, 'setup closed');

    expect((await fetch(`${consoleUrl}/api/setup`)).status).toBe(410);
    const again = await post({ code: setupCode, workspace_name: 'Second', display_name: 'Mallory', email: 'mallory@example.com', password: 'another long password' });
    expect([again.status, again.body.code]).toEqual([410, 'setup_done']);
    // Nothing of the code is left, and the owner is the only person.
    const db = new Client({ connectionString: databaseUrl(dbName) });
    await db.connect();
    try {
      expect((await db.query('SELECT count(*)::int AS n FROM people.setup_codes')).rows[0].n).toBe(0);
      expect((await db.query('SELECT email FROM people.persons')).rows).toEqual([{ email: owner.email }]);
      expect((await db.query(`SELECT role FROM people.memberships`)).rows).toEqual([{ role: 'owner' }]);
    } finally {
      await db.end();
    }
    // The owner signs in as anyone would.
    await page.goto(`${consoleUrl}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console' }).waitFor({ timeout: 15000 });
  });
});
