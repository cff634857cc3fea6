import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { Client as PgClient } from 'pg';
import type { Locator, Page } from 'playwright-core';
import { verifyWebhook } from '@sa/webhooks';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';
import { ConsoleClient } from './support/console';
import { ConsoleSystem, startConsoleSystem } from './support/console-system';
import { linksIn } from './support/smtp-capture';

/**
 * The console (issue 16) in a real browser (playwright-core driving Debian's Chromium) against the
 * real running system: the apps on PostgreSQL, NATS and Redis, a real local SMTP server capturing
 * the e-mails and a local webhook receiver. Every page is checked with axe-core (no serious or
 * critical violation) and photographed into docs/screenshots/console-<page>.png for docs/console.md.
 * Names used here (labels, buttons, links, routes) are the issue's contract.
 */
const PAGES = ['sign-in', 'forgot-password', 'reset-password', 'accept-invitation', 'tokens', 'webhooks', 'webhook-detail', 'members', 'workspace', 'audit'];
const WRITE_BUTTONS = ['Create token', 'Revoke', 'Add webhook', 'Redeliver', 'Send test event', 'Rotate secret', 'Delete', 'Invite', 'Remove', 'Cancel invitation'];
const TOKEN_SECRET = /mgpt_[A-Za-z0-9_-]{43}/;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9_-]{20,}/;

const OWNER = { email: 'olivia.owner@example.com', password: 'correct horse battery staple', name: 'Olivia Owner' };
const MEMBER = { email: 'max.member@example.com', password: 'member password of sufficient length', name: 'Max Member' };
const RESETTER = { email: 'rosa.reset@example.com', password: 'the first password, forgotten', name: 'Rosa Reset' };
const THROTTLED = { email: 'tom.throttled@example.com', password: 'a password nobody will guess', name: 'Tom Throttled' };
const INVITEE = { email: 'ada.admin@example.com', password: 'invited admin password 42', name: 'Ada Admin' };

/** All visible text of the page plus the values of its fields (secrets are often shown in a read-only field). */
const pageText = (page: Page) =>
  page.evaluate(`(() => [document.body.innerText, ...Array.from(document.querySelectorAll('input, textarea')).map((e) => e.value)].join('\\n'))()`) as Promise<string>;

async function findInPage(page: Page, pattern: RegExp, timeoutMs = 10000): Promise<string> {
  const text = await waitFor(() => pageText(page), (t) => typeof t === 'string' && pattern.test(t), timeoutMs, 100);
  return pattern.exec(text)![0];
}

/**
 * The form behind a button such as "Create token": inline on the page (the button is then its
 * submit button) or in a dialog the button opens. `field` is a label the form certainly has.
 */
async function openForm(page: Page, trigger: string, field: string): Promise<Page | Locator> {
  await page.getByRole('button', { name: trigger, exact: true }).first().waitFor();
  if (await page.getByLabel(field, { exact: true }).first().isVisible()) return page;
  await page.getByRole('button', { name: trigger, exact: true }).first().click();
  const dialog = page.getByRole('dialog').first();
  await dialog.waitFor({ state: 'visible', timeout: 5000 });
  return dialog;
}

/**
 * Ticks the checkbox named `name` as a person does, by clicking its visible label (react-aria keeps
 * the real input visually hidden under its drawn box, where Playwright's check() cannot click).
 */
async function tick(scope: Page | Locator, name: string): Promise<void> {
  const box = scope.getByRole('checkbox', { name, exact: true });
  await scope.locator('label').filter({ has: box }).click();
  expect([name, await box.isChecked()]).toEqual([name, true]);
}

