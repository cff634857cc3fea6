import { createHash } from 'node:crypto';
import { CHAT_MESSAGE_MAX } from '@sa/contracts';
import type { AddressObject, HeaderValue, ParsedMail } from 'mailparser';
import { InboundMessage } from '../providers/provider';

/**
 * Inbound e-mail (issue 35), as pure functions over mailparser's ParsedMail: which mail must
 * never be answered (auto-replies, bounces, lists: two bots must not answer each other for
 * ever), the text a person actually wrote (quoted history and signature stripped), and the
 * InboundMessage that threads it into one chat session per e-mail thread.
 */

/** What e-mail's InboundMessage.replyTo holds: everything mail-sender needs to answer in the thread. */
export interface MailReplyTo {
  /** The address the answer goes to (the message's From). */
  to: string;
  /** The subject as the sender wrote it (decoded); the answer's is 'Re: ' + this. */
  subject: string;
  /** The Message-ID answered (angle brackets included): the answer's In-Reply-To. */
  message_id: string;
  /** The thread's Message-IDs before this one, oldest first (at most MAX_REFERENCES). */
  references: string[];
}

/** References kept per message: the thread's root and the most recent ones (RFC 5322 §3.6.4 allows trimming the middle). */
export const MAX_REFERENCES = 20;
/** Longest Message-ID kept as written; longer ones are replaced by a hash (a column bound, not a protocol one). */
const MESSAGE_ID_MAX = 250;
/** Body characters looked at when stripping: a reply worth reading is far shorter, and the work stays linear and bounded. */
const SCAN_MAX = 100_000;
/** Lines longer than this are never taken for an attribution, a header or a signature. */
const MARKER_LINE_MAX = 400;

// ---------------------------------------------------------------------------------------------
// Automated mail
// ---------------------------------------------------------------------------------------------

const BULK_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply']);
const SUPPRESS_TOKENS = new Set(['all', 'oof', 'autoreply']);
/** Local parts of system senders: bounces (RFC 3834 §2), and senders that say nobody reads the answer. */
const SYSTEM_SENDER = /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|donotreply)(\+.*)?$/i;

/**
 * Why this message must not be answered, or null when a person wrote it. Checked before
 * anything is stored, so neither our answers nor another robot's ever start a loop:
 * - Auto-Submitted other than "no" (RFC 3834: auto-replies, auto-generated; our own answers carry it);
 * - Precedence bulk / junk / list / auto_reply (the older convention vacation programs follow);
 * - X-Autoreply / X-Autorespond (set by some responders instead of Auto-Submitted);
 * - X-Auto-Response-Suppress All / OOF / AutoReply (the sender asks not to be auto-answered, Exchange);
 * - List-Id or List-Unsubscribe: list traffic and newsletters. RFC 3834 §2 lets responders ignore
 *   it, and answering would write to a list or to a marketing robot. The cost: a mailbox that is
 *   itself a list (a Google Group used as support@) is never answered; connect the real mailbox;
 * - From or Return-Path of mailer-daemon / postmaster (bounces) or a no-reply address, an empty
 *   Return-Path `<>` (RFC 5321 §4.5.5: bounces are sent with the null sender), X-Failed-Recipients;
 * - Content-Type multipart/report: delivery status notifications and read receipts (RFC 6522);
 * - From one of our own addresses (a copy of an answer, or a loop through a forwarder).
 */
