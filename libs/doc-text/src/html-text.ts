
/**
 * The slice of the DOM this module uses, as linkedom implements it. The project compiles without
 * the DOM lib, so linkedom's own types resolve to `any`; these keep the code checked.
 */
export interface DomNode {
  nodeType: number;
  childNodes: ArrayLike<DomNode>;
  textContent: string | null;
}

export interface DomElement extends DomNode {
  tagName: string;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  remove(): void;
  closest(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
}

export interface DomDocument {
  documentElement: DomElement | null;
  body: DomElement | null;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
}

const ELEMENT = 1;
const TEXT = 3;

/**
 * A full HTML document. linkedom builds <html>/<body> only if the markup has them, so a fragment
 * (or a page without <body>) is re-wrapped: its markup minus stray html/head/body tags goes into a
 * fresh body. <title> then sits in the body, which is fine for querySelector('title').
 */
export function parseDocument(html: string): DomDocument {
  const { parseHTML } = linkedom();
  const doc = (parseHTML(html) as { document: DomDocument }).document;
  if (doc.documentElement?.tagName.toLowerCase() === 'html' && doc.body && doc.body.childNodes.length > 0) return doc;
  const inner = html.replace(/<!doctype[^>]*>/i, '').replace(/<\/?(html|head|body)\b[^>]*>/gi, '');
  return (parseHTML(`<!doctype html><html><head></head><body>${inner}</body></html>`) as { document: DomDocument }).document;
}

/** Cookie, consent and GDPR banners: Readability keeps them when they hold a sentence or two. */
const CONSENT = /cookie|consent|gdpr/i;
const CONSENT_MAX_CHARS = 2000; // an element with more text is content that happens to mention cookies

export function removeConsentBanners(doc: DomDocument): void {
  for (const el of Array.from(doc.querySelectorAll('[id], [class], [aria-label]'))) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'html' || tag === 'body' || tag === 'main' || tag === 'article') continue;
    const names = `${el.getAttribute('id') ?? ''} ${el.getAttribute('class') ?? ''} ${el.getAttribute('aria-label') ?? ''}`;
    if (CONSENT.test(names) && (el.textContent ?? '').length <= CONSENT_MAX_CHARS) el.remove();
  }
}

/**
 * What is never main content, dropped before Readability (which otherwise settles for a menu on
 * a page with little text) and for the fallback. Headers and footers inside an <article> or
 * <main> (a post's title and byline) stay. So do <aside>s, which Readability drops anyway and
 * which may be all there is when it finds nothing, and <form>s, which wrap whole pages on some
 * sites (ASP.NET WebForms).
 */
const BOILERPLATE = [
  'nav',
  'dialog',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="dialog"]',
  '[aria-hidden="true"]',
  '[hidden]',
].join(', ');

export function removeBoilerplate(doc: DomDocument): void {
  for (const el of Array.from(doc.querySelectorAll(BOILERPLATE))) el.remove();
  for (const el of Array.from(doc.querySelectorAll('header, footer'))) if (!el.closest('article, main')) el.remove();
}

/** Never text: code, styles, embedded objects and form controls. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'video', 'audio', 'select', 'button', 'input', 'textarea', 'head']);
/** Blocks that end a paragraph (blank line) and those that end a line. */
const PARAGRAPH = new Set(['p', 'div', 'section', 'article', 'main', 'blockquote', 'pre', 'table', 'ul', 'ol', 'dl', 'figure', 'figcaption', 'address', 'details', 'summary', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'footer', 'nav', 'aside', 'form', 'fieldset', 'caption']);
const LINE = new Set(['li', 'tr', 'dt', 'dd', 'br']);

/** Text of a DOM subtree with paragraph breaks (blank lines) and line breaks where the blocks were. */
export function htmlToText(root: DomNode): string {
  const out: string[] = [];
  // Source whitespace (newlines included) is one space, except inside <pre>.
  const walk = (node: DomNode, pre: boolean) => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === TEXT) out.push(pre ? (child.textContent ?? '') : (child.textContent ?? '').replace(/\s+/g, ' '));
      else if (child.nodeType === ELEMENT) {
        const tag = (child as DomElement).tagName.toLowerCase();
        if (SKIP.has(tag)) continue;
        const brk = PARAGRAPH.has(tag) ? '\n\n' : LINE.has(tag) ? '\n' : tag === 'td' || tag === 'th' ? ' ' : '';
        out.push(brk);
        walk(child, pre || tag === 'pre');
        out.push(brk);
      }
    }
  };
  walk(root, false);
  return normaliseText(out.join(''), { collapseSpaces: true });
}

/**
 * Unix line endings, no control characters (C0 but tab and newline, C1), no trailing spaces, at most one blank line in a row,
 * no leading or trailing blank lines. With collapseSpaces (HTML, where source whitespace means
 * nothing) runs of spaces and tabs become one space and lines are trimmed; without it (text,
 * Markdown) indentation is kept, as it can be meaningful (code blocks, nested lists).
 */
export function normaliseText(text: string, { collapseSpaces }: { collapseSpaces: boolean }): string {
  let t = text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g, '');
  if (collapseSpaces) t = t.replace(/[^\S\n]+/g, ' ').replace(/^ | $/gm, '');
  else t = t.replace(/[^\S\n]+$/gm, '');
  return t.replace(/\n{3,}/g, '\n\n').replace(/^\n+|\n+$/g, '');
}

/** linkedom, loaded when the first page is parsed rather than when a service starts (docs/decisions/operations.md, "Start time"). */
export function linkedom(): typeof import('linkedom') {
  return require('linkedom') as typeof import('linkedom');
}
