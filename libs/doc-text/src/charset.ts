import { TextDecoder } from 'node:util';

/**
 * Decoding fetched bytes to text, in the order browsers use: a byte-order mark, then the charset
 * of the Content-Type header, then (for HTML) a <meta charset> or <meta http-equiv> in the first
 * bytes, then (for XML) the encoding of the XML declaration, then UTF-8, and windows-1252 when
 * the bytes are not valid UTF-8. Labels are whatever TextDecoder (WHATWG Encoding) accepts:
 * utf-8, iso-8859-1 (decoded as windows-1252, as browsers do), shift_jis, euc-jp, euc-kr,
 * gbk/gb18030, big5, windows-125x, tis-620 …; an unknown label is skipped.
 */
const PRESCAN_BYTES = 4096;

export function decodeBody(body: Buffer, contentType: string | undefined, sniff: 'html' | 'xml' | 'none'): string {
  const bom = bomEncoding(body);
  if (bom) return new TextDecoder(bom).decode(body); // TextDecoder drops the BOM itself
  const candidates = [charsetParam(contentType)];
  if (sniff !== 'none') {
    const head = body.subarray(0, PRESCAN_BYTES).toString('latin1');
    candidates.push(sniff === 'html' ? metaCharset(head) : xmlEncoding(head));
  }
  for (const label of candidates) {
    const decoder = decoderFor(label);
    if (decoder) return decoder.encoding === 'windows-1252' ? decodeWindows1252(body) : decoder.decode(body);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return decodeWindows1252(body);
  }
}

/**
 * windows-1252, which is also what latin-1, iso-8859-1 and us-ascii labels mean on the web.
 * Node 20's TextDecoder decodes it as ISO-8859-1, leaving 0x80–0x9F as control characters
 * instead of € ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ' ' " " • – — ˜ ™ š › œ ž Ÿ; this maps them.
 */
const CP1252_C1 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function decodeWindows1252(body: Buffer): string {
  return body.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]);
}

/** The `charset` parameter of a Content-Type header, unquoted. */
export function charsetParam(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '');
  return m?.[2];
}

function bomEncoding(b: Buffer): string | undefined {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** `<meta charset=x>` or `<meta http-equiv=content-type content="…; charset=x">` (one pattern matches both). */
function metaCharset(head: string): string | undefined {
  const label = /<meta\s[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
  // A page that could be read far enough to find its <meta> is not UTF-16: browsers use UTF-8.
  return label && /^utf-?16/i.test(label) ? 'utf-8' : label;
}

function xmlEncoding(head: string): string | undefined {
  return /^\s*<\?xml[^>]*\sencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1];
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label);
  } catch {
    return undefined; // unknown label: try the next source
  }
}
