import { splitReply } from './split-reply';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isGuardError } from '@sa/net-guard';
import { InboundMessage, PermanentSendError, ProviderConnection, RetryableSendError, SendContext, WebhookOutcome, WebhookProvider, WebhookRequest } from './provider';

/*
 * Telegram (issue 35) through the Bot API (https://core.telegram.org/bots/api).
 *
 * Inbound: Telegram POSTs one JSON Update per request to the URL given to setWebhook. It signs
 * nothing; the only proof a request comes from Telegram is the `secret_token` given to setWebhook,
 * sent back in the X-Telegram-Bot-Api-Secret-Token header. There is no timestamp either, so a
 * replayed delivery cannot be told apart by time: it carries the same chat and message id, hence
 * the same providerMessageId, and is stored (and answered) once. Telegram retries any non-2xx.
 *
 * Outbound: sendMessage, `POST <base>/bot<token>/sendMessage` with a JSON body. The bot token is
 * in the URL path, so no error message here ever carries a URL or a guard error's text unredacted.
 */

/** The header carrying setWebhook's secret_token. */
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** Largest webhook body accepted: an Update with a 4096-character text and its entities is far smaller. */
export const TELEGRAM_MAX_BODY_BYTES = 1024 * 1024;
/** sendMessage's limit: "1-4096 characters after entities parsing" (counted here in UTF-16 code units, never fewer than Telegram's). */
export const TELEGRAM_MAX_TEXT = 4096;
/** The default API base URL (SendContext.baseUrl); a local Bot API server or a test stand-in replaces it. */
export const TELEGRAM_API_BASE_URL = 'https://api.telegram.org';

/** Chat types whose messages the bot answers: channel posts arrive as `channel_post`, never as `message`. */
const ANSWERED_CHAT_TYPES = new Set(['private', 'group', 'supergroup']);

/** A later part of a split reply that hits flood control is retried in place when the wait is this short (see sendParts). */
const IN_PLACE_RETRY_MAX_MS = 5_000;
const IN_PLACE_RETRIES = 2;

type Json = Record<string, unknown>;

