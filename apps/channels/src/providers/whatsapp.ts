import { splitReply } from './split-reply';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { InboundMessage, PermanentSendError, ProviderConnection, RetryableSendError, SendContext, WebhookOutcome, WebhookProvider, WebhookRequest } from './provider';

/*
 * The WhatsApp Business Platform's Cloud API (Meta's Graph API), as documented in
 *  - "Create a webhook endpoint": the verification GET (`hub.mode=subscribe`, `hub.challenge`,
 *    `hub.verify_token`, answered with the challenge) and notifications POSTed as JSON, signed
 *    with `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app secret>`;
 *  - the "messages" webhook reference: `{object: "whatsapp_business_account", entry: [{id,
 *    changes: [{field: "messages", value: {messaging_product, metadata: {display_phone_number,
 *    phone_number_id}, contacts: [{profile: {name}, wa_id}], messages: [{from, id, timestamp,
 *    type, text: {body}}] | statuses: [...]}}]}]}`;
 *  - "Text messages" and "Contextual replies": POST /<version>/<phone number id>/messages with a
 *    bearer token, `{messaging_product: "whatsapp", recipient_type: "individual", to, type: "text",
 *    text: {body, preview_url}, context: {message_id}}`, the body at most 4096 characters, answered
 *    `{messaging_product, contacts: [{input, wa_id}], messages: [{id: "wamid.…"}]}`;
 *  - Graph API "Handling errors" and "WhatsApp error codes": `{error: {message, type, code,
 *    error_subcode, error_data, fbtrace_id}}`.
 * Meta signs no timestamp, so a replayed notification cannot be told from a retried one here: both
 * carry the same wamid, which is the message's providerMessageId and is stored once.
 */

/** Notifications larger than this are refused unread (Meta's are a few kilobytes). */
export const WHATSAPP_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_GRAPH_VERSION = 'v21.0';
/** Meta's limit on a text message's body, in characters. */
export const WHATSAPP_TEXT_LIMIT = 4096;

const SIGNATURE_HEADER = 'x-hub-signature-256';
const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
const GRAPH_VERSION = /^v\d{1,3}\.\d{1,3}$/;
const DIGITS = /^\d{1,32}$/;
/** A WhatsApp user id (wa_id) is the phone number in international form, digits only. */
const WA_ID = /^\d{1,20}$/;

/** Error codes of the Cloud API's rate limits: app calls (4), account (80007), throughput (130429), spam (131048), pair rate (131056). */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131048, 131056]);
/** Error codes Meta documents as temporary: unknown (1), service (2), "something went wrong" (131000). */
const TRANSIENT_CODES = new Set([1, 2, 131000]);
/** Graph's code for an expired, revoked or invalid access token. */
const TOKEN_INVALID_CODE = 190;
/** Transport failures (the outbound guard's codes) that no retry can fix. */
const PERMANENT_TRANSPORT_CODES = new Set(['blocked', 'bad_url', 'too_large', 'too_many_redirects']);

/** JSON objects as parsed: members read one by one, checked where read. */
type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

const respond = (status: number, body: string): WebhookOutcome => ({ kind: 'respond', status, body, contentType: 'text/plain' });

// ---------------------------------------------------------------------------------------------
// Inbound
// ---------------------------------------------------------------------------------------------

/** Equal secrets, compared in constant time; digests first, so neither length shows either. */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * Meta's verification request, sent when the callback URL or verify token is set in the App
 * Dashboard. A wrong token is 403, as in Meta's own sample endpoint; so is a connection without
 * one (an empty token would let anyone subscribe) and a request without a challenge to echo.
 */
function handshake(conn: ProviderConnection, query: Record<string, string>): WebhookOutcome {
  const expected = conn.secrets['verify_token'] ?? '';
  const challenge = query['hub.challenge'] ?? '';
  const ok = query['hub.mode'] === 'subscribe' && expected !== '' && challenge !== '' && sameSecret(query['hub.verify_token'] ?? '', expected);
  return ok ? { kind: 'respond', status: 200, body: challenge, contentType: 'text/plain' } : respond(403, 'verification refused');
}

