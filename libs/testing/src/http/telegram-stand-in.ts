import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A local stand-in for the Telegram Bot API (issue 35: the Telegram channel), on 127.0.0.1 with a
 * port of its own. It speaks the documented wire format (https://core.telegram.org/bots/api,
 * "Making requests"): methods at `/bot<token>/<METHOD_NAME>` (names case-insensitive), parameters
 * as a JSON body, a form body or the query string, answers `{ok: true, result}` or `{ok: false,
 * error_code, description, parameters?}` with the HTTP status equal to error_code. Methods:
 * getMe and sendMessage (the sent Message back, message ids increasing). Refusals as Telegram
 * words them: 401 "Unauthorized" for another token, 404 "Not Found" for another method or path,
 * 400 for a missing chat_id or text and for a text over 4096 characters, 403 for a chat that
 * blocked the bot, and flood control on demand (429 with parameters.retry_after and Retry-After).
 *
 * telegramTextUpdate and telegramDelivery build what Telegram POSTs to a webhook: an Update and
 * its headers (Content-Type and, when setWebhook had a secret_token, X-Telegram-Bot-Api-Secret-Token).
 */

/** Bot API parameters, as a test reads them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Bot API JSON of any shape
type Json = any;

/** sendMessage's text limit ("1-4096 characters after entities parsing"). */
const MAX_TEXT = 4096;
/** Largest request body read (sendMessage's parameters are far smaller). */
const MAX_BODY_BYTES = 1024 * 1024;

export interface TelegramStandInOptions {
  /** The bot token requests must carry, `<bot id>:<secret>` as BotFather issues it. */
  token: string;
  /** The bot's first name and username (getMe, `from` of sent messages). Default "Support Bot", "support_test_bot". */
  firstName?: string;
  username?: string;
  /** The first message id handed out. Default 100. */
  firstMessageId?: number;
}

export interface TelegramStandInRequest {
  /** The method as called (`sendMessage`, `getMe`, …), '' when the path was not `/bot<token>/<method>`. */
  method: string;
  /** Whether the path carried the configured token (the token itself is never recorded). */
  tokenOk: boolean;
  /** The parameters as received (JSON body, form body or query string). */
  params: Json;
  headers: http.IncomingHttpHeaders;
  /** The HTTP status answered. */
  status: number;
}

export interface TelegramSentMessage {
  /** The Message the stand-in answered with (message_id, chat, date, text, …). */
  message: Json;
  /** The sendMessage parameters as received (chat_id, text, reply_parameters, message_thread_id, …). */
  params: Json;
}

export interface TelegramStandIn {
  /** What to give as the Bot API base URL (no trailing slash): requests go to `${baseUrl}/bot<token>/<method>`. */
  baseUrl: string;
  port: number;
  /** Every message sent successfully, in order. */
  sent: TelegramSentMessage[];
  /** Every request, answered or refused, in order. */
  requests: TelegramStandInRequest[];
  /** Chats (ids as strings) that blocked the bot: sendMessage to them is 403 "Forbidden: bot was blocked by the user". */
  blockedChats: Set<string>;
  /**
   * Answers `count` calls (with the right token) with flood control: 429, retry_after
   * `retryAfterSeconds`. `after` calls are answered normally first (e.g. 1: the second part of a
   * split reply is the one held back). Queued behind refusals already asked for.
   */
  rateLimitNext(count: number, retryAfterSeconds: number, opts?: { after?: number }): void;
  /** As rateLimitNext, with `status` (default 500) "Internal Server Error". */
  failNext(count: number, status?: number, opts?: { after?: number }): void;
  close(): Promise<void>;
}

/** A refusal in the Bot API's shape. */
function refusal(status: number, description: string, parameters?: Json): Json {
  return { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) };
}

/** The chat type Telegram's ids imply: users are positive, basic groups negative, supergroups and channels -100…. */
function chatOf(chatId: unknown): Json {
  const id = typeof chatId === 'string' && /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
  if (typeof id !== 'number') return { id, type: 'channel', username: String(id).replace(/^@/, '') };
  if (id > 0) return { id, type: 'private', first_name: 'Test' };
  return { id, type: String(id).startsWith('-100') ? 'supergroup' : 'group', title: 'Test group' };
}

/** The parameters of a request: the query string, then a JSON or form body (Telegram accepts all three). */
function paramsOf(url: URL, contentType: string, raw: string): Json | null {
  const params: Json = Object.fromEntries(url.searchParams);
  if (raw === '') return params;
  if (contentType.startsWith('application/json')) {
    try {
      const body: unknown = JSON.parse(raw);
      return typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...params, ...body } : null;
    } catch {
      return null;
    }
  }
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    const form: Json = Object.fromEntries(new URLSearchParams(raw));
    // Form values of object parameters are JSON-serialized, as the Bot API documents.
    for (const key of ['reply_parameters', 'reply_markup', 'link_preview_options', 'entities']) {
      if (typeof form[key] === 'string') {
        try {
          form[key] = JSON.parse(form[key]);
        } catch {
          // left as the string it was
        }
      }
    }
    return { ...params, ...form };
  }
  return params;
}

