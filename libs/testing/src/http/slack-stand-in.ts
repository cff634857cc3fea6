import { createHmac, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import { freePort } from '../infra/local-services';

/*
 * A local stand-in for Slack (issue 35), both ways, written from Slack's developer docs:
 *  - out: the Web API methods a bot replying in Slack calls, chat.postMessage and auth.test, at
 *    `<baseUrl>/api/<method>`: the token as `Authorization: Bearer xoxb-…`, a JSON (or form)
 *    body; HTTP 200 with `{ok: true, …}` or `{ok: false, error: "<code>"}` (not_authed,
 *    invalid_auth, channel_not_found, no_text, invalid_json), HTTP 429 with `Retry-After: <seconds>`
 *    and `{ok: false, error: "ratelimited"}` when rate-limited, HTTP 404 `unknown_method`;
 *  - in: Events API deliveries as Slack signs them (`X-Slack-Request-Timestamp`,
 *    `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<ts>:<raw body>">`), the `event_callback`
 *    wrapper and the `url_verification` handshake, with `X-Slack-Retry-Num` /
 *    `X-Slack-Retry-Reason` for a redelivery.
 */

/** A Slack JSON body: any shape, read freely by tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider JSON of any shape
type Json = any;

export interface SlackStandInOptions {
  /** The bot token (`xoxb-…`) every call must carry; another one gets invalid_auth. */
  botToken: string;
  /** When set, a post to a channel not in the list gets channel_not_found. */
  channels?: string[];
  /** Reported by auth.test and in posted messages. Defaults: T0STANDIN, U0STANDBOT, B0STANDBOT. */
  teamId?: string;
  botUserId?: string;
  botId?: string;
}

export interface SlackStandInRequest {
  method: string;
  /** `/api/chat.postMessage`, `/api/auth.test` … */
  path: string;
  /** As received, names lower-cased. */
  headers: http.IncomingHttpHeaders;
  /** The parsed body: JSON, or a form's fields; null when there was none or it did not parse. */
  body: Json;
  /** The HTTP status answered. */
  status: number;
  /** Slack's answer body (`{ok, …}`). */
  answer: Json;
}

/** A message chat.postMessage accepted. */
export interface SlackPost {
  channel: string;
  text: string;
  /** The thread it was posted in, when the call named one. */
  thread_ts: string | null;
  /** The ts Slack gave it. */
  ts: string;
}

export interface SlackStandIn {
  /** The base URL (no `/api`): chat.postMessage is `${baseUrl}/api/chat.postMessage`. */
  baseUrl: string;
  port: number;
  /** Messages posted, in order. */
  posts: SlackPost[];
  /** Every request, answered or refused. */
  requests: SlackStandInRequest[];
  /** Answers the next `count` calls with HTTP 429, `Retry-After: retryAfterSeconds` (default 1). */
  rateLimitNext(count: number, retryAfterSeconds?: number): void;
  /** Answers the next `count` calls with HTTP `status` (default 500) and no JSON: Slack having a bad day. */
  failNext(count: number, status?: number): void;
  /** Answers the next `count` authenticated calls with HTTP 200 `{ok: false, error}` (e.g. `ratelimited`, `not_in_channel`, `internal_error`). */
  refuseNext(count: number, error: string): void;
  close(): Promise<void>;
}

let tsSequence = 0;

/** A Slack message timestamp (`<unix seconds>.<6 digits>`), unique and increasing within the process. */
export function slackTs(at = Date.now()): string {
  tsSequence = (tsSequence + 1) % 1_000_000;
  return `${Math.floor(at / 1000)}.${String(tsSequence).padStart(6, '0')}`;
}

function parseBody(raw: string, contentType: string | undefined): { body: Json; ok: boolean } {
  if (raw === '') return { body: null, ok: true };
  if ((contentType ?? '').startsWith('application/x-www-form-urlencoded')) return { body: Object.fromEntries(new URLSearchParams(raw)), ok: true };
  try {
    return { body: JSON.parse(raw), ok: true };
  } catch {
    return { body: null, ok: false };
  }
}

