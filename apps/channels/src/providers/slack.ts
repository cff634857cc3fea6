import { splitReply } from './split-reply';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isGuardError } from '@sa/net-guard';
import { InboundMessage, PermanentSendError, ProviderConnection, RetryableSendError, SendContext, WebhookOutcome, WebhookProvider, WebhookRequest } from './provider';

/*
 * Slack (issue 35): the Events API in, chat.postMessage out. Formats followed (Slack's developer
 * docs): "Verifying requests from Slack" (X-Slack-Request-Timestamp, X-Slack-Signature = `v0=` +
 * hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the app's signing secret, 5 minutes
 * either way); the `url_verification` event (answer the challenge, plain text); the event wrapper
 * (`event_callback`: team_id, api_app_id, event, event_id, event_time, authorizations); the
 * `message` and `app_mention` events; chat.postMessage (JSON body with a Bearer bot token, HTTP
 * 200 with `{ok: true, channel, ts, message}` or `{ok: false, error}`, HTTP 429 with Retry-After
 * in seconds); "Formatting text" (`&`, `<`, `>` are control characters, sent as entities).
 *
 * Which events arrive is the Slack app's choice of subscriptions: `message.im` and `app_mention`
 * answer direct messages and mentions; adding `message.channels` / `message.groups` answers every
 * message of the channels the bot was invited to.
 */

/** Slack Events API deliveries are small; anything larger is not Slack's. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Slack's replay window: a timestamp further than this from our clock, either way, is refused. */
const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
/** Slack truncates text over 40,000 characters and recommends at most 4,000 per message. */
export const SLACK_TEXT_LIMIT = 4000;

/** Where a user message may come from: a direct message, a group DM, a public or private channel. */
const MESSAGE_CHANNEL_TYPES = new Set(['im', 'mpim', 'channel', 'group']);
/**
 * Message subtypes a person writes. Everything else is ignored: `bot_message` (a bot, perhaps
 * ours), `message_changed` / `message_deleted` (edits and deletions of earlier messages, whose
 * `ts` is not the message's), joins, topic changes and the like.
 */
const USER_MESSAGE_SUBTYPES = new Set<string | undefined>([undefined, 'thread_broadcast', 'file_share']);

/**
 * chat.postMessage errors that are Slack's own trouble or a rate limit: try again later. Every
 * other error is permanent: invalid_auth, not_authed, account_inactive, token_revoked (the
 * token), channel_not_found, not_in_channel, is_archived (the channel), msg_too_long, no_text …:
 * the same request would meet the same answer.
 */
