import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { CharLength, IsLanguageTag, NotBlank, toInt } from './validation';

export const CHAT_MESSAGE_MAX = 2000;
export const SESSION_ID_MAX = 120;
export const CHAT_CHANNELS = ['api', 'widget', 'mcp'] as const;
export type ChatChannel = (typeof CHAT_CHANNELS)[number];

/** Body of POST /v1/chat (spec part 4). */
export class ChatRequest {
  @IsString() @CharLength(1, CHAT_MESSAGE_MAX) @NotBlank() message: string;
  @IsOptional() @IsUUID() chatbotId?: string;
  @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) sessionId?: string;
  @IsOptional() @IsString() @IsLanguageTag() language?: string;
}

/**
 * chat.turn.start: begins one chat turn. Its reply (ChatTurnStarted) comes once the turn is
 * accepted (quota counted, bot and session checked); the answer then streams as ChatStreamEvent
 * messages on `streamSubject`, which the caller subscribed to before sending.
 */
export class ChatTurnRequest extends ChatRequest {
  @IsString() @MaxLength(200) @Matches(/^[A-Za-z0-9_.-]+$/) streamSubject: string;
  @IsUUID() turnId: string;
  @IsIn(CHAT_CHANNELS) channel: ChatChannel;
}

export interface ChatTurnStarted {
  turn_id: string;
  session_id: string;
  chatbot_id: string | null;
  language: string;
}

/**
 * What streams on a turn's subject, in order: deltas, then exactly one end or error, sent once the
 * turn's save has succeeded or failed. `end`: the answer is complete and stored. `error`: the
 * answer broke off; `stored` says whether the turn (what was produced) was stored and counted
 * against the quota, or neither (a failed save gives the reserved message back).
 */
export type ChatStreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'end'; assistant_message_id: string; unanswered: boolean; source_urls: string[] }
  | { type: 'error'; code: string; message: string; stored: boolean };

/** chat.turn.cancel (published, not requested): the client went away; stop generating. */
export interface ChatTurnCancel {
  turn_id: string;
}

export const CHAT_CANCEL_SUBJECT = 'chat.turn.cancel';

/** Query of GET /v1/conversations and request of chat.conversation.list. */
export class ListConversationsRequest {
  @IsOptional() @IsString() @CharLength(0, 200) q?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) limit?: number;
  @IsOptional() @IsUUID() chatbotId?: string;
}

/** chat.conversation.messages: the messages of one session. */
export class ConversationMessagesRequest {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
}

/** Query of GET /v1/analytics and request of chat.analytics.summary. */
export class AnalyticsRequest {
  @IsOptional() @IsUUID() chatbotId?: string;
}

/** Conversation (session summary), spec part 2. */
export interface ConversationView {
  session_id: string;
  message_count: number;
  first_at: string;
  last_at: string;
  preview: string | null;
  channel: string;
}

/** ChatMessage, spec part 2. */
export interface ChatMessageView {
  id: string;
  tenant_id: string;
  chatbot_id: string | null;
  session_id: string;
  role: 'user' | 'assistant';
  content: string;
  feedback: 'positive' | 'negative' | null;
  source_urls: string[] | null;
  channel: string;
  provider_message_id: string | null;
  created_at: string;
}

/** Analytics, spec part 2 (all five members). */
export interface AnalyticsView {
  daily: { day: string; user_messages: number; assistant_messages: number }[];
  top_questions: { question: string; times: number }[];
  unanswered: { count: number; total: number; rate: number };
  feedback: { positive: number; negative: number };
  sessions: { total: number; avg_messages: number };
}
