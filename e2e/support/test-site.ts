import * as http from 'node:http';

export interface TestSite {
  origin: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

const ARTICLE = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>
<body><nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/docs/setup">Setup</a> <a href="/private/secret">Secret</a></nav>
<article><h1>${title}</h1>${body}</article><footer>© Example Co. Cookie settings. Imprint.</footer></body></html>`;

const para = (text: string, n: number) => Array.from({ length: n }, (_, i) => `<p>${text} (paragraph ${i + 1}).</p>`).join('\n');

/**
 * A small website for ingestion tests: HTML pages with boilerplate, a redirect, robots.txt with a
 * disallowed path and a Sitemap line, a sitemap, a 404, an oversized page and a slow page.
 */
export async function startTestSite(port: number): Promise<TestSite> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    switch (path) {
      case '/':
        return html(ARTICLE('Example Co. support', para('Example Co. sells solar water heaters and offers free installation in Nairobi and Lagos', 6)));
      case '/pricing':
        return html(ARTICLE('Pricing', para('The basic heater costs 450 dollars and the premium heater costs 900 dollars with a ten year warranty', 8)));
      case '/docs/setup':
        return html(ARTICLE('Setup guide', para('Mount the panel facing the sun, connect the cold water inlet, then open the valve slowly', 10)));
      case '/old-pricing':
        res.writeHead(301, { location: '/pricing' });
        return res.end();
      case '/private/secret':
        return html(ARTICLE('Secret', '<p>internal only</p>'));
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`User-agent: *\nDisallow: /private/\nSitemap: http://127.0.0.1:${port}/sitemap.xml\n`);
      case '/sitemap.xml':
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <url><loc>http://127.0.0.1:${port}/</loc></url>
          <url><loc>http://127.0.0.1:${port}/pricing</loc></url>
          <url><loc>http://127.0.0.1:${port}/docs/setup</loc></url>
          <url><loc>http://127.0.0.1:${port}/private/secret</loc></url>
          <url><loc>https://elsewhere.example/offsite</loc></url></urlset>`);
      case '/notes.md':
        res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
        return res.end('# Warranty\n\nEvery heater carries a ten year warranty on the tank.\n\n## Claims\n\nWrite to support with your receipt.');
      case '/huge':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><body>');
        for (let i = 0; i < 2000; i++) res.write(`<p>${'x'.repeat(1000)}</p>`);
        return res.end('</body></html>');
      case '/slow': {
        const t = setTimeout(() => html(ARTICLE('Slow page', para('This page takes its time to answer', 3))), 4000);
        req.on('close', () => clearTimeout(t));
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