const RETRYABLE_ERRORS = new Set(['ratelimited', 'rate_limited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (o: JsonObject, key: string): string | undefined => (typeof o[key] === 'string' && o[key] !== '' ? (o[key] as string) : undefined);

const respond = (status: number, body: string, contentType = 'text/plain; charset=utf-8'): WebhookOutcome => ({ kind: 'respond', status, body, contentType });
const nothing = (): WebhookOutcome => ({ kind: 'accept', messages: [] });

// ---------------------------------------------------------------------------------------------
// Inbound: the Events API
// ---------------------------------------------------------------------------------------------

/**
 * Whether the request carries Slack's signature of these exact bytes, made within 5 minutes of
 * its arrival (either way: a replay, or a forged future timestamp, is refused). The comparison of
 * the signatures takes the same time wherever they differ.
 */
export function verifySlackSignature(signingSecret: string, req: Pick<WebhookRequest, 'headers' | 'body' | 'receivedAt'>): boolean {
  const timestamp = req.headers['x-slack-request-timestamp'];
  const signature = req.headers['x-slack-signature'];
  if (!signingSecret || !timestamp || !signature) return false;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(req.receivedAt / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return false;
  const match = /^v0=([0-9a-f]{64})$/.exec(signature);
  if (!match) return false;
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`, 'utf8').update(req.body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
}

/**
 * The bot's own user id: the connection's `bot_user_id` setting, else the bot authorization Slack
 * puts in the event wrapper (an installation by bot token is authorized as the bot user).
 */
function botUserIdOf(conn: ProviderConnection, envelope: JsonObject): string | undefined {
  const configured = conn.settings.bot_user_id;
  if (configured) return configured;
  const authorizations = Array.isArray(envelope.authorizations) ? envelope.authorizations : [];
  const bot = authorizations.find((a): a is JsonObject => isObject(a) && a.is_bot === true);
  return bot ? str(bot, 'user_id') : undefined;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The text as the bot should read it: its own mention (`<@BOTID>`, or `<@BOTID|name>` from older
 * clients) removed, and Slack's entities for `<`, `>` and `&` turned back into the characters.
 */
export function readableText(text: string, botUserId: string | undefined): string {
  const withoutMention = botUserId ? text.replace(new RegExp(`[ \\t]*<@${escapeRegExp(botUserId)}(?:\\|[^>]*)?>[ \\t]*`, 'g'), ' ') : text;
  return withoutMention.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').trim();
}

/** A person's message in an event (`message` or `app_mention`), or null for anything else. */
function userMessage(event: JsonObject, botUserId: string | undefined): InboundMessage | null {
  const type = str(event, 'type');
  if (type !== 'message' && type !== 'app_mention') return null;
  if (type === 'message' && !MESSAGE_CHANNEL_TYPES.has(str(event, 'channel_type') ?? '')) return null;
  const subtype = str(event, 'subtype');
  if (!USER_MESSAGE_SUBTYPES.has(subtype) || event.bot_id !== undefined || event.hidden === true) return null;
  const channel = str(event, 'channel');
  const ts = str(event, 'ts');
  const user = str(event, 'user');
  if (!channel || !ts || !user || user === botUserId) return null;
  const text = readableText(typeof event.text === 'string' ? event.text : '', botUserId);
  if (text === '') return null;
  const threadTs = str(event, 'thread_ts') ?? ts;
  // A direct message (im) outside a thread is one conversation with the person, answered in the
  // DM itself, as people write to a colleague; in channels every question gets its own thread.
  const direct = str(event, 'channel_type') === 'im' && str(event, 'thread_ts') === undefined;
  const sentAt = Math.round(Number(ts) * 1000);
  return {
    // Not the event_id: a channel message that mentions the bot arrives twice, once as `message`
    // and once as `app_mention`, with different event ids but the same channel and ts. Keyed by
    // channel and ts, the second is a duplicate the service already stores once. Slack's retries
    // of a delivery (X-Slack-Retry-Num / X-Slack-Retry-Reason) carry the same event, so they
    // need nothing special either.
    providerMessageId: `${channel}:${ts}`,
    conversationKey: direct ? channel : `${channel}:${threadTs}`,
    text,
    sender: { id: user },
    sentAt: Number.isFinite(sentAt) ? sentAt : null,
    replyTo: direct ? { channel } : { channel, thread_ts: threadTs },
  };
}

/** An `event_callback` delivery: the person's message it carries, if any. */
function eventCallback(conn: ProviderConnection, envelope: JsonObject): WebhookOutcome {
  const teamId = conn.settings.team_id;
  if (teamId && str(envelope, 'team_id') !== teamId) return nothing();
  if (!isObject(envelope.event)) return respond(400, 'the event_callback has no event');
  const message = userMessage(envelope.event, botUserIdOf(conn, envelope));
  return { kind: 'accept', messages: message ? [message] : [] };
}

function receive(conn: ProviderConnection, req: WebhookRequest): WebhookOutcome {
  if (req.method !== 'POST') return respond(405, 'method not allowed');
  // Before the signature: hashing megabytes for anyone who asks is work nobody should get for free.
  if (req.body.length > MAX_BODY_BYTES) return respond(413, 'payload too large');
  if (!verifySlackSignature(conn.secrets.signing_secret ?? '', req)) return respond(401, 'invalid signature');

  let envelope: unknown;
  try {
    envelope = JSON.parse(req.body.toString('utf8'));
  } catch {
    return respond(400, 'the body is not JSON');
  }
  if (!isObject(envelope)) return respond(400, 'the body is not a JSON object');

  switch (envelope.type) {
    case 'url_verification': {
      const challenge = str(envelope, 'challenge');
      return challenge ? respond(200, challenge) : respond(400, 'the url_verification has no challenge');
    }
    case 'event_callback':
      return eventCallback(conn, envelope);
    default:
      // app_rate_limited and envelope types to come: acknowledged, nothing to answer.
      return nothing();
  }
}

// ---------------------------------------------------------------------------------------------
// Outbound: chat.postMessage
// ---------------------------------------------------------------------------------------------

/** Where a piece may end, best first: a paragraph, a line, a sentence, a word. */
/** The reply as Slack messages of at most `limit` characters (split-reply.ts). */
export function splitForSlack(text: string, limit = SLACK_TEXT_LIMIT): string[] {
  return splitReply(text, limit);
}

/**
 * `&`, `<` and `>` as Slack's entities: they are its control characters, so a reply the model
 * wrote cannot ping `<!channel>` or `<!everyone>`, mention people, or disguise a link. (Escaping at
 * most multiplies a 4,000-character piece by five, still under Slack's 40,000.)
 */
export const escapeSlackText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Retry-After in seconds (as Slack sends it) as milliseconds. */
function retryAfterMs(headers: Record<string, string>): number | null {
  const raw = headers['retry-after'];
  return raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) * 1000 : null;
}

/** An error text safe to keep: never the token, even should a transport echo it. */
const redact = (message: string, token: string): string => (token ? message.split(token).join('[redacted]') : message);

/** Slack's error code as given, when it looks like one (it ends up in the connection's last error). */
const errorCode = (value: unknown): string => (typeof value === 'string' && /^[a-z0-9_]{1,64}$/.test(value) ? value : 'unknown_error');

interface PostArgs {
  token: string;
  channel: string;
  threadTs: string | undefined;
  text: string;
}

/** One chat.postMessage call; the sent message's ts. */
async function postMessage(ctx: SendContext, args: PostArgs): Promise<string | null> {
  let res: Awaited<ReturnType<SendContext['http']>>;
  try {
    res = await ctx.http(`${ctx.baseUrl.replace(/\/+$/, '')}/api/chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${args.token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: args.channel, text: args.text, thread_ts: args.threadTs }),
    });
  } catch (err) {
    const message = redact(err instanceof Error ? err.message : String(err), args.token);
    // A refused address or a malformed base URL is configuration, not weather.
    if (isGuardError(err) && (err.code === 'blocked' || err.code === 'bad_url')) throw new PermanentSendError(`Slack could not be reached: ${message}`);
    throw new RetryableSendError(`Slack could not be reached: ${message}`, null);
  }

  if (res.status === 429) throw new RetryableSendError('Slack rate-limited chat.postMessage (HTTP 429)', retryAfterMs(res.headers));
  if (res.status >= 500) throw new RetryableSendError(`Slack answered chat.postMessage with HTTP ${res.status}`, retryAfterMs(res.headers));

  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    body = null;
  }
  if (!isObject(body)) {
    if (res.status >= 400) throw new PermanentSendError(`Slack answered chat.postMessage with HTTP ${res.status}`);
    throw new RetryableSendError(`Slack answered chat.postMessage with HTTP ${res.status} and no JSON`, null);
  }
  if (body.ok === true) return str(body, 'ts') ?? null;

  const code = errorCode(body.error);
  if (RETRYABLE_ERRORS.has(code)) throw new RetryableSendError(`Slack refused chat.postMessage for now: ${code}`, retryAfterMs(res.headers));
  throw new PermanentSendError(`Slack refused chat.postMessage: ${code}`);
}

