import { IsEmail, IsIn, IsOptional, IsString, IsUUID } from 'class-validator';
import type { BookingView } from './bookings';
import { SESSION_ID_MAX } from './chat';
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
export class WidgetSessionBody {}

/** POST …/chat: the same answer pipeline and SSE format as POST /v1/chat, channel `widget`. */
export class WidgetChatBody {
  @IsString() @CharLength(1, 2000) @NotBlank() message: string;
  @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) sessionId?: string;
  @IsOptional() @IsString() @IsLanguageTag() language?: string;
}

/** POST …/feedback on an assistant message of that session. */
export class WidgetFeedbackBody {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsUUID() messageId: string;
  @IsIn(['positive', 'negative']) feedback: 'positive' | 'negative';
}

/** POST …/identify: the visitor is signed in on the customer's site. */
export class WidgetIdentifyBody {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsString() @CharLength(1, 200) @NotBlank() externalUserId: string;
  @IsOptional() @IsString() @CharLength(1, 200) name?: string;
  @IsOptional() @IsString() @IsEmail() @CharLength(3, 254) email?: string;
  @IsOptional() @IsString() @CharLength(3, 40) phone?: string;
}

/** POST …/leads: the widget's lead form. */
export class WidgetLeadBody {
  @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) sessionId?: string;
  @IsOptional() @IsString() @CharLength(1, 200) name?: string;
  @IsOptional() @IsString() @IsEmail() @CharLength(3, 254) email?: string;
  @IsOptional() @IsString() @CharLength(3, 40) phone?: string;
  @IsOptional() @IsString() @CharLength(1, 200) company?: string;
  @IsOptional() @IsString() @CharLength(1, 2000) message?: string;
  @IsOptional() @IsStringMap() qualification?: Record<string, string>;
}

/** POST …/tickets: a support ticket from the widget's Support tab. */
export class WidgetTicketBody {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsString() @IsEmail() @CharLength(3, 254) email: string;
  @IsString() @CharLength(1, 200) @NotBlank() subject: string;
  @IsString() @CharLength(1, 5000) @NotBlank() message: string;
  @IsOptional() @IsString() @CharLength(1, 200) name?: string;
}

/** POST …/handoff: the visitor asks for a person. */
export class WidgetHandoffBody {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
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
export interface WidgetSessionView {
  session_id: string;
}

/** POST …/feedback. */
export interface WidgetFeedbackView {
  message_id: string;
  feedback: 'positive' | 'negative';
}

/** POST …/identify. */
export interface WidgetIdentifyView {
  session_id: string;
  identified: true;
}

/** POST …/leads and POST …/tickets: the submission was stored. */
export interface WidgetReceiptView {
  id: string;
  session_id: string;
  status: 'received';
  created_at: string;
}

/** POST …/bookings: the visitor's own request as stored, with its id and status; nothing of the workspace's. */
export type WidgetBookingView = Omit<BookingView, 'tenant_id' | 'rejection_comment' | 'confirmed_at' | 'rejected_at' | 'cancelled_at'>;

/** POST …/handoff. */
export interface WidgetHandoffView {
  session_id: string;
  handoff: true;
}
