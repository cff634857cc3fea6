import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

export interface PdfPages {
  title: string | null;
  pages: string[];
  numPages: number;
}

export type PdfFailure = { failure: 'password' | 'unreadable' | 'too_many_pages' | 'timeout'; message: string };

/**
 * pdf.js runs in a worker thread: it is an ES module (loaded there with a native import, which
 * also works under Jest), its parsing is CPU work that must not stall the service's event loop,
 * and a hostile file is stopped by a time and heap limit instead of taking the process down.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { getDocument } = await import(workerData.pdfjsUrl);
  const task = getDocument({ data: workerData.bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, verbosity: 0 });
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    parentPort.postMessage({ failure: err && err.name === 'PasswordException' ? 'password' : 'unreadable', message: String(err && err.message || err) });
    return;
  }
  if (doc.numPages > workerData.maxPages) {
    parentPort.postMessage({ failure: 'too_many_pages', message: String(doc.numPages) });
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
  parentPort.postMessage({ title: typeof t === 'string' && t.trim() ? t.trim() : null, pages, numPages: pages.length });
})().catch((err) => parentPort.postMessage({ failure: 'unreadable', message: String(err && err.message || err) }));
`;

export function readPdf(bytes: Buffer, opts: { maxPages: number; timeoutMs: number; maxHeapMb: number }): Promise<PdfPages | PdfFailure> {
  const pdfjsUrl = pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
  const data = new Uint8Array(bytes); // a copy: pdf.js takes ownership of what it is given
  return inWorker<PdfPages | PdfFailure>(WORKER_SOURCE, { bytes: data, maxPages: opts.maxPages, pdfjsUrl }, [data.buffer], opts, 'the PDF');
}

/**
 * mammoth (and the ZIP inflation under it) runs in a worker thread too: a DOCX is a ZIP, and a
 * small one can inflate to gigabytes (a ZIP bomb), which would take the whole service down, and
 * again on every retry. In a worker it meets the heap and time limit and fails on its own.
 */
const DOCX_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const mammoth = require(workerData.mammothPath);
// Through HTML, so headings and paragraphs keep their breaks.
mammoth.convertToHtml({ buffer: Buffer.from(workerData.bytes) })
  .then((r) => parentPort.postMessage({ html: r.value }))
  .catch((err) => parentPort.postMessage({ failure: 'unreadable', message: String(err && err.message || err) }));
`;

export type DocxFailure = { failure: 'unreadable' | 'timeout'; message: string };

export function readDocx(bytes: Buffer, opts: { timeoutMs: number; maxHeapMb: number }): Promise<{ html: string } | DocxFailure> {
  const data = new Uint8Array(bytes);
  return inWorker<{ html: string } | DocxFailure>(DOCX_WORKER_SOURCE, { bytes: data, mammothPath: require.resolve('mammoth') }, [data.buffer], opts, 'the DOCX');
}

/**
 * Runs a reader in a worker thread with a heap limit and a deadline: its one message is the
 * result; running out of time is a `timeout` failure, running out of heap (the worker is stopped
 * by V8) or any other end an `unreadable` one.
 */
function inWorker<T>(source: string, workerData: Record<string, unknown>, transferList: ArrayBuffer[], opts: { timeoutMs: number; maxHeapMb: number }, what: string): Promise<T | { failure: 'timeout' | 'unreadable'; message: string }> {
  return new Promise((resolve) => {
    const worker = new Worker(source, {
      eval: true,
      workerData,
      transferList,
      resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (result: T | { failure: 'timeout' | 'unreadable'; message: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ failure: 'timeout', message: `reading ${what} took longer than ${opts.timeoutMs} ms` }), opts.timeoutMs);
    worker.once('message', (m: T) => finish(m));
    worker.once('error', (err) => finish({ failure: 'unreadable', message: (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? `reading ${what} needs more memory than allowed (${opts.maxHeapMb} MB)` : err.message }));
    worker.once('exit', (code) => finish({ failure: 'unreadable', message: `the reader of ${what} stopped (exit code ${code})` }));
  });
}