/** The body is signed with this connection's app secret (constant-time compare of the HMAC). */
function signedByMeta(appSecret: string | undefined, header: string | undefined, body: Buffer): boolean {
  // An empty app secret would make every signature forgeable: such a connection accepts nothing.
  if (!appSecret || header === undefined) return false;
  const match = SIGNATURE.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', appSecret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
}

/**
 * What the person said, or null for what the bot does not read. Text is read as is. A tap on an
 * interactive reply button or list row (type "interactive") and on a template's quick-reply button
 * (type "button") is read as its title: the person chose that answer among the business's own
 * options, which is as much a message as typing it. Media, locations, contacts, reactions, orders,
 * system and unsupported messages are not read.
 */
function textOf(message: JsonObject): string | null {
  let text: unknown = null;
  if (message['type'] === 'text' && isObject(message['text'])) {
    text = message['text']['body'];
  } else if (message['type'] === 'interactive' && isObject(message['interactive'])) {
    const interactive = message['interactive'];
    const reply = interactive['type'] === 'button_reply' ? interactive['button_reply'] : interactive['type'] === 'list_reply' ? interactive['list_reply'] : null;
    text = isObject(reply) ? reply['title'] : null;
  } else if (message['type'] === 'button' && isObject(message['button'])) {
    text = message['button']['text'];
  }
  return typeof text === 'string' && text.trim() !== '' ? text : null;
}

/**
 * One inbound message, or null when it is not one the bot answers: without an id or a phone-number
 * sender, sent in a group (answering `from` would answer the group privately), or not text.
 */
function inbound(message: JsonObject, names: Map<string, string>, phoneNumberId: string): InboundMessage | null {
  const id = str(message['id']);
  const from = str(message['from']);
  if (id === null || from === null || !WA_ID.test(from) || message['group_id'] !== undefined) return null;
  const text = textOf(message);
  if (text === null) return null;
  const seconds = Number(message['timestamp']);
  return {
    providerMessageId: id,
    conversationKey: from,
    text,
    sender: { id: from, name: names.get(from) ?? null, phone: `+${from}` },
    sentAt: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null,
    replyTo: { phone_number_id: phoneNumberId, to: from, message_id: id },
  };
}

/**
 * The messages of one change, when it is a "messages" change for this connection's phone number:
 * an app may serve several numbers from one callback URL, and the others are not ours to answer.
 * A status update (`statuses`, no `messages`) yields none.
 */
function messagesOfChange(change: JsonObject, phoneNumberId: string): InboundMessage[] {
  const value = change['value'];
  if (change['field'] !== 'messages' || !isObject(value)) return [];
  const metadata = value['metadata'];
  if (!isObject(metadata) || metadata['phone_number_id'] !== phoneNumberId) return [];
  const names = new Map<string, string>();
  for (const contact of objects(value['contacts'])) {
    const waId = str(contact['wa_id']);
    const name = isObject(contact['profile']) ? str(contact['profile']['name']) : null;
    if (waId !== null && name !== null) names.set(waId, name);
  }
  return objects(value['messages'])
    .map((m) => inbound(m, names, phoneNumberId))
    .filter((m): m is InboundMessage => m !== null);
}

/**
 * A notification's messages. Parts not understood (another object, another field, members of
 * another shape) are skipped, not refused: the notification is Meta's (it is signed), and anything
 * but 200 makes Meta deliver it again, for days.
 */
function messagesOf(payload: JsonObject, phoneNumberId: string | undefined): InboundMessage[] {
  if (payload['object'] !== 'whatsapp_business_account' || !phoneNumberId) return [];
  return objects(payload['entry']).flatMap((entry) => objects(entry['changes']).flatMap((change) => messagesOfChange(change, phoneNumberId)));
}