export async function startTelegramStandIn(options: TelegramStandInOptions): Promise<TelegramStandIn> {
  const botId = Number(options.token.split(':')[0]) || 1;
  const bot = { id: botId, is_bot: true, first_name: options.firstName ?? 'Support Bot', username: options.username ?? 'support_test_bot' };
  let nextMessageId = options.firstMessageId ?? 100;
  /** What the next calls are answered with, in order: a refusal, or null for a normal answer. */
  const failures: ({ status: number; retryAfterSeconds?: number } | null)[] = [];
  const queue = (count: number, failure: { status: number; retryAfterSeconds?: number }, after = 0): void => {
    for (let i = 0; i < after; i++) failures.push(null);
    for (let i = 0; i < count; i++) failures.push(failure);
  };

  const sent: TelegramSentMessage[] = [];
  const requests: TelegramStandInRequest[] = [];
  const blockedChats = new Set<string>();

  const sendMessage = (params: Json): [number, Json] => {
    if (params.chat_id === undefined || params.chat_id === '') return [400, refusal(400, 'Bad Request: chat_id is empty')];
    const text = params.text === undefined || params.text === null ? '' : String(params.text);
    if (text.trim() === '') return [400, refusal(400, 'Bad Request: message text is empty')];
    if (text.length > MAX_TEXT) return [400, refusal(400, 'Bad Request: message is too long')];
    if (blockedChats.has(String(params.chat_id))) return [403, refusal(403, 'Forbidden: bot was blocked by the user')];
    const message: Json = { message_id: nextMessageId++, from: bot, chat: chatOf(params.chat_id), date: Math.floor(Date.now() / 1000), text };
    if (params.message_thread_id !== undefined) {
      message.message_thread_id = Number(params.message_thread_id);
      message.is_topic_message = true;
    }
    if (params.reply_parameters?.message_id !== undefined) {
      message.reply_to_message = { message_id: Number(params.reply_parameters.message_id), chat: message.chat, date: message.date };
    }
    sent.push({ message, params });
    return [200, { ok: true, result: message }];
  };

  /** What one call is answered with: [status, body, extra headers]. */
  const answer = (method: string, tokenOk: boolean, params: Json | null): [number, Json, http.OutgoingHttpHeaders?] => {
    if (!method) return [404, refusal(404, 'Not Found')];
    if (!tokenOk) return [401, refusal(401, 'Unauthorized')];
    const failure = failures.shift();
    if (failure?.status === 429) {
      const seconds = failure.retryAfterSeconds ?? 1;
      return [429, refusal(429, `Too Many Requests: retry after ${seconds}`, { retry_after: seconds }), { 'retry-after': String(seconds) }];
    }
    if (failure) return [failure.status, refusal(failure.status, 'Internal Server Error')];
    if (params === null) return [400, refusal(400, "Bad Request: can't parse JSON object")];
    switch (method.toLowerCase()) {
      case 'getme':
        return [200, { ok: true, result: { ...bot, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } }];
      case 'sendmessage':
        return sendMessage(params);
      default:
        return [404, refusal(404, 'Not Found')];
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
      const method = match ? match[2] : '';
      const tokenOk = match !== null && decodeURIComponent(match[1]) === options.token;
      const params = size > MAX_BODY_BYTES ? null : paramsOf(url, String(req.headers['content-type'] ?? ''), Buffer.concat(chunks).toString('utf8'));
      const [status, body, headers] = answer(method, tokenOk, params);
      requests.push({ method, tokenOk, params, headers: req.headers, status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    sent,
    requests,
    blockedChats,
    rateLimitNext(count, retryAfterSeconds, opts) {
      queue(count, { status: 429, retryAfterSeconds }, opts?.after);
    },
    failNext(count, status = 500, opts) {
      queue(count, { status }, opts?.after);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Webhook deliveries: what Telegram POSTs to the URL given to setWebhook.
// ---------------------------------------------------------------------------------------------

let updateSequence = 500_000;
let messageSequence = 1;

export interface TelegramTextUpdateOptions {
  text: string;
  /** The chat: a user's private chat by default (its id the sender's). Groups have negative ids, supergroups -100…. */
  chat?: { id: number; type: 'private' | 'group' | 'supergroup' | 'channel'; title?: string; is_forum?: boolean };
  /** The sender. Default a person, id 424242, "Ada Lovelace" (@ada). */
  from?: { id: number; is_bot?: boolean; first_name: string; last_name?: string; username?: string };
  /** Default: a fresh one. */
  messageId?: number;
  updateId?: number;
  /** Unix seconds. Default now. */
  date?: number;
  /** A forum topic: sets message_thread_id and is_topic_message. */
  messageThreadId?: number;
  /** Delivered as `edited_message` (with edit_date) instead of `message`. */
  edited?: boolean;
}

/** An Update carrying one text message, shaped as Telegram sends it. */
export function telegramTextUpdate(opts: TelegramTextUpdateOptions): Json {
  const from = { is_bot: false, language_code: 'en', ...(opts.from ?? { id: 424242, first_name: 'Ada', last_name: 'Lovelace', username: 'ada' }) };
  const chat = opts.chat ?? { id: from.id, type: 'private' as const };
  const date = opts.date ?? Math.floor(Date.now() / 1000);
  const message: Json = {
    message_id: opts.messageId ?? messageSequence++,
    from,
    chat: chat.type === 'private' ? { id: chat.id, first_name: from.first_name, ...(from.last_name ? { last_name: from.last_name } : {}), ...(from.username ? { username: from.username } : {}), type: 'private' } : { title: 'Test group', ...chat },
    date,
    text: opts.text,
  };
  if (opts.messageThreadId !== undefined) {
    message.message_thread_id = opts.messageThreadId;
    message.is_topic_message = true;
  }
  if (opts.edited) message.edit_date = date + 5;
  return { update_id: opts.updateId ?? updateSequence++, [opts.edited ? 'edited_message' : 'message']: message };
}

/** A webhook delivery of `update`: the exact body bytes and the headers Telegram sends with them. */
export function telegramDelivery(update: Json, secretToken: string | null): { body: Buffer; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secretToken !== null) headers['x-telegram-bot-api-secret-token'] = secretToken;
  return { body: Buffer.from(JSON.stringify(update), 'utf8'), headers };
}
