import { ArrayMaxSize, Equals, IsArray, IsBoolean, IsEmail, IsIn, IsISO8601, IsOptional, IsString, IsUUID, Matches, ValidateBy, ValidationOptions, buildMessage } from 'class-validator';
import { EMAIL_MAX, EMAIL_MIN, PERSON_NAME_MAX, PHONE_MAX, PHONE_MIN } from './bookings';
import { LANGUAGE_DESCRIPTION } from './bots';
import { ActionConfirmation, CHAT_MESSAGE_MAX, FEEDBACK_VALUES, Feedback, SESSION_ID_MAX, WIDGET_SESSION_DESCRIPTION } from './chat';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, IsLanguageTag, IsStringMap, NotBlank } from './validation';

/**
 * The visitor widget's API (ours: the spec says visitors act "through the widget" and shows no
 * API for it). Public routes under /widget/v1/bots/{botId}/…, no token: the bot names the workspace.
 */

/**
 * POST …/sessions: no body, or an empty object. Widget sessions are minted by the server (here, or
 * by a chat without sessionId): an unguessable id the visitor's browser keeps. Every widget call
 * that carries a sessionId is refused (403 session_forbidden) unless it was minted as a widget
 * session of the bot in the path.
 */
@Doc({ name: 'WidgetSessionRequest', description: 'Body of POST /bots/{botId}/sessions: none, or an empty object. Unknown members are rejected (400).' })
export class WidgetSessionBody {}

/** POST …/chat: the same answer pipeline and SSE format as POST /v1/chat, channel `widget`. */
@Doc({ name: 'WidgetChatRequest', description: 'Body of POST /bots/{botId}/chat. Unknown members are rejected (400).' })
export class WidgetChatBody {
  @Doc(`1 to ${CHAT_MESSAGE_MAX} characters, not only white space.`) @IsString() @CharLength(1, CHAT_MESSAGE_MAX) @NotBlank() message: string;
  @Doc(`${WIDGET_SESSION_DESCRIPTION} When omitted a new session is minted; its id is returned in the X-Session-Id header.`)
  @IsOptional()
  @IsString()
  @CharLength(1, SESSION_ID_MAX)
  sessionId?: string;
  @Doc("Reply language code such as `en` or `ja-JP` (BCP 47). When omitted the bot's default is used.") @IsOptional() @IsString() @IsLanguageTag() language?: string;
  @Doc("Confirms or cancels the action the session's last answer waits on (the confirm/cancel card). Needs `sessionId`.") @IsOptional() @Nested(() => ActionConfirmation) action_confirmation?: ActionConfirmation;
}

/** POST …/feedback on an assistant message of that session. */
@Doc({ name: 'WidgetFeedbackRequest', description: 'Body of POST /bots/{botId}/feedback. Unknown members are rejected (400).' })
export class WidgetFeedbackBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @Doc('An assistant message of that session.') @IsUUID() messageId: string;
  @IsIn(FEEDBACK_VALUES) feedback: Feedback;
}

export const EXTERNAL_USER_ID_MAX = 200;
/** 64 hex digits, either case: the HMAC-SHA256 of identify. */
export const USER_HASH_PATTERN = /^[0-9a-fA-F]{64}$/;

/** POST …/identify: the visitor is signed in on the customer's site. */
@Doc({ name: 'WidgetIdentifyRequest', description: "Body of POST /bots/{botId}/identify: the visitor is signed in on the customer's site. Unknown members are rejected (400)." })
export class WidgetIdentifyBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @Doc("The visitor's user id on the customer's site; not only white space.") @IsString() @CharLength(1, EXTERNAL_USER_ID_MAX) @NotBlank() externalUserId: string;
  @IsOptional() @IsString() @CharLength(1, PERSON_NAME_MAX) name?: string;
  @IsOptional() @IsString() @IsEmail() @CharLength(EMAIL_MIN, EMAIL_MAX) email?: string;
  @IsOptional() @IsString() @CharLength(PHONE_MIN, PHONE_MAX) phone?: string;
  @Doc(
    "Proof that the customer's server vouches for externalUserId: the hex HMAC-SHA256 of externalUserId (UTF-8) keyed with the bot's widget identity secret (UTF-8), " +
      '64 hex digits (either case). A wrong hash, or a bot without an identity secret, is refused with 403 `invalid_user_hash` and nothing is stored.',
  )
  @IsString()
  @Matches(USER_HASH_PATTERN)
  userHash: string;
}

