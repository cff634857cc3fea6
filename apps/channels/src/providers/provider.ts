/**
 * What every channel provider adapter (issue 35) gives the channels service: for the webhook
 * providers (WhatsApp, Telegram, Slack) a pure check-and-parse of an inbound HTTP request, and a
 * sender of replies; e-mail has its own reader (IMAP) and sender (SMTP) that produce and take the
 * same shapes.
 */

/** The channel values of ChatMessage.channel that channels produce. */
export const CHANNEL_KINDS = ['email', 'whatsapp', 'telegram', 'slack'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** An inbound HTTP request as the gateway forwards it: nothing parsed, the body byte for byte. */
export interface WebhookRequest {
  method: 'GET' | 'POST';
  /** The query string's members (the last value of a repeated one). */
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The raw body (signatures are over these bytes). */
  body: Buffer;
  /** When it arrived (ms since the epoch): signature windows are checked against it. */
  receivedAt: number;
}

/** One message a person sent, as the conversation model needs it. */
export interface InboundMessage {
  /**
   * The provider's id of the message, unique within the connection (WhatsApp's wamid, Telegram's
   * `<chat id>:<message id>`, Slack's `<channel>:<ts>`, e-mail's Message-ID): stored as the user
   * message's provider_message_id, and what makes a retried delivery answered once.
   */
  providerMessageId: string;
  /** The external conversation (one chat session): WhatsApp's wa_id, Telegram's chat id, Slack's channel + thread ts, the e-mail thread's root Message-ID. */
  conversationKey: string;
  /** The text the bot reads (for e-mail: quoted history and signature already stripped). */
  text: string;
  /** Who sent it; email / phone become the lead's contact. */
  sender: { id: string; name?: string | null; email?: string | null; phone?: string | null };
  /** When the provider says it was sent (ms since the epoch), when it says. */
  sentAt?: number | null;
  /**
   * What the sender needs to answer in the same conversation (JSON, stored with the message):
   * Telegram's chat id and message id, Slack's channel and thread ts, WhatsApp's phone number id
   * and recipient, e-mail's addresses, subject, Message-ID and References.
   */
  replyTo: Record<string, unknown>;
}

/** What the service answers the provider, and what it keeps. */
export type WebhookOutcome =
  /** Answer this (a handshake, a challenge, or a refusal: 401/403 for a bad signature); store nothing. */
  | { kind: 'respond'; status: number; body: string; contentType?: string }
  /** Store these messages (possibly none: a status update, a bot's own message), then answer 200 with `body`. */
  | { kind: 'accept'; messages: InboundMessage[]; body?: string; contentType?: string };

/** A connection's settings as the adapter gets them: credentials already decrypted. */
export interface ProviderConnection {
  id: string;
  /** Non-secret settings (WhatsApp's phone number id, Slack's team id, …). */
  settings: Record<string, string>;
  /** Decrypted credentials (tokens, app secrets, signing secrets). Never logged. */
  secrets: Record<string, string>;
}

/** Sends one reply; how it reaches the provider's API (base URL, outbound guard, fetch). */
export interface SendContext {
  /** The provider API's base URL (configurable: tests, regional endpoints). */
  baseUrl: string;
  /** An HTTP call through the outbound guard: never a plain fetch. */
  http: (url: string, init: { method: 'POST' | 'GET'; headers: Record<string, string>; body?: string }) => Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
}

/** A send refused for now: try again after `retryAfterMs` (429, a provider's rate-limit error code, 5xx). */
export class RetryableSendError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
    this.name = 'RetryableSendError';
  }
}

/** A send that will never succeed as it is (bad token, unknown chat, 4xx other than 429): recorded as the connection's last error. */
export class PermanentSendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentSendError';
  }
}

export interface WebhookProvider {
  kind: Exclude<ChannelKind, 'email'>;
  /** The secrets a connection of this kind needs (names of ProviderConnection.secrets), and its settings. */
  secretNames: readonly string[];
  settingNames: readonly string[];
  /** Checks the request's signature / secret token / handshake and parses it. Pure: no I/O. */
  receive(conn: ProviderConnection, req: WebhookRequest): WebhookOutcome;
  /** Sends `text` as a reply in the conversation `replyTo` names; the provider's id of the sent message. */
  send(conn: ProviderConnection, replyTo: Record<string, unknown>, text: string, ctx: SendContext): Promise<{ providerMessageId: string | null }>;
}