function notification(conn: ProviderConnection, req: WebhookRequest): WebhookOutcome {
  if (req.body.length > WHATSAPP_MAX_BODY_BYTES) return respond(413, 'payload too large');
  // 401, not 403: the request carries no valid proof that Meta sent it, i.e. its credential (the
  // signature) is missing or wrong, which is what 401 means (RFC 9110 §15.5.2); 403 is for a
  // request whose credentials are valid but not enough. Meta documents no status for a refused
  // notification: it delivers again after any non-200, so the choice matters only to people
  // reading logs. The handshake's wrong verify token stays 403, as in Meta's samples.
  if (!signedByMeta(conn.secrets['app_secret'], req.headers[SIGNATURE_HEADER], req.body)) return respond(401, 'invalid signature');
  let payload: unknown;
  try {
    payload = JSON.parse(req.body.toString('utf8'));
  } catch {
    return respond(400, 'malformed JSON');
  }
  if (!isObject(payload)) return respond(400, 'the notification is not a JSON object');
  return { kind: 'accept', messages: messagesOf(payload, conn.settings['phone_number_id']) };
}

// ---------------------------------------------------------------------------------------------
// Outbound
// ---------------------------------------------------------------------------------------------

/** `text` in pieces of at most `limit` characters (split-reply.ts). */
export function splitText(text: string, limit: number = WHATSAPP_TEXT_LIMIT): string[] {
  return splitReply(text, limit);
}

/** Retry-After in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
function retryAfterMs(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

interface GraphError {
  message: string | null;
  type: string | null;
  code: number | null;
  subcode: number | null;
  details: string | null;
  traceId: string | null;
}

function graphError(body: Buffer): GraphError | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const error = isObject(parsed) ? parsed['error'] : null;
  if (!isObject(error)) return null;
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
  return {
    message: str(error['message']),
    type: str(error['type']),
    code: num(error['code']),
    subcode: num(error['error_subcode']),
    details: isObject(error['error_data']) ? str(error['error_data']['details']) : null,
    traceId: str(error['fbtrace_id']),
  };
}

/** Anything the API or a transport said, with the access token taken out and the length bounded. */
function scrub(text: string, token: string): string {
  const clean = token === '' ? text : text.split(token).join('[redacted]');
  return clean.length > 500 ? `${clean.slice(0, 500)}…` : clean;
}

function describe(status: number, error: GraphError | null): string {
  if (!error) return `the WhatsApp API answered HTTP ${status}`;
  const code = error.code === null ? '' : `, code ${error.code}${error.subcode === null ? '' : `/${error.subcode}`}`;
  const what = [error.type, error.message, error.details].filter((s) => s !== null).join(': ');
  return `the WhatsApp API answered HTTP ${status}${code}${what ? ` (${what})` : ''}${error.traceId ? `, fbtrace_id ${error.traceId}` : ''}`;
}

/**
 * The error for a refused send. A rate limit is retried after Retry-After; a bad token (401 or
 * Graph code 190) never is, whatever the status (it is checked before the 5xx rule); a server error
 * or one of Meta's temporary codes is retried; every other 4xx is permanent.
 */
function sendFailure(status: number, headers: Record<string, string>, body: Buffer, token: string): Error {
  const error = graphError(body);
  const code = error?.code ?? null;
  const message = scrub(describe(status, error), token);
  const retryAfter = retryAfterMs(headers['retry-after']);
  if (status === 429 || (code !== null && RATE_LIMIT_CODES.has(code))) return new RetryableSendError(message, retryAfter);
  if (status === 401 || code === TOKEN_INVALID_CODE) return new PermanentSendError(message);
  if (status >= 500 || (code !== null && TRANSIENT_CODES.has(code))) return new RetryableSendError(message, retryAfter);
  return new PermanentSendError(message);
}

