import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A customer's website for the visitor widget's browser tests (issue 18): a node http server on an
 * origin of its own (http://localhost:<port>; the same server also answers as
 * http://127.0.0.1:<port>, another origin, which a bot's allowed origins can leave out). Its pages
 * embed the widget exactly as docs/widget.md tells a site to (the tag from the gateway with the
 * published SRI hash and crossorigin="anonymous"), under a strict Content-Security-Policy that only
 * adds the gateway to script-src and connect-src, with the site's own external script (no inline
 * script) calling `SupportAgent.identify` with a hash the site computed on its server.
 *
 * Page `/` query parameters:
 * - `bot` (required): the bot id (`data-bot-id`);
 * - `lang`: `data-language`; any `data-*` parameter becomes that attribute of the tag;
 * - `leak=1`: adds a style sheet that would restyle every element of a widget that is not isolated;
 * - `user`: the visitor is "signed in" on the site as this id: the page carries the id and its
 *   userHash (HMAC-SHA256 with the site's copy of the bot's widget secret); `hash=bad` signs it with
 *   another key instead;
 * - `widget=0`: the same page without the tag; `integrity=bad`: the tag with a wrong SRI hash.
 *
 * `/help/<name>` are plain articles the knowledge base ingests (so answers cite a source URL).
 */
export interface WidgetSite {
  port: number;
  /** http://localhost:<port>: the site's origin in the tests. */
  origin: string;
  /** http://127.0.0.1:<port>: the same pages on another origin. */
  otherOrigin: string;
  /** The page embedding the widget; `params` as described above. */
  pageUrl(params: Record<string, string>, origin?: string): string;
  /** An article the knowledge base can fetch (127.0.0.1, allowed by the outbound policy). */
  articleUrl(name: string): string;
  /** The bot's widget identity secret, as the site keeps it on its server (set after a rotation). */
  secret: string | null;
  /** CSP violation reports the browser posted to /csp-report. */
  cspReports: unknown[];
  close(): Promise<void>;
}

export const ARTICLES: Record<string, { title: string; text: string }> = {
  heaters: {
    title: 'Solar water heater prices',
    text: 'The premium solar water heater costs 900 dollars including installation. The basic heater costs 450 dollars. Every heater carries a ten year warranty on the tank.',
  },
};

/** userHash as docs/widget.md tells a site to compute it: lowercase hex HMAC-SHA256(secret, externalUserId). */
export function userHash(secret: string, externalUserId: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(externalUserId, 'utf8')).digest('hex');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The site's own script: no inline code anywhere, so script-src needs only 'self' and the gateway. */
const SITE_JS = `(function () {
  function meta(name) {
    var m = document.querySelector('meta[name="' + name + '"]');
    return m ? m.getAttribute('content') : null;
  }
  function status(text) {
    document.getElementById('identify-status').textContent = text;
  }
  function identify() {
    var user = meta('sa-user');
    if (!user) return;
    status('pending');
    window.SupportAgent.identify({ externalUserId: user, name: meta('sa-user-name') || undefined, email: meta('sa-user-email') || undefined, userHash: meta('sa-user-hash') })
      .then(function () { status('identified'); }, function (e) { status('refused:' + (e && e.code)); });
  }
  var tag = document.getElementById('sa-widget');
  if (window.SupportAgent) identify();
  else if (tag) tag.addEventListener('load', identify);
})();
`;

const SITE_CSS = `body { font: 16px/1.5 Georgia, serif; margin: 2rem; color: #222; background: #fdfaf3; }
header { border-bottom: 1px solid #ccc; margin-bottom: 1rem; }
`;

/** What a careless host page does; an isolated widget must look the same with it. */
export const LEAK_CSS = `* { color: rgb(255, 0, 0) !important; font-size: 40px !important; font-family: "Courier New", monospace !important; line-height: 3 !important; letter-spacing: 5px !important; text-transform: uppercase !important; }
button, input, textarea, select { background: rgb(0, 255, 0) !important; border: 6px dashed rgb(0, 0, 255) !important; padding: 30px !important; }
div, section, form, p, ul, li, a { margin: 20px !important; padding: 20px !important; }
`;

export interface WidgetSiteOptions {
  gatewayUrl: string;
  port?: number;
}