/**
 * Starts the stand-in on 127.0.0.1 (a port below the ephemeral range, as freePort explains).
 * Answers chat.postMessage and auth.test for `botToken`; records every request and every post.
 */
export async function startSlackStandIn(opts: SlackStandInOptions): Promise<SlackStandIn> {
  const teamId = opts.teamId ?? 'T0STANDIN';
  const botUserId = opts.botUserId ?? 'U0STANDBOT';
  const botId = opts.botId ?? 'B0STANDBOT';
  const channels = opts.channels ? new Set(opts.channels) : null;
  const posts: SlackPost[] = [];
  const requests: SlackStandInRequest[] = [];
  let rateLimited = 0;
  let retryAfter = 1;
  let failing = 0;
  let failStatus = 500;
  let refusing = 0;
  let refusal = '';

  const postMessage = (body: Json): [number, Json] => {
    const channel = typeof body?.channel === 'string' ? body.channel : '';
    const text = typeof body?.text === 'string' ? body.text : '';
    if (channel === '' || (channels && !channels.has(channel))) return [200, { ok: false, error: 'channel_not_found' }];
    if (text === '' && body?.blocks === undefined && body?.attachments === undefined) return [200, { ok: false, error: 'no_text' }];
    const threadTs = typeof body?.thread_ts === 'string' && body.thread_ts !== '' ? body.thread_ts : null;
    const ts = slackTs();
    posts.push({ channel, text, thread_ts: threadTs, ts });
    const message = { type: 'message', subtype: 'bot_message', text, user: botUserId, bot_id: botId, team: teamId, ts, ...(threadTs ? { thread_ts: threadTs } : {}) };
    return [200, { ok: true, channel, ts, message }];
  };

  const answer = (method: string, headers: http.IncomingHttpHeaders, parsed: { body: Json; ok: boolean }): [number, Json, http.OutgoingHttpHeaders] => {
    if (rateLimited > 0) {
      rateLimited--;
      return [429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) }];
    }
    if (failing > 0) {
      failing--;
      return [failStatus, null, {}];
    }
    if (method !== 'chat.postMessage' && method !== 'auth.test') return [404, { ok: false, error: 'unknown_method' }, {}];
    const auth = /^Bearer (.+)$/.exec(headers.authorization ?? '');
    const token = auth ? auth[1] : typeof parsed.body?.token === 'string' ? parsed.body.token : undefined;
    if (!token) return [200, { ok: false, error: 'not_authed' }, {}];
    if (token !== opts.botToken) return [200, { ok: false, error: 'invalid_auth' }, {}];
    if (!parsed.ok) return [200, { ok: false, error: 'invalid_json' }, {}];
    if (refusing > 0) {
      refusing--;
      return [200, { ok: false, error: refusal }, {}];
    }
    if (method === 'auth.test') {
      return [200, { ok: true, url: 'https://stand-in.slack.com/', team: 'Stand-in Workspace', user: 'support-bot', team_id: teamId, user_id: botUserId, bot_id: botId, is_enterprise_install: false }, {}];
    }
    return [...postMessage(parsed.body), {}];
  };

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
      const parsed = parseBody(Buffer.concat(parts).toString('utf8'), req.headers['content-type']);
      const [status, body, headers] = answer(path.startsWith('/api/') ? path.slice('/api/'.length) : '', req.headers, parsed);
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body: parsed.body, status, answer: body });
      if (body === null) {
        res.writeHead(status, { 'content-type': 'text/html', ...headers }).end('<html><body>Service Unavailable</body></html>');
      } else {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
      }
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    posts,
    requests,
    rateLimitNext(count, retryAfterSeconds = 1) {
      rateLimited = count;
      retryAfter = retryAfterSeconds;
    },
    failNext(count, status = 500) {
      failing = count;
      failStatus = status;
    },
    refuseNext(count, error) {
      refusing = count;
      refusal = error;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Events API deliveries, signed as Slack signs them
// ---------------------------------------------------------------------------------------------

/** A delivery to a Request URL: the exact body bytes and the headers (names lower-cased). */
export interface SlackDelivery {
  body: Buffer;
  headers: Record<string, string>;
}

export interface SlackDeliveryOptions {
  /** X-Slack-Request-Timestamp, Unix seconds; now unless given (give an old one for a replay). */
  timestamp?: number;
  /** A redelivery: X-Slack-Retry-Num (1–3) and X-Slack-Retry-Reason (default http_timeout). */
  retryNum?: number;
  retryReason?: string;
}

/** `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<body>` under the signing secret: X-Slack-Signature. */
export function slackSignature(signingSecret: string, timestamp: number | string, body: string | Buffer): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

/** Signs a body (given as is, or as a value to serialise) as Slack delivers it. */
export function signedSlackDelivery(signingSecret: string, payload: string | Buffer | object, opts: SlackDeliveryOptions = {}): SlackDelivery {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload), 'utf8');
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(signingSecret, timestamp, body),
  };
  if (opts.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(opts.retryNum);
    headers['x-slack-retry-reason'] = opts.retryReason ?? 'http_timeout';
  }
  return { body, headers };
}

