import { decodeBody } from './charset';
import { type DomDocument, type DomNode, htmlToText, normaliseText, parseDocument, removeBoilerplate, removeConsentBanners } from './html-text';
import { UnsupportedContent } from './doc-text.exception';

export type ExtractedKind = 'html' | 'text' | 'markdown';

export interface ExtractInput {
  body: Buffer;
  /** The Content-Type header as received, parameters included; undefined when absent. */
  contentType: string | undefined;
  /** The final URL (after redirects): used for the file extension and as the base URL. */
  url: string;
}

export interface Extracted {
  title: string | null;
  text: string;
  kind: ExtractedKind;
}

/**
 * The readable text of a fetched document. HTML goes through Mozilla's Readability (the Firefox
 * reader view) on a linkedom DOM, which keeps the main content and drops navigation, footers,
 * sidebars and ads; when it finds no article, the body text minus boilerplate elements is used.
 * Plain text and Markdown are kept as they are (line endings and blank lines tidied).
 * PDF is refused here (a fetched page is HTML or text; uploaded files go through extractFileText).
 * Throws UnsupportedContent (a BadRequest) for anything else.
 */
export function extractWebText(input: ExtractInput): Extracted {
  const kind = kindOf(input);
  if (kind === 'html') return extractHtml(decodeBody(input.body, input.contentType, 'html'));
  const text = normaliseText(decodeBody(input.body, input.contentType, 'none'), { collapseSpaces: false });
  return { kind, text, title: kind === 'markdown' ? markdownTitle(text) : null };
}

type Kind = ExtractedKind | 'pdf';

const BY_MIME: Record<string, Kind> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/pdf': 'pdf',
};

const BY_EXTENSION: Record<string, Kind> = { html: 'html', htm: 'html', xhtml: 'html', txt: 'text', text: 'text', md: 'markdown', markdown: 'markdown', pdf: 'pdf' };

/**
 * The Content-Type decides; text/plain served for a .md URL (common on raw file hosts) is
 * Markdown; a missing or generic type (application/octet-stream) falls back to the URL's extension
 * and then to sniffing the first bytes.
 */
function kindOf({ body, contentType, url }: ExtractInput): ExtractedKind {
  const mime = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const ext = extensionOf(url);
  let kind: Kind | undefined = BY_MIME[mime];
  if (kind === 'text' && ext && BY_EXTENSION[ext] === 'markdown') kind = 'markdown';
  if (!kind && (mime === '' || mime === 'application/octet-stream' || mime === 'binary/octet-stream')) kind = (ext && BY_EXTENSION[ext]) || sniff(body);
  if (kind === 'pdf') throw new UnsupportedContent('PDF pages found by crawling are not read; upload the PDF as a file');
  if (!kind) throw new UnsupportedContent(`unsupported content type ${mime || '(none)'}`);
  return kind;
}

function extensionOf(url: string): string | undefined {
  try {
    const last = new URL(url).pathname.split('/').pop() ?? '';
    const dot = last.lastIndexOf('.');
    return dot > 0 ? last.slice(dot + 1).toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function sniff(body: Buffer): Kind | undefined {
  const head = body.subarray(0, 512).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart().toLowerCase();
  if (head.startsWith('%pdf-')) return 'pdf';
  if (/^<(!doctype html|html|head|body)[\s>]/.test(head)) return 'html';
  if (!body.subarray(0, 512).includes(0)) return 'text'; // no NUL byte: text, not binary
  return undefined;
}

export function extractHtml(html: string): Extracted {
  const document = parseDocument(html);
  // Titles first: a page's <h1> may sit in a site <header> that cleaning drops.
  const h1 = cleanTitle(document.querySelector('h1')?.textContent);
  const pageTitle = cleanTitle(document.querySelector('title')?.textContent) ?? h1;
  clean(document);
  // The serializer hands back the content element itself, so its block structure can become paragraphs.
  // Loaded on first use, not at start (docs/decisions/operations.md, "Start time").
  const { Readability } = require('@mozilla/readability') as typeof import('@mozilla/readability');
  const article = new Readability(document as never, { serializer: (node): DomNode => node as DomNode }).parse();
  const articleText = article?.content ? htmlToText(article.content) : '';
  if (articleText) return { kind: 'html', title: shorterTitle(cleanTitle(article?.title) ?? pageTitle, h1), text: articleText };

  // Readability takes the document apart, so the fallback works on a fresh parse.
  const fresh = clean(parseDocument(html));
  return { kind: 'html', title: shorterTitle(pageTitle, h1), text: fresh.body ? htmlToText(fresh.body) : '' };
}

function clean(document: DomDocument): DomDocument {
  removeConsentBanners(document);
  removeBoilerplate(document);
  return document;
}

function cleanTitle(title: string | null | undefined): string | null {
  const t = (title ?? '').replace(/\s+/g, ' ').trim();
  return t || null;
}

/** "Returns – Acme Help Center" becomes "Returns" when the page's <h1> says just that. */
function shorterTitle(title: string | null, h1: string | null): string | null {
  return title && h1 && h1.length < title.length && title.includes(h1) ? h1 : title;
}

/** The first ATX (`# Title`) or setext (`Title` over `===`) heading of a Markdown text. */
export function markdownTitle(text: string): string | null {
  const m = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(text) ?? /^(\S.*)\n=+[ \t]*$/m.exec(text);
  return m ? m[1].trim() : null;
}
