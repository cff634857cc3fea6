import { createHash, createHmac } from 'node:crypto';
import * as http from 'node:http';
import { admin } from './support/admin';
import { waitFor } from './support/apps';
import { expectNoSeriousAxeViolations, useBrowser } from './support/browser';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { e2eState } from './support/state';

/**
 * The widget script as the gateway serves it (dist/apps/widget/embed.js, built by tools/build.js)
 * and a smoke run of it in Chromium on a page of another origin under a strict CSP. The full
 * visitor journey is e2e/widget-browser.e2e-spec.ts.
 */
// The panel is named by the bot's name (GET …/config).
const NAME = 'Solar Help';

describe('the widget script (GET /widget/v1/embed.js) on a page of another origin', () => {
  const s = e2eState();
  const b = useBrowser();
  let ws: TestWorkspace;
  let bot: string;
  let site: http.Server;
  let siteOrigin: string;

  beforeAll(async () => {
    ws = await newWorkspace(['--plan', 'scale']);
    bot = (await ws.api.post('/bots', { name: 'Solar Help' })).body.data.id;
    const kb = await ws.api.post('/kb/ingest', { title: 'Plans', text: 'The premium plan costs 49 dollars a month and includes phone support.', chatbotId: bot });
    await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === kb.body.data.id)?.status, (st) => st === 'ready', 20000);
    const port = await freePort();
    // localhost, not 127.0.0.1: another origin than the gateway's.
    siteOrigin = `http://localhost:${port}`;
    const gateway = s.gatewayUrl;
    site = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', siteOrigin);
      if (url.pathname === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end('window.SupportAgent.open();');
        return;
      }
      if (url.pathname === '/head') {
        // The tag in <head>, not async: it runs before <body> exists, and the page calls it at once.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': `default-src 'none'; script-src 'self' ${gateway}; connect-src ${gateway}` });
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Head</title>
<script src="${gateway}/widget/v1/embed.js" data-bot-id="${bot}"></script><script src="/app.js"></script></head><body><p>Body</p></body></html>`);
        return;
      }
      const lang = url.searchParams.get('lang');
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        // Strict: no inline script or style, scripts and connections to the gateway only.
        'content-security-policy': `default-src 'none'; script-src ${gateway}; connect-src ${gateway}; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'`,
      });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Example shop</title></head>
<body><main><h1>Example shop</h1><p>Solar water heaters.</p></main>
<script src="${gateway}/widget/v1/embed.js" data-bot-id="${bot}"${lang ? ` data-language="${lang}"` : ''} async></script></body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
  });

  it('is served with its cache, CORS and CORP headers, and embed.json publishes the hashed path and SRI hash', async () => {
    const res = await fetch(`${s.gatewayUrl}/widget/v1/embed.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const code = Buffer.from(await res.arrayBuffer());
    const manifest = (await (await fetch(`${s.gatewayUrl}/widget/v1/embed.json`)).json()) as any;
    expect(manifest.integrity).toBe(`sha384-${createHash('sha384').update(code).digest('base64')}`);
    const hashed = await fetch(`${s.gatewayUrl}${manifest.hashed_path}`);
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await hashed.arrayBuffer()).equals(code)).toBe(true);
  });

  it('renders in its Shadow DOM root under a strict CSP, streams an answer, and keeps the conversation over a reload', async () => {
    const page = b.page();
    await page.goto(siteOrigin);
    await page.getByRole('button', { name: 'Open chat' }).click();
    const dialog = page.getByRole('dialog', { name: NAME });
    expect(await dialog.getByRole('tab', { name: 'Chat' }).getAttribute('aria-selected')).toBe('true');
    const box = dialog.getByRole('textbox', { name: 'Message' });
    expect(await box.evaluate((el: any) => el === el.getRootNode().activeElement)).toBe(true);
    await box.fill('How much is the premium plan?');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await dialog.getByText(/49 dollars/).waitFor({ timeout: 20000 });
    const helpful = dialog.getByRole('button', { name: 'Helpful', exact: true });
    await helpful.click();
    await dialog.locator('button[aria-pressed="true"]').waitFor();
    expect(await helpful.getAttribute('aria-pressed')).toBe('true');
    expect((await ws.api.get(`/analytics?chatbotId=${bot}`)).body.data.feedback.positive).toBe(1);
    // The answer is announced from one live region, the log; the other polite region is the actions'
    // status line (issue 34), empty while no action runs.
    const live = dialog.locator('[aria-live="polite"]');
    const regions = await live.evaluateAll((els) => els.map((e) => ({ role: e.getAttribute('role'), text: (e.textContent ?? '').trim() })));
    expect(regions.map((r) => r.role)).toEqual(['log', 'status']);
    expect(regions[0]!.text).toContain('49 dollars');
    expect(regions[1]!.text).toBe('');
    await expectNoSeriousAxeViolations(page, 'the open widget');
    const sessionId = await page.evaluate((key) => JSON.parse((globalThis as any).localStorage.getItem(key) ?? '{}').sessionId, `sa-widget:${bot}`);
    expect(typeof sessionId).toBe('string');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    const launcher = page.getByRole('button', { name: 'Open chat' });
    expect(await launcher.evaluate((el: any) => el === el.getRootNode().activeElement)).toBe(true);

    await page.reload();
    await page.getByRole('button', { name: 'Open chat' }).click();
    await page.getByRole('dialog', { name: NAME }).getByText(/49 dollars/).waitFor();
    expect(await page.evaluate((key) => JSON.parse((globalThis as any).localStorage.getItem(key) ?? '{}').sessionId, `sa-widget:${bot}`)).toBe(sessionId);
    expect(b.cspViolations()).toEqual([]);
  });

  it('books with API errors next to the field, opens a ticket, and lays out right to left in Arabic', async () => {
    const page = b.page();
    await page.goto(siteOrigin);
    await page.getByRole('button', { name: 'Open chat' }).click();
    const dialog = page.getByRole('dialog', { name: NAME });
    await dialog.getByRole('tab', { name: 'Chat' }).focus();
    await page.keyboard.press('ArrowRight');
    const book = dialog.getByRole('tab', { name: 'Book' });
    expect(await book.getAttribute('aria-selected')).toBe('true');
    await dialog.getByLabel('Name').fill('Ann Visitor');
    await dialog.getByLabel('E-mail').fill('not-an-email');
    await dialog.getByLabel('Phone').fill('+1 415 555 0100');
    await dialog.getByLabel('Preferred time').fill('2031-03-04T10:30');
    await dialog.getByRole('button', { name: 'Request booking' }).click();
    const email = dialog.getByLabel('E-mail');
    await dialog.locator('input[aria-invalid="true"]').waitFor();
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await email.getAttribute('aria-describedby'))!.split(' ');
    expect(describedBy.some((id) => id.endsWith('-error'))).toBe(true);
    await email.fill('ann@example.com');
    await dialog.getByRole('button', { name: 'Request booking' }).click();
    await dialog.getByText('Thanks! Your request is pending. We will confirm it by e-mail.').waitFor();
    const booking = (await ws.api.get('/bookings')).body.data.find((x: any) => x.email === 'ann@example.com');
    expect(booking).toEqual(expect.objectContaining({ status: 'pending', name: 'Ann Visitor', time_zone: 'UTC' }));

    await dialog.getByRole('tab', { name: 'Support' }).click();
    await dialog.getByLabel('E-mail').fill('ann@example.com');
    await dialog.getByLabel('Subject').fill('Broken heater');
    await dialog.getByLabel('Message').fill('It makes a noise.');
    await dialog.getByRole('button', { name: 'Send ticket' }).click();
    await dialog.getByText('Your ticket was sent. We will reply by e-mail.').waitFor();

    const arabic = await b.newContext();
    const ar = await arabic.newPage();
    await ar.goto(`${siteOrigin}/?lang=ar`);
    await ar.locator('[data-support-agent]').waitFor({ state: 'attached' });
    await ar.getByRole('button').first().click();
    const panel = ar.getByRole('dialog');
    expect(await panel.getAttribute('dir')).toBe('rtl');
    expect(await panel.getAttribute('lang')).toBe('ar-AE');
  });

  it('identifies through window.SupportAgent (a valid hash links the lead, a wrong one rejects with its code), hands off, sends the lead form; full screen on a phone', async () => {
    const { secret } = await admin<{ secret: string }>(['widget', 'rotate-secret', '--bot', bot]);
    const ctx = await b.newContext({ viewport: { width: 390, height: 760 }, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    await page.goto(siteOrigin);
    await page.locator('[data-support-agent]').waitFor({ state: 'attached' });
    const identify = (externalUserId: string, userHash: string) =>
      page.evaluate(
        ([id, hash]) =>
          (globalThis as any).SupportAgent.identify({ externalUserId: id, userHash: hash, email: 'visitor@example.com' }).then(
            (r: any) => ({ ok: r }),
            (e: any) => ({ code: e.code }),
          ),
        [externalUserId, userHash],
      );
    expect(await identify('user-42', createHmac('sha256', secret).update('user-42').digest('hex'))).toEqual({ ok: expect.objectContaining({ identified: true }) });
    expect(await identify('user-43', createHmac('sha256', secret).update('user-42').digest('hex'))).toEqual({ code: 'invalid_user_hash' });
    const sessionId = await page.evaluate((key) => JSON.parse((globalThis as any).localStorage.getItem(key) ?? '{}').sessionId, `sa-widget:${bot}`);
    const lead = await waitFor(async () => (await ws.api.get('/leads')).body.data.find((l: any) => l.session_id === sessionId), (l) => !!l, 20000);
    expect(lead.external_user_id).toBe('user-42');

    await page.evaluate(() => (globalThis as any).SupportAgent.open());
    const dialog = page.getByRole('dialog', { name: NAME });
    const box = await dialog.boundingBox();
    expect(box).toEqual({ x: 0, y: 0, width: 390, height: 760 });
    await dialog.getByRole('button', { name: 'Talk to a person' }).click();
    await dialog.getByText('We have asked a person to join. They will reply here or by e-mail.').waitFor();
    await dialog.getByRole('button', { name: 'Contact me' }).click();
    await dialog.getByLabel('Name').fill('Visitor');
    await dialog.getByLabel('Phone').fill('+1 415 555 0199');
    await dialog.getByRole('button', { name: 'Send details' }).click();
    await dialog.getByText('Thanks! We will be in touch.').waitFor();
    await page.evaluate(() => (globalThis as any).SupportAgent.close());
    await dialog.waitFor({ state: 'hidden' });
  });

  it('a page on an origin the bot does not allow cannot chat, and says the assistant is unavailable (no CORS grant, not even for the 403: issue 30)', async () => {
    await admin(['widget', 'set', '--bot', bot, '--origins', 'https://shop.example.com']);
    try {
      const page = b.page();
      await page.goto(siteOrigin);
      await page.getByRole('button', { name: 'Open chat' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('textbox', { name: 'Message' }).fill('Hello?');
      await dialog.getByRole('button', { name: 'Send' }).click();
      await dialog.getByText('The assistant is not available right now.').waitFor();
    } finally {
      await admin(['widget', 'set', '--bot', bot, '--no-origins']);
    }
  });

  it('a tag in <head> (before <body> exists) gives window.SupportAgent at once; calls wait for the widget', async () => {
    const page = b.page();
    await page.goto(`${siteOrigin}/head`);
    await page.getByRole('dialog', { name: NAME }).waitFor();
    expect(await page.getByRole('button', { name: 'Close chat' }).count()).toBe(1);
    expect(b.cspViolations()).toEqual([]);
  });
});
