import { type DomElement, decodeBody, linkedom, parseDocument } from '@sa/doc-text';

/**
 * Links of a page that stay on its site: same scheme and host (port included) as `baseUrl`,
 * resolved against <base href> when the page has one, fragments stripped, in page order without
 * duplicates. mailto:, javascript:, tel: and other non-http(s) links are dropped, as are
 * rel="nofollow" links and download links.
 */
export function extractSameSiteLinks(html: string, baseUrl: string): string[] {
  const page = new URL(baseUrl);
  const document = parseDocument(html);
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  const base = (baseHref && tryUrl(baseHref, page.href)) || page;
  const out = new Set<string>();
  for (const a of Array.from(document.querySelectorAll('a[href], area[href]'))) {
    if (/\bnofollow\b/i.test(a.getAttribute('rel') ?? '') || a.hasAttribute('download')) continue;
    const url = tryUrl((a.getAttribute('href') ?? '').trim(), base.href);
    if (!url || url.protocol !== page.protocol || url.host !== page.host) continue;
    url.hash = '';
    out.add(url.href);
  }
  return [...out];
}

function tryUrl(href: string, base?: string): URL | null {
  if (!href) return null;
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

export interface ParsedSitemap {
  /** Page URLs of a <urlset>. */
  urls: string[];
  /** Child sitemaps of a <sitemapindex>. */
  sitemaps: string[];
}

/**
 * A sitemap (sitemaps.org protocol): the <loc> of each <url> of a <urlset>, or of each <sitemap>
 * of a <sitemapindex>. Namespace prefixes are ignored (`<sm:url>` counts), and only a direct
 * child <loc> counts, so extension elements such as <image:loc> are not taken for pages.
 * Only absolute http(s) URLs are kept, deduplicated. Anything else (HTML, broken XML) gives empty lists.
 */
export function parseSitemap(xml: string): ParsedSitemap {
  const doc = new (linkedom().DOMParser)().parseFromString(xml.replace(/^\uFEFF/, ''), 'text/xml') as unknown as { documentElement: DomElement | null };
  const root = doc.documentElement;
  const empty = { urls: [], sitemaps: [] };
  if (!root) return empty;
  const rootName = localName(root);
  if (rootName !== 'urlset' && rootName !== 'sitemapindex') return empty;
  const entry = rootName === 'urlset' ? 'url' : 'sitemap';
  const locs = new Set<string>();
  for (const child of childElements(root)) {
    if (localName(child) !== entry) continue;
    const loc = childElements(child).find((c) => localName(c) === 'loc');
    const url = loc && tryUrl((loc.textContent ?? '').trim());
    if (url && (url.protocol === 'http:' || url.protocol === 'https:')) locs.add(url.href);
  }
  return rootName === 'urlset' ? { urls: [...locs], sitemaps: [] } : { urls: [], sitemaps: [...locs] };
}

/** linkedom's XML elements keep the prefix in their name: `sm:url` → `url`. */
function localName(el: DomElement): string {
  return el.tagName.replace(/^.*:/, '').toLowerCase();
}

function childElements(el: DomElement): DomElement[] {
  return Array.from(el.childNodes).filter((n): n is DomElement => n.nodeType === 1);
}

/**
 * Whether a fetched document is a sitemap: its root element is <urlset> or <sitemapindex>
 * (optionally prefixed), after any XML declaration, comments, doctype or processing instructions.
 * The body decides, not the URL or the type: sitemaps are served as text/xml, application/xml,
 * text/plain or octet-stream under any name. An HTML content type is never a sitemap.
 * The URL is not consulted. (Text sitemaps, one URL a line, and gzipped sitemaps are not recognised.)
 */
export function isSitemapUrl(_url: string, contentType: string | undefined, body: Buffer | string): boolean {
  const mime = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return false;
  const head = typeof body === 'string' ? body.slice(0, 4096) : decodeBody(body.subarray(0, 4096), contentType, 'xml');
  const prolog = /^(?:\uFEFF|\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)*/i.exec(head)?.[0].length ?? 0;
  return /^<(?:[\w.-]+:)?(?:urlset|sitemapindex)[\s>/]/i.test(head.slice(prolog));
}