export function automatedReason(parsed: ParsedMail, ownAddresses: readonly string[] = []): string | null {
  const headers = parsed.headers;
  const autoSubmitted = firstToken(headerText(headers, 'auto-submitted'));
  if (autoSubmitted !== '' && autoSubmitted !== 'no') return `Auto-Submitted: ${autoSubmitted}`;
  const precedence = firstToken(headerText(headers, 'precedence'));
  if (BULK_PRECEDENCE.has(precedence)) return `Precedence: ${precedence}`;
  for (const name of ['x-autoreply', 'x-autorespond']) {
    const value = firstToken(headerText(headers, name));
    if (headers.has(name) && value !== 'no' && value !== 'false') return `${name} header`;
  }
  const suppress = headerText(headers, 'x-auto-response-suppress')
    .toLowerCase()
    .split(/[\s,]+/)
    .find((t) => SUPPRESS_TOKENS.has(t));
  if (suppress) return `X-Auto-Response-Suppress: ${suppress}`;
  const list = headers.get('list');
  if (list && typeof list === 'object' && ('id' in list || 'unsubscribe' in list)) return 'mailing list (List-Id / List-Unsubscribe)';
  if (headers.has('x-failed-recipients')) return 'bounce (X-Failed-Recipients)';

  const returnPath = headers.get('return-path');
  if (returnPath !== undefined) {
    const address = firstAddress(returnPath)?.address ?? '';
    if (address === '') return 'bounce (empty Return-Path)';
    if (SYSTEM_SENDER.test(localPart(address))) return `system sender (Return-Path ${address})`;
  }
  const from = firstAddress(parsed.from);
  if (from && SYSTEM_SENDER.test(localPart(from.address))) return `system sender (From ${from.address})`;
  const contentType = headers.get('content-type');
  if (isStructured(contentType) && contentType.value.toLowerCase() === 'multipart/report') return 'delivery or read report (multipart/report)';
  const own = new Set(ownAddresses.map((a) => a.trim().toLowerCase()).filter((a) => a !== ''));
  if (from && own.has(from.address.toLowerCase())) return `from our own address ${from.address}`;
  return null;
}

export function isAutomated(parsed: ParsedMail, ownAddresses: readonly string[] = []): boolean {
  return automatedReason(parsed, ownAddresses) !== null;
}

// ---------------------------------------------------------------------------------------------
// The text a person wrote
// ---------------------------------------------------------------------------------------------

/**
 * The text the bot reads: the plain text part (mailparser converts HTML to text when there is
 * none, a blockquote becoming "> " lines), its quoted history and signature stripped, at most
 * CHAT_MESSAGE_MAX characters. A forward ("Fwd:", "FW:") keeps the forwarded message: it is what
 * the person wants answered.
 */
export function visibleText(parsed: ParsedMail): string {
  const raw = typeof parsed.text === 'string' ? parsed.text : '';
  const forwarded = /^\s*(fwd?|fw|wg|tr|rv|i)\s*:/i.test(parsed.subject ?? '');
  return capCharacters(stripReply(raw, { keepHistory: forwarded }), CHAT_MESSAGE_MAX);
}

/*
 * Why this is written here rather than taken from npm (checked with `npm view`, 2026):
 * - email-reply-parser (crisp-oss, the maintained port of GitHub's parser) is ESM-only from 2.3
 *   (our build and Jest are CommonJS; 2.3.9 also needs Node 22) and relies on the native `re2`
 *   module for safety: without it, its patterns run on the whole body with backtracking, and a
 *   12 kB line of " on at" took 29 s to parse on this machine (quadratic-to-cubic growth).
 * - planer (Mailgun talon's port) has no release since 2024 and needs a DOM for HTML.
 * - node-email-reply-parser is a 0.1 port with lodash.
 * This one works line by line with anchored patterns on lines of bounded length, so its cost is
 * linear in the (capped) body, and it covers the shapes the issue names.
 */

/** Cuts quoted history and signatures out of a reply's plain text. */
export function stripReply(text: string, opts: { keepHistory?: boolean } = {}): string {
  const lines = text
    .slice(0, SCAN_MAX)
    .replace(/\r\n?/g, '\n')
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''));
  const end = opts.keepHistory ? signatureStart(lines) : historyStart(lines);
  const kept: string[] = [];
  for (let i = 0; i < end; i++) {
    const line = lines[i];
    if (!opts.keepHistory && isQuoted(line)) continue;
    const attribution = opts.keepHistory ? 0 : attributionLength(lines, i);
    if (attribution > 0) {
      i += attribution - 1;
      continue;
    }
    if (isMobileSignature(line)) continue;
    kept.push(line);
  }
  return tidy(kept);
}

function isQuoted(line: string): boolean {
  return /^\s*>/.test(line);
}

/**
 * Where the history begins (everything from there on is dropped): a signature delimiter, an
 * Outlook "Original Message" line or header block (Outlook quotes without "> "), or an
 * attribution ("On … wrote:") that no "> " lines follow (the history below it is unquoted).
 * An attribution followed by quoted lines only loses that line: text after the quote is a
 * bottom-posted answer and is kept.
 */