export async function startWidgetSite(opts: WidgetSiteOptions): Promise<WidgetSite> {
  const gateway = opts.gatewayUrl.replace(/\/$/, '');
  let embed: { hashed_path: string; integrity: string } | undefined;
  const embedInfo = async () => {
    if (!embed) {
      const res = await fetch(`${gateway}/widget/v1/embed.json`);
      if (res.status !== 200) throw new Error(`GET ${gateway}/widget/v1/embed.json answered ${res.status}`);
      embed = (await res.json()) as { hashed_path: string; integrity: string };
    }
    return embed;
  };
  const cspReports: unknown[] = [];
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${gateway}`,
    `connect-src ${gateway}`,
    "img-src 'self'",
    "style-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    'report-uri /csp-report',
  ].join('; ');

  const site: WidgetSite = {
    port: 0,
    origin: '',
    otherOrigin: '',
    pageUrl: (params, origin = site.origin) => `${origin}/?${new URLSearchParams(params).toString()}`,
    articleUrl: (name) => `${site.otherOrigin}/help/${name}`,
    secret: null,
    cspReports,
    close: async () => undefined,
  };

  const page = async (q: URLSearchParams): Promise<string> => {
    const bot = q.get('bot') ?? '';
    const head: string[] = ['<link rel="stylesheet" href="/site.css">'];
    if (q.get('leak') === '1') head.push('<link rel="stylesheet" href="/leak.css">');
    const user = q.get('user');
    if (user) {
      if (!site.secret && q.get('hash') !== 'bad') throw new Error('the site has no widget secret to sign the visitor with');
      const hash = q.get('hash') === 'bad' ? userHash('wsk_not-the-bots-secret', user) : userHash(site.secret!, user);
      head.push(`<meta name="sa-user" content="${esc(user)}">`, `<meta name="sa-user-hash" content="${hash}">`);
      if (q.get('name')) head.push(`<meta name="sa-user-name" content="${esc(q.get('name')!)}">`);
      if (q.get('email')) head.push(`<meta name="sa-user-email" content="${esc(q.get('email')!)}">`);
    }
    head.push('<script src="/site.js" defer></script>');
    if (q.get('widget') !== '0') {
      const info = await embedInfo();
      const attrs = [`id="sa-widget"`, `src="${esc(gateway + info.hashed_path)}"`, `integrity="${esc(q.get('integrity') === 'bad' ? `sha384-${'A'.repeat(64)}` : info.integrity)}"`, 'crossorigin="anonymous"', `data-bot-id="${esc(bot)}"`];
      if (q.get('lang')) attrs.push(`data-language="${esc(q.get('lang')!)}"`);
      for (const [k, v] of q) if (/^data-[a-z-]+$/.test(k) && k !== 'data-bot-id') attrs.push(`${k}="${esc(v)}"`);
      head.push(`<script ${attrs.join(' ')} async></script>`);
    }
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Northwind Heaters</title>
${head.join('\n')}
</head><body>
<header><a href="/">Northwind Heaters</a> <a href="/?bot=${esc(bot)}&amp;widget=0">Shop</a></header>
<main><h1>Solar water heaters</h1>
<p id="host-text">Hot water from the sun, installed in a day.</p>
<button id="host-button" type="button">Buy now</button>
<p>Signed-in widget: <output id="identify-status">none</output></p>
</main></body></html>`;
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const send = (status: number, type: string, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...extra });
      res.end(body);
    };
    if (req.method === 'POST' && url.pathname === '/csp-report') {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        try {
          cspReports.push(JSON.parse(raw));
        } catch {
          cspReports.push(raw);
        }
        res.writeHead(204).end();
      });
      return;
    }
    if (url.pathname === '/') {
      page(url.searchParams).then(
        (html) => send(200, 'text/html; charset=utf-8', html, { 'content-security-policy': csp }),
        (e: Error) => send(502, 'text/plain; charset=utf-8', e.message),
      );
      return;
    }
    if (url.pathname === '/site.js') return send(200, 'text/javascript; charset=utf-8', SITE_JS);
    if (url.pathname === '/site.css') return send(200, 'text/css; charset=utf-8', SITE_CSS);
    if (url.pathname === '/leak.css') return send(200, 'text/css; charset=utf-8', LEAK_CSS);
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    const article = /^\/help\/([a-z-]+)$/.exec(url.pathname);
    if (article && ARTICLES[article[1]]) {
      const a = ARTICLES[article[1]];
      return send(200, 'text/html; charset=utf-8', `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(a.title)}</title></head><body><article><h1>${esc(a.title)}</h1><p>${esc(a.text)}</p></article></body></html>`);
    }
    send(404, 'text/plain', 'not found');
  };

  const v4 = http.createServer(handler);
  await new Promise<void>((resolve) => v4.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (v4.address() as AddressInfo).port;
  // Chromium may resolve localhost to ::1 first: answer there too when the machine has IPv6.
  const v6 = http.createServer(handler);
  const v6up = await new Promise<boolean>((resolve) => {
    v6.once('error', () => resolve(false));
    v6.listen(port, '::1', () => resolve(true));
  });
  site.port = port;
  site.origin = `http://localhost:${port}`;
  site.otherOrigin = `http://127.0.0.1:${port}`;
  site.close = async () => {
    v4.closeAllConnections();
    await new Promise<void>((r) => v4.close(() => r()));
    if (v6up) {
      v6.closeAllConnections();
      await new Promise<void>((r) => v6.close(() => r()));
    }
  };
  return site;
}
