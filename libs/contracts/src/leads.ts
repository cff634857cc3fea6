import { IsEmail, IsIn, IsInt, IsISO8601, IsNumber, IsOptional, IsString, IsUUID } from 'class-validator';
import { EMAIL_MAX, EMAIL_MIN, PERSON_NAME_MAX, PHONE_MAX, PHONE_MIN } from './bookings';
import { CHAT_CHANNELS, ChatChannel, SESSION_ID_MAX } from './chat';
import { ONLY_THIS_BOT } from './knowledge';
import { Doc, Nullable } from './schema-docs';
import { CharLength, IsStringMap } from './validation';

export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'won', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
export const SCORE_BANDS = ['hot', 'warm', 'cold'] as const;
export type ScoreBand = (typeof SCORE_BANDS)[number];
export const CAPTURE_METHODS = ['conversational', 'form', 'inferred'] as const;
export type CaptureMethod = (typeof CAPTURE_METHODS)[number];
export const LEADS_LIST_MAX = 500;

/** Query of GET /v1/leads (spec part 4) and request of leads.lead.list. */
export class ListLeadsRequest {
  @Doc(ONLY_THIS_BOT) @IsOptional() @IsUUID() chatbotId?: string;
}

const NOT_SHOWN = 'Values: not shown by the spec.';
const FORMAT_NOT_SHOWN = 'Format: not shown by the spec.';

/** Lead, spec part 2. */
@Doc({ name: 'Lead', description: 'An intent-scored lead.' })
export class LeadView {
  @IsUUID() id: string;
  @IsUUID() tenant_id: string;
  @Nullable() @IsUUID() chatbot_id: string | null;
  @IsString() session_id: string;
  @Doc('Contact name.') @Nullable() @IsString() name: string | null;
  @Doc('Contact e-mail.') @Nullable() @IsString() email: string | null;
  @Doc('Contact phone.') @Nullable() @IsString() phone: string | null;
  @Doc("Set when the visitor was signed in through the widget's identify call.") @Nullable() @IsString() external_user_id: string | null;
  @Nullable() @IsString() company: string | null;
  @Doc(NOT_SHOWN) @Nullable() @IsString() intent_category: string | null;
  @Doc('AI summary of the intent.') @Nullable() @IsString() intent_summary: string | null;
  @IsInt() score: number;
  @IsIn(SCORE_BANDS) score_band: ScoreBand;
  @Doc(NOT_SHOWN) @Nullable() @IsString() sentiment: string | null;
  @Doc('Map of string to string.') @Nullable() @IsStringMap() qualification: Record<string, string> | null;
  @IsIn(LEAD_STATUSES) status: LeadStatus;
  @IsIn(CAPTURE_METHODS) captured_via: CaptureMethod;
  @Nullable() @IsNumber() confidence: number | null;
  @Nullable() @IsISO8601() notified_at: string | null;
  @Nullable() @IsISO8601() asked_contact_at: string | null;
  @Nullable() @IsString() notes: string | null;
  @Doc(FORMAT_NOT_SHOWN) @Nullable() @IsString() country: string | null;
  @Doc(FORMAT_NOT_SHOWN) @Nullable() @IsString() region: string | null;
  @Doc('Values and format: not shown by the spec.') @IsString() channel: string;
  @IsISO8601() created_at: string;
  @IsISO8601() updated_at: string;
}

/**
 * leads.lead.capture-conversational (issue 34, the built-in action `capture_contact`): the contact
 * details the visitor gave in a conversation, captured by the bot for that conversation's session
 * (`captured_via: conversational`; a lead already `form` stays `form`). Sent by the chat service
 * only, never from a public body: the widget's lead form stays `leads.lead.capture` (`form`).
 * Needs an e-mail or a phone, as the form does.
 */
export class ConversationalLeadRequest {
  @IsUUID() chatbotId: string;
  /** The conversation's session. */
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  /** The conversation's channel: a new lead's channel. */
  @IsIn(CHAT_CHANNELS) channel: ChatChannel;
  @IsOptional() @IsString() @CharLength(1, PERSON_NAME_MAX) name?: string;
  @IsOptional() @IsString() @IsEmail() @CharLength(EMAIL_MIN, EMAIL_MAX) email?: string;
  @IsOptional() @IsString() @CharLength(PHONE_MIN, PHONE_MAX) phone?: string;
  @IsOptional() @IsString() @CharLength(1, 200) company?: string;
  /** What the visitor wants, in their words: scored like the lead form's message, not stored. */
  @IsOptional() @IsString() @CharLength(1, 2000) message?: string;
}