function historyStart(lines: string[]): number {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (isQuoted(line)) continue;
    if (isSignatureDelimiter(line) || isOriginalMessageLine(line) || isOutlookHeaderBlock(lines, i)) return i;
    const attribution = attributionLength(lines, i);
    if (attribution > 0 && !quotedFollows(lines, i + attribution)) return i;
  }
  return lines.length;
}

function signatureStart(lines: string[]): number {
  const i = lines.findIndex(isSignatureDelimiter);
  return i === -1 ? lines.length : i;
}

/** RFC 3676 §4.3's "-- " (its trailing space often lost on the way), alone on its line. */
function isSignatureDelimiter(line: string): boolean {
  return line === '--' || line === '-- ';
}

const ORIGINAL_MESSAGE =
  /^\s*-{2,}\s*(original message|ursprüngliche nachricht|message d'origine|mensaje original|messaggio originale|mensagem original|oorspronkelijk bericht|originalmeddelande|oprindelig meddelelse|opprinnelig melding|wiadomość oryginalna|исходное сообщение)\s*-{2,}\s*$/i;

function isOriginalMessageLine(line: string): boolean {
  return line.length <= MARKER_LINE_MAX && ORIGINAL_MESSAGE.test(line);
}

const FROM_FIELD = /^\s*\*?(from|de|von|van|da|från|fra|od|от|lähettäjä|kimden|feladó)\s?:\*?\s*\S/i;
const DATE_FIELD = /^\s*\*?(sent|date|envoyé|gesendet|verzonden|enviado|enviada|inviato|skickat|sendt|datum|fecha|data|wysłano|отправлено|дата|lähetetty|tarih|elküldve)\s?:\*?\s*\S/i;
const TO_OR_SUBJECT_FIELD = /^\s*\*?(to|cc|subject|à|objet|an|betreff|aan|onderwerp|para|asunto|assunto|a|oggetto|till|ämne|til|emne|do|temat|кому|тема)\s?:\*?/i;

/** Outlook's quoted header: "From: …" then, within the next four lines, "Sent:"/"Date:" and "To:"/"Subject:". */
function isOutlookHeaderBlock(lines: string[], i: number): boolean {
  if (lines[i].length > MARKER_LINE_MAX || !FROM_FIELD.test(lines[i])) return false;
  const next = lines.slice(i + 1, i + 5).filter((l) => l.length <= MARKER_LINE_MAX);
  return next.some((l) => DATE_FIELD.test(l)) && next.some((l) => TO_OR_SUBJECT_FIELD.test(l));
}

const ATTRIBUTION_END =
  /(wrote|writes|a écrit|schrieb|escribió|escribio|ha scritto|scrisse|escreveu|schreef|geschreven|skrev|kirjoitti|napisał\(a\)|napisała|napisał|написал\(а\)|написала|написал|yazdı|έγραψε|写道|寫道|のメッセージ|작성)\s*[:：]$/i;
const ATTRIBUTION_START = /^\s*(on|le|am|el|il|em|op|den|w dniu|dnia|dne|στις|в)\s|^\s*在/i;
/** German, Dutch and Scandinavian clients put the verb before the name: "Am 01.01.2024 um 10:00 schrieb Support <…>:". */
const ATTRIBUTION_VERB_FIRST = /^\s*(am|den|op)\s.{0,300}\s(schrieb|skrev|schreef)\s.{0,300}[:：]$/i;

function endsAttribution(text: string): boolean {
  return ATTRIBUTION_END.test(text) || ATTRIBUTION_VERB_FIRST.test(text);
}

/**
 * How many lines (1 to 3: clients wrap long ones, Gmail often before "wrote:") the attribution
 * starting at line i takes, or 0. A line ending in "wrote:" counts when it also looks like one
 * (starts like "On …", names an address or a year, or quoted lines follow), so that
 * "Here is what my colleague wrote:" followed by their words stays.
 */
function attributionLength(lines: string[], i: number): number {
  const first = lines[i].trim();
  if (first === '' || first.length > MARKER_LINE_MAX) return 0;
  if (endsAttribution(first)) return looksLikeAttribution(first, lines, i + 1) ? 1 : 0;
  if (!ATTRIBUTION_START.test(first)) return 0;
  let joined = first;
  for (let n = 2; n <= 3 && i + n - 1 < lines.length; n++) {
    const next = lines[i + n - 1].trim();
    if (next === '' || next.length > MARKER_LINE_MAX || isQuoted(next)) return 0;
    joined = `${joined} ${next}`;
    if (endsAttribution(joined)) return looksLikeAttribution(joined, lines, i + n) ? n : 0;
  }
  return 0;
}

function looksLikeAttribution(text: string, lines: string[], after: number): boolean {
  return ATTRIBUTION_START.test(text) || text.includes('@') || /(^|\D)(19|20)\d\d(\D|$)/.test(text) || quotedFollows(lines, after);
}

/** Whether the first non-empty line from `from` on is quoted. */
function quotedFollows(lines: string[], from: number): boolean {
  for (let i = from; i < lines.length; i++) {
    if (lines[i].trim() !== '') return isQuoted(lines[i]);
  }
  return false;
}

const MOBILE_SIGNATURE = new RegExp(
  '^\\s*(' +
    [
      'sent from my \\S.*',
      'sent from (mail|outlook|yahoo mail|gmail|proton mail|aol)( for \\S.*)?',
      'sent with proton mail.*',
      'get outlook for (ios|android).*',
      'envoyé de mon .*',
      'envoyé depuis .*',
      'von meinem .* gesendet',
      'gesendet von meinem .*',
      'enviado desde mi .*',
      'enviado do meu .*',
      'inviato da(l mio)? .*',
      'verstuurd vanaf mijn .*',
      'verzonden vanaf mijn .*',
      'skickat från min .*',
      'sendt fra min .*',
      'wysłane z .*',
      'отправлено с .*',
    ].join('|') +
    ')\\s*$',
  'i',
);

/** "Sent from my iPhone" and its kin: a whole, short line the phone adds. */
function isMobileSignature(line: string): boolean {
  return line.length <= 120 && MOBILE_SIGNATURE.test(line);
}

const SEPARATOR = /^\s*[-_=*~]{2,}\s*$/;

/** Leading and trailing blank or separator lines removed, runs of blank lines made one. */
function tidy(lines: string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim() === '') start++;
  while (end > start && (lines[end - 1].trim() === '' || SEPARATOR.test(lines[end - 1]))) end--;
  const out: string[] = [];
  for (const line of lines.slice(start, end)) {
    if (line.trim() === '' && out.length > 0 && out[out.length - 1] === '') continue;
    out.push(line.trim() === '' ? '' : line);
  }
  return out.join('\n');
}