/** A request that never got an answer: a timeout or a dropped connection is retried, a refusal by the outbound guard is not. */
function transportFailure(err: unknown, token: string): Error {
  const code = isObject(err) ? err['code'] : undefined;
  const message = scrub(`could not reach the WhatsApp API: ${err instanceof Error ? err.message : String(err)}`, token);
  return typeof code === 'string' && PERMANENT_TRANSPORT_CODES.has(code) ? new PermanentSendError(message) : new RetryableSendError(message, null);
}

/** messages[0].id of a successful answer (null if the answer, though 2xx, has none). */
function sentId(body: Buffer): string | null {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const [first] = isObject(parsed) ? objects(parsed['messages']) : [];
    return first ? str(first['id']) : null;
  } catch {
    return null;
  }
}

async function post(url: string, token: string, payload: JsonObject, ctx: SendContext): Promise<string | null> {
  let res: Awaited<ReturnType<SendContext['http']>>;
  try {
    res = await ctx.http(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(payload),
    });
  } catch (err) {
    throw transportFailure(err, token);
  }
  if (res.status >= 200 && res.status < 300) return sentId(res.body);
  throw sendFailure(res.status, res.headers, res.body, token);
}

/** Where a reply goes, checked: they become a URL path and a JSON member. */
function target(conn: ProviderConnection, replyTo: Record<string, unknown>): { version: string; phoneNumberId: string; to: string; messageId: string | null } {
  const version = conn.settings['graph_version'] || DEFAULT_GRAPH_VERSION;
  if (!GRAPH_VERSION.test(version)) throw new PermanentSendError(`graph_version "${version.slice(0, 40)}" is not a Graph API version such as ${DEFAULT_GRAPH_VERSION}`);
  // The number the conversation's message reached (replyTo), else the connection's own.
  const phoneNumberId = str(replyTo['phone_number_id']) ?? conn.settings['phone_number_id'] ?? '';
  if (!DIGITS.test(phoneNumberId)) throw new PermanentSendError('the WhatsApp connection has no valid phone_number_id');
  const to = str(replyTo['to']) ?? '';
  if (!/^\+?\d{1,20}$/.test(to)) throw new PermanentSendError('the conversation has no WhatsApp recipient (replyTo.to)');
  return { version, phoneNumberId, to, messageId: str(replyTo['message_id']) };
}

/**
 * Sends `text` as one text message, or as several when it is longer than Meta's limit, in order.
 * Only the first quotes the person's message (a contextual reply); the rest follow it. Link
 * previews stay off: the bot's links are not the business's to promote with a card. The id
 * returned is the first message's (the one that answers). A retry after a later piece failed sends
 * the earlier pieces again: the send contract has no partial success.
 */
async function send(conn: ProviderConnection, replyTo: Record<string, unknown>, text: string, ctx: SendContext): Promise<{ providerMessageId: string | null }> {
  const token = conn.secrets['access_token'] ?? '';
  if (token === '') throw new PermanentSendError('the WhatsApp connection has no access token');
  const { version, phoneNumberId, to, messageId } = target(conn, replyTo);
  const url = `${ctx.baseUrl.replace(/\/+$/, '')}/${version}/${phoneNumberId}/messages`;
  let first: string | null = null;
  for (const [i, body] of splitText(text).entries()) {
    const payload: JsonObject = { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body, preview_url: false } };
    if (i === 0 && messageId !== null) payload['context'] = { message_id: messageId };
    const id = await post(url, token, payload, ctx);
    if (i === 0) first = id;
  }
  return { providerMessageId: first };
}

export const whatsappProvider: WebhookProvider = {
  kind: 'whatsapp',
  secretNames: ['access_token', 'app_secret', 'verify_token'] as const,
  settingNames: ['phone_number_id', 'graph_version'] as const,
  receive: (conn, req) => (req.method === 'GET' ? handshake(conn, req.query) : notification(conn, req)),
  send,
};
