import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

export interface PdfPages {
  title: string | null;
  pages: string[];
  numPages: number;
}

export type PdfFailure = { failure: 'password' | 'unreadable' | 'too_many_pages' | 'timeout'; message: string };

/**
 * pdf.js runs in a reader process of its own (see inReaderProcess): it is an ES module (loaded
 * there with a native import, which also works under Jest), its parsing is CPU work that must not
 * stall the service's event loop, and a hostile file is stopped by a time and heap limit instead of
 * taking the service down.
 */
const PDF_READER_SOURCE = `
process.once('message', (input) => (async () => {
  const { getDocument } = await import(input.pdfjsUrl);
  const task = getDocument({ data: input.bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, verbosity: 0 });
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    reply({ failure: err && err.name === 'PasswordException' ? 'password' : 'unreadable', message: String(err && err.message || err) });
    return;
  }
  if (doc.numPages > input.maxPages) {
    reply({ failure: 'too_many_pages', message: String(doc.numPages) });
    return;
  }
  const pages = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    const lines = [];
    let line = '';
    for (const item of content.items) {
      if (typeof item.str !== 'string') continue;
      line += item.str;
      if (item.hasEOL) { lines.push(line); line = ''; }
    }
    if (line) lines.push(line);
    pages.push(lines.join('\\n'));
    page.cleanup();
  }
  const meta = await doc.getMetadata().catch(() => null);
  const t = meta && meta.info && meta.info.Title;
  await doc.destroy();
  reply({ title: typeof t === 'string' && t.trim() ? t.trim() : null, pages, numPages: pages.length });
})().catch((err) => reply({ failure: 'unreadable', message: String(err && err.message || err) })));
`;

export function readPdf(bytes: Buffer, opts: { maxPages: number; timeoutMs: number; maxHeapMb: number }): Promise<PdfPages | PdfFailure> {
  const pdfjsUrl = pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
  return inReaderProcess<PdfPages | PdfFailure>(PDF_READER_SOURCE, { bytes: new Uint8Array(bytes), maxPages: opts.maxPages, pdfjsUrl }, opts, 'the PDF');
}

/**
 * mammoth (and the ZIP inflation under it) runs in a reader process too: a DOCX is a ZIP, and a
 * small one can inflate to gigabytes (a ZIP bomb), which would take the whole service down, and
 * again on every retry. In its own process it meets the heap and time limit and fails alone.
 */
const DOCX_READER_SOURCE = `
process.once('message', (input) => {
  const mammoth = require(input.mammothPath);
  // Through HTML, so headings and paragraphs keep their breaks.
  mammoth.convertToHtml({ buffer: Buffer.from(input.bytes) })
    .then((r) => reply({ html: r.value }))
    .catch((err) => reply({ failure: 'unreadable', message: String(err && err.message || err) }));
});
`;

export type DocxFailure = { failure: 'unreadable' | 'timeout'; message: string };

export function readDocx(bytes: Buffer, opts: { timeoutMs: number; maxHeapMb: number }): Promise<{ html: string } | DocxFailure> {
  return inReaderProcess<{ html: string } | DocxFailure>(DOCX_READER_SOURCE, { bytes: new Uint8Array(bytes), mammothPath: require.resolve('mammoth') }, opts, 'the DOCX');
}

/** What every reader's source starts with: its one answer, sent to the service, after which it ends. */
const READER_PRELUDE = `
const reply = (message) => process.send(message, () => process.disconnect());
`;

/** How much of a reader's stderr is kept, to tell running out of heap from another end. */
const STDERR_TAIL_CHARS = 4096;

/**
 * Runs a reader in a child process of its own, with a heap limit (`--max-old-space-size`) and a
 * deadline: its one IPC message is the result; running out of time is a `timeout` failure, running
 * out of heap or any other end an `unreadable` one. A process, not a worker thread: a worker's
 * `resourceLimits` do not contain every out-of-memory (V8 may abort the whole process instead of
 * stopping the worker: nodejs/node#47224, and under Node 24 a ZIP-bomb DOCX did so about four times
 * in five), while a child that runs out of heap only ends itself. The child gets an empty
 * environment: no secret of the service's is in reach of the parser of an uploaded file.
 */
function inReaderProcess<T>(source: string, input: Record<string, unknown>, opts: { timeoutMs: number; maxHeapMb: number }, what: string): Promise<T | { failure: 'timeout' | 'unreadable'; message: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${Math.max(16, Math.floor(opts.maxHeapMb))}`, '-e', READER_PRELUDE + source], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: {},
    });
    let settled = false;
    let stderrTail = '';
    const finish = (result: T | { failure: 'timeout' | 'unreadable'; message: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(() => finish({ failure: 'timeout', message: `reading ${what} took longer than ${opts.timeoutMs} ms` }), opts.timeoutMs);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.once('message', (m) => finish(m as T));
    child.once('error', (err) => finish({ failure: 'unreadable', message: `the reader of ${what} could not run: ${err.message}` }));
    child.once('close', (code, signal) => {
      const outOfMemory = /heap out of memory|Reached heap limit/.test(stderrTail);
      finish({ failure: 'unreadable', message: outOfMemory ? `reading ${what} needs more memory than allowed (${opts.maxHeapMb} MB)` : `the reader of ${what} stopped (${signal ? `signal ${signal}` : `exit code ${code}`})` });
    });
    child.send(input, (err) => {
      if (err) finish({ failure: 'unreadable', message: `the reader of ${what} could not be given the file: ${err.message}` });
    });
  });
}
