import { createHash, createHmac, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { admin, createUser } from './support/admin';
import { client, request } from './support/api';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsoleClient } from './support/console';
import { newWorkspace, TestWorkspace, uniqueName } from './support/fixtures';
import { e2eState } from './support/state';

/**
 * The console's Widget page and API (issue 18) against the running system: a bot's widget
 * settings are read by every member and written by owners and admins (allowed origins, look,
 * identity secret shown once); another workspace's bot is not found; bad values are 400 with the
 * field; writes need the CSRF token; the audit log has each change and never the secret. Then the
 * page in Debian's Chromium: the snippet, saving origins, rotating the secret, axe and a screenshot.
 */
const s = e2eState();
const PASSWORD = 'correct horse battery staple';
const WIDGET_SECRET = /wsk_[A-Za-z0-9_-]{43}/;

interface People {
  ws: TestWorkspace;
  bot: string;
  owner: ConsoleClient;
  admin: ConsoleClient;
  member: ConsoleClient;
  emails: { owner: string; admin: string; member: string };
}

async function namedWorkspace(name: string): Promise<TestWorkspace> {
  const ws = await admin<{ id: string }>(['workspace', 'create', '--name', name, '--plan', 'scale']);
  const tok = await admin<{ id: string; token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all']);
  return { id: ws.id, token: tok.token, tokenId: tok.id, api: client(tok.token) };
}

/** A workspace with an owner, an admin and a member signed in, and a bot; `named` gives the screenshot's fixed names. */
async function workspaceWithPeople(named = false): Promise<People> {
  const ws = named ? await namedWorkspace('Acme Support') : await newWorkspace(['--plan', 'scale']);
  const tag = randomBytes(4).toString('hex');
  const emails = named
    ? { owner: 'olivia.owner@acme.example', admin: 'ada.admin@acme.example', member: 'max.member@acme.example' }
    : { owner: `owner-${tag}@example.com`, admin: `admin-${tag}@example.com`, member: `member-${tag}@example.com` };
  const clients: Record<string, ConsoleClient> = {};
  for (const role of ['owner', 'admin', 'member'] as const) {
    await createUser(ws.id, emails[role], role, PASSWORD);
    clients[role] = new ConsoleClient();
    expect((await clients[role]!.signIn(emails[role], PASSWORD)).status).toBe(200);
  }
  const created = await ws.api.post('/bots', { name: named ? 'Front desk' : uniqueName('Front desk'), language: 'en' });
  expect(created.status).toBe(201);
  return { ws, bot: created.body.data.id, owner: clients['owner']!, admin: clients['admin']!, member: clients['member']!, emails };
}

describe('console: the Widget API (issue 18)', () => {
  let a: People;
  let b: People;
  const widget = (p: People, suffix = '') => `/api/workspaces/${p.ws.id}/bots/${p.bot}/widget${suffix}`;

  beforeAll(async () => {
    [a, b] = [await workspaceWithPeople(), await workspaceWithPeople()];
  });

  it('a member reads the settings (defaults) and the install snippets: embed.js (follows upgrades) and the build the gateway serves, pinned by its integrity', async () => {
    const res = await a.member.get(widget(a));
    expect(res.status).toBe(200);
    const gateway = `http://127.0.0.1:${s.env['GATEWAY_PORT']}`;
    const scriptUrl = `${gateway}/widget/v1/embed.js`;
    // What the gateway publishes of the build it serves.
    const manifest = (await (await fetch(`${gateway}/widget/v1/embed.json`)).json()) as { hashed_path: string; integrity: string };
    const pinnedUrl = `${gateway}${manifest.hashed_path}`;
    expect(res.body).toEqual({
      data: {
        chatbot_id: a.bot,
        allowed_origins: [],
        theme: { color: expect.stringMatching(/^#[0-9a-f]{6}$/i), position: 'right', greeting: null, launcher_text: null },
        identity_secret: { set: false, created_at: null },
        updated_at: null,
        install: {
          script_url: scriptUrl,
          snippet: `<script src="${scriptUrl}" data-bot-id="${a.bot}" async></script>`,
          integrity: manifest.integrity,
          pinned_script_url: pinnedUrl,
          pinned_snippet: `<script src="${pinnedUrl}" data-bot-id="${a.bot}" integrity="${manifest.integrity}" crossorigin="anonymous" async></script>`,
        },
      },
    });
    // Both URLs are served, and the integrity is the served file's.
    for (const url of [scriptUrl, pinnedUrl]) {
      const served = await fetch(url);
      const bytes = Buffer.from(await served.arrayBuffer());
      expect([served.status, `sha384-${createHash('sha384').update(bytes).digest('base64')}`]).toEqual([200, manifest.integrity]);
    }
  });

  it("another workspace's bot, an unknown bot and a bad id: 404, 404, 400 (reads and writes alike)", async () => {
    const foreign = `/api/workspaces/${a.ws.id}/bots/${b.bot}/widget`;
    for (const r of [await a.owner.get(foreign), await a.owner.patch(foreign, { allowed_origins: ['https://evil.example'] }), await a.owner.post(`${foreign}/secret`)]) {
      expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    }
    // The same bot under its own workspace id, but by a person of the other workspace: not a member → 404.
    expect((await a.owner.get(widget(b))).status).toBe(404);
    expect((await b.owner.get(widget(b))).body.data.allowed_origins).toEqual([]);
    const unknown = await a.owner.get(`/api/workspaces/${a.ws.id}/bots/00000000-0000-4000-8000-000000000000/widget`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    const bad = await a.owner.get(`/api/workspaces/${a.ws.id}/bots/not-a-uuid/widget`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toEqual(['path', 'botId']);
  });

  it('an admin saves allowed origins (lower-cased, duplicates dropped) and the look; the widget config and the audit log show it', async () => {
    const saved = await a.admin.patch(widget(a), { allowed_origins: ['https://WWW.Example.com', 'https://www.example.com', 'http://localhost:8080'] });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ chatbot_id: a.bot, allowed_origins: ['https://www.example.com', 'http://localhost:8080'], updated_at: expect.any(String), install: { snippet: expect.stringContaining(a.bot) } });
    const look = await a.owner.patch(widget(a), { theme: { color: '#0b5d1e', position: 'left', greeting: 'Hello from the desk!', launcher_text: 'Ask us' } });
    expect(look.status).toBe(200);
    expect(look.body.data).toMatchObject({ allowed_origins: ['https://www.example.com', 'http://localhost:8080'], theme: { color: '#0b5d1e', position: 'left', greeting: 'Hello from the desk!', launcher_text: 'Ask us' } });
    // null resets greeting and launcher text; members left out stay.
    const reset = await a.owner.patch(widget(a), { theme: { greeting: null } });
    expect(reset.body.data.theme).toEqual({ color: '#0b5d1e', position: 'left', greeting: null, launcher_text: 'Ask us' });
    expect((await a.member.get(widget(a))).body.data).toEqual(reset.body.data);

    // The public widget config follows at once (the gateway evicts its cache on bots.widget.changed).
    const config = await waitFor(
      () => request('GET', `/widget/v1/bots/${a.bot}/config`, undefined, { baseUrl: s.gatewayUrl, headers: { origin: 'https://www.example.com' } }),
      (r) => r.status === 200 && r.body?.data?.theme?.color === '#0b5d1e',
      5000,
      100,
    );
    expect(config.body.data.theme).toEqual({ color: '#0b5d1e', position: 'left', greeting: null, launcher_text: 'Ask us' });

    const audit = await a.owner.get(`/api/workspaces/${a.ws.id}/audit?limit=50`);
    const rows = audit.body.data.filter((e: any) => e.action === 'widget.updated' && e.target_id === a.bot);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toMatchObject({ actor: { kind: 'person', label: a.emails.admin }, target_kind: 'bot', details: { allowed_origins: ['https://www.example.com', 'http://localhost:8080'] } });
    expect(rows[0]).toMatchObject({ actor: { kind: 'person', label: a.emails.owner }, details: { theme: { greeting: null } } });

    // A website not listed is refused at once; back to "any website", it is served again.
    const fromElsewhere = () => request('GET', `/widget/v1/bots/${a.bot}/config`, undefined, { baseUrl: s.gatewayUrl, headers: { origin: 'https://elsewhere.example' } });
    const refused = await fromElsewhere();
    expect([refused.status, refused.body.code]).toEqual([403, 'origin_not_allowed']);
    expect((await a.owner.patch(widget(a), { allowed_origins: [] })).body.data.allowed_origins).toEqual([]);
    expect((await waitFor(fromElsewhere, (r) => r.status === 200, 5000, 100)).status).toBe(200);
  });

  it('bad values are 400 validation_failed naming the field, and nothing is saved', async () => {
    const before = (await a.owner.get(widget(a))).body.data;
    const cases: [unknown, (string | number)[]][] = [
      [{ allowed_origins: ['https://ok.example', 'https://example.com/path'] }, ['body', 'allowed_origins']],
      [{ allowed_origins: ['ftp://example.com'] }, ['body', 'allowed_origins']],
      [{ allowed_origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`) }, ['body', 'allowed_origins']],
      [{ allowed_origins: 'https://example.com' }, ['body', 'allowed_origins']],
      [{ theme: { color: 'green' } }, ['body', 'theme', 'color']],
      [{ theme: { position: 'top' } }, ['body', 'theme', 'position']],
      [{ theme: { greeting: 'x'.repeat(301) } }, ['body', 'theme', 'greeting']],
      [{ theme: { launcher_text: '   ' } }, ['body', 'theme', 'launcher_text']],
      [{ colour: '#000000' }, ['body', 'colour']],
    ];
    for (const [body, pathPrefix] of cases) {
      // (each case alone: the whole body is refused, so nothing of it is saved)
      const res = await a.owner.patch(widget(a), body);
      expect([JSON.stringify(body).slice(0, 60), res.status, res.body.success]).toEqual([JSON.stringify(body).slice(0, 60), 400, false]);
      expect(res.body.error.issues.some((i: { path: unknown[] }) => pathPrefix.every((p, k) => i.path[k] === p))).toBe(true);
    }
    // Odd shapes are 400 too, never 500; a null member is one left out (nothing changes).
    for (const body of [null, [], 'origins', 42, { theme: 'dark' }, { allowed_origins: [1] }, { allowed_origins: [null] }]) {
      const res = await a.owner.patch(widget(a), body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    for (const body of [{ theme: null }, { allowed_origins: null }, { theme: { color: null, position: null } }, {}]) {
      const res = await a.owner.patch(widget(a), body);
      expect([JSON.stringify(body), res.status, res.body.data?.allowed_origins, res.body.data?.theme]).toEqual([JSON.stringify(body), 200, before.allowed_origins, before.theme]);
    }
    const after = (await a.owner.get(widget(a))).body.data;
    expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
  });

  it('members cannot write (403 forbidden_role); writes without the CSRF token or from another origin are 403 csrf_failed', async () => {
    const before = (await a.owner.get(widget(a))).body.data;
    for (const r of [await a.member.patch(widget(a), { allowed_origins: ['https://member.example'] }), await a.member.post(widget(a, '/secret'))]) {
      expect([r.status, r.body.code]).toEqual([403, 'forbidden_role']);
    }
    const refusals = [
      await a.owner.request('PATCH', widget(a), { allowed_origins: ['https://csrf.example'] }, { csrf: null }),
      await a.owner.request('PATCH', widget(a), { allowed_origins: ['https://csrf.example'] }, { origin: 'https://evil.example' }),
      await a.owner.request('POST', widget(a, '/secret'), undefined, { csrf: 'A'.repeat(43) }),
    ];
    for (const r of refusals) expect([r.status, r.body.code]).toEqual([403, 'csrf_failed']);
    expect((await a.owner.get(widget(a))).body.data).toEqual(before);
    expect(before.identity_secret).toEqual({ set: false, created_at: null });
  });

  it('rotating the identity secret shows it once (201); the settings then say set with its date; the audit row never holds it; identify accepts its HMAC only', async () => {
    const first = await a.admin.post(widget(a, '/secret'));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ data: { secret: expect.stringMatching(new RegExp(`^${WIDGET_SECRET.source}$`)), created_at: expect.any(String) } });
    const secret = first.body.data.secret as string;
    const read = await a.member.get(widget(a));
    expect(read.body.data.identity_secret).toEqual({ set: true, created_at: first.body.data.created_at });
    expect(read.text).not.toContain(secret);

    const second = await a.owner.post(widget(a, '/secret'));
    expect(second.status).toBe(201);
    expect(second.body.data.secret).not.toBe(secret);

    const audit = await a.owner.get(`/api/workspaces/${a.ws.id}/audit?limit=50`);
    const rows = audit.body.data.filter((e: any) => e.action === 'widget.secret_rotated' && e.target_id === a.bot);
    expect(rows.map((e: any) => e.actor.label)).toEqual([a.emails.owner, a.emails.admin]);
    expect(audit.text).not.toMatch(WIDGET_SECRET);

    // The gateway's identify checks the hash against the newest secret only.
    const session = await request('POST', `/widget/v1/bots/${a.bot}/sessions`, {}, { baseUrl: s.gatewayUrl });
    expect(session.status).toBeLessThan(300);
    const sessionId = session.body.data?.sessionId ?? session.body.data?.session_id ?? session.headers.get('x-session-id');
    expect(typeof sessionId).toBe('string');
    const hash = (key: string) => createHmac('sha256', key).update('user-42').digest('hex');
    const identify = (userHash: string) =>
      request('POST', `/widget/v1/bots/${a.bot}/identify`, { sessionId, externalUserId: 'user-42', userHash }, { baseUrl: s.gatewayUrl });
    const old = await identify(hash(secret));
    expect([old.status, old.body.code]).toEqual([403, 'invalid_user_hash']);
    expect((await identify(hash(second.body.data.secret))).status).toBeLessThan(300);

    // No app logged either secret.
    for (const file of fs.readdirSync(s.logDir)) {
      const text = fs.readFileSync(path.join(s.logDir, file), 'utf8');
      expect([file, text.includes(secret) || text.includes(second.body.data.secret)]).toEqual([file, false]);
    }
  });
});

describe('console: the Widget page in a browser (issue 18)', () => {
  const br = useBrowser();
  let p: People;

  beforeAll(async () => {
    p = await workspaceWithPeople(true);
  });

  const pageText = (page: Page) =>
    page.evaluate(`(() => [document.body.innerText, ...Array.from(document.querySelectorAll('input, textarea')).map((e) => e.value)].join('\\n'))()`) as Promise<string>;

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${s.consoleUrl}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Widget', exact: true }).waitFor({ timeout: 15000 });
  }

  it('an owner opens "Widget": the snippet with "Copy snippet", saves allowed origins (a bad one is shown next to the field), the look, and rotates the secret (shown once with "Copy secret")', async () => {
    const page = br.page();
    await signIn(page, p.emails.owner);
    await page.getByRole('link', { name: 'Widget', exact: true }).click();
    await page.waitForURL(`${s.consoleUrl}/w/${p.ws.id}/widget`);
    await page.getByRole('heading', { name: 'Widget', level: 1 }).waitFor();
    expect(await page.getByLabel('Bot', { exact: true }).inputValue()).toBe(p.bot);

    // Install: the exact snippet of the API.
    const api = (await p.owner.get(`/api/workspaces/${p.ws.id}/bots/${p.bot}/widget`)).body.data;
    await page.getByRole('heading', { name: 'Install' }).waitFor();
    expect(await page.locator('#install-snippet').innerText()).toBe(api.install.snippet);
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByRole('status').filter({ hasText: /Copied|selected/ }).first().waitFor();
    expect(await page.locator('#install-pinned-snippet').innerText()).toBe(api.install.pinned_snippet);
    await page.getByRole('button', { name: 'Copy pinned snippet' }).waitFor();

    // Allowed origins: a bad line is refused and shown next to the field.
    const origins = page.getByRole('textbox', { name: 'Allowed origins', exact: true });
    await origins.fill('https://shop.example.com\nhttps://example.com/not-an-origin');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('The allowed origins were not saved.').waitFor();
    expect(await origins.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await origins.getAttribute('aria-describedby')) ?? '';
    const described = await Promise.all(describedBy.split(' ').filter(Boolean).map((id) => page.locator(`[id="${id}"]`).innerText()));
    expect(described.join(' ')).toMatch(/web origin/);
    await origins.fill('https://Shop.Example.com\n\nhttp://localhost:8080\n');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('Allowed origins saved.').waitFor();
    expect(await origins.inputValue()).toBe('https://shop.example.com\nhttp://localhost:8080');
    expect((await p.owner.get(`/api/workspaces/${p.ws.id}/bots/${p.bot}/widget`)).body.data.allowed_origins).toEqual(['https://shop.example.com', 'http://localhost:8080']);

    // Appearance.
    await page.getByLabel('Colour', { exact: true }).fill('#7a1f5c');
    await page.getByLabel('Position', { exact: true }).selectOption({ label: 'Bottom left' });
    await page.getByRole('textbox', { name: /^Greeting/ }).fill('Welcome to Acme! <b>not bold</b>');
    await page.getByRole('textbox', { name: /^Launcher text/ }).fill('Chat with Acme');
    await page.getByRole('button', { name: 'Save appearance' }).click();
    await page.getByText('Appearance saved.').waitFor();
    expect((await p.owner.get(`/api/workspaces/${p.ws.id}/bots/${p.bot}/widget`)).body.data.theme).toEqual({
      color: '#7a1f5c',
      position: 'left',
      greeting: 'Welcome to Acme! <b>not bold</b>',
      launcher_text: 'Chat with Acme',
    });

    // Identity verification: not set → "Rotate secret" asks first → shown once with "Copy secret".
    await page.getByText(/Not set/).waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('dialog', { name: 'New identity secret' });
    await shown.waitFor();
    const secret = await shown.getByLabel('Identity secret').inputValue();
    expect(secret).toMatch(new RegExp(`^${WIDGET_SECRET.source}$`));
    await shown.getByRole('button', { name: 'Copy secret' }).waitFor();
    await expectNoSeriousAxeViolations(page, 'the Widget page with the new secret');
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'hidden' });
    await page.getByText(/Set on/).waitFor();
    expect(await pageText(page)).not.toContain(secret);
    await page.reload();
    await page.getByText(/Set on/).waitFor();
    expect(await pageText(page)).not.toContain(secret);

    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the Widget page');
    await screenshot(page, 'widget');
    expect(br.cspViolations()).toEqual([]);
  });

  it('a member sees the snippet and the settings but no write button', async () => {
    const page = br.page();
    await signIn(page, p.emails.member);
    await page.goto(`${s.consoleUrl}/w/${p.ws.id}/widget`);
    await page.getByRole('heading', { name: 'Install' }).waitFor();
    await page.getByRole('button', { name: 'Copy snippet' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Allowed origins', exact: true }).inputValue()).toBe('https://shop.example.com\nhttp://localhost:8080');
    for (const name of ['Save origins', 'Save appearance', 'Rotate secret']) expect([name, await page.getByRole('button', { name }).count()]).toEqual([name, 0]);
    await expectNoSeriousAxeViolations(page, 'the Widget page (member)');
    expect(br.cspViolations()).toEqual([]);
  });
});
