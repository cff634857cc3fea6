import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface PdfPages {
  title: string | null;
  pages: string[];
  numPages: number;
}

export type PdfFailure = { failure: 'password' | 'unreadable' | 'too_many_pages' | 'too_much_text' | 'too_much_inflated' | 'timeout' | 'memory'; message: string };

/** The bounds of one read: time, V8 heap, resident memory of the reader process, and what a file may inflate to. */
export interface ReaderLimits {
  timeoutMs: number;
  maxHeapMb: number;
  /** Resident memory (VmRSS, from /proc) at which the reader process is killed; 0: not watched. */
  maxRssMb?: number;
}

/**
 * Counts what the FlateDecode streams of a PDF inflate to, before pdf.js reads it, and stops at
 * `budget` bytes: zlib inflates natively in 256 KB chunks that are dropped at once, so this costs
 * little memory whatever the file holds. Images are left out (reading text never decodes them).
 * pdf.js's own inflate cannot be capped; this gives a flate bomb a clear reason, and the resident
 * memory limit (see inReaderProcess) stops whatever slips past it.
 */
const PDF_INFLATED_SIZE_SOURCE = `
const zlib = require('zlib');
function inflatedLength(data, room) {
  return new Promise((resolve) => {
    let n = 0;
    const z = zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: 256 * 1024 });
    const done = () => resolve(n);
    z.on('data', (c) => { n += c.length; if (n > room) { z.destroy(); done(); } });
    z.on('end', done); z.on('error', done); z.on('close', done);
    z.end(data);
  });
}
async function pdfInflatedSize(bytes, budget) {
  const text = bytes.toString('latin1');
  const re = /stream(?:\\r\\n|\\n|\\r)/g;
  let total = 0, m;
  while ((m = re.exec(text))) {
    if (text.slice(Math.max(0, m.index - 3), m.index) === 'end') continue;
    const dict = text.slice(Math.max(0, m.index - 4096, text.lastIndexOf(' obj', m.index)), m.index);
    const start = m.index + m[0].length;
    let end = text.indexOf('endstream', start);
    if (end < 0) end = text.length;
    re.lastIndex = end;
    if (!/\\/(FlateDecode|Fl)\\b/.test(dict) || /\\/Subtype\\s*\\/Image\\b/.test(dict)) continue;
    total += await inflatedLength(bytes.subarray(start, end), budget - total);
    if (total > budget) break;
  }
  return total;
}
`;

/**
 * pdf.js runs in a reader process of its own (see inReaderProcess): it is an ES module (loaded
 * there with a native import, which also works under Jest), its parsing is CPU work that must not
 * stall the service's event loop, and a hostile file is stopped by its limits (time, heap, resident
 * memory, inflated size, text) instead of taking the service down.
 */
const PDF_READER_SOURCE = PDF_INFLATED_SIZE_SOURCE + `
process.once('message', (input) => (async () => {
  const bytes = Buffer.from(input.bytes);
  const inflated = await pdfInflatedSize(bytes, input.maxInflatedBytes);
  if (inflated > input.maxInflatedBytes) {
    reply({ failure: 'too_much_inflated', message: String(input.maxInflatedBytes) });
    return;
  }
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
  let chars = 0;
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
    const text = lines.join('\\n');
    page.cleanup();
    // Stop well past the text limit (normalising shortens the text a little) instead of holding
    // all of a file that will be refused anyway.
    chars += text.length;
    if (chars > 2 * input.maxChars) {
      reply({ failure: 'too_much_text', message: String(chars) });
      return;
    }
    pages.push(text);
  }
  const meta = await doc.getMetadata().catch(() => null);
  const t = meta && meta.info && meta.info.Title;
  await doc.destroy();
  reply({ title: typeof t === 'string' && t.trim() ? t.trim() : null, pages, numPages: pages.length });
})().catch((err) => reply({ failure: 'unreadable', message: String(err && err.message || err) })));
`;

export function readPdf(bytes: Buffer, opts: ReaderLimits & { maxPages: number; maxChars: number; maxInflatedBytes: number }): Promise<PdfPages | PdfFailure> {
  const pdfjsUrl = pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
  const input = { bytes: new Uint8Array(bytes), maxPages: opts.maxPages, maxChars: opts.maxChars, maxInflatedBytes: opts.maxInflatedBytes, pdfjsUrl };
  return inReaderProcess<PdfPages | PdfFailure>(PDF_READER_SOURCE, input, opts, 'the PDF');
}

/**
 * mammoth (and the ZIP inflation under it) runs in a reader process too: a DOCX is a ZIP, and a
 * small one can inflate to gigabytes (a ZIP bomb), which would take the whole service down, and
 * again on every retry. In its own process it meets the heap, memory and time limits and fails
 * alone. Before mammoth, the sizes the ZIP's central directory declares are added up: an honest
 * bomb is refused with its reason at once; one that lies about its sizes meets the memory limit.
 */
