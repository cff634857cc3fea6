'use strict';
// A local website for the crawl-1000 benchmark (issue #36): one sitemap of PAGES URLs on one host,
// most of them ordinary help-centre articles (2-5 KB of text each inside the usual header, nav and
// footer boilerplate, each linking to a few other pages), some duplicates (the very same HTML at a
// second URL, as a "print view" or a tracking parameter gives it) and some failing URLs (404, 500
// every time, and pages that never answer, so the crawler's timeout ends them). Every page is
// rendered once, up front, so that serving costs the benchmark's process almost nothing.
const http = require('node:http');

const WORDS = (
  'account order invoice refund shipping delivery warranty heater panel install installation valve pressure tank ' +
  'water solar roof bracket pipe inlet outlet thermostat setting schedule booking technician visit appointment ' +
  'payment card transfer receipt plan subscription upgrade downgrade cancel renew login password email phone ' +
  'address region city country battery inverter cable fuse switch display error code reset manual guide step ' +
  'check replace clean filter season winter summer temperature litre hour day week month year support team ' +
  'customer product model serial number label box parcel courier tracking return label exchange spare part'
).split(' ');
const VERBS = 'covers includes needs requires shows explains lists keeps sends protects starts stops changes answers'.split(' ');

/** Deterministic pseudo-random numbers (mulberry32): the same site every run. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(rand, n) {
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const words = [pick(WORDS), pick(WORDS), pick(VERBS)];
  while (words.length < 8 + (n % 9)) words.push(pick(WORDS));
  const s = words.join(' ');
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/**
 * The site's layout. `pages` URLs in the sitemap: `duplicates` of them repeat another page's HTML,
 * `failing` of them fail (split between 404, 500 and never answering); the rest are articles.
 */
function plan({ pages = 1000, duplicates = 20, failing = 20 } = {}) {
  const articles = pages - duplicates - failing;
  if (articles < duplicates) throw new Error('crawl-site: too few articles for the duplicates');
  const articlePath = (i) => `/help/article-${String(i + 1).padStart(4, '0')}`;
  const entries = [];
  for (let i = 0; i < articles; i++) entries.push({ path: articlePath(i), kind: 'article', article: i });
  // Every 40th article also answers at its print view, with the very same HTML.
  for (let d = 0; d < duplicates; d++) {
    const i = (d * Math.floor(articles / duplicates)) % articles;
    entries.push({ path: `${articlePath(i)}/print`, kind: 'duplicate', article: i });
  }
  const notFound = Math.floor(failing * 0.4);
  const serverError = Math.floor(failing * 0.4);
  const hanging = failing - notFound - serverError;
  for (let f = 0; f < failing; f++) {
    const kind = f < notFound ? 'not-found' : f < notFound + serverError ? 'server-error' : 'hang';
    entries.push({ path: `/help/${kind}-${f + 1}`, kind });
  }
  // A real sitemap is not sorted by what fails: the duplicates and failing URLs are spread through it.
  const special = entries.splice(articles);
  // Kinds taken in turn (duplicate, 404, 500, no answer, ...), so no stretch of the sitemap holds one kind only.
  const byKind = [...new Set(special.map((e) => e.kind))].map((k) => special.filter((e) => e.kind === k));
  special.length = 0;
  while (byKind.some((l) => l.length)) for (const l of byKind) if (l.length) special.push(l.shift());
  const step = Math.floor(articles / (special.length + 1));
  special.forEach((e, k) => entries.splice((k + 1) * step + k, 0, e));
  return { entries, articles, counts: { articles, duplicates, notFound, serverError, hanging } };
}