/** The url_verification handshake Slack sends when a Request URL is set; a fresh challenge unless given. */
export function slackUrlVerification(signingSecret: string, challenge = randomBytes(24).toString('base64url'), opts: SlackDeliveryOptions = {}): SlackDelivery & { challenge: string } {
  const payload = { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge, type: 'url_verification' };
  return { ...signedSlackDelivery(signingSecret, payload, opts), challenge };
}

export interface SlackEnvelopeOptions extends SlackDeliveryOptions {
  /** The workspace (team_id of the wrapper). Default T0STANDIN. */
  teamId?: string;
  /** The bot user the installation is authorized as (authorizations[0].user_id). Default U0STANDBOT. */
  botUserId?: string;
  /** Default: a fresh `Ev…`. */
  eventId?: string;
}

/** The `event_callback` wrapper around one event, as Slack sends it. */
export function slackEventEnvelope(event: Record<string, unknown>, opts: SlackEnvelopeOptions = {}): Record<string, unknown> {
  const teamId = opts.teamId ?? 'T0STANDIN';
  return {
    token: 'XXYYZZ',
    team_id: teamId,
    api_app_id: 'A0STANDAPP',
    event,
    type: 'event_callback',
    event_id: opts.eventId ?? `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ enterprise_id: null, team_id: teamId, user_id: opts.botUserId ?? 'U0STANDBOT', is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: `4-${randomBytes(12).toString('base64url')}`,
  };
}

/** An event, wrapped in `event_callback` and signed: one Events API delivery. */
export function slackEventDelivery(signingSecret: string, event: Record<string, unknown>, opts: SlackEnvelopeOptions = {}): SlackDelivery {
  return signedSlackDelivery(signingSecret, slackEventEnvelope(event, opts), opts);
}

export interface SlackMessageEventInput {
  channel: string;
  user: string;
  text: string;
  /** Default: a fresh ts. */
  ts?: string;
  /** Set for a reply in a thread: the thread's first message's ts. */
  thread_ts?: string;
  /** `im` (default), `mpim`, `channel` or `group`. */
  channel_type?: string;
  [extra: string]: unknown;
}

/** A `message` event a person sent (add `subtype`, `bot_id` … through the input). */
export function slackMessageEvent(input: SlackMessageEventInput): Record<string, unknown> {
  const ts = input.ts ?? slackTs();
  return { client_msg_id: randomBytes(16).toString('hex'), type: 'message', team: 'T0STANDIN', channel_type: 'im', event_ts: ts, ...input, ts };
}

/** An `app_mention` event: the same person's message as Slack sends it to an app it mentions. */
export function slackAppMentionEvent(input: Omit<SlackMessageEventInput, 'channel_type'>): Record<string, unknown> {
  const ts = input.ts ?? slackTs();
  return { client_msg_id: randomBytes(16).toString('hex'), type: 'app_mention', team: 'T0STANDIN', event_ts: ts, ...input, ts };
}