function respond(status: number, error: string): WebhookOutcome {
  return { kind: 'respond', status, body: JSON.stringify({ error }), contentType: 'application/json' };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * Compares the header with the configured secret in constant time. Both sides are hashed first, so
 * neither the comparison's time nor an early length check tells an attacker the secret's length.
 * A connection without a secret accepts nothing: an unprotected webhook would let anyone post
 * messages as any Telegram user.
 */
export function telegramSecretMatches(expected: string | undefined, received: string | undefined): boolean {
  if (!expected || received === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(received));
}

/** The sender's display name: first and last name, else the @username. */
function senderName(from: Json): string | null {
  const parts = [from.first_name, from.last_name].filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  if (parts.length > 0) return parts.join(' ');
  return typeof from.username === 'string' && from.username !== '' ? from.username : null;
}

/** Whether the value has the fields of a Message this adapter reads (message_id, date, chat.id, chat.type). */
function isMessage(value: unknown): value is Json & { message_id: number; date: number; chat: Json & { id: number; type: string } } {
  return isObject(value) && isInteger(value.message_id) && isInteger(value.date) && isObject(value.chat) && isInteger(value.chat.id) && typeof value.chat.type === 'string';
}

/**
 * The message of an Update the bot answers, or null for everything else. Only `message` counts:
 * - `edited_message` is ignored: the first version was already answered, and an edit carries the
 *   same chat and message id, so it would be the same providerMessageId (a duplicate to the store)
 *   while a person expects no second answer to a typo fix;
 * - channel posts, callback queries, membership changes and the like are not someone asking;
 * - a bot's message (`from.is_bot`: other bots, anonymous group admins, posts "on behalf of a
 *   channel") and a channel post forwarded automatically into its discussion group are not a
 *   person asking either;
 * - a message without text (photo, sticker, voice, a photo's caption alone) is not read: the bot
 *   cannot see what the caption is about.
 */
function answerable(message: Json & { chat: Json & { type: string } }): { text: string; from: Json } | null {
  if (!ANSWERED_CHAT_TYPES.has(message.chat.type)) return null;
  if (message.is_automatic_forward === true) return null;
  const from = message.from;
  if (!isObject(from) || !isInteger(from.id) || from.is_bot === true) return null;
  if (typeof message.text !== 'string' || message.text.trim() === '') return null;
  return { text: message.text, from };
}

/** Parses an Update's body; null when it is not JSON or not an Update (an object with an integer update_id). */
function parseUpdate(body: Buffer): Json | null {
  let update: unknown;
  try {
    update = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  return isObject(update) && isInteger(update.update_id) ? update : null;
}

/** The InboundMessage of an Update, `null` for one the bot does not answer, or 'malformed'. */
function inboundOf(update: Json): InboundMessage | null | 'malformed' {
  if (update.message === undefined) return null;
  if (!isMessage(update.message)) return 'malformed';
  const message = update.message;
  const read = answerable(message);
  if (!read) return null;
  const chatId = message.chat.id;
  // A forum topic is its own conversation; replies must name it or they land in "General".
  const threadId = message.is_topic_message === true && isInteger(message.message_thread_id) ? message.message_thread_id : null;
  const replyTo: Record<string, unknown> = { chat_id: chatId, message_id: message.message_id };
  if (threadId !== null) replyTo.message_thread_id = threadId;
  return {
    providerMessageId: `${chatId}:${message.message_id}`,
    conversationKey: threadId === null ? `${chatId}` : `${chatId}:${threadId}`,
    text: read.text,
    sender: { id: String(read.from.id), name: senderName(read.from) },
    sentAt: message.date * 1000,
    replyTo,
  };
}

function receive(conn: ProviderConnection, req: WebhookRequest): WebhookOutcome {
  if (!telegramSecretMatches(conn.secrets.webhook_secret, req.headers[TELEGRAM_SECRET_HEADER])) return respond(401, 'unauthorized');
  if (req.method !== 'POST') return respond(405, 'method_not_allowed');
  if (req.body.length > TELEGRAM_MAX_BODY_BYTES) return respond(413, 'payload_too_large');
  const update = parseUpdate(req.body);
  if (!update) return respond(400, 'not_an_update');
  const inbound = inboundOf(update);
  if (inbound === 'malformed') return respond(400, 'not_an_update');
  return { kind: 'accept', messages: inbound ? [inbound] : [] };
}

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

/** Splits a reply into parts of at most `max` characters (split-reply.ts). */
export function splitTelegramText(text: string, max = TELEGRAM_MAX_TEXT): string[] {
  return splitReply(text, max);
}

/** Replaces the bot token (and anything shaped like one in a /bot… path) in text about a failure. */
function redact(text: string, token: string): string {
  const withoutToken = token ? text.split(token).join('<token>') : text;
  return withoutToken.replace(/\/bot\d+:[A-Za-z0-9_-]+/g, '/bot<token>');
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), as milliseconds; null when absent or unreadable. */
function retryAfterHeaderMs(value: string | undefined, now: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** One Bot API answer, read: the sent message's id, or the error to throw. */
export type TelegramSendResult = { ok: true; messageId: number } | { ok: false; error: RetryableSendError | PermanentSendError };

/**
 * Reads a Bot API response to sendMessage: `{ok: true, result: Message}`, or `{ok: false,
 * error_code, description, parameters?: {retry_after, migrate_to_chat_id}}`. Flood control (429)
 * waits parameters.retry_after seconds, else the Retry-After header; 5xx is retried; any other
 * refusal (bad token, chat not found, bot blocked, …) will never succeed as it is.
 */
export function readSendResponse(res: { status: number; headers: Record<string, string>; body: Buffer }, token: string, now = Date.now()): TelegramSendResult {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(res.body.toString('utf8'));
  } catch {
    // read as no body below
  }
  const body: Json = isObject(parsed) ? parsed : {};
  if (res.status >= 200 && res.status < 300 && body.ok === true && isObject(body.result) && isInteger(body.result.message_id)) {
    return { ok: true, messageId: body.result.message_id };
  }
  const status = res.status >= 400 ? res.status : isInteger(body.error_code) ? body.error_code : res.status;
  const description = typeof body.description === 'string' ? redact(body.description, token).slice(0, 300) : null;
  const what = `Telegram answered ${status}${description ? `: ${description}` : ''}`;
  const parameters = isObject(body.parameters) ? body.parameters : {};
  if (status === 429) {
    const seconds = parameters.retry_after;
    const retryAfterMs = typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : retryAfterHeaderMs(res.headers['retry-after'], now);
    return { ok: false, error: new RetryableSendError(what, retryAfterMs) };
  }
  if (status >= 500) return { ok: false, error: new RetryableSendError(what, null) };
  if (res.status >= 200 && res.status < 300 && body.ok !== false) {
    return { ok: false, error: new PermanentSendError(`Telegram answered ${res.status} with something other than a Bot API response (is the base URL right?)`) };
  }
  if (isInteger(parameters.migrate_to_chat_id)) {
    return { ok: false, error: new PermanentSendError(`${what} (the group is now the supergroup ${parameters.migrate_to_chat_id})`) };
  }
  return { ok: false, error: new PermanentSendError(what) };
}

/** The chat and reply target stored by receive(); a chat id may also be a @channelusername. */
function target(replyTo: Record<string, unknown>): { chatId: number | string; messageId: number | null; threadId: number | null } {
  const chatId = replyTo.chat_id;
  if (!isInteger(chatId) && !(typeof chatId === 'string' && chatId !== '')) throw new PermanentSendError('the reply target has no Telegram chat_id');
  return {
    chatId,
    messageId: isInteger(replyTo.message_id) ? replyTo.message_id : null,
    threadId: isInteger(replyTo.message_thread_id) ? replyTo.message_thread_id : null,
  };
}

/**
 * One sendMessage call. When Telegram is not reached, the error is rebuilt from the guard's text
 * with the token cut out (some of its messages quote the URL, whose path holds the token), and
 * without the guard's error attached (its `url` holds the token too).
 */
async function sendOne(url: string, body: Json, token: string, ctx: SendContext): Promise<number> {
  let res: { status: number; headers: Record<string, string>; body: Buffer };
  try {
    res = await ctx.http(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
  } catch (err) {
    const reason = redact(err instanceof Error ? err.message : String(err), token);
    // A timeout or a dropped connection may pass; a refused URL, a redirect loop or a huge answer will not.
    if (isGuardError(err) && err.code !== 'timeout' && err.code !== 'network') {
      throw new PermanentSendError(`the Telegram API could not be used (${err.code}): ${reason}`);
    }
    throw new RetryableSendError(`Telegram could not be reached: ${reason}`, null);
  }
  const result = readSendResponse(res, token);
  if (!result.ok) throw result.error;
  return result.messageId;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends the parts in order. A failure of the first part is thrown at once (the caller's backoff
 * retries the whole reply, and nothing was sent). Once a part has gone out, a retry of the whole
 * reply would send it twice, so a later part that hits a short flood-control wait (or a 5xx) is
 * retried here, a couple of times; past that the error is thrown and the caller's retry may
 * repeat the parts already sent (SendContext has no way to resume half-way).
 */
async function sendParts(url: string, bodies: Json[], token: string, ctx: SendContext): Promise<number> {
  let first: number | null = null;
  for (const [i, body] of bodies.entries()) {
    for (let attempt = 0; ; attempt++) {
      try {
        const id = await sendOne(url, body, token, ctx);
        first ??= id;
        break;
      } catch (err) {
        const wait = err instanceof RetryableSendError ? (err.retryAfterMs ?? 1000) : null;
        if (i === 0 || wait === null || wait > IN_PLACE_RETRY_MAX_MS || attempt >= IN_PLACE_RETRIES) {
          if (i > 0 && err instanceof Error) err.message = `${err.message} (part ${i + 1} of ${bodies.length}; the earlier parts were sent)`;
          throw err;
        }
        await sleep(wait);
      }
    }
  }
  return first as number;
}

async function send(conn: ProviderConnection, replyTo: Record<string, unknown>, text: string, ctx: SendContext): Promise<{ providerMessageId: string | null }> {
  const token = conn.secrets.bot_token;
  if (!token) throw new PermanentSendError('the Telegram connection has no bot_token');
  const { chatId, messageId, threadId } = target(replyTo);
  const parts = splitTelegramText(text);
  // An empty reply is nothing to send (Telegram refuses empty text); it is not the connection's fault.
  if (parts.length === 0) return { providerMessageId: null };
  // Only the first part quotes the person's message; every part stays in the forum topic.
  const bodies = parts.map((part, i): Json => ({
    chat_id: chatId,
    text: part,
    ...(i === 0 && messageId !== null ? { reply_parameters: { message_id: messageId, allow_sending_without_reply: true } } : {}),
    ...(threadId !== null ? { message_thread_id: threadId } : {}),
  }));
  const url = `${ctx.baseUrl.replace(/\/+$/, '')}/bot${token}/sendMessage`;
  const id = await sendParts(url, bodies, token, ctx);
  return { providerMessageId: `${chatId}:${id}` };
}

export const telegramProvider: WebhookProvider = {
  kind: 'telegram',
  secretNames: ['bot_token', 'webhook_secret'],
  settingNames: [],
  receive,
  send,
};
