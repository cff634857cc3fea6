import * as fs from 'node:fs';
import * as path from 'node:path';
import { Browser, BrowserContext, BrowserContextOptions, chromium, Page } from 'playwright-core';

/**
 * Browser tests: playwright-core driving Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH;
 * `.ci/run` installs it with apt when missing; nothing is downloaded at test time). One browser
 * per test file, a new context (cookies, storage) per test. Accessibility is checked with
 * axe-core injected into the page (@axe-core/playwright needs Node 22); screenshots go to
 * docs/screenshots/ (the guides in docs/ embed them).
 */

/** Without the networking flags Chromium keeps trying the (closed) network. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumPath(): string {
  return process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!fs.existsSync(executablePath)) {
    throw new Error(`Chromium is missing at ${executablePath}: install Debian's chromium (apt-get install -y chromium; .ci/run does this) or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true });
}

/** Stable rendering for screenshots and timing-free tests. */
export const CONTEXT_DEFAULTS: BrowserContextOptions = {
  viewport: { width: 1280, height: 800 },
  deviceScaleFactor: 1,
  locale: 'en-US',
  timezoneId: 'UTC',
  colorScheme: 'light',
  reducedMotion: 'reduce',
};

export interface BrowserHandle {
  browser(): Browser;
  /** The current test's context (new for every test). */
  context(): BrowserContext;
  /** The current test's first page. */
  page(): Page;
  /** Another isolated context (a second person), closed after the test. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Content-Security-Policy violations the browser reported during the current test. */
  cspViolations(): string[];
}

/**
 * Registers jest hooks: one browser for the file (beforeAll), a new context and page for every
 * test (beforeEach), everything closed afterwards. Console errors about the Content Security
 * Policy are recorded per test (`cspViolations()`), so tests can assert the app runs under it.
 */
export function useBrowser(options: BrowserContextOptions = {}): BrowserHandle {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  const extra: BrowserContext[] = [];
  let csp: string[] = [];

  const watch = (ctx: BrowserContext) => {
    ctx.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text()) && !injecting.has(msg.page() as Page)) {
        const at = msg.location();
        csp.push(`${msg.text()}${at.url ? ` (at ${at.url}:${at.lineNumber}:${at.columnNumber}, on ${msg.page()?.url()})` : ''}`);
      }
    });
    return ctx;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 30000);
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    csp = [];
    context = watch(await browser!.newContext({ ...CONTEXT_DEFAULTS, ...options }));
    page = await context.newPage();
  });
  afterEach(async () => {
    for (const c of extra.splice(0)) await c.close().catch(() => undefined);
    await context?.close().catch(() => undefined);
    context = undefined;
    page = undefined;
  });

  return {
    browser: () => browser!,
    context: () => context!,
    page: () => page!,
    newContext: async (o = {}) => {
      const c = watch(await browser!.newContext({ ...CONTEXT_DEFAULTS, ...options, ...o }));
      extra.push(c);
      return c;
    },
    cspViolations: () => [...csp],
  };
}

// ---------------------------------------------------------------------------------------------
// Accessibility (axe-core)

const AXE_PATH = require.resolve('axe-core/axe.min.js');
let axeSource: string | undefined;
/** Pages whose console errors are our own axe injection hitting the page's CSP (not the app's). */
const injecting = new Set<Page>();

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  targets: string[];
  /** Each node's HTML as axe saw it (shortened). */
  html: string[];
  summaries: string[];
}

/**
 * Injects axe-core (page.addScriptTag with axe.min.js; on a page whose strict CSP forbids that
 * inline script, the same source is evaluated through the DevTools protocol, which CSP does not
 * govern, so the page is checked under its real policy) and returns every violation axe finds.
 */
export async function axeViolations(page: Page, context: string | null = null): Promise<AxeFinding[]> {
  const loaded = await page.evaluate('typeof window.axe !== "undefined"');
  if (!loaded) {
    injecting.add(page);
    try {
      await page.addScriptTag({ path: AXE_PATH });
    } catch {
      axeSource ??= fs.readFileSync(AXE_PATH, 'utf8');
      await page.evaluate(axeSource);
    } finally {
      // Console events arrive asynchronously; give the CSP report of our own injection time to land.
      await page.waitForTimeout(50);
      injecting.delete(page);
    }
  }
  const script = `window.axe.run(${context === null ? 'document' : JSON.stringify(context)}, { resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
      targets: v.nodes.map((n) => n.target.join(' ')),
      html: v.nodes.map((n) => n.html.length > 160 ? n.html.slice(0, 157) + '...' : n.html),
      summaries: v.nodes.map((n) => (n.failureSummary || '').replace(/\\s+/g, ' ').trim()),
    })))`;
  return (await page.evaluate(script)) as AxeFinding[];
}

/** Readable list of findings: one line per rule, its nodes indented. */
export function formatAxe(findings: AxeFinding[]): string {
  return findings
    .map((f) =>
      [`- [${f.impact}] ${f.id}: ${f.help} (${f.helpUrl})`, ...f.targets.map((t, i) => `    at ${t}: ${f.html[i] ?? ''}${f.summaries[i] ? `\n      ${f.summaries[i]}` : ''}`)].join('\n'),
    )
    .join('\n');
}

export const SERIOUS = new Set(['serious', 'critical']);

/** Fails (with the list of rules and elements) when axe finds a serious or critical violation. */
export async function expectNoSeriousAxeViolations(page: Page, label = page.url()): Promise<void> {
  const serious = (await axeViolations(page)).filter((f) => f.impact !== null && SERIOUS.has(f.impact));
  if (serious.length) {
    throw new Error(`axe-core found ${serious.length} serious or critical accessibility violation(s) on ${label}:\n${formatAxe(serious)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Screenshots

export const SCREENSHOT_DIR = path.resolve(__dirname, '..', '..', 'docs', 'screenshots');

/** Writes docs/screenshots/console-<name>.png (the pictures of docs/console.md) and returns its path. */
export async function screenshot(page: Page, name: string, dir = process.env['SCREENSHOT_DIR'] || SCREENSHOT_DIR): Promise<string> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`screenshot name ${JSON.stringify(name)}: use a-z, 0-9 and -`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `console-${name}.png`);
  // The whole page as laid out 1280 pixels wide (lists under the forms included); caret and animations off.
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled', caret: 'hide' });
  return file;
}

/**
 * Writes docs/screenshots/<name>.png of the viewport as a visitor sees it (the widget's pictures,
 * widget-chat, widget-mobile, widget-arabic: the widget is fixed to the viewport's corner).
 */
export async function widgetScreenshot(page: Page, name: string, dir = process.env['SCREENSHOT_DIR'] || SCREENSHOT_DIR): Promise<string> {
  if (!/^widget-[a-z0-9-]+$/.test(name)) throw new Error(`screenshot name ${JSON.stringify(name)}: widget-, then a-z, 0-9 and -`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
  return file;
}