/** The first `max` characters (code points, as CHAT_MESSAGE_MAX counts them). */
function capCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('').trimEnd();
}

// ---------------------------------------------------------------------------------------------
// Threading and the InboundMessage
// ---------------------------------------------------------------------------------------------

/**
 * The InboundMessage of a mail a person wrote (call automatedReason first), or null when it
 * has no usable sender address or no text once history and signature are stripped.
 * - providerMessageId: the Message-ID; without one, a stable id hashed from what a re-delivery
 *   keeps (sender, recipients, date, subject, body), so a second delivery is still a duplicate;
 * - conversationKey: the sender's address and the thread's root (the first of References, else
 *   In-Reply-To, else its own Message-ID). The sender is part of the key so that someone who
 *   learns a thread's Message-ID cannot join another person's session by citing it in
 *   References (the answers would go to them, with that session's history behind them);
 * - replyTo: MailReplyTo.
 */
export function toInboundMessage(parsed: ParsedMail): InboundMessage | null {
  const from = firstAddress(parsed.from);
  if (!from || !/^[^\s@<>]+@[^\s@<>]+$/.test(from.address) || from.address.length > 254) return null;
  const text = visibleText(parsed);
  if (text === '') return null;
  const email = from.address.toLowerCase();
  const messageId = normalizeMessageId(parsed.messageId) ?? syntheticMessageId(parsed);
  const references = referencesOf(parsed, messageId);
  const inReplyTo = messageIdsIn(parsed.inReplyTo ?? '')[0] ?? null;
  const root = references[0] ?? inReplyTo ?? messageId;
  const replyTo: MailReplyTo = {
    to: from.address,
    subject: oneLine(parsed.subject ?? '').slice(0, 500),
    message_id: messageId,
    // A reply that has In-Reply-To but no References (allowed, RFC 5322 §3.6.4) still threads.
    references: references.length > 0 ? references : inReplyTo ? [inReplyTo] : [],
  };
  const sentAt = parsed.date instanceof Date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.getTime() : null;
  return {
    providerMessageId: messageId,
    conversationKey: `${email} ${root}`,
    text,
    sender: { id: email, name: from.name.trim() === '' ? null : oneLine(from.name).slice(0, 200), email },
    sentAt,
    replyTo: { ...replyTo },
  };
}

