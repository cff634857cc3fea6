import { readdirSync, readFileSync } from 'node:fs';
import { constants, deflateRawSync } from 'node:zlib';

/**
 * Hostile uploads, made in the test that uses them (a few hundred KB to a few MB each, so they are
 * not committed): PDFs that pdf.js reads as valid and DOCX files that mammoth opens, which inflate
 * to far more than they weigh (issue 30).
 */

/** A PDF of the given page objects (a catalog, a page tree, one Helvetica font), with a correct xref. */
function pdfOf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  objects.forEach((body, i) => {
    offsets.push(length);
    push(`${i + 1} 0 obj\n`);
    push(body);
    push('\nendobj\n');
  });
  const xref = length;
  push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  push(offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join(''));
  push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 3 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/**
 * A FlateDecode stream object of `content` repeated to `totalBytes`. One zlib stream made of the
 * same full-flushed 1 MB piece repeated (each piece stands alone), so the test never holds the
 * inflated whole; it ends with an empty final block and no Adler-32 (pdf.js does not check it).
 */
function flateStream(content: Buffer, totalBytes: number): Buffer {
  const piece = Buffer.alloc(Math.min(totalBytes, 1024 * 1024));
  for (let o = 0; o < piece.length; o += content.length) content.copy(piece, o, 0, Math.min(content.length, piece.length - o));
  const body = deflateRawSync(piece, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const count = Math.ceil(totalBytes / piece.length);
  const data = Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: count }, () => body), deflateRawSync(Buffer.alloc(0))]);
  return Buffer.concat([Buffer.from(`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/**
 * A PDF whose content stream is FlateDecode-compressed and inflates to `inflatedMb` MB: of zeros
 * (whitespace to a PDF lexer, so pdf.js inflates all of it looking for operators), or of a repeated
 * text operator (`text: true`). With `pages`, that many pages draw the same stream (pdf.js inflates
 * it once per page).
 */
export function pdfFlateBomb(inflatedMb: number, opts: { text?: boolean; pages?: number } = {}): Buffer {
  const content = opts.text ? Buffer.from('BT /F1 12 Tf 72 720 Td (All work and no play makes a dull kettle.) Tj ET\n', 'latin1') : Buffer.alloc(1);
  const pages = opts.pages ?? 1;
  // 1 catalog, 2 pages, 3 info, 4 font, 5 content; then the page objects.
  const kids = Array.from({ length: pages }, (_, i) => `${6 + i} 0 R`).join(' ');
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    '<< /Title (Flate bomb) >>',
    FONT,
    flateStream(content, inflatedMb * 1024 * 1024),
  ];
  for (let i = 0; i < pages; i++) objects.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>');
  return pdfOf(objects);
}

/** A PDF with `pages` real (empty-content) pages: a page tree a reader must not walk in full. */
export function pdfManyPages(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`, '<< /Title (Many pages) >>', FONT];
  for (let i = 0; i < pages; i++) objects.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  return pdfOf(objects);
}

/**
 * A ZIP bomb of a DOCX: the parts of a real one (`parts`, name → bytes), with word/document.xml
 * replaced by a document whose body holds `inflatedMb` MB of spaces (a few hundred KB deflated).
 * `declaredMb` is the uncompressed size its ZIP headers state (the true one unless given: a lying
 * bomb states less).
 */
export function docxZipBomb(parts: Map<string, Buffer>, inflatedMb: number, opts: { declaredMb?: number } = {}): Buffer {
  const head = Buffer.from('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Bomb</w:t></w:r></w:p>', 'utf8');
  const tail = Buffer.from('</w:body></w:document>', 'utf8');
  const piece = Buffer.alloc(1024 * 1024, 0x20);
  const count = inflatedMb;
  const deflated = Buffer.concat([
    deflateRawSync(head, { finishFlush: constants.Z_FULL_FLUSH }),
    ...Array.from({ length: count }, () => deflateRawSync(piece, { level: 9, finishFlush: constants.Z_FULL_FLUSH })),
    deflateRawSync(tail),
  ]);
  const size = head.length + count * piece.length + tail.length;
  const entries = [...parts].filter(([name]) => name !== 'word/document.xml').map(([name, data]) => ({ name, method: 0, data, size: data.length }));
  entries.push({ name: 'word/document.xml', method: 8, data: deflated, size: opts.declaredMb === undefined ? size : opts.declaredMb * 1024 * 1024 });
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(0, 14); // CRC-32 left out: JSZip does not check it unless asked
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(e.method, 10);
    dir.writeUInt32LE(e.data.length, 20);
    dir.writeUInt32LE(e.size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    central.push(dir, name);
    offset += local.length + name.length + e.data.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, end]);
}

/**
 * Samples, every `everyMs`, the resident memory of this process's child processes (the file readers
 * the code under test spawns) from /proc/<pid>/status: the highest VmHWM (peak resident set) and
 * VmRSS seen of any child, in MB. Linux only.
 */
export function watchChildMemory(everyMs = 10): { stop(): { peakMb: number; children: number } } {
  let peakKb = 0;
  const seen = new Set<number>();
  const sample = () => {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
        // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid !== process.pid) continue;
        const status = readFileSync(`/proc/${name}/status`, 'latin1');
        seen.add(Number(name));
        for (const key of ['VmHWM', 'VmRSS']) {
          const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
          if (m) peakKb = Math.max(peakKb, Number(m[1]));
        }
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, everyMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakMb: Math.round(peakKb / 1024), children: seen.size };
    },
  };
}
