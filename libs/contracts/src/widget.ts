import { Equals, IsEmail, IsIn, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { EMAIL_MAX, EMAIL_MIN, PERSON_NAME_MAX, PHONE_MAX, PHONE_MIN } from './bookings';
import { CHAT_MESSAGE_MAX, FEEDBACK_VALUES, Feedback, SESSION_ID_MAX, WIDGET_SESSION_DESCRIPTION } from './chat';
import { Doc } from './schema-docs';
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
}

/** POST …/feedback on an assistant message of that session. */
@Doc({ name: 'WidgetFeedbackRequest', description: 'Body of POST /bots/{botId}/feedback. Unknown members are rejected (400).' })
export class WidgetFeedbackBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @Doc('An assistant message of that session.') @IsUUID() messageId: string;
  @IsIn(FEEDBACK_VALUES) feedback: Feedback;
}

export const EXTERNAL_USER_ID_MAX = 200;

/** POST …/identify: the visitor is signed in on the customer's site. */
@Doc({ name: 'WidgetIdentifyRequest', description: "Body of POST /bots/{botId}/identify: the visitor is signed in on the customer's site. Unknown members are rejected (400)." })
export class WidgetIdentifyBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @Doc("The visitor's user id on the customer's site; not only white space.") @IsString() @CharLength(1, EXTERNAL_USER_ID_MAX) @NotBlank() externalUserId: string;
  @IsOptional() @IsString() @CharLength(1, PERSON_NAME_MAX) name?: string;
  @IsOptional() @IsString() @IsEmail() @CharLength(EMAIL_MIN, EMAIL_MAX) email?: string;
  @IsOptional() @IsString() @CharLength(PHONE_MIN, PHONE_MAX) phone?: string;
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
export class IdentifyRequest extends WidgetIdentifyBody {
  @IsUUID() chatbotId: string;
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

/** bots.bot.public: the bot a public widget route names, with its workspace. No caller context. */
export class PublicBotRequest {
  @IsUUID() botId: string;
}

export interface PublicBot {
  id: string;
  tenant_id: string;
  name: string;
  language: string;
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
