import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A local stand-in for the WhatsApp Business Platform's Cloud API (Meta's Graph API), for the
 * channels' WhatsApp adapter, and builders of what Meta sends to a webhook. Formats followed, from
 * Meta's documentation:
 *  - "Text messages" / "Contextual replies": POST /<version>/<phone number id>/messages with
 *    `Authorization: Bearer <token>` and `{messaging_product: "whatsapp", recipient_type:
 *    "individual", to, type: "text", text: {body (≤ 4096 characters), preview_url}, context:
 *    {message_id}}`, answered `{messaging_product: "whatsapp", contacts: [{input, wa_id}],
 *    messages: [{id: "wamid.…"}]}`;
 *  - Graph API "Handling errors" / "WhatsApp error codes": `{error: {message, type, code,
 *    error_subcode?, error_data?: {messaging_product, details}, fbtrace_id}}`; 190 (OAuthException)
 *    for a bad token, 100 for an invalid parameter, 130429 for the throughput rate limit;
 *  - "Create a webhook endpoint" and the "messages" webhook reference: the verification GET's
 *    `hub.mode`, `hub.challenge`, `hub.verify_token`; notifications as JSON with
 *    `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`.
 */

/** A JSON body of any shape, read freely by tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request JSON of any shape
type Json = any;

export interface WhatsAppStandInOptions {
  /** The business phone number id the stand-in serves (others get Graph's unknown-object error). */
  phoneNumberId: string;
  /** The access token every request must carry as `Authorization: Bearer …`. */
  accessToken: string;
}

/** One request as the stand-in received and answered it. */
export interface WhatsAppStandInRequest {
  method: string;
  /** The path without the query, e.g. `/v21.0/106540352242922/messages`. */
  path: string;
  /** Names lower-cased. */
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null when there was none or it was not JSON). */
  body: Json;
  /** The status answered. */
  status: number;
}

/** A text message the stand-in accepted. */
export interface WhatsAppSentMessage {
  /** The wamid answered. */
  id: string;
  graphVersion: string;
  to: string;
  text: string;
  previewUrl: boolean | null;
  /** context.message_id: the message this one replies to. */
  contextMessageId: string | null;
}

/** How the stand-in refuses a call: a Graph API error. */
export interface WhatsAppStandInFailure {
  status: number;
  code: number;
  message: string;
  type?: string;
  subcode?: number;
  /** Sent as Retry-After (seconds) when set. */
  retryAfterSeconds?: number;
}

export interface WhatsAppStandIn {
  /** `http://127.0.0.1:<port>`: the Graph API's base URL, without the version. */
  baseUrl: string;
  /** Every request, answered or refused, in arrival order. */
  requests: WhatsAppStandInRequest[];
  /** Every text message accepted, in order. */
  sent: WhatsAppSentMessage[];
  /** Answers the next `count` calls with 429 and Graph error 130429 (throughput rate limit), with Retry-After. */
  rateLimitNext(count: number, retryAfterSeconds?: number): void;
  /** Answers the next `count` authenticated calls with this Graph error. */
  failNext(count: number, failure: WhatsAppStandInFailure): void;
  close(): Promise<void>;
}

const MESSAGES_PATH = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/;
const MAX_REQUEST_BYTES = 1024 * 1024;

const fbtraceId = (): string => randomBytes(8).toString('base64url');
const wamid = (): string => `wamid.${randomBytes(30).toString('base64')}`;

function graphError(failure: Omit<WhatsAppStandInFailure, 'status' | 'retryAfterSeconds'>, details?: string): Json {
  return {
    error: {
      message: failure.message,
      type: failure.type ?? 'OAuthException',
      code: failure.code,
      ...(failure.subcode === undefined ? {} : { error_subcode: failure.subcode }),
      ...(details === undefined ? {} : { error_data: { messaging_product: 'whatsapp', details } }),
      fbtrace_id: fbtraceId(),
    },
  };
}

/** Graph's answer to an invalid parameter (code 100), with what is wrong in error_data.details. */
const invalidParameter = (details: string): Json => graphError({ message: '(#100) Invalid parameter', code: 100 }, details);

/** What is wrong with a send-message body, or null when the stand-in accepts it. */
function invalidMessage(body: Json): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'The request body must be a JSON object';
  if (body.messaging_product !== 'whatsapp') return 'The parameter messaging_product is required and must be "whatsapp"';
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual') return 'recipient_type must be "individual"';
  if (typeof body.to !== 'string' || !/^\+?\d{1,20}$/.test(body.to)) return 'The parameter to must be a phone number';
  if (body.type !== 'text') return 'The stand-in accepts messages of type "text" only';
  const text = body.text;
  if (text === null || typeof text !== 'object' || typeof text.body !== 'string' || text.body === '') return "Param text['body'] is required";
  if ([...text.body].length > 4096) return "Param text['body'] must be at most 4096 characters long";
  if (text.preview_url !== undefined && typeof text.preview_url !== 'boolean') return "Param text['preview_url'] must be a boolean";
  if (body.context !== undefined && (body.context === null || typeof body.context.message_id !== 'string' || body.context.message_id === '')) return "Param context['message_id'] must be a message id";
  return null;
}

/**
 * Starts the stand-in on 127.0.0.1 and a free port. It answers POST
 * /<version>/<phoneNumberId>/messages only: a wrong or missing token gets 401 with Graph code 190,
 * another phone number id 400 with code 100 (subcode 33, the object does not exist), a bad body
 * 400 with code 100, and queued failures (rateLimitNext, failNext) come after the token check.
 */