/**
 * Posts the reply in the conversation's thread, in pieces of at most 4,000 characters, one after
 * the other (in order); the id of the first piece.
 */
async function send(conn: ProviderConnection, replyTo: Record<string, unknown>, text: string, ctx: SendContext): Promise<{ providerMessageId: string | null }> {
  const token = conn.secrets.bot_token;
  if (!token) throw new PermanentSendError('the Slack connection has no bot token');
  const channel = typeof replyTo.channel === 'string' && replyTo.channel !== '' ? replyTo.channel : null;
  if (!channel) throw new PermanentSendError('the conversation has no Slack channel to reply in');
  const threadTs = typeof replyTo.thread_ts === 'string' && replyTo.thread_ts !== '' ? replyTo.thread_ts : undefined;
  const pieces = splitForSlack(text);
  if (pieces.length === 0) throw new PermanentSendError('the reply is empty');

  let first: string | null = null;
  for (const piece of pieces) {
    const ts = await postMessage(ctx, { token, channel, threadTs, text: escapeSlackText(piece) });
    if (first === null && ts !== null) first = `${channel}:${ts}`;
  }
  return { providerMessageId: first };
}

export const slackProvider: WebhookProvider = {
  kind: 'slack',
  secretNames: ['bot_token', 'signing_secret'],
  settingNames: ['team_id', 'bot_user_id'],
  receive,
  send,
};
