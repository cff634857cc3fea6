import { type FetchText, RobotsCache, robotsFor, robotsToken } from './robots';

const ROBOTS = `# comments are fine
User-agent: *
Disallow: /admin/
Disallow: /search
Allow: /admin/help/

User-agent: SupportAgentBot
Disallow: /private/
Crawl-delay: 2

Sitemap: https://shop.test/sitemap.xml
Sitemap: https://shop.test/sitemap-ja.xml
Sitemap: /relative-is-ignored.xml
`;

/** A fetch stub answering robots.txt per origin, counting calls. */
function stub(answers: Record<string, { status: number; body: string } | null | 'throw'>) {
  const calls: string[] = [];
  const fetchText: FetchText = async (url) => {
    calls.push(url);
    const a = answers[url];
    if (a === 'throw') throw new Error('ECONNRESET');
    return a === undefined ? { status: 404, body: 'not found' } : a;
  };
  return { fetchText, calls };
}

describe('RobotsCache', () => {
  it('applies the group of our user agent, and falls back to *', async () => {
    const { fetchText } = stub({ 'https://shop.test/robots.txt': { status: 200, body: ROBOTS } });
    const ours = await new RobotsCache(fetchText, 'SupportAgentBot/0.1').forOrigin('https://shop.test');
    expect(ours.source).toBe('robots.txt');
    expect(ours.isAllowed('https://shop.test/private/x')).toBe(false);
    expect(ours.isAllowed('https://shop.test/admin/')).toBe(true); // our group replaces *'s rules
    expect(ours.crawlDelaySeconds).toBe(2);

    const other = await new RobotsCache(fetchText, 'Mozilla/5.0 (compatible; OtherBot/1.0)').forUrl('https://shop.test/any/page');
    expect(other.isAllowed('https://shop.test/admin/settings')).toBe(false);
    expect(other.isAllowed('https://shop.test/admin/help/returns')).toBe(true);
    expect(other.isAllowed('https://shop.test/search?q=x')).toBe(false);
    expect(other.isAllowed('https://shop.test/products/1')).toBe(true);
    expect(other.crawlDelaySeconds).toBeUndefined();
  });

  it('returns the absolute Sitemap: entries', async () => {
    const { fetchText } = stub({ 'https://shop.test/robots.txt': { status: 200, body: ROBOTS } });
    const rules = await new RobotsCache(fetchText, 'SupportAgentBot/0.1').forOrigin('https://shop.test/');
    expect(rules.sitemaps).toEqual(['https://shop.test/sitemap.xml', 'https://shop.test/sitemap-ja.xml']);
  });

  it('matches percent-encoded and non-ASCII paths', async () => {
    const { fetchText } = stub({ 'https://shop.test/robots.txt': { status: 200, body: 'User-agent: *\nDisallow: /会員/\n' } });
    const rules = await new RobotsCache(fetchText, 'SupportAgentBot/0.1').forOrigin('https://shop.test');
    expect(rules.isAllowed('https://shop.test/会員/login')).toBe(false);
    expect(rules.isAllowed('https://shop.test/%E4%BC%9A%E5%93%A1/login')).toBe(false);
    expect(rules.isAllowed('https://shop.test/ヘルプ')).toBe(true);
  });

  it.each([404, 410, 401, 403])('allows everything when robots.txt answers %i', async (status) => {
    const { fetchText } = stub({ 'https://a.test/robots.txt': { status, body: 'Disallow: /' } });
    const rules = await new RobotsCache(fetchText, 'SupportAgentBot/0.1').forOrigin('https://a.test');
    expect(rules.source).toBe('none');
    expect(rules.isAllowed('https://a.test/anything')).toBe(true);
    expect(rules.sitemaps).toEqual([]);
  });

  it.each([
    ['a 500', { status: 500, body: '' }],
    ['a 503', { status: 503, body: '' }],
    ['a 429', { status: 429, body: '' }],
    ['a network failure', null],
    ['a thrown error', 'throw' as const],
  ])('allows nothing after %s', async (_what, answer) => {
    const { fetchText } = stub({ 'https://a.test/robots.txt': answer });
    const rules = await new RobotsCache(fetchText, 'SupportAgentBot/0.1').forOrigin('https://a.test');
    expect(rules.source).toBe('unavailable');
    expect(rules.isAllowed('https://a.test/')).toBe(false);
  });

  it('never allows a URL of another origin', async () => {
    const { fetchText } = stub({});
    const rules = await new RobotsCache(fetchText, 'SupportAgentBot/0.1').forOrigin('https://a.test');
    expect(rules.isAllowed('https://a.test/x')).toBe(true);
    expect(rules.isAllowed('http://a.test/x')).toBe(false);
    expect(rules.isAllowed('https://b.test/x')).toBe(false);
    expect(rules.isAllowed('not a url')).toBe(false);
  });

  it('fetches once per origin, sharing a fetch in flight, until the TTL passes', async () => {
    let now = 0;
    const { fetchText, calls } = stub({ 'https://a.test/robots.txt': { status: 200, body: ROBOTS } });
    const cache = new RobotsCache(fetchText, 'SupportAgentBot/0.1', { ttlMs: 1000, now: () => now });
    await Promise.all([cache.forOrigin('https://a.test'), cache.forUrl('https://a.test/x'), cache.forUrl('https://a.test/y?z')]);
    await cache.forOrigin('https://b.test');
    expect(calls).toEqual(['https://a.test/robots.txt', 'https://b.test/robots.txt']);
    now = 999;
    await cache.forOrigin('https://a.test');
    expect(calls).toHaveLength(2);
    now = 1000;
    await cache.forOrigin('https://a.test');
    expect(calls).toHaveLength(3);
  });

  it('retries an unavailable robots.txt sooner', async () => {
    let now = 0;
    const answers: Record<string, { status: number; body: string } | null> = { 'https://a.test/robots.txt': { status: 503, body: '' } };
    const { fetchText, calls } = stub(answers);
    const cache = new RobotsCache(fetchText, 'SupportAgentBot/0.1', { ttlMs: 60_000, failureTtlMs: 100, now: () => now });
    expect((await cache.forOrigin('https://a.test')).isAllowed('https://a.test/')).toBe(false);
    answers['https://a.test/robots.txt'] = { status: 200, body: '' };
    now = 100;
    expect((await cache.forOrigin('https://a.test')).isAllowed('https://a.test/')).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it('keeps at most maxOrigins origins', async () => {
    const { fetchText, calls } = stub({});
    const cache = new RobotsCache(fetchText, 'SupportAgentBot/0.1', { maxOrigins: 2 });
    for (const o of ['https://a.test', 'https://b.test', 'https://a.test', 'https://c.test', 'https://a.test', 'https://b.test']) await cache.forOrigin(o);
    // a stays (recently used); b was dropped when c came, so it is fetched again.
    expect(calls).toEqual(['https://a.test/robots.txt', 'https://b.test/robots.txt', 'https://c.test/robots.txt', 'https://b.test/robots.txt']);
  });
});

describe('robotsFor', () => {
  it('caches per origin across calls', async () => {
    const { fetchText, calls } = stub({ 'https://shared.test/robots.txt': { status: 200, body: ROBOTS } });
    const first = await robotsFor('https://shared.test', fetchText, 'RobotsForTestBot/1');
    const second = await robotsFor('https://shared.test', fetchText, 'RobotsForTestBot/1');
    expect(first.isAllowed('https://shared.test/admin/x')).toBe(false);
    expect(second.sitemaps).toHaveLength(2);
    expect(calls).toHaveLength(1);
  });
});

describe('robotsToken', () => {
  it.each([
    ['SupportAgentBot/0.1', 'SupportAgentBot'],
    ['Mozilla/5.0 (compatible; ExampleBot/2.1; +https://example.test/bot)', 'ExampleBot'],
    ['plainbot', 'plainbot'],
  ])('%s → %s', (ua, token) => expect(robotsToken(ua)).toBe(token));
});