/** POST …/leads: the widget's lead form. */
@Doc({ name: 'WidgetLeadRequest', description: "Body of POST /bots/{botId}/leads: the widget's lead form. Unknown members are rejected (400)." })
export class WidgetLeadBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) sessionId?: string;
  @IsOptional() @IsString() @CharLength(1, PERSON_NAME_MAX) name?: string;
  @IsOptional() @IsString() @IsEmail() @CharLength(EMAIL_MIN, EMAIL_MAX) email?: string;
  @IsOptional() @IsString() @CharLength(PHONE_MIN, PHONE_MAX) phone?: string;
  @IsOptional() @IsString() @CharLength(1, 200) company?: string;
  @IsOptional() @IsString() @CharLength(1, 2000) message?: string;
  @Doc('Answers of the lead form: a map of string to string.') @IsOptional() @IsStringMap() qualification?: Record<string, string>;
}

/** POST …/tickets: a support ticket from the widget's Support tab. */
@Doc({ name: 'WidgetTicketRequest', description: "Body of POST /bots/{botId}/tickets: a support ticket from the widget's Support tab. Unknown members are rejected (400)." })
export class WidgetTicketBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsString() @IsEmail() @CharLength(EMAIL_MIN, EMAIL_MAX) email: string;
  @Doc('Not only white space.') @IsString() @CharLength(1, 200) @NotBlank() subject: string;
  @Doc('Not only white space.') @IsString() @CharLength(1, 5000) @NotBlank() message: string;
  @IsOptional() @IsString() @CharLength(1, PERSON_NAME_MAX) name?: string;
}

/** POST …/handoff: the visitor asks for a person. */
@Doc({ name: 'WidgetHandoffRequest', description: 'Body of POST /bots/{botId}/handoff: the visitor asks for a person. Unknown members are rejected (400).' })
export class WidgetHandoffBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsOptional() @IsString() @CharLength(1, 500) reason?: string;
}

/** The NATS requests behind the widget routes carry the bot id with the visitor's body. */
export class FeedbackRequest extends WidgetFeedbackBody {}
/** leads.visitor.identify: sent only after bots.widget.identity.verify accepted the userHash. */
export class IdentifyRequest {
  @IsUUID() chatbotId: string;
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsString() @CharLength(1, EXTERNAL_USER_ID_MAX) @NotBlank() externalUserId: string;
  @IsOptional() @IsString() @CharLength(1, PERSON_NAME_MAX) name?: string;
  @IsOptional() @IsString() @IsEmail() @CharLength(EMAIL_MIN, EMAIL_MAX) email?: string;
  @IsOptional() @IsString() @CharLength(PHONE_MIN, PHONE_MAX) phone?: string;
}
export class LeadFormRequest extends WidgetLeadBody {
  @IsUUID() chatbotId: string;
}
export class TicketRequest extends WidgetTicketBody {
  @IsUUID() chatbotId: string;
}
export class HandoffRequest extends WidgetHandoffBody {
  @IsUUID() chatbotId: string;
}

/** chat.widget-session.create: mints a widget session of the bot (ctx.botIds = [chatbotId]). */
export class WidgetSessionRequest {
  @IsUUID() chatbotId: string;
}

/** chat.widget-session.check: is `sessionId` a widget session of that bot of ctx.tenantId? */
export class WidgetSessionCheckRequest {
  @IsUUID() chatbotId: string;
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
}

export interface WidgetSessionCheck {
  widget_session: boolean;
}

/**
 * chat.widget-session.verify (issue 34): the gateway checked the visitor's user hash; the session's
 * visitor is now verified as `externalUserId`, the only id an action's `user_id_param` ever gets.
 */
export class WidgetSessionVerifyRequest {
  @IsUUID() chatbotId: string;
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsString() @CharLength(1, EXTERNAL_USER_ID_MAX) @NotBlank() externalUserId: string;
}

/** bots.bot.public: the bot a public widget route names, with its workspace. No caller context. */
export class PublicBotRequest {
  @IsUUID() botId: string;
}

export interface PublicBot {
  id: string;
  tenant_id: string;
  name: string;
  language: string;
  /** Exact origins (`scheme://host[:port]`, lower case) the widget routes accept; empty: every origin. */
  allowed_origins: string[];
  /** The widget's look. */
  widget: WidgetTheme;
  /** The bot has a widget identity secret (identify can succeed). */
  identity: boolean;
  /** Questions the widget offers before the first message (issue 32). */
  starter_questions: string[];
}

export interface TicketView {
  id: string;
  session_id: string;
  chatbot_id: string;
  email: string;
  name: string | null;
  subject: string;
  message: string;
  created_at: string;
}

/**
 * What the widget routes answer. A widget caller is an anonymous visitor: an answer carries only
 * what the caller sent plus ids, statuses and timestamps the server created, never stored data
 * (no tenant id, no details a conversation or an earlier form left on a lead).
 */

