import { IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsNumber, IsObject, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { QUESTIONS_DAYS_DEFAULT, QUESTIONS_DAYS_MAX } from './analytics';
import { SESSION_ID_MAX } from './chat';
import { ONLY_THIS_BOT } from './knowledge';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength } from './validation';

/*
 * The records of actions (issue 34, item 5): every call the model made in a turn is stored with the
 * turn's assistant message (chat.action_calls). The console reads them back: in a conversation's
 * transcript, for owners and admins only (chat.conversation.action-calls), and counted per action on
 * the Analytics page (chat.analytics.actions). No header value is ever in a record: values never
 * leave the call, and executeAction cuts them out of the result before it is stored.
 */

/** Where the called tool came from: a custom action, a built-in one, a remote MCP server's tool. */
export const ACTION_RECORD_SOURCES = ['custom', 'builtin', 'mcp'] as const;
export type ActionRecordSource = (typeof ACTION_RECORD_SOURCES)[number];
/** What became of a call: it ran (ok or not), was refused before running, waits for the visitor, or was cancelled. */
export const ACTION_RECORD_STATES = ['ran', 'refused', 'awaiting_confirmation', 'cancelled'] as const;
export type ActionRecordState = (typeof ACTION_RECORD_STATES)[number];
/** Longest stored result (characters); the table's CHECK says the same. */
export const ACTION_RECORD_RESULT_MAX = 1000;
/** Most calls a transcript carries (the latest ones): a session with more is rare and the page stays small. */
export const ACTION_RECORDS_PER_TRANSCRIPT_MAX = 500;

@Doc({ name: 'ActionCallRecord', description: 'One call of an action the bot made in this answer, as it was recorded. Header values are never in it.' })
export class ActionCallRecordView {
  @IsUUID() id: string;
  @Doc('The tool name the model called (user text: render it as text).') @IsString() name: string;
  @Doc('custom: an action of the bot; builtin: a built-in action; mcp: a tool of a remote MCP server.') @IsIn(ACTION_RECORD_SOURCES) source: ActionRecordSource;
  @Doc('ran: it was sent (see `ok`); refused: it never ran (not offered, over the limit, needs a verified visitor, bad input); awaiting_confirmation: waiting for the visitor; cancelled: the visitor said no.')
  @IsIn(ACTION_RECORD_STATES)
  state: ActionRecordState;
  @Doc('Whether the endpoint answered 2xx; null when it did not run.') @Nullable() @IsBoolean() ok: boolean | null;
  @Doc("The endpoint's HTTP status; null when none came.") @Nullable() @IsInt() http_status: number | null;
  @Doc('What went wrong (e.g. timeout, blocked, http_error, or why it was refused); null when nothing did.') @Nullable() @IsString() error: string | null;
  @IsInt() duration_ms: number;
  @Doc(`The response as the model got it, cut to ${ACTION_RECORD_RESULT_MAX} characters. Plain text: never render it as HTML.`) @IsString() result: string;
  @Doc("The input the call was made with (the model's, with the verified visitor's id where the action asks for it).") @IsObject() input: Record<string, unknown>;
  @IsISO8601() created_at: string;
}

/** One recorded call with the assistant message it belongs to (chat.conversation.action-calls). */
export interface SessionActionCall extends ActionCallRecordView {
  message_id: string;
}

/** chat.conversation.action-calls: the recorded calls of one session's answers. */
export class SessionActionCallsRequest {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
}

/** chat.analytics.actions. */
export class ActionCountsRequest {
  @Doc(ONLY_THIS_BOT) @IsOptional() @IsUUID() chatbotId?: string;
  @Doc(`Window length in days, today (UTC) included: 1 to ${QUESTIONS_DAYS_MAX}, default ${QUESTIONS_DAYS_DEFAULT}.`)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(QUESTIONS_DAYS_MAX)
  days?: number;
}

@Doc({ name: 'ActionCount', description: 'The calls of one action (by name and source) in the window.' })
export class ActionCountView {
  @Doc('The tool name (user text: render it as text).') @IsString() name: string;
  @IsIn(ACTION_RECORD_SOURCES) source: ActionRecordSource;
  @Doc('Every recorded call, whatever became of it.') @IsInt() calls: number;
  @Doc('Ran and the endpoint answered 2xx.') @IsInt() succeeded: number;
  @Doc('Ran and failed (an HTTP error, a timeout, blocked, unreachable …).') @IsInt() failed: number;
  @Doc('Refused before running.') @IsInt() refused: number;
  @Doc('Cancelled by the visitor.') @IsInt() cancelled: number;
  @Doc('Still waiting for the visitor (or left waiting).') @IsInt() awaiting: number;
  @Doc('Average duration of the calls that ran, in milliseconds (rounded); null when none ran.') @Nullable() @IsNumber() avg_duration_ms: number | null;
  @IsISO8601() last_called_at: string;
}

@Doc({ name: 'ActionCounts', description: 'Calls per action over the window, most called first.' })
export class ActionCountsView {
  @IsInt() days: number;
  @IsArray() @Nested(() => ActionCountView) actions: ActionCountView[];
}
