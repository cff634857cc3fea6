import { Transform } from 'class-transformer';
import { ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsNumber, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { ONLY_THIS_BOT } from './knowledge';
import { PlaygroundOptions, type TurnDiagnostics } from './playground';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, IsCalendarDate, IsLanguageTag, NotBlank, toInt } from './validation';

export const CHAT_MESSAGE_MAX = 2000;
export const SESSION_ID_MAX = 120;
/** Where a turn came from: the spec's channel member. email, whatsapp, telegram and slack are the channels service's (issue 35). */
export const CHAT_CHANNELS = ['api', 'widget', 'mcp', 'console', 'email', 'whatsapp', 'telegram', 'slack'] as const;
export type ChatChannel = (typeof CHAT_CHANNELS)[number];
export const MESSAGE_ROLES = ['user', 'assistant'] as const;
export const FEEDBACK_VALUES = ['positive', 'negative'] as const;
export type Feedback = (typeof FEEDBACK_VALUES)[number];
/** How the last frame of a chat stream says it ended (ours; the spec shows no end marker). */
export const FINISH_REASONS = ['stop', 'error'] as const;

/** What a widget call's sessionId is (the visitor widget API). */
export const WIDGET_SESSION_DESCRIPTION =
  'The visitor session, minted by the server (POST /bots/{botId}/sessions, or the X-Session-Id of a chat started without one). ' +
  'Any other id, or a session of another bot, is refused with 403 `session_forbidden`.';

/** The list queries' `limit` (spec part 8: lists are bounded), and the defaults when it is omitted. */
export const LIST_LIMIT_MAX = 200;
export const CONVERSATIONS_LIMIT_DEFAULT = 50;
export const CONVERSATION_QUERY_MAX = 200;

/** Reply languages the spec names (part 4); any BCP 47 code is accepted. */
export const CHAT_LANGUAGES = ['en-IN', 'ja-JP', 'ko-KR', 'zh-CN', 'ms-MY', 'id-ID', 'th-TH', 'vi-VN', 'fil-PH', 'ar-AE', 'hi-IN', 'ta-IN', 'sw-KE', 'ha-NG', 'yo-NG'];

/**
 * The visitor's decision on an action the bot's last answer waits on (issue 34): sent with the
 * next message (its text, e.g. the button's label, is stored as the visitor's message).
 */
@Doc({ name: 'ActionConfirmation', description: "The visitor's decision on the action the session's last answer waits on (an `action` frame with state `awaiting_confirmation`). Unknown members are rejected (400)." })
export class ActionConfirmation {
  @Doc('The `call_id` of the waiting action frame. Another id (or none waiting) is refused with 409 `conflict`.') @IsString() @CharLength(1, 200) call_id: string;
  @Doc('true: run it; false: cancel it (it does not run).') @IsBoolean() confirm: boolean;
}

/** Body of POST /v1/chat (spec part 4). */
/** The members of a chat message the spec fixes (part 4): POST /v1/chat's, and MCP ask_bot's input. */
@Doc({ name: 'AskBotRequest', description: 'A message to a bot. Unknown members are rejected (400).' })
export class ChatMessageRequest {
  @Doc("The visitor's question or message.") @IsString() @CharLength(1, CHAT_MESSAGE_MAX) @NotBlank() message: string;
  @Doc('Required for bot-restricted tokens. The bot chosen when an unrestricted token omits it is not specified.') @IsOptional() @IsUUID() chatbotId?: string;
  @Doc('A stable id that groups turns into one conversation.') @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) sessionId?: string;
  @Doc({
    description:
      "Reply language code. When omitted the bot's default is used, and the bot still matches the language the user writes in. " +
      `Accepted codes include ${CHAT_LANGUAGES.join(', ')}.`,
    examples: CHAT_LANGUAGES,
  })
  @IsOptional()
  @IsString()
  @IsLanguageTag()
  language?: string;
}

/**
 * Body of POST /v1/chat: the spec's members and ours, additive (issue 34: the visitor's decision on
 * an action; the MCP server's ask_bot, which shows no action frames, keeps the spec's members).
 */
@Doc({ description: 'Body of POST /chat. Unknown members are rejected (400).' })
export class ChatRequest extends ChatMessageRequest {
  @Doc("Ours (issue 34): confirms or cancels the action the session's last answer waits on (an `action` frame with state `awaiting_confirmation`). Needs `sessionId`.")
  @IsOptional()
  @Nested(() => ActionConfirmation)
  action_confirmation?: ActionConfirmation;
}

export const PROVIDER_MESSAGE_ID_MAX = 500;

