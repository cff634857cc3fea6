import 'reflect-metadata';
import { extractSameSiteLinks, isSitemapUrl, parseSitemap } from './links';

describe('extractSameSiteLinks', () => {
  const page = `<html><head><title>Help</title></head><body>
    <a href="/returns">Returns</a>
    <a href="shipping#costs">Shipping</a>
    <a href="https://help.acme.test/returns#top">Returns again</a>
    <a href="//help.acme.test/faq?lang=ja">FAQ (ja)</a>
    <a href="http://help.acme.test/insecure">Other scheme</a>
    <a href="https://help.acme.test:8443/admin">Other port</a>
    <a href="https://www.acme.test/">Other host</a>
    <a href="mailto:help@acme.test">Mail</a>
    <a href="javascript:void(0)">JS</a>
    <a href="tel:+6012345">Call</a>
    <a href="#section">Same page</a>
    <a href="/login" rel="nofollow">Login</a>
    <a href="/guide.pdf" download>Guide</a>
    <a href=" /padded ">Padded</a>
    <a href="/%E8%BF%94%E5%93%81">返品</a>
    <a href="/ar/الاسترداد">الاسترداد</a>
    <map><area href="/map-area" alt="x"></map>
    <a>No href</a>
  </body></html>`;

  it('keeps absolute same-site links without fragments, in order and deduplicated', () => {
    expect(extractSameSiteLinks(page, 'https://help.acme.test/docs/index.html')).toEqual([
      'https://help.acme.test/returns',
      'https://help.acme.test/docs/shipping',
      'https://help.acme.test/faq?lang=ja',
      'https://help.acme.test/docs/index.html',
      'https://help.acme.test/padded',
      'https://help.acme.test/%E8%BF%94%E5%93%81',
      'https://help.acme.test/ar/%D8%A7%D9%84%D8%A7%D8%B3%D8%AA%D8%B1%D8%AF%D8%A7%D8%AF',
      'https://help.acme.test/map-area',
    ]);
  });

  it('resolves against <base href>', () => {
    const html = '<html><head><base href="/kb/"></head><body><a href="article-1">A</a></body></html>';
    expect(extractSameSiteLinks(html, 'https://help.acme.test/somewhere/else')).toEqual(['https://help.acme.test/kb/article-1']);
  });

  it('copes with fragments and no links', () => {
    expect(extractSameSiteLinks('<a href="/x">x</a>', 'https://a.test/')).toEqual(['https://a.test/x']);
    expect(extractSameSiteLinks('<p>nothing</p>', 'https://a.test/')).toEqual([]);
  });
});

describe('parseSitemap', () => {
  it('reads a urlset, ignoring image extension locs and decoding entities and CDATA', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://acme.test/</loc><lastmod>2025-01-01</lastmod></url>
  <url>
    <loc> https://acme.test/search?q=a&amp;page=2 </loc>
    <image:image><image:loc>https://cdn.acme.test/a.png</image:loc></image:image>
  </url>
  <url><loc><![CDATA[https://acme.test/ja/返品]]></loc></url>
  <url><loc>https://acme.test/</loc></url>
  <url><loc>/relative-is-invalid</loc></url>
  <url><loc>ftp://acme.test/file</loc></url>
</urlset>`;
    expect(parseSitemap(xml)).toEqual({
      urls: ['https://acme.test/', 'https://acme.test/search?q=a&page=2', 'https://acme.test/ja/%E8%BF%94%E5%93%81'],
      sitemaps: [],
    });
  });

  it('reads a sitemap index, with namespace prefixes', () => {
    const xml = `<?xml version="1.0"?>
<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sm:sitemap><sm:loc>https://acme.test/sitemap-pages.xml</sm:loc><sm:lastmod>2025-02-02</sm:lastmod></sm:sitemap>
  <sm:sitemap><sm:loc>https://acme.test/sitemap-posts.xml.gz</sm:loc></sm:sitemap>
</sm:sitemapindex>`;
    expect(parseSitemap(xml)).toEqual({ urls: [], sitemaps: ['https://acme.test/sitemap-pages.xml', 'https://acme.test/sitemap-posts.xml.gz'] });
  });

  it('gives nothing for HTML, other XML or garbage', () => {
    expect(parseSitemap('<html><body><a href="/x">x</a></body></html>')).toEqual({ urls: [], sitemaps: [] });
    expect(parseSitemap('<rss><channel><item><link>https://a.test/</link></item></channel></rss>')).toEqual({ urls: [], sitemaps: [] });
    expect(parseSitemap('not xml at all <<<')).toEqual({ urls: [], sitemaps: [] });
    expect(parseSitemap('')).toEqual({ urls: [], sitemaps: [] });
  });
});

describe('isSitemapUrl', () => {
  const urlset = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated -->\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.test/</loc></url></urlset>';

  it('recognises sitemaps by their root element whatever the type or name', () => {
    expect(isSitemapUrl('https://a.test/sitemap.xml', 'application/xml', Buffer.from(urlset))).toBe(true);
    expect(isSitemapUrl('https://a.test/feeds/all', 'text/plain', urlset)).toBe(true);
    expect(isSitemapUrl('https://a.test/x', undefined, '\uFEFF<?xml version="1.0"?><?xml-stylesheet href="s.xsl"?><sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>')).toBe(true);
    expect(isSitemapUrl('https://a.test/x', 'text/xml', '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"/>')).toBe(true);
  });

  it('rejects HTML, feeds and other XML, even at a sitemap-looking URL', () => {
    expect(isSitemapUrl('https://a.test/sitemap.xml', 'text/html; charset=utf-8', urlset)).toBe(false);
    expect(isSitemapUrl('https://a.test/sitemap.xml', 'text/html', '<html><body>Sitemap</body></html>')).toBe(false);
    expect(isSitemapUrl('https://a.test/sitemap.xml', 'application/xml', '<rss><channel/></rss>')).toBe(false);
    expect(isSitemapUrl('https://a.test/sitemap.xml', 'application/xml', '<urlsetx/>')).toBe(false);
  });
});