/** One Message-ID as `<id>`: the first bracketed one in the value, a bare token wrapped, an overlong one hashed. */
export function normalizeMessageId(value: string | undefined | null): string | null {
  if (typeof value !== 'string') return null;
  const bracketed = messageIdsIn(value)[0];
  if (bracketed) return bracketed;
  const bare = value.trim();
  if (bare === '' || /[\s<>]/.test(bare)) return null;
  return boundedId(`<${bare}>`);
}

/** Every `<…>` Message-ID in a header value, in order, each bounded. */
function messageIdsIn(value: string | string[]): string[] {
  const text = (Array.isArray(value) ? value.join(' ') : value).slice(0, 100_000);
  return [...text.matchAll(/<([^<>\s]{1,2000})>/g)].map((m) => boundedId(`<${m[1]}>`));
}

function boundedId(id: string): string {
  if (id.length <= MESSAGE_ID_MAX) return id;
  return `<${createHash('sha256').update(id).digest('hex')}@long-message-id.invalid>`;
}

/** References without duplicates and without the message's own id; the root and the most recent kept. */
function referencesOf(parsed: ParsedMail, own: string): string[] {
  const seen = new Set<string>();
  const ids: string[] = [];
  for (const id of messageIdsIn(parsed.references ?? [])) {
    if (id === own || seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  if (ids.length <= MAX_REFERENCES) return ids;
  return [ids[0], ...ids.slice(ids.length - (MAX_REFERENCES - 1))];
}

/** A Message-ID for a message without one: a hash of what every delivery of it shares. */
function syntheticMessageId(parsed: ParsedMail): string {
  const hash = createHash('sha256');
  const parts = [parsed.from?.text, addressText(parsed.to), addressText(parsed.cc), parsed.date?.toISOString(), parsed.subject, parsed.text, typeof parsed.html === 'string' ? parsed.html : ''];
  for (const part of parts) hash.update(`${part ?? ''}\u0000`);
  return `<${hash.digest('hex').slice(0, 40)}@no-message-id.invalid>`;
}

function addressText(value: AddressObject | AddressObject[] | undefined): string {
  if (!value) return '';
  return (Array.isArray(value) ? value : [value]).map((a) => a.text).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Header helpers
// ---------------------------------------------------------------------------------------------

/** A header's text (the first value of a repeated one); '' when absent or not text. */
function headerText(headers: Map<string, HeaderValue>, name: string): string {
  const value = headers.get(name);
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return '';
}

/** The first token of a header value, lower-cased: "auto-replied; owner=…" → "auto-replied". */
function firstToken(value: string): string {
  return value.trim().split(/[\s;,]+/)[0]?.toLowerCase() ?? '';
}

function isStructured(value: HeaderValue | undefined): value is { value: string; params: Record<string, string> } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && typeof (value as { value?: unknown }).value === 'string';
}

/** The first mailbox (not group) of an address header, with its address ('' for `<>`). */
function firstAddress(value: HeaderValue | undefined): { address: string; name: string } | null {
  const objects = Array.isArray(value) ? value : value ? [value] : [];
  for (const object of objects) {
    if (typeof object !== 'object' || object === null || !('value' in object) || !Array.isArray(object.value)) continue;
    for (const entry of (object as AddressObject).value) {
      const mailbox = entry.group ? entry.group[0] : entry;
      if (mailbox) return { address: (mailbox.address ?? '').trim(), name: mailbox.name ?? '' };
    }
  }
  return null;
}

function localPart(address: string): string {
  const at = address.lastIndexOf('@');
  return at === -1 ? address : address.slice(0, at);
}

function oneLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').trim();
}