function renderArticle(i, articles, articlePath) {
  const rand = rng(1000 + i);
  const title = `Help article ${i + 1}: ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7 + 3) % WORDS.length]}`;
  const targetChars = 2000 + Math.floor(rand() * 3000); // 2-5 KB of article text
  const paragraphs = [];
  let chars = 0;
  let n = 0;
  while (chars < targetChars) {
    const p = Array.from({ length: 4 + Math.floor(rand() * 4) }, () => sentence(rand, n++)).join(' ');
    paragraphs.push(n % 5 === 0 ? `<h2>${escapeHtml(sentence(rand, n).slice(0, 40))}</h2><p>${p}</p>` : `<p>${p}</p>`);
    chars += p.length;
  }
  // Links to the next pages and a few others: the site is one connected graph, as real help centres are.
  const related = [1, 2, 3, 17, 101, 333].map((k) => (i + k) % articles);
  const links = related.map((r) => `<li><a href="${articlePath(r)}">Help article ${r + 1}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><header><a href="/">Example Co. help centre</a> <a href="/help/">All articles</a> <a href="/contact">Contact</a></header>
<nav aria-label="Breadcrumb"><a href="/">Home</a> › <a href="/help/">Help</a></nav>
<main><article><h1>${escapeHtml(title)}</h1>
${paragraphs.join('\n')}
<aside><h2>Related articles</h2><ul>${links}</ul></aside></article></main>
<footer>© Example Co. <a href="/privacy">Privacy</a> · Cookie settings · Imprint</footer></body></html>`;
}

/**
 * Starts the site on 127.0.0.1 (a free port). `crawlDelay` (seconds) adds a Crawl-delay line to
 * robots.txt; `/private/` is disallowed either way. Returns { origin, sitemapUrl, close(), hits, layout }.
 */
async function startCrawlSite(options = {}) {
  const layout = plan(options);
  const articlePath = (i) => `/help/article-${String(i + 1).padStart(4, '0')}`;
  const html = new Map();
  for (let i = 0; i < layout.articles; i++) html.set(articlePath(i), Buffer.from(renderArticle(i, layout.articles, articlePath)));
  const byPath = new Map(layout.entries.map((e) => [e.path, e]));
  let origin = '';
  // Politeness as the site sees it: requests open at once (at most), and the shortest gap between two page requests' starts.
  const hits = { total: 0, robots: 0, sitemap: 0, pages: 0, byKind: {}, inFlight: 0, maxInFlight: 0, minGapMs: null };
  let lastPageStart = null;
  const hanging = new Set();
  const server = http.createServer((req, res) => {
    hits.total++;
    hits.inFlight++;
    hits.maxInFlight = Math.max(hits.maxInFlight, hits.inFlight);
    res.on('close', () => hits.inFlight--);
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt') {
      hits.robots++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(`User-agent: *\nDisallow: /private/\n${options.crawlDelay ? `Crawl-delay: ${options.crawlDelay}\n` : ''}Sitemap: ${origin}/sitemap.xml\n`);
    }
    if (path === '/sitemap.xml') {
      hits.sitemap++;
      res.writeHead(200, { 'content-type': 'application/xml' });
      const urls = layout.entries.map((e) => `<url><loc>${origin}${e.path}</loc></url>`).join('\n');
      return res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`);
    }
    const entry = byPath.get(path);
    hits.pages++;
    const t = performance.now();
    if (lastPageStart !== null) hits.minGapMs = Math.min(hits.minGapMs ?? Infinity, Math.round((t - lastPageStart) * 10) / 10);
    lastPageStart = t;
    if (entry) hits.byKind[entry.kind] = (hits.byKind[entry.kind] ?? 0) + 1;
    if (!entry || entry.kind === 'not-found') {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Not found</title><p>No such page.</p>');
    }
    if (entry.kind === 'server-error') {
      res.writeHead(500, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Error</title><p>Something went wrong.</p>');
    }
    if (entry.kind === 'hang') {
      // Never answers: the crawler's own timeout must end the request.
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html.get(articlePath(entry.article)));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  origin = `http://127.0.0.1:${port}`;
  const bytes = [...html.values()].map((b) => b.length);
  return {
    origin,
    port,
    sitemapUrl: `${origin}/sitemap.xml`,
    layout,
    hits,
    htmlBytes: { min: Math.min(...bytes), max: Math.max(...bytes), mean: Math.round(bytes.reduce((a, b) => a + b, 0) / bytes.length) },
    /** The article texts as plain text (for the baseline): title and paragraphs, no markup. */
    plainTexts() {
      return layout.entries
        .filter((e) => e.kind === 'article' || e.kind === 'duplicate')
        .map((e) => {
          const page = html.get(articlePath(e.article)).toString('utf8');
          const title = /<title>([^<]*)<\/title>/.exec(page)[1];
          const text = [...page.matchAll(/<(?:p|h2)>([^<]*)<\/(?:p|h2)>/g)].map((m) => m[1]).join('\n\n');
          return { title: title.replace(/&amp;/g, '&'), text };
        });
    },
    close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

module.exports = { startCrawlSite };