describe('console in a browser: sign-in, API tokens, webhooks, members, workspace, audit (issue 16)', () => {
  const b = useBrowser();
  let sys: ConsoleSystem;
  let ws: { id: string; name: string };
  let botId: string;
  let cliToken: string;
  const checked = new Set<string>();
  let webhook: { id: string; name: string; secret: string; path: string } | undefined;

  const url = (path: string) => `${sys.consoleUrl}${path}`;
  const wsPath = (page: string) => url(`/w/${ws.id}/${page}`);
  const api = (method: string, path: string, token: string | null, body?: unknown) =>
    fetch(`${sys.apiUrl}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** axe-core on the page as it is now, its screenshot for docs/console.md, and no CSP violation so far. */
  async function checkPage(page: Page, name: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, `the ${name} page (${page.url()})`);
    await screenshot(page, name);
    expect(b.cspViolations()).toEqual([]);
    checked.add(name);
  }

  async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
    await page.goto(url('/sign-in'));
    await page.getByLabel('Email', { exact: true }).fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'API tokens' }).waitFor({ timeout: 15000 });
  }

  async function createPerson(who: { email: string; password: string; name: string }, role: string): Promise<string> {
    const made = await sys.admin<{ id: string; email: string; workspace_id: string; role: string }>(
      ['user', 'create', '--workspace', ws.id, '--email', who.email, '--role', role, '--password-stdin', '--name', who.name],
      `${who.password}\n`,
    );
    expect(made).toEqual(expect.objectContaining({ email: who.email, workspace_id: ws.id, role }));
    expect(made.id).toMatch(/^[0-9a-f-]{36}$/);
    return made.id;
  }

  beforeAll(async () => {
    sys = await startConsoleSystem();
    ws = await sys.admin<{ id: string; name: string }>(['workspace', 'create', '--name', 'Acme Support', '--plan', 'scale']);
    await createPerson(OWNER, 'owner');
    await createPerson(MEMBER, 'member');
    await createPerson(RESETTER, 'member');
    await createPerson(THROTTLED, 'member');
    cliToken = (await sys.admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--name', 'CLI setup'])).token;
    const bot = await waitFor(() => api('POST', '/bots', cliToken, { name: 'Front desk', language: 'en' }), (r) => r.status === 201, 20000);
    botId = ((await bot.json()) as any).data.id;
    // Ready when the console reaches the services behind each page (tokens, webhooks, workspace facts).
    const owner = new ConsoleClient(sys.consoleUrl);
    expect((await owner.signIn(OWNER.email, OWNER.password)).status).toBe(200);
    for (const p of ['tokens', 'webhooks', 'members', '']) {
      await waitFor(() => owner.request('GET', `/api/workspaces/${ws.id}${p ? `/${p}` : ''}`), (r) => r.status === 200, 30000, 250);
    }
  }, 180000);

  afterAll(async () => {
    await sys?.stop();
  });

  it('sign-in: an owner signs in with "Email", "Password" and "Sign in"; the session cookie is httpOnly and SameSite; "Sign out" ends it', async () => {
    const page = b.page();
    const res = await page.goto(url('/'));
    expect(res!.status()).toBe(200);
    await page.waitForURL(/\/sign-in$/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await checkPage(page, 'sign-in');
    // Security headers on the page itself.
    const headers = (await page.request.get(url('/sign-in'))).headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');

    await signIn(page, OWNER);
    await page.waitForURL(new RegExp(`/w/${ws.id}/tokens$`));
    for (const link of ['API tokens', 'Webhooks', 'Members', 'Workspace', 'Audit log']) await expect(page.getByRole('link', { name: link }).count()).resolves.toBe(1);
    await expect(page.getByLabel('Workspace', { exact: true }).count()).resolves.toBeGreaterThan(0);

    const cookie = (await b.context().cookies(sys.consoleUrl)).find((c) => c.name === 'sa_console_session');
    expect(cookie).toBeDefined();
    expect(cookie!.httpOnly).toBe(true);
    expect(cookie!.sameSite).toBe('Lax');
    expect(cookie!.path).toBe('/');
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.evaluate('document.cookie')).not.toContain('sa_console_session');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    const stale = await fetch(url('/api/session'), { headers: { cookie: `sa_console_session=${cookie!.value}` } });
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as any).code).toBe('not_signed_in');
  });

  it('API tokens: "Create token" with "Name" and "bots:read" shows the secret once, and it answers GET /v1/bots; "Revoke" + confirm makes it 401 within 2 s', async () => {
    const page = b.page();
    await signIn(page, OWNER);
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.waitForURL(new RegExp(`/w/${ws.id}/tokens$`));
    const form = await openForm(page, 'Create token', 'Name');
    await form.getByLabel('Name', { exact: true }).fill('Zapier sync');
    await tick(form, 'bots:read');
    const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/api/workspaces/${ws.id}/tokens`));
    await form.getByRole('button', { name: /^(create token|create)$/i }).last().click();
    expect((await created).status()).toBe(201);

    const secret = await findInPage(page, TOKEN_SECRET);
    // "Copy" puts exactly the secret on the clipboard.
    await b.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sys.consoleUrl });
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await waitFor(() => page.evaluate('navigator.clipboard.readText()'), (t) => t === secret, 5000);

    // The shown secret works through real HTTP, with the scope chosen.
    const bots = await api('GET', '/bots', secret);
    expect(bots.status).toBe(200);
    expect(((await bots.json()) as any).data.map((x: any) => x.id)).toContain(botId);
    expect((await api('POST', '/bots', secret, { name: 'Not allowed' })).status).toBe(403);

    // Shown once: not on the page after a reload, nor in the list the API returns.
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'Zapier sync' });
    await row.first().waitFor();
    expect(await pageText(page)).not.toContain(secret);
    await checkPage(page, 'tokens');

    await row.getByRole('button', { name: 'Revoke' }).click();
    const confirm = page.getByRole('alertdialog').or(page.getByRole('dialog'));
    await confirm.first().waitFor();
    const revoked = page.waitForResponse((r) => r.request().method() === 'POST' && /\/tokens\/[^/]+\/revoke$/.test(r.url()));
    await confirm.first().getByRole('button', { name: /revoke/i }).click();
    expect((await revoked).status()).toBe(200);
    const t0 = Date.now();
    await waitFor(() => api('GET', '/bots', secret).then((r) => r.status), (st) => st === 401, 2000, 50);
    expect(Date.now() - t0).toBeLessThan(2000);
    await waitFor(() => row.first().innerText(), (t) => typeof t === 'string' && /revoked/i.test(t), 5000);
  });

  it('webhooks: "Add webhook" to a local receiver; a widget booking arrives signed, "succeeded" with 200 shows beside it; "Redeliver" sends it again, signed', async () => {
    const page = b.page();
    await signIn(page, OWNER);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(new RegExp(`/w/${ws.id}/webhooks$`));
    const form = await openForm(page, 'Add webhook', 'Endpoint URL');
    const path = '/hooks/console-crm';
    await form.getByLabel('Name', { exact: true }).fill('CRM bookings');
    await form.getByLabel('Endpoint URL', { exact: true }).fill(sys.receiver.url(path));
    await tick(form, 'booking.created');
    const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/api/workspaces/${ws.id}/webhooks`));
    await form.getByRole('button', { name: /^(add webhook|add|create|save)$/i }).last().click();
    const createdRes = await created;
    expect(createdRes.status()).toBe(201);
    const id = ((await createdRes.json()) as any).id as string;
    const secret = await findInPage(page, WEBHOOK_SECRET);
    webhook = { id, name: 'CRM bookings', secret, path };

    // A booking made through the public widget API on the gateway.
    const booking = await fetch(`${sys.gatewayUrl}/widget/v1/bots/${botId}/bookings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lin Visitor', email: 'lin@example.com', phone: '+65 6123 4567', requestedSlot: '2027-03-01T10:00:00+08:00', timeZone: 'Asia/Singapore' }),
    });
    expect(booking.status).toBe(201);
    const bookingId = ((await booking.json()) as any).data.id;
    const [first] = await waitFor(async () => sys.receiver.on(path), (r) => r.length >= 1, 20000);
    expect(first!.headers['x-service-event']).toBe('booking.created');
    expect(verifyWebhook({ rawBody: first!.rawBody, headers: first!.headers, secret })).toEqual(expect.objectContaining({ ok: true }));
    expect(verifyWebhook({ rawBody: first!.rawBody, headers: first!.headers, secret: 'whsec_not-the-secret-at-all-000000' })).toEqual(expect.objectContaining({ ok: false }));
    expect(first!.body.data.id ?? first!.body.data.booking_id).toBe(bookingId);

    // The list shows the last delivery's status beside the webhook (spec part 6).
    await page.goto(wsPath('webhooks'));
    const row = page.getByRole('row').filter({ hasText: 'CRM bookings' });
    await waitFor(
      async () => {
        await page.reload();
        await row.first().waitFor();
        return row.first().innerText();
      },
      (t) => typeof t === 'string' && /succeeded/i.test(t) && /\b200\b/.test(t),
      15000,
      500,
    );
    expect(await pageText(page)).not.toContain(secret);
    await checkPage(page, 'webhooks');

    // The delivery log, and a redelivery that arrives signed with the same secret.
    await page.getByRole('link', { name: 'CRM bookings' }).first().click();
    await page.waitForURL(new RegExp(`/w/${ws.id}/webhooks/${id}$`));
    await page.getByRole('button', { name: 'Redeliver' }).first().waitFor();
    await expect(page.getByText('booking.created').count()).resolves.toBeGreaterThan(0);
    await checkPage(page, 'webhook-detail');
    const redelivered = page.waitForResponse((r) => r.request().method() === 'POST' && /\/redeliver$/.test(r.url()));
    await page.getByRole('button', { name: 'Redeliver' }).first().click();
    expect((await redelivered).status()).toBe(202);
    const all = await waitFor(async () => sys.receiver.on(path), (r) => r.length >= 2, 20000);
    const second = all[1]!;
    expect(verifyWebhook({ rawBody: second.rawBody, headers: second.headers, secret })).toEqual(expect.objectContaining({ ok: true }));
    expect(second.headers['x-service-event-id']).toBe(first!.headers['x-service-event-id']);
    expect(second.body.data).toEqual(first!.body.data);
  });

  it('a member sees every page but no write button, and the console API refuses their writes with 403 forbidden_role', async () => {
    expect(webhook).toBeDefined();
    const page = b.page();
    await signIn(page, MEMBER);
    const visits: [string, string][] = [
      ['tokens', 'Zapier sync'],
      ['webhooks', 'CRM bookings'],
      [`webhooks/${webhook!.id}`, 'booking.created'],
      ['members', OWNER.email],
      ['workspace', 'Scale'],
      ['audit', 'token.created'],
    ];
    for (const [p, shows] of visits) {
      await page.goto(wsPath(p));
      await page.getByRole('main').getByText(shows).first().waitFor({ timeout: 10000 });
      for (const name of WRITE_BUTTONS) {
        expect([p, name, await page.getByRole('button', { name, exact: true }).count()]).toEqual([p, name, 0]);
      }
      // No forms either: no text field or select (a role to change) on the page itself.
      const main = page.getByRole('main');
      expect([p, await main.getByRole('textbox').count(), await main.getByRole('combobox').count()]).toEqual([p, 0, 0]);
    }

    // The same writes from the member's own browser session, with its CSRF token and the console's origin.
    const writes: [string, string, unknown][] = [
      ['POST', `/api/workspaces/${ws.id}/tokens`, { name: 'member token', scopes: ['bots:read'] }],
      ['POST', `/api/workspaces/${ws.id}/webhooks`, { name: 'member hook', url: sys.receiver.url('/member'), events: ['booking.created'] }],
      ['DELETE', `/api/workspaces/${ws.id}/webhooks/${webhook!.id}`, undefined],
      ['POST', `/api/workspaces/${ws.id}/webhooks/${webhook!.id}/rotate-secret`, undefined],
      ['POST', `/api/workspaces/${ws.id}/webhooks/${webhook!.id}/test`, undefined],
      ['POST', `/api/workspaces/${ws.id}/invitations`, { email: 'friend@example.com', role: 'member' }],
    ];
    const results = (await page.evaluate(
      `(async (writes) => {
        const session = await (await fetch('/api/session')).json();
        const out = [];
        for (const [method, path, body] of writes) {
          const r = await fetch(path, { method, headers: { 'x-csrf-token': session.csrf_token, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
          out.push([method, path, r.status, (await r.json().catch(() => ({}))).code]);
        }
        return out;
      })(${JSON.stringify(writes)})`,
    )) as [string, string, number, string][];
    for (const [method, path, status, code] of results) expect([method, path, status, code]).toEqual([method, path, 403, 'forbidden_role']);
    // Nothing changed: the webhook still delivers with its original secret, and no token was made.
    const owner = new ConsoleClient(sys.consoleUrl);
    await owner.signIn(OWNER.email, OWNER.password);
    const hooks = (await owner.request('GET', `/api/workspaces/${ws.id}/webhooks`)).body.data;
    expect(hooks.map((h: any) => h.id)).toContain(webhook!.id);
    const tokens = (await owner.request('GET', `/api/workspaces/${ws.id}/tokens`)).body.data;
    expect(tokens.map((t: any) => t.name)).not.toContain('member token');
  });

  it('a forged cross-site write is refused: a page on another origin posting a form or a fetch to the console, and API calls without the CSRF token or with a foreign Origin', async () => {
    const page = b.page();
    await signIn(page, OWNER);
    const owner = new ConsoleClient(sys.consoleUrl);
    await owner.signIn(OWNER.email, OWNER.password);
    const victim = (await owner.request('POST', `/api/workspaces/${ws.id}/tokens`, { name: 'Victim token', scopes: ['bots:read'] })).body;
    expect(victim.token).toMatch(TOKEN_SECRET);
    const before = (await owner.request('GET', `/api/workspaces/${ws.id}/tokens`)).body.data.length;

    // The attacker's site: same host, another port (same site, another origin), so the SameSite=Lax
    // cookie does travel with the forged requests; the CSRF token and the Origin check must stop them.
    const create = `${sys.consoleUrl}/api/workspaces/${ws.id}/tokens`;
    const revoke = `${sys.consoleUrl}/api/workspaces/${ws.id}/tokens/${victim.id}/revoke`;
    const pages: Record<string, string> = {
      // The classic JSON-smuggling form (text/plain needs no preflight).
      '/form': `<!doctype html><html lang="en"><title>Win a prize</title><body><form id="f" method="POST" action="${create}" enctype="text/plain"><input name='{"name":"forged by form","scopes":["bots:read","bots:write"],"x":"' value='"}'></form><script>document.getElementById('f').submit()</script></body></html>`,
      '/fetch': `<!doctype html><html lang="en"><title>Cute cats</title><body><script>
        fetch(${JSON.stringify(revoke)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' }).finally(() => { document.title = 'sent'; });
        fetch(${JSON.stringify(create)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'forged by fetch', scopes: ['bots:read'] }) });
        // JSON with a guessed token needs a CORS preflight, which the console does not grant.
        window.jsonResult = 'pending';
        fetch(${JSON.stringify(`${create}?via=cors`)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-csrf-token': 'guessed' }, body: JSON.stringify({ name: 'forged by cors', scopes: ['bots:read'] }) })
          .then((r) => { window.jsonResult = 'answered ' + r.status; }, () => { window.jsonResult = 'blocked'; });
      </script></body></html>`,
    };
    const evil = http.createServer((req, res) => {
      res.writeHead(pages[req.url ?? ''] ? 200 : 404, { 'content-type': 'text/html' });
      res.end(pages[req.url ?? ''] ?? '');
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    const evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    try {
      // Every POST the browser sends to the console from the attacker's pages, with the headers it
      // really sent. (Answers to no-cors requests are withheld from the page by the console's
      // Cross-Origin-Resource-Policy, so Playwright reports those requests as failed: their
      // refusal shows in the unchanged state checked below.)
      const sent: { url: string; origin?: string; cookie?: boolean; status: number | null }[] = [];
      const settle = (req: import('playwright-core').Request, status: number | null) => {
        const seen = { url: req.url(), status } as (typeof sent)[number];
        sent.push(seen);
        void req
          .allHeaders()
          .then((h) => Object.assign(seen, { origin: h['origin'], cookie: /sa_console_session=/.test(h['cookie'] ?? '') }))
          .catch(() => undefined);
      };
      page.on('requestfinished', (req) => {
        if (req.url().startsWith(sys.consoleUrl) && req.method() === 'POST') void req.response().then((r) => settle(req, r ? r.status() : null));
      });
      page.on('requestfailed', (req) => {
        if (req.url().startsWith(sys.consoleUrl) && req.method() === 'POST') settle(req, null);
      });

      const formPost = page.waitForResponse((r) => r.url() === create && r.request().method() === 'POST');
      await page.goto(`${evilOrigin}/form`);
      const formRes = await formPost;
      // Refused by the Origin check before its (form) body is read: 403 csrf_failed.
      const formBody = await formRes.text();
      expect([formRes.status(), JSON.parse(formBody)]).toEqual([403, expect.objectContaining({ code: 'csrf_failed' })]);

      await page.goto(`${evilOrigin}/fetch`);
      await waitFor(() => page.evaluate('window.jsonResult'), (r) => r !== 'pending', 10000);
      // JSON needs a CORS preflight, which the console does not grant: that POST is never sent.
      expect(await page.evaluate('window.jsonResult')).toBe('blocked');
      const forged = () => sent.filter((x) => !x.url.endsWith('?via=cors'));
      await waitFor(async () => forged().length, (n) => n >= 3, 10000).catch((e: Error) => {
        throw new Error(`${e.message}; seen: ${JSON.stringify(sent)}`);
      });
      expect(forged().map((x) => x.url).sort()).toEqual([create, create, revoke].sort());
      // The form's POST (a navigation, so its answer is visible) went with the attacker's Origin and
      // with the session cookie (same site): the refusal is the console's defence, not SameSite's.
      // The two no-cors fetches were sent as well; their answers are withheld from the page by the
      // console's Cross-Origin-Resource-Policy, and their refusal shows in the unchanged state below.
      await waitFor(async () => forged().find((x) => x.status !== null)?.origin, (o) => o !== undefined, 5000);
      const formSeen = forged().find((x) => x.status !== null)!;
      expect(formSeen).toEqual(expect.objectContaining({ url: create, status: formRes.status(), origin: evilOrigin, cookie: true }));
    } finally {
      await new Promise<void>((r) => evil.close(() => r()));
    }

    // Outside a browser: a missing or wrong token, a foreign Origin, a cross-site fetch without Origin.
    const path = `/api/workspaces/${ws.id}/tokens`;
    const body = { name: 'forged by curl', scopes: ['bots:read'] };
    for (const opts of [{ csrf: null }, { csrf: 'not-the-token' }, { origin: 'http://evil.example' }, { origin: evilOrigin }]) {
      const r = await owner.request('POST', path, body, opts);
      expect([opts, r.status, r.body?.code]).toEqual([opts, 403, 'csrf_failed']);
    }
    const noOrigin = await fetch(url(path), { method: 'POST', headers: { cookie: owner.cookie!, 'x-csrf-token': owner.csrf!, 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' }, body: JSON.stringify(body) });
    expect(noOrigin.status).toBe(403);
    // Sign-in itself is refused from another origin (login CSRF).
    expect((await new ConsoleClient(sys.consoleUrl).request('POST', '/api/session', { email: OWNER.email, password: OWNER.password }, { origin: evilOrigin })).status).toBe(403);

    // Nothing was written: the victim token still works, no forged token exists.
    expect((await api('GET', '/bots', victim.token)).status).toBe(200);
    const after = (await owner.request('GET', `/api/workspaces/${ws.id}/tokens`)).body.data;
    expect(after.length).toBe(before);
    expect(after.map((t: any) => t.name).filter((n: string) => /forged/.test(n))).toEqual([]);
    // The control: the same call with the session's token and the console's origin succeeds.
    expect((await owner.request('POST', `/api/workspaces/${ws.id}/tokens/${victim.id}/revoke`)).status).toBe(200);
  });

  it('members: an invitation e-mail, captured by the local SMTP server, carries a link that signs a new admin in', async () => {
    const page = b.page();
    await signIn(page, OWNER);
    await page.getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(new RegExp(`/w/${ws.id}/members$`));
    await page.getByText(MEMBER.email).first().waitFor();
    await checkPage(page, 'members');
    const form = await openForm(page, 'Invite', 'Email');
    await form.getByLabel('Email', { exact: true }).fill(INVITEE.email);
    const role = form.getByLabel('Role', { exact: true });
    if ((await role.evaluate((e) => (e as { tagName: string }).tagName)) === 'SELECT') await role.selectOption('admin');
    else {
      await role.click();
      await page.getByRole('option', { name: /^admin$/i }).click();
    }
    const invited = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/api/workspaces/${ws.id}/invitations`));
    await form.getByRole('button', { name: /^(invite|send invitation)$/i }).last().click();
    const invitedRes = await invited;
    expect(invitedRes.status()).toBe(201);
    expect(await invitedRes.text()).not.toMatch(/token/i);

    const [mail] = await waitFor(async () => sys.smtp.to(INVITEE.email), (m) => m.length >= 1, 20000);
    const link = linksIn(mail!.text).find((l) => l.startsWith(`${sys.consoleUrl}/accept-invitation#token=`));
    expect(link).toBeDefined();

    // The invitee, in a browser of their own.
    const theirs = await (await b.newContext()).newPage();
    await theirs.goto(link!);
    await theirs.getByText('Acme Support').first().waitFor();
    await checkPage(theirs, 'accept-invitation');
    const nameField = theirs.getByLabel(/^(display name|name|your name)( \(optional\))?$/i);
    if (await nameField.count()) await nameField.first().fill(INVITEE.name);
    await theirs.getByLabel(/^(password|new password|choose a password)$/i).first().fill(INVITEE.password);
    const confirm = theirs.getByLabel(/^(confirm|repeat)( the)?( new)? password$/i);
    if (await confirm.count()) await confirm.first().fill(INVITEE.password);
    await theirs.getByRole('button', { name: /accept/i }).click();
    await theirs.getByRole('link', { name: 'API tokens' }).waitFor({ timeout: 15000 });
    await theirs.waitForURL(new RegExp(`/w/${ws.id}/`));
    // An admin: the write buttons are there.
    await theirs.goto(wsPath('tokens'));
    await theirs.getByRole('button', { name: 'Create token' }).waitFor();

    // Single use: the link no longer works.
    const token = decodeURIComponent(link!.split('#token=')[1]!);
    expect((await fetch(url(`/api/invitations/${encodeURIComponent(token)}`))).status).toBe(404);
    const owner = new ConsoleClient(sys.consoleUrl);
    await owner.signIn(OWNER.email, OWNER.password);
    const members = (await owner.request('GET', `/api/workspaces/${ws.id}/members`)).body.data;
    expect(members.find((m: any) => m.email === INVITEE.email)).toEqual(expect.objectContaining({ role: 'admin' }));
  });

  it('password reset: "forgot password" e-mails a single-use link whose page sets a new password', async () => {
    const page = b.page();
    await page.goto(url('/forgot-password'));
    await checkPage(page, 'forgot-password');
    await page.getByLabel('Email', { exact: true }).fill(RESETTER.email);
    const asked = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/api/password-resets'));
    await page.getByRole('button', { name: /reset|send/i }).click();
    expect((await asked).status()).toBe(202);
    const [mail] = await waitFor(async () => sys.smtp.to(RESETTER.email), (m) => m.length >= 1, 20000);
    const link = linksIn(mail!.text).find((l) => l.startsWith(`${sys.consoleUrl}/reset-password#token=`));
    expect(link).toBeDefined();

    await page.goto(link!);
    const newPassword = 'a brand new password for Rosa';
    await page.getByLabel(/^(new password|password)$/i).first().waitFor();
    await checkPage(page, 'reset-password');
    await page.getByLabel(/^(new password|password)$/i).first().fill(newPassword);
    const confirm = page.getByLabel(/^(confirm|repeat)( the)?( new)? password$/i);
    if (await confirm.count()) await confirm.first().fill(newPassword);
    const done = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/api/password-resets/confirm'));
    await page.getByRole('button', { name: /password|reset|save/i }).click();
    expect((await done).status()).toBe(204);

    expect((await new ConsoleClient(sys.consoleUrl).signIn(RESETTER.email, newPassword)).status).toBe(200);
    expect((await new ConsoleClient(sys.consoleUrl).signIn(RESETTER.email, RESETTER.password)).status).toBe(401);
    const token = decodeURIComponent(link!.split('#token=')[1]!);
    const again = await new ConsoleClient(sys.consoleUrl).request('POST', '/api/password-resets/confirm', { token, password: 'yet another password here' });
    expect([again.status, again.body?.code]).toEqual([400, 'invalid_token']);
  });

  it('workspace and audit pages: the plan and usage, and every change made above with who did it', async () => {
    const page = b.page();
    await signIn(page, OWNER);
    await page.getByRole('link', { name: 'Workspace' }).click();
    await page.waitForURL(new RegExp(`/w/${ws.id}/workspace$`));
    await page.getByText(/scale/i).first().waitFor();
    await checkPage(page, 'workspace');

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(new RegExp(`/w/${ws.id}/audit$`));
    await page.getByText('token.created').first().waitFor();
    const text = await pageText(page);
    for (const action of ['token.created', 'token.revoked', 'webhook.created', 'invitation.created']) expect(text).toContain(action);
    expect(text).toContain(OWNER.email);
    expect(text).not.toMatch(TOKEN_SECRET);
    expect(text).not.toMatch(WEBHOOK_SECRET);
    await checkPage(page, 'audit');

    // Newest first: the console's changes in the tests above came after the CLI's set-up in beforeAll.
    const owner = new ConsoleClient(sys.consoleUrl);
    await owner.signIn(OWNER.email, OWNER.password);
    const audit: { at: string; action: string; actor: { kind: string; label: string } }[] = (await owner.request('GET', `/api/workspaces/${ws.id}/audit?limit=100`)).body.data;
    const line = (a: (typeof audit)[number]) => `${a.at} ${a.actor.label} ${a.action}`;
    expect(audit.length).toBeGreaterThan(10);
    expect(audit.map(line)).toEqual([...audit].sort((x, y) => Date.parse(y.at) - Date.parse(x.at)).map(line));
    expect(audit[0]!.action).toBe('invitation.accepted');
    expect(audit[audit.length - 1]!.action).toBe('workspace.created');
  });

  it('repeated wrong passwords are throttled: the sign-in page shows the refusal and the API answers 429 with Retry-After', async () => {
    const page = b.page();
    await page.goto(url('/sign-in'));
    const statuses: number[] = [];
    for (let i = 0; i < 12 && !statuses.includes(429); i++) {
      await page.getByLabel('Email', { exact: true }).fill(THROTTLED.email);
      await page.getByLabel('Password', { exact: true }).fill(`wrong password number ${i}`);
      const res = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/api/session'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      statuses.push((await res).status());
    }
    expect(statuses[0]).toBe(401);
    expect(statuses).toContain(429);
    expect(statuses.slice(0, statuses.indexOf(429)).every((s) => s === 401)).toBe(true);
    const alert = page.getByRole('alert');
    await waitFor(() => alert.first().innerText(), (t) => typeof t === 'string' && /too many|try again/i.test(t), 5000);

    // Even the right password is refused while the account is throttled.
    const r = await new ConsoleClient(sys.consoleUrl).signIn(THROTTLED.email, THROTTLED.password);
    expect(r.status).toBe(429);
    expect(r.body).toEqual(expect.objectContaining({ code: 'too_many_attempts', retry_after: expect.any(Number) }));
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('every console page was checked with axe-core and photographed', () => {
    expect([...checked].sort()).toEqual([...PAGES].sort());
  });
});

describe('console in a browser: the OAuth consent page and Connections (issue 17)', () => {
  const b = useBrowser();
  let sys: ConsoleSystem;
  let ws: { id: string; name: string };
  let memberEmail: string;
  const RESOURCE = 'http://127.0.0.1:3001/mcp';
  // The client's redirect URI: a local server that records where the browser came back to.
  let callback: http.Server;
  let REDIRECT = '';
  const returns: string[] = [];
  const returned = (n: number) => waitFor(async () => returns.length, (l) => l >= n, 15000, 100).then(() => new URL(returns[n - 1]!, REDIRECT));
  const OAUTH_OWNER = { email: 'olga.oauth@example.com', password: 'consent owner password 17', name: 'Olga OAuth' };
  const OAUTH_MEMBER = { email: 'mia.member@example.com', password: 'consent member password 17', name: 'Mia Member' };
  const url = (path: string) => `${sys.consoleUrl}${path}`;

  async function addPerson(who: { email: string; password: string; name: string }, role: string): Promise<string> {
    return (await sys.admin<{ id: string }>(['user', 'create', '--workspace', ws.id, '--email', who.email, '--role', role, '--password-stdin', '--name', who.name], `${who.password}\n`)).id;
  }

  /** A client registered through DCR (its name self-asserted, with markup) and the authorization URL it would open. */
  async function authorizationUrl(clientName: string): Promise<string> {
    const reg = await fetch(url('/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: clientName, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
    });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as { client_id: string };
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, scope: 'bots:read kb:read chat:invoke', code_challenge: challenge, code_challenge_method: 'S256', resource: RESOURCE, state: 'web-17' });
    return url(`/oauth/authorize?${q}`);
  }

  async function signInHere(page: Page, who: { email: string; password: string }): Promise<void> {
    await page.getByLabel('Email', { exact: true }).fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    callback = http.createServer((req, res) => {
      if (req.url?.startsWith('/callback')) returns.push(req.url);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('the client');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    REDIRECT = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    sys = await startConsoleSystem({ MCP_RESOURCE_URL: RESOURCE });
    ws = await sys.admin<{ id: string; name: string }>(['workspace', 'create', '--name', 'Consent Co', '--plan', 'scale']);
    const ownerId = await addPerson(OAUTH_OWNER, 'owner');
    await addPerson(OAUTH_MEMBER, 'member');
    memberEmail = OAUTH_MEMBER.email;
    const cli = (await sys.admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--name', 'CLI setup'])).token;
    const bots = (name: string) =>
      fetch(`${sys.apiUrl}/bots`, { method: 'POST', headers: { authorization: `Bearer ${cli}`, 'content-type': 'application/json' }, body: JSON.stringify({ name, language: 'en' }) });
    await waitFor(() => bots('Front desk'), (r) => r.status === 201, 20000);
    await waitFor(() => bots('Sales desk'), (r) => r.status === 201, 20000);
    // Two connections as an "Allow" leaves them (the Connections page lists the table's rows).
    const db = new PgClient({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    try {
      for (const [name, scopes] of [
        ['Claude', ['bots:read', 'kb:read', 'chat:invoke']],
        ['<img src=x onerror=alert(1)> Official console', ['leads:read']],
      ] as const) {
        await db.query(
          `INSERT INTO people.oauth_connections (id, workspace_id, person_id, client_id, client_name, redirect_host, grant_id, scopes, bot_ids)
           VALUES (gen_random_uuid(), $1, $2, $3, $4, 'client.example', $5, $6, NULL)`,
          [ws.id, ownerId, `https://client-${randomBytes(3).toString('hex')}.example/oauth/client.json`, name, randomBytes(16).toString('base64url'), scopes],
        );
      }
    } finally {
      await db.end();
    }
  }, 180000);

  afterAll(async () => {
    await sys?.stop();
    await new Promise((resolve) => callback?.close(resolve));
  });

  it('consent: signed out → sign-in → back; the unverified name as text, the scopes in words; Deny → access_denied; Allow with fewer scopes and a chosen bot → a code and that connection', async () => {
    const page = b.page();
    const name = '<b>Claude</b> (official)';
    await page.goto(await authorizationUrl(name));
    await page.waitForURL(/\/sign-in\?next=%2Foauth%2Fconsent%2F/, { timeout: 15000 });
    await signInHere(page, OAUTH_OWNER);
    await page.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 15000 });
    expect(page.url()).toMatch(/\/oauth\/consent\/[A-Za-z0-9_-]+$/);
    await expect(page.getByText(name, { exact: true }).count()).resolves.toBe(1);
    await expect(page.getByText('Unverified').first().isVisible()).resolves.toBe(true);
    await expect(page.getByText('client.example').count()).resolves.toBe(0);
    await expect(page.getByText(new URL(REDIRECT).host, { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('Read your bots and their settings.').isVisible()).resolves.toBe(true);
    for (const s of ['bots:read', 'kb:read', 'chat:invoke']) await expect(page.getByRole('checkbox', { name: s, exact: true }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('checkbox', { name: 'bots:write', exact: true }).isDisabled()).resolves.toBe(true);
    await expect(page.getByLabel('Workspace').locator('option').allTextContents()).resolves.toEqual([ws.name]);
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the consent page');
    await screenshot(page, 'consent');
    expect(b.cspViolations()).toEqual([]);

    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    const back = await returned(1);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('web-17');
    expect(back.searchParams.get('iss')).toBe(sys.consoleUrl);
    // The callback server has the request; the browser may still be loading its answer, and a
    // navigation started now would be interrupted by it: wait until the page is there.
    await page.waitForURL(REDIRECT + '**');

    await page.goto(url('/oauth/consent/no-such-request-17'));
    await page.getByText('This request has expired or is unknown.').waitFor();
    await expectNoSeriousAxeViolations(page, 'the consent page of an unknown request');

    // Allow with fewer scopes than requested and one chosen bot: the client gets a code, and the
    // connection is listed with exactly that choice.
    await page.goto(await authorizationUrl('Narrowed client'));
    await page.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 15000 });
    await page.getByRole('checkbox', { name: 'kb:read', exact: true }).click();
    await page.getByRole('radio', { name: 'Chosen bots' }).click();
    await page.getByRole('checkbox', { name: 'Front desk' }).click();
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const allowed = await returned(2);
    expect(allowed.searchParams.get('code')).toBeTruthy();
    expect(allowed.searchParams.get('iss')).toBe(sys.consoleUrl);
    await page.waitForURL(REDIRECT + '**');
    await page.goto(url(`/w/${ws.id}/connections`));
    const row = page.getByRole('row').filter({ hasText: 'Narrowed client' });
    await row.waitFor({ timeout: 15000 });
    await expect(row.getByRole('listitem').allTextContents()).resolves.toEqual(['bots:read', 'chat:invoke']);
    await expect(row.getByText('Front desk', { exact: true }).count()).resolves.toBe(1);
  }, 90000);

  it('consent: a member of no workspace as owner or admin is told so and can only Deny', async () => {
    const page = b.page();
    await page.goto(await authorizationUrl('Another client'));
    await page.waitForURL(/\/sign-in\?next=/, { timeout: 15000 });
    await signInHere(page, OAUTH_MEMBER);
    await page.getByText('You cannot approve this connection.').waitFor({ timeout: 15000 });
    await expect(page.getByRole('button', { name: 'Allow', exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Deny', exact: true }).isVisible()).resolves.toBe(true);
    await expectNoSeriousAxeViolations(page, 'the consent page without an eligible workspace');
  }, 60000);

  it('Connections: the nav entry, the table (names unverified, as text), "Revoke" asks first; a member sees no write button', async () => {
    const page = b.page();
    await page.goto(url(`/w/${ws.id}/connections`));
    await page.waitForURL(/\/sign-in/);
    await signInHere(page, OAUTH_OWNER);
    await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor({ timeout: 15000 });
    await expect(page.getByRole('link', { name: 'Connections' }).getAttribute('aria-current')).resolves.toBe('page');
    const table = page.getByRole('table');
    await table.waitFor();
    for (const col of ['Client', 'Approved by', 'Scopes', 'Bots', 'Created', 'Last used', 'Revoked']) await expect(table.getByRole('columnheader', { name: col, exact: true }).count()).resolves.toBe(1);
    await expect(table.getByText('<img src=x onerror=alert(1)> Official console', { exact: true }).count()).resolves.toBe(1);
    // Every client name is marked (the seeded two, and the one allowed in the consent test when it ran first).
    const rows = await table.locator('tbody tr').count();
    expect(rows).toBeGreaterThanOrEqual(2);
    await expect(table.getByText('Unverified').count()).resolves.toBe(rows);
    await page.waitForLoadState('networkidle');
    await expectNoSeriousAxeViolations(page, 'the Connections page');
    await screenshot(page, 'connections');
    expect(b.cspViolations()).toEqual([]);

    const row = table.getByRole('row').filter({ hasText: 'Claude' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    await expectNoSeriousAxeViolations(page, 'the Revoke confirmation');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitFor(() => row.getByRole('button', { name: 'Revoke' }).count(), (n) => n === 0, 10000, 100);

    const memberPage = await (await b.newContext()).newPage();
    await memberPage.goto(url(`/w/${ws.id}/connections`));
    await memberPage.waitForURL(/\/sign-in/);
    await signInHere(memberPage, { email: memberEmail, password: OAUTH_MEMBER.password });
    await memberPage.getByRole('table').waitFor({ timeout: 15000 });
    await expect(memberPage.getByRole('main').getByRole('button').count()).resolves.toBe(0);
    await expectNoSeriousAxeViolations(memberPage, 'the Connections page of a member');
  }, 90000);
});
