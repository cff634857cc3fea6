import * as fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { axeViolations, expectNoSeriousAxeViolations, screenshot, useBrowser } from './support/browser';

/**
 * The browser harness itself (e2e/support/browser.ts), against a local static site: Chromium
 * starts from the system binary, axe-core runs (also under a strict CSP) and catches a deliberate
 * violation, and screenshots are real PNGs.
 */
const STRICT_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
const page = (body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harness</title></head><body><main><h1>Harness</h1>${body}</main></body></html>`;
const PAGES: Record<string, { html: string; csp?: string }> = {
  '/good': { html: page('<form><label for="e">Email</label><input id="e" type="email"><button type="submit">Sign in</button></form>') },
  // Deliberate violations: an image without a text alternative and an unnamed button (both critical).
  '/bad': { html: page('<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10"><button type="button"></button>') },
  // Only a moderate finding (a heading level skipped): reported by axe, not failed by the helper.
  '/moderate': { html: page('<h4>Skipped levels</h4><p>Text</p>') },
  // Served under the console's strict CSP: axe must still run; the inline script is blocked and reported.
  '/strict': { html: page('<p>Strict</p><script>document.title = "ran"</script>'), csp: STRICT_CSP },
};

describe('browser harness (playwright-core + system Chromium + axe-core)', () => {
  const b = useBrowser();
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const p = PAGES[req.url ?? ''];
      if (!p) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(p.csp ? { 'content-security-policy': p.csp } : {}) });
      res.end(p.html);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('drives the system Chromium through a real page with role locators', async () => {
    const p = b.page();
    await p.goto(`${base}/good`);
    await p.getByLabel('Email').fill('ann@example.com');
    expect(await p.getByLabel('Email').inputValue()).toBe('ann@example.com');
    expect(await p.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    expect(b.browser().version()).toMatch(/^\d+\./);
  });

  it('passes an accessible page and fails the deliberate violations with a readable list', async () => {
    const p = b.page();
    await p.goto(`${base}/good`);
    await expectNoSeriousAxeViolations(p);

    await p.goto(`${base}/bad`);
    const err = await expectNoSeriousAxeViolations(p).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).not.toBeNull();
    expect(err!.message).toContain(`violation(s) on ${base}/bad`);
    expect(err!.message).toMatch(/- \[critical\] image-alt: .*\n {4}at img/);
    expect(err!.message).toMatch(/- \[critical\] button-name: .*\n {4}at button/);
  });

  it('reports moderate findings without failing on them', async () => {
    const p = b.page();
    await p.goto(`${base}/moderate`);
    const found = await axeViolations(p);
    expect(found.map((f) => [f.id, f.impact])).toContainEqual(['heading-order', 'moderate']);
    await expectNoSeriousAxeViolations(p);
  });

  it('runs axe on a page under a strict CSP and records the page’s own CSP violations, not the injection', async () => {
    const p = b.page();
    await p.goto(`${base}/strict`);
    await p.waitForTimeout(100);
    expect(await p.title()).toBe('Harness');
    await p.goto(`${base}/bad`);
    await p.goto(`${base}/strict`);
    const found = await axeViolations(p);
    expect(Array.isArray(found)).toBe(true);
    const csp = b.cspViolations();
    expect(csp.length).toBe(2);
    expect(csp.every((m) => /inline script/.test(m))).toBe(true);
  });

  it('writes a PNG screenshot named console-<name>.png', async () => {
    const p = b.page();
    await p.goto(`${base}/good`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shots-'));
    const file = await screenshot(p, 'harness', dir);
    expect(path.basename(file)).toBe('console-harness.png');
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(bytes.readUInt32BE(16)).toBe(1280); // IHDR width
    expect(bytes.readUInt32BE(20)).toBe(800); // IHDR height: the whole page, here shorter than the viewport
    await expect(screenshot(p, '../escape', dir)).rejects.toThrow(/use a-z/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
