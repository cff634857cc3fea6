import { decodeBody } from './charset';
import { UnsupportedContent, DocumentTooLarge, UnreadableDocument } from './doc-text.exception';
import { normaliseText } from './html-text';
import { readDocx, readPdf } from './file-readers';
import { extractHtml, markdownTitle } from './web-text';

export const FILE_KINDS = ['pdf', 'docx', 'markdown', 'text', 'html'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export interface FileInput {
  bytes: Buffer;
  /** The file's name as uploaded (its extension helps decide the kind). */
  fileName: string;
  /** The content type the uploader declared; generic types (octet-stream) are ignored. */
  contentType?: string;
}

export interface FileLimits {
  /** Largest file read, in bytes. */
  maxBytes: number;
  /** Most characters of text kept (longer text is refused, not cut silently). */
  maxChars: number;
  /** Most PDF pages read. */
  maxPages?: number;
  /** Longest a PDF or DOCX may take to read, and the heap its reader (a child process) may use. */
  timeoutMs?: number;
  maxHeapMb?: number;
  /** Resident memory at which that reader is killed (0: not watched). */
  maxRssMb?: number;
  /** Most bytes the compressed parts of a PDF or DOCX may inflate to. */
  maxInflatedBytes?: number;
}

/** The defaults of the reader limits (the knowledge config sets them all; see docs/decisions/knowledge.md). */
const READER_DEFAULTS = { timeoutMs: 60_000, maxHeapMb: 256, maxRssMb: 384, maxInflatedBytes: 256 * 1024 * 1024 };

export interface FileText {
  kind: FileKind;
  /** A title found in the file (PDF metadata, first heading), or null. */
  title: string | null;
  text: string;
  /** PDF pages; 1 for the other kinds. */
  pages: number;
}

const BY_MIME: Record<string, FileKind> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
};

const BY_EXTENSION: Record<string, FileKind> = { pdf: 'pdf', docx: 'docx', md: 'markdown', markdown: 'markdown', txt: 'text', text: 'text', html: 'html', htm: 'html', xhtml: 'html' };

/** What accept="" of a file input may list, and what error messages name. */
export const FILE_EXTENSIONS = Object.keys(BY_EXTENSION).map((e) => `.${e}`);

/**
 * The kind of an uploaded file: by its extension, then its declared type, then its first bytes
 * (%PDF-, a ZIP holding word/document.xml). Throws UnsupportedContent for anything else
 * (old binary .doc, images, spreadsheets …).
 */
export function fileKindOf(input: { fileName: string; contentType?: string; bytes?: Buffer }): FileKind {
  const ext = extensionOf(input.fileName);
  const mime = (input.contentType ?? '').split(';')[0].trim().toLowerCase();
  let kind: FileKind | undefined = ext ? BY_EXTENSION[ext] : undefined;
  if (!kind) kind = BY_MIME[mime];
  if (!kind && input.bytes) kind = sniff(input.bytes);
  if (!kind) {
    throw new UnsupportedContent(`${input.fileName || 'The file'} is not a supported file type; upload PDF, DOCX, Markdown, plain text or HTML (${FILE_EXTENSIONS.join(', ')})`);
  }
  return kind;
}

/**
 * The text of an uploaded file: PDF through Mozilla's pdf.js (legacy build, for Node), DOCX through
 * mammoth, HTML as a crawled page (Readability), Markdown and plain text as they are.
 * Throws UnsupportedContent, DocumentTooLarge or UnreadableDocument (all BadRequests).
 */