/** The sender of a channel's message (issue 35). */
export class TurnContact {
  @IsOptional() @Nullable() @IsString() @MaxLength(200) name?: string | null;
  @IsOptional() @Nullable() @IsString() @MaxLength(320) email?: string | null;
  @IsOptional() @Nullable() @IsString() @MaxLength(40) phone?: string | null;
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
  /** A playground turn (console, issue 32): answered from this history, stored and counted nowhere. */
  @IsOptional() @Nested(() => PlaygroundOptions) playground?: PlaygroundOptions;
  /**
   * Issue 35, a channel's turn: the provider's id of the visitor's message, stored as its
   * provider_message_id. A turn whose message is stored already (a redelivery) is not answered
   * again: the stored reply streams back.
   */
  @IsOptional() @IsString() @CharLength(1, PROVIDER_MESSAGE_ID_MAX) provider_message_id?: string;
  /** Issue 35: the sender as the channel knows them (a lead's contact). */
  @IsOptional() @Nested(() => TurnContact) contact?: TurnContact;
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
  | { type: 'end'; assistant_message_id: string; unanswered: boolean; source_urls: string[]; diagnostics?: TurnDiagnostics }
  | { type: 'error'; code: string; message: string; stored: boolean }
  /** Issue 19: a person holds the session (handoff taken); the visitor's message was stored, the bot does not answer. */
  | { type: 'held'; user_message_id: string; taken_by: string }
  /** Issue 34: an action of the turn starts, ends, is refused, or waits for the visitor. Any number, before the end. */
  | { type: 'action'; action: ActionFrame };

/**
 * Issue 36: on the turn's subject, besides the events, the chat replica working on the turn sends
 * this sign every RPC_LIVENESS_MS from the start of the turn to its end, so an edge can tell a
 * replica that died (silence) from a model that is slow (signs, no text). Never shown to anyone.
 */
export const CHAT_STREAM_ALIVE = 'alive';
export type ChatStreamSign = { type: typeof CHAT_STREAM_ALIVE };

/** What an `action` frame can say about a call. */
export const ACTION_FRAME_STATES = ['running', 'done', 'failed', 'refused', 'awaiting_confirmation', 'cancelled'] as const;
export type ActionFrameState = (typeof ACTION_FRAME_STATES)[number];

/**
 * An action of a turn, as the stream shows it (issue 34). The SSE frames of /v1/chat and the widget
 * carry it as an additive `action` member beside `choices` (whose delta.content is then ''):
 * `running` while it runs (the widget's status line), then `done`, `failed` or `refused`;
 * `awaiting_confirmation` as the answer's last action when the visitor has to confirm it (the
 * widget's confirm/cancel card; the answer then ends), `cancelled` when the visitor said no.
 */
export interface ActionFrame {
  /** The call's id; an awaiting call is confirmed or cancelled with it (action_confirmation). */
  call_id: string;
  /** The action's name (a tool name). */
  name: string;
  /** For people, in the reply's language: the action's status text ("Checking your order…") or a generic one. */
  label: string;
  state: ActionFrameState;
  /** awaiting_confirmation only: the input the call will send (the verified visitor's id left out). */
  input?: Record<string, unknown>;
}

/** chat.turn.cancel (published, not requested): the client went away; stop generating. */
export interface ChatTurnCancel {
  turn_id: string;
}

export const CHAT_CANCEL_SUBJECT = 'chat.turn.cancel';

/** The `limit` of a list query: at most LIST_LIMIT_MAX, `fallback` when omitted. */
export const listLimitDescription = (fallback: number) => `Maximum number of items, 1 to ${LIST_LIMIT_MAX} (default ${fallback}).`;

/** The `limit` query member of a list route: an integer from 1 to LIST_LIMIT_MAX, `fallback` when left out. */
export function ListLimit(fallback: number): PropertyDecorator {
  const rules = [Doc({ description: listLimitDescription(fallback), default: fallback }), IsOptional(), Transform(toInt), IsInt(), Min(1), Max(LIST_LIMIT_MAX)];
  return (target, key) => {
    for (const rule of [...rules].reverse()) rule(target, key);
  };
}

/** Query of GET /v1/conversations and request of chat.conversation.list. */
export class ListConversationsRequest {
  @Doc(`Search text matched against the messages, at most ${CONVERSATION_QUERY_MAX} characters.`) @IsOptional() @IsString() @CharLength(0, CONVERSATION_QUERY_MAX) q?: string;
  @ListLimit(CONVERSATIONS_LIMIT_DEFAULT) limit?: number;
  @Doc('Only sessions of this bot.') @IsOptional() @IsUUID() chatbotId?: string;
}

/** chat.conversation.messages: the messages of one session. */
export class ConversationMessagesRequest {
  @Doc('Session id.') @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
}

/** Query of GET /v1/analytics and request of chat.analytics.summary. */
export class AnalyticsRequest {
  @Doc(ONLY_THIS_BOT) @IsOptional() @IsUUID() chatbotId?: string;
}

const NOT_SHOWN = 'Values and format: not shown by the spec.';

/** Conversation (session summary), spec part 2. */
@Doc({ name: 'Conversation', description: 'A conversation session summary.' })
export class ConversationView {
  @IsString() session_id: string;
  @IsInt() message_count: number;
  @IsISO8601() first_at: string;
  @IsISO8601() last_at: string;
  @Nullable() @IsString() preview: string | null;
  @Doc(NOT_SHOWN) @IsString() channel: string;
}

/** ChatMessage, spec part 2. */
@Doc({ name: 'ChatMessage', description: 'One message of a conversation.' })
export class ChatMessageView {
  @IsUUID() id: string;
  @IsUUID() tenant_id: string;
  @Nullable() @IsUUID() chatbot_id: string | null;
  @IsString() session_id: string;
  @IsIn(MESSAGE_ROLES) role: 'user' | 'assistant';
  @IsString() content: string;
  @Nullable() @IsIn(FEEDBACK_VALUES) feedback: Feedback | null;
  @Nullable() @IsArray() @IsString({ each: true }) source_urls: string[] | null;
  @Doc(NOT_SHOWN) @IsString() channel: string;
  @Nullable() @IsString() provider_message_id: string | null;
  @IsISO8601() created_at: string;
}

@Doc({ name: 'AnalyticsDay' })
export class AnalyticsDay {
  @Doc('YYYY-MM-DD') @IsCalendarDate() day: string;
  @IsInt() user_messages: number;
  @IsInt() assistant_messages: number;
}

@Doc({ name: 'AnalyticsQuestion' })
export class AnalyticsQuestion {
  @IsString() question: string;
  @IsInt() times: number;
}

@Doc({ name: 'AnalyticsUnanswered' })
export class AnalyticsUnanswered {
  @IsInt() count: number;
  @IsInt() total: number;
  @Doc('A percentage from 0 to 100, rounded to one decimal place.') @IsNumber() @Min(0) @Max(100) rate: number;
}

@Doc({ name: 'AnalyticsFeedback' })
export class AnalyticsFeedback {
  @IsInt() positive: number;
  @IsInt() negative: number;
}

@Doc({ name: 'AnalyticsSessions' })
export class AnalyticsSessions {
  @IsInt() total: number;
  @IsNumber() avg_messages: number;
}

/** Analytics, spec part 2 (all five members). */
@Doc({ name: 'Analytics', description: 'A summary of the last 30 days. All five members are always present.' })
export class AnalyticsView {
  @Doc('Messages per day.') @IsArray() @Nested(() => AnalyticsDay) daily: AnalyticsDay[];
  @IsArray() @Nested(() => AnalyticsQuestion) top_questions: AnalyticsQuestion[];
  @Nested(() => AnalyticsUnanswered) unanswered: AnalyticsUnanswered;
  @Nested(() => AnalyticsFeedback) feedback: AnalyticsFeedback;
  @Nested(() => AnalyticsSessions) sessions: AnalyticsSessions;
}

/*
 * The JSON of one `data: <json>` frame of a chat answer's event stream (POST /v1/chat and the
 * widget's chat), written by the gateway's chat streamer.
 */

@Doc({ name: 'ChatChunkDelta' })
export class ChatChunkDelta {
  @Doc('A fragment of the reply; an empty string in the last frame.') @IsString() content: string;
}

@Doc({ name: 'ChatChunkChoice' })
export class ChatChunkChoice {
  @Doc({ description: 'Not in the spec (this implementation adds it; marked x-extension): always 0, as in OpenAI chunks.', extension: true }) @IsOptional() @IsInt() index?: number;
  @Nested(() => ChatChunkDelta) delta: ChatChunkDelta;
  @Doc({
    description:
      'Not in the spec (this implementation adds it; marked x-extension). null in every frame but the last; the last frame says how the ' +
      'stream ended: `stop` (the answer is complete and stored) or `error` (it broke off; see `error`).',
    extension: true,
  })
  @IsOptional()
  @Nullable()
  @IsIn(FINISH_REASONS)
  finish_reason?: (typeof FINISH_REASONS)[number] | null;
}

@Doc({ name: 'ChatChunkError' })
export class ChatChunkError {
  @Doc('Machine code, for example `internal_error` (the answer could not be saved, so it was not counted) or `service_unavailable`.') @IsString() code: string;
  @Doc('What happened, in words a person can read.') @IsString() message: string;
}

@Doc({
  name: 'ChatChunk',
  description: 'The JSON of one `data: <json>` frame of the POST /chat event stream; `choices[0].delta.content` is a string fragment of the reply, in every frame.',
})
export class ChatChunk {
  @IsArray() @ArrayMinSize(1) @Nested(() => ChatChunkChoice) choices: ChatChunkChoice[];
  @Doc({ description: 'Not in the spec (this implementation adds it; marked x-extension). Only in a last frame whose finish_reason is `error`.', extension: true })
  @IsOptional()
  @Nested(() => ChatChunkError)
  error?: ChatChunkError;
}
