/** Where a reply is best cut, best first: a paragraph, a line, a sentence, a word. */
const BOUNDARIES = ['\n\n', '\n', '. ', '! ', '? ', ' '];

/** Where to cut text longer than `limit`: after the last boundary of the best kind in the second half of the first `limit` characters. */
function cutPoint(text: string, limit: number): number {
  const window = text.slice(0, limit);
  for (const boundary of BOUNDARIES) {
    const at = window.lastIndexOf(boundary);
    if (at >= limit / 2) return at + boundary.length;
  }
  // No boundary: a hard cut, never between the halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

/**
 * A reply as messages of at most `limit` characters (UTF-16 code units, as JavaScript counts: never
 * fewer than the providers count), cut at paragraph, line, sentence or word ends when there is one
 * in the second half of a piece. The white space at a cut is dropped; blank text gives no pieces.
 * One splitter for every provider (Telegram and WhatsApp 4096, Slack 4000).
 */
export function splitReply(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const cut = cutPoint(rest, limit);
    const part = rest.slice(0, cut).trimEnd();
    if (part !== '') parts.push(part);
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') parts.push(rest);
  return parts;
}
