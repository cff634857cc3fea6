/** A link target the widget may render: absolute http(s) URLs only (no javascript:, data:, relative). */
export function safeHref(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** Sources as links: safe, without duplicates, at most 5. */
export function sourceLinks(urls: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const url of urls ?? []) {
    const href = safeHref(url);
    if (href && !out.includes(href)) out.push(href);
    if (out.length === 5) break;
  }
  return out;
}

/** How a source is shown: host and path, without the scheme. */
export function linkText(href: string): string {
  const u = new URL(href);
  const rest = (u.pathname === '/' ? '' : u.pathname) + u.search;
  return u.host + (rest.length > 60 ? `${rest.slice(0, 57)}…` : rest);
}