/** POST …/sessions. */
@Doc({ name: 'WidgetSession', description: 'A new widget session of the bot.' })
export class WidgetSessionView {
  @Doc("A fresh, unguessable session id (256 random bits, base64url). Keep it in the browser: it is the visitor's key to the session.")
  @IsString()
  @CharLength(1, SESSION_ID_MAX)
  session_id: string;
}

/** POST …/feedback. */
@Doc({ name: 'FeedbackResult', description: 'The feedback now recorded on the message.' })
export class WidgetFeedbackView {
  @IsUUID() message_id: string;
  @IsIn(FEEDBACK_VALUES) feedback: Feedback;
}

/** POST …/identify. */
@Doc({ name: 'IdentifyResult', description: 'The session is now linked to the signed-in visitor.' })
export class WidgetIdentifyView {
  @IsString() session_id: string;
  @Equals(true) identified: true;
}

/** POST …/leads and POST …/tickets: the submission was stored. */
@Doc({ name: 'Receipt', description: 'The submission was stored. Nothing stored about the visitor is returned.' })
export class WidgetReceiptView {
  @Doc('The stored record (lead or ticket).') @IsUUID() id: string;
  @Doc('The session it belongs to (for a lead form sent without a session, one the server made).') @IsString() session_id: string;
  @Equals('received') status: 'received';
  @IsISO8601() created_at: string;
}

/** POST …/handoff. */
@Doc({ name: 'HandoffResult', description: 'The session is marked for a person to take over.' })
export class WidgetHandoffView {
  @IsString() session_id: string;
  @Equals(true) handoff: true;
}

// ---- Widget settings (issue 18): per bot, owned by the bots service ----

export const WIDGET_POSITIONS = ['right', 'left'] as const;
export type WidgetPosition = (typeof WIDGET_POSITIONS)[number];
/** The launcher's default colour: white text on it has a contrast ratio of 5.9:1 (WCAG AA). */
export const WIDGET_DEFAULT_COLOR = '#1a5fcc';
export const WIDGET_ORIGINS_MAX = 20;
export const WIDGET_ORIGIN_MAX = 200;
export const WIDGET_GREETING_MAX = 300;
export const WIDGET_LAUNCHER_TEXT_MAX = 40;
export const WIDGET_COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;
/** Widget identity secrets: `wsk_` and 43 base64url characters (256 random bits). */
export const WIDGET_SECRET_PATTERN = /^wsk_[A-Za-z0-9_-]{43}$/;

/**
 * The canonical form of a web origin `http(s)://host[:port]` (lower case, default port dropped,
 * as browsers send it in the Origin header), or null when the value is not one: a path (other
 * than nothing), query, fragment, user info or another scheme is refused.
 */
export function canonicalOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || value.length < 1 || value.length > WIDGET_ORIGIN_MAX) return null;
  if (!/^https?:\/\/[^/?#@\s\\]+$/i.test(value)) return null;
  try {
    const url = new URL(value);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password) return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

export function IsWebOrigin(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebOrigin',
      validator: {
        validate: (value: unknown) => canonicalOrigin(value) !== null,
        defaultMessage: buildMessage((each) => `${each}$property must be a web origin such as https://www.example.com (scheme, host and port only)`, options),
      },
    },
    options,
  );
}

/** The widget's look, as stored and as served by GET …/config. */
@Doc({ name: 'WidgetTheme', description: "The widget's look. Attributes of the script tag override it." })
export class WidgetTheme {
  @Doc(`Launcher and header colour, \`#rrggbb\`; default \`${WIDGET_DEFAULT_COLOR}\`.`) @IsString() @Matches(WIDGET_COLOR_PATTERN) color: string;
  @Doc('Corner of the page: `right` (default) or `left`.') @IsIn(WIDGET_POSITIONS) position: WidgetPosition;
  @Doc("First message of the chat; null: the widget's own translated greeting.") @Nullable() @IsString() @CharLength(1, WIDGET_GREETING_MAX) greeting: string | null;
  @Doc("Text on the launcher button; null: the widget's own translated text.") @Nullable() @IsString() @CharLength(1, WIDGET_LAUNCHER_TEXT_MAX) launcher_text: string | null;
}

export const DEFAULT_WIDGET_THEME: WidgetTheme = { color: WIDGET_DEFAULT_COLOR, position: 'right', greeting: null, launcher_text: null };