const DOCX_READER_SOURCE = `
function zipDeclaredSize(b) {
  // The end of central directory record: its signature within the last 64 KB + 22 bytes.
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 65557); i--) if (b.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  if (eocd < 0) return 0;
  const entries = b.readUInt16LE(eocd + 10);
  let p = b.readUInt32LE(eocd + 16), total = 0;
  for (let k = 0; k < entries && p + 46 <= b.length && b.readUInt32LE(p) === 0x02014b50; k++) {
    const size = b.readUInt32LE(p + 24);
    total += size === 0xffffffff ? Infinity : size;
    p += 46 + b.readUInt16LE(p + 28) + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32);
  }
  return total;
}
process.once('message', (input) => {
  if (zipDeclaredSize(Buffer.from(input.bytes)) > input.maxInflatedBytes) {
    reply({ failure: 'too_much_inflated', message: String(input.maxInflatedBytes) });
    return;
  }
  const mammoth = require(input.mammothPath);
  // Through HTML, so headings and paragraphs keep their breaks.
  mammoth.convertToHtml({ buffer: Buffer.from(input.bytes) })
    .then((r) => reply({ html: r.value }))
    .catch((err) => reply({ failure: 'unreadable', message: String(err && err.message || err) }));
});
`;

export type DocxFailure = { failure: 'unreadable' | 'too_much_inflated' | 'timeout' | 'memory'; message: string };

export function readDocx(bytes: Buffer, opts: ReaderLimits & { maxInflatedBytes: number }): Promise<{ html: string } | DocxFailure> {
  const input = { bytes: new Uint8Array(bytes), maxInflatedBytes: opts.maxInflatedBytes, mammothPath: require.resolve('mammoth') };
  return inReaderProcess<{ html: string } | DocxFailure>(DOCX_READER_SOURCE, input, opts, 'the DOCX');
}

/** What every reader's source starts with: its one answer, sent to the service, after which it ends. */
const READER_PRELUDE = `
const reply = (message) => process.send(message, () => process.disconnect());
`;

/** How much of a reader's stderr is kept, to tell running out of heap from another end. */
const STDERR_TAIL_CHARS = 4096;

/** How often the parent reads a reader process's resident memory from /proc. */
const RSS_SAMPLE_MS = 20;

/** The peak resident memory (VmHWM, else VmRSS) of a process in KB, or null (no /proc, or it ended). */
function residentKb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const m = /^VmHWM:\s+(\d+) kB/m.exec(status) ?? /^VmRSS:\s+(\d+) kB/m.exec(status);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Runs a reader in a child process of its own, with a heap limit (`--max-old-space-size`), a
 * resident memory limit and a deadline: its one IPC message is the result; running out of time is
 * a `timeout` failure, passing the memory limit a `memory` one, running out of heap or any other
 * end an `unreadable` one. The heap limit bounds V8's heap only: pdf.js inflates a stream into a
 * typed array, whose memory lies outside it (a 4.5 MB PDF took a reader to 2.5 GB). So the parent
 * reads the child's peak resident set (VmHWM in /proc/<pid>/status) every 20 ms and kills it with
 * SIGKILL once it is over `maxRssMb` (Linux; elsewhere only the heap and time limits apply).
 * A process, not a worker thread: a worker's `resourceLimits` do not contain every out-of-memory
 * (V8 may abort the whole process instead of stopping the worker: nodejs/node#47224, and under
 * Node 24 a ZIP-bomb DOCX did so about four times in five), while a child that runs out of heap
 * only ends itself, and a worker's memory cannot be told from the service's. The child gets an
 * empty environment: no secret of the service's is in reach of the parser of an uploaded file.
 */
function inReaderProcess<T>(source: string, input: Record<string, unknown>, opts: ReaderLimits, what: string): Promise<T | { failure: 'timeout' | 'memory' | 'unreadable'; message: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${Math.max(16, Math.floor(opts.maxHeapMb))}`, '-e', READER_PRELUDE + source], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: {},
    });
    let settled = false;
    let stderrTail = '';
    const finish = (result: T | { failure: 'timeout' | 'memory' | 'unreadable'; message: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (watchdog) clearInterval(watchdog);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(() => finish({ failure: 'timeout', message: `reading ${what} took longer than ${opts.timeoutMs} ms` }), opts.timeoutMs);
    const maxRssKb = (opts.maxRssMb ?? 0) * 1024;
    const watchdog =
      maxRssKb > 0 && process.platform === 'linux' && child.pid !== undefined
        ? setInterval(() => {
            const kb = residentKb(child.pid!);
            if (kb !== null && kb > maxRssKb) finish({ failure: 'memory', message: `reading ${what} needed more than ${opts.maxRssMb} MB of memory` });
          }, RSS_SAMPLE_MS)
        : null;
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