export async function extractFileText(input: FileInput, limits: FileLimits): Promise<FileText> {
  if (input.bytes.length > limits.maxBytes) throw new DocumentTooLarge(`The file is ${input.bytes.length} bytes; at most ${limits.maxBytes} bytes are accepted`);
  if (input.bytes.length === 0) throw new UnreadableDocument('The file is empty');
  const kind = fileKindOf(input);
  let out: FileText;
  switch (kind) {
    case 'pdf':
      out = await pdfText(input.bytes, limits);
      break;
    case 'docx':
      out = await docxText(input.bytes, limits);
      break;
    case 'html':
      out = { ...extractHtml(decodeBody(input.bytes, input.contentType, 'html')), kind: 'html', pages: 1 };
      break;
    default: {
      if (input.bytes.subarray(0, 4096).includes(0)) throw new UnreadableDocument(`${input.fileName} is not a text file`);
      const text = normaliseText(decodeBody(input.bytes, input.contentType, 'none'), { collapseSpaces: false });
      out = { kind, text, title: kind === 'markdown' ? markdownTitle(text) : null, pages: 1 };
    }
  }
  if (out.text.length > limits.maxChars) throw new DocumentTooLarge(`The file holds ${out.text.length} characters of text; at most ${limits.maxChars} are accepted`);
  if (!out.text.trim()) throw new UnreadableDocument(`No text was found in ${input.fileName}${kind === 'pdf' ? ' (a scanned PDF holds images, not text)' : ''}`);
  return out;
}

function readerLimits(limits: FileLimits) {
  return {
    timeoutMs: limits.timeoutMs ?? READER_DEFAULTS.timeoutMs,
    maxHeapMb: limits.maxHeapMb ?? READER_DEFAULTS.maxHeapMb,
    maxRssMb: limits.maxRssMb ?? READER_DEFAULTS.maxRssMb,
    maxInflatedBytes: limits.maxInflatedBytes ?? READER_DEFAULTS.maxInflatedBytes,
  };
}

const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

async function pdfText(bytes: Buffer, limits: FileLimits): Promise<FileText> {
  const maxPages = limits.maxPages ?? 2000;
  const bounds = readerLimits(limits);
  const out = await readPdf(bytes, { ...bounds, maxPages, maxChars: limits.maxChars });
  if ('failure' in out) {
    if (out.failure === 'password') throw new UnreadableDocument('The PDF is protected by a password');
    if (out.failure === 'too_many_pages') throw new DocumentTooLarge(`The PDF has ${out.message} pages; at most ${maxPages} are read`);
    if (out.failure === 'too_much_text') throw new DocumentTooLarge(`The file holds more than ${limits.maxChars} characters of text; at most ${limits.maxChars} are accepted`);
    if (out.failure === 'too_much_inflated') throw new DocumentTooLarge(`The PDF's compressed content inflates to more than ${mb(bounds.maxInflatedBytes)}; at most ${mb(bounds.maxInflatedBytes)} are read`);
    if (out.failure === 'timeout' || out.failure === 'memory') throw new DocumentTooLarge(`The PDF cannot be read: ${out.message}`);
    throw new UnreadableDocument(`The PDF cannot be read: ${out.message}`);
  }
  return { kind: 'pdf', title: out.title, text: normaliseText(out.pages.join('\n\n'), { collapseSpaces: false }), pages: out.numPages };
}

async function docxText(bytes: Buffer, limits: FileLimits): Promise<FileText> {
  const bounds = readerLimits(limits);
  const out = await readDocx(bytes, bounds);
  if ('failure' in out) {
    if (out.failure === 'too_much_inflated') throw new DocumentTooLarge(`The DOCX file's compressed content inflates to more than ${mb(bounds.maxInflatedBytes)}; at most ${mb(bounds.maxInflatedBytes)} are read`);
    if (out.failure === 'timeout' || out.failure === 'memory') throw new DocumentTooLarge(`The DOCX file cannot be read: ${out.message}`);
    throw new UnreadableDocument(`The DOCX file cannot be read: ${out.message}`);
  }
  const extracted = extractHtml(`<!doctype html><html><body><article>${out.html}</article></body></html>`);
  return { kind: 'docx', title: extracted.title, text: extracted.text, pages: 1 };
}

function extensionOf(name: string): string | undefined {
  const last = name.split(/[\\/]/).pop() ?? '';
  const dot = last.lastIndexOf('.');
  return dot > 0 ? last.slice(dot + 1).toLowerCase() : undefined;
}

function sniff(bytes: Buffer): FileKind | undefined {
  const head = bytes.subarray(0, 1024);
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (head.subarray(0, 4).toString('latin1') === 'PK\x03\x04' && bytes.includes('word/document.xml')) return 'docx';
  const text = head.toString('latin1').trimStart().toLowerCase();
  if (/^<(!doctype html|html|head|body)[\s>]/.test(text)) return 'html';
  return undefined;
}