export async function startWhatsAppStandIn(options: WhatsAppStandInOptions): Promise<WhatsAppStandIn> {
  const requests: WhatsAppStandInRequest[] = [];
  const sent: WhatsAppSentMessage[] = [];
  const failures: WhatsAppStandInFailure[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Json = null;
      let isJson = raw !== '';
      try {
        body = raw === '' ? null : JSON.parse(raw);
      } catch {
        isJson = false;
      }
      const record: WhatsAppStandInRequest = { method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'http://stand-in').pathname, headers: req.headers, body, status: 0 };
      requests.push(record);
      const answer = (status: number, json: Json, headers: Record<string, string> = {}): void => {
        record.status = status;
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(json));
      };

      const route = MESSAGES_PATH.exec(record.path);
      if (record.method !== 'POST' || !route) {
        answer(400, graphError({ message: `Unsupported ${record.method.toLowerCase()} request.`, type: 'GraphMethodException', code: 100, subcode: 33 }));
        return;
      }
      const [, graphVersion, phoneNumberId] = route;
      if (req.headers.authorization !== `Bearer ${options.accessToken}`) {
        answer(401, graphError({ message: 'Invalid OAuth access token - Cannot parse access token', code: 190 }), {
          'www-authenticate': 'OAuth "Facebook Platform" "invalid_token" "Invalid OAuth access token - Cannot parse access token"',
        });
        return;
      }
      if (phoneNumberId !== options.phoneNumberId) {
        answer(400, graphError({ message: `Unsupported post request. Object with ID '${phoneNumberId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, type: 'GraphMethodException', code: 100, subcode: 33 }));
        return;
      }
      const failure = failures.shift();
      if (failure) {
        answer(failure.status, graphError(failure), failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) });
        return;
      }
      if (size > MAX_REQUEST_BYTES) {
        answer(400, invalidParameter('The request body is too large'));
        return;
      }
      if (!isJson || !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        answer(400, invalidParameter('The request body must be JSON sent as application/json'));
        return;
      }
      const problem = invalidMessage(body);
      if (problem) {
        answer(400, invalidParameter(problem));
        return;
      }
      const id = wamid();
      sent.push({ id, graphVersion, to: body.to, text: body.text.body, previewUrl: body.text.preview_url ?? null, contextMessageId: body.context?.message_id ?? null });
      answer(200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to.replace(/^\+/, '') }], messages: [{ id }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    sent,
    rateLimitNext(count, retryAfterSeconds = 1) {
      for (let i = 0; i < count; i++) failures.push({ status: 429, code: 130429, message: '(#130429) Rate limit hit', retryAfterSeconds });
    },
    failNext(count, failure) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// What Meta sends to a webhook
// ---------------------------------------------------------------------------------------------

/** One text message a WhatsApp user sends. */
export interface WhatsAppInboundText {
  /** The sender's wa_id (phone number, digits only). */
  from: string;
  /** The sender's profile name (contacts[].profile.name). */
  name?: string;
  text: string;
  /** Default: a fresh wamid. */
  id?: string;
  /** Unix seconds; default now. */
  timestamp?: number;
}

/**
 * A "messages" notification for `phoneNumberId` whose change value holds `value` (messages,
 * contacts, statuses, …) after messaging_product and metadata.
 */
export function whatsappNotification(phoneNumberId: string, value: Record<string, unknown>, displayPhoneNumber = '15550783881'): Json {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [{ value: { messaging_product: 'whatsapp', metadata: { display_phone_number: displayPhoneNumber, phone_number_id: phoneNumberId }, ...value }, field: 'messages' }],
      },
    ],
  };
}

/** A notification of text messages sent to `phoneNumberId`, with their senders as contacts. */
export function whatsappTextNotification(phoneNumberId: string, messages: WhatsAppInboundText | WhatsAppInboundText[]): Json {
  const list = Array.isArray(messages) ? messages : [messages];
  const contacts = new Map<string, Json>();
  for (const m of list) contacts.set(m.from, { profile: { name: m.name ?? 'WhatsApp User' }, wa_id: m.from });
  return whatsappNotification(phoneNumberId, {
    contacts: [...contacts.values()],
    messages: list.map((m) => ({ from: m.from, id: m.id ?? wamid(), timestamp: String(m.timestamp ?? Math.floor(Date.now() / 1000)), text: { body: m.text }, type: 'text' })),
  });
}

/** A status notification (sent, delivered, read, failed) about a message the business sent. */
export function whatsappStatusNotification(phoneNumberId: string, status: { id: string; recipientId: string; status?: 'sent' | 'delivered' | 'read' | 'failed' }): Json {
  return whatsappNotification(phoneNumberId, {
    statuses: [{ id: status.id, status: status.status ?? 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: status.recipientId }],
  });
}

/** X-Hub-Signature-256's value for `body`: `sha256=` and the hex HMAC-SHA256 keyed with the app secret. */
export function whatsappSignature(appSecret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

/**
 * A notification as Meta POSTs it: the exact bytes, and the headers (lower-case names) Meta sends
 * with them, Content-Type and the signature over those bytes.
 */
export function signedWhatsAppNotification(appSecret: string, payload: Json | string): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload), 'utf8');
  return { body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(appSecret, body) } };
}

/** The query of Meta's verification GET. */
export function whatsappVerifyQuery(verifyToken: string, challenge = String(1_000_000_000 + Math.floor(Math.random() * 1_000_000_000))): Record<string, string> {
  return { 'hub.mode': 'subscribe', 'hub.challenge': challenge, 'hub.verify_token': verifyToken };
}