/** A change of the widget's look: members left out stay as they are; null resets greeting or launcher text. */
@Doc({ name: 'WidgetThemeUpdate', description: 'Members left out stay as they are; null resets greeting or launcher text to the widget default.' })
export class WidgetThemeUpdate {
  @Doc('`#rrggbb`.') @IsOptional() @IsString() @Matches(WIDGET_COLOR_PATTERN) color?: string;
  @IsOptional() @IsIn(WIDGET_POSITIONS) position?: WidgetPosition;
  @Doc(`1 to ${WIDGET_GREETING_MAX} characters, not only white space; null: the default.`) @IsOptional() @Nullable() @IsString() @CharLength(1, WIDGET_GREETING_MAX) @NotBlank() greeting?: string | null;
  @Doc(`1 to ${WIDGET_LAUNCHER_TEXT_MAX} characters, not only white space; null: the default.`)
  @IsOptional()
  @Nullable()
  @IsString()
  @CharLength(1, WIDGET_LAUNCHER_TEXT_MAX)
  @NotBlank()
  launcher_text?: string | null;
}

/** Body of the console's PATCH …/widget; with botId, request of bots.widget.update. */
@Doc({ name: 'WidgetSettingsUpdate', description: 'A change of the widget settings; members left out stay as they are. Unknown members are rejected (400).' })
export class UpdateWidgetSettingsBody {
  @Doc(
    `Exact origins (\`https://host[:port]\`, no path) the widget may be used on, at most ${WIDGET_ORIGINS_MAX}; stored in lower case without duplicates. ` +
      'Empty: every origin.',
  )
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(WIDGET_ORIGINS_MAX)
  @IsString({ each: true })
  @IsWebOrigin({ each: true })
  allowed_origins?: string[];
  @IsOptional() @Nested(() => WidgetThemeUpdate) theme?: WidgetThemeUpdate;
}

export class UpdateWidgetSettingsRequest extends UpdateWidgetSettingsBody {
  @IsUUID() botId: string;
}

/** bots.widget.get, bots.widget.secret.rotate. */
export class WidgetSettingsRequest {
  @IsUUID() botId: string;
}

@Doc({ name: 'WidgetIdentitySecretState', description: 'Whether the bot has a widget identity secret (never the secret itself).' })
export class WidgetIdentitySecretState {
  @IsBoolean() set: boolean;
  @Nullable() @IsISO8601() created_at: string | null;
}

/** A bot's widget settings (bots.widget.get | update). */
@Doc({ name: 'WidgetSettings', description: "A bot's widget settings." })
export class WidgetSettingsView {
  @IsUUID() chatbot_id: string;
  @Doc('Exact origins the widget routes accept; empty: every origin.') @IsArray() @IsString({ each: true }) allowed_origins: string[];
  @Nested(() => WidgetTheme) theme: WidgetTheme;
  @Nested(() => WidgetIdentitySecretState) identity_secret: WidgetIdentitySecretState;
  @Doc('Last change; null: never changed (defaults).') @Nullable() @IsISO8601() updated_at: string | null;
}

/** bots.widget.secret.rotate: the new secret, shown once. */
@Doc({ name: 'WidgetSecret', description: 'The new widget identity secret. Shown once: store it on your server; the previous one stops working.' })
export class WidgetSecretView {
  @Doc('`wsk_` and 43 base64url characters.') @IsString() @Matches(WIDGET_SECRET_PATTERN) secret: string;
  @IsISO8601() created_at: string;
}

/** bots.widget.identity.verify: is userHash the HMAC of externalUserId under the bot's secret? */
export class VerifyWidgetIdentityRequest {
  @IsUUID() chatbotId: string;
  @IsString() @CharLength(1, EXTERNAL_USER_ID_MAX) externalUserId: string;
  @IsString() @Matches(USER_HASH_PATTERN) userHash: string;
}

export interface VerifyWidgetIdentityReply {
  valid: boolean;
}

/** `bots.widget.changed` (core NATS, no reply): a bot's widget settings changed; gateways evict it. */
export const WIDGET_CHANGED_SUBJECT = 'bots.widget.changed';
export interface WidgetChangedEvent {
  botId: string;
}

/** GET /widget/v1/bots/{botId}/config. */
@Doc({ name: 'WidgetConfig', description: "What the widget needs to draw itself: the bot's name, language and look." })
export class WidgetConfigView {
  @IsUUID() bot_id: string;
  @IsString() name: string;
  @Doc(LANGUAGE_DESCRIPTION) @IsString() language: string;
  @Nested(() => WidgetTheme) theme: WidgetTheme;
  @Doc('The bot has a widget identity secret: identify can succeed.') @IsBoolean() identity: boolean;
  @Doc('Questions to offer as buttons before the first message (user text: render it as text).') @IsArray() @IsString({ each: true }) starter_questions: string[];
}
