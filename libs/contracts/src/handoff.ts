import { IsArray, IsIn, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { SESSION_ID_MAX, WIDGET_SESSION_DESCRIPTION } from './chat';
import { WorkspaceParams } from './console';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, NotBlank } from './validation';

/*
 * Handoff (issue 19): sessions that asked for a person form a queue in the chat service; a person
 * of the workspace takes one over (the bot stays silent for it), replies (stored as messages of the
 * session, role `assistant`, author a person) and hands it back. NATS: chat.handoff.*.
 */

export const HANDOFF_STATES = ['requested', 'taken', 'released'] as const;
export type HandoffState = (typeof HANDOFF_STATES)[number];
export const HANDOFF_KINDS = ['explicit', 'detected'] as const;
export type HandoffKind = (typeof HANDOFF_KINDS)[number];

/** Longest reply a person sends (characters). */
export const HANDOFF_REPLY_MAX = 4000;
/** Longest label of a person (their display name or e-mail). */
export const PERSON_LABEL_MAX = 200;

/** The person acting (filled by the console from its session, never from a request body). */
export class HandoffPerson {
  @IsUUID('all') id: string;
  @IsString() @CharLength(1, PERSON_LABEL_MAX) label: string;
}

/** chat.handoff.queue: the sessions waiting for or held by a person (released ones only when asked). */
export class HandoffQueueRequest {
  @Doc('Also list sessions handed back (the last ones).') @IsOptional() @IsIn(['open', 'all']) include?: 'open' | 'all';
}

/** chat.handoff.get / chat.handoff.release: one session of the queue. */
export class HandoffSessionRequest {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
}

/** chat.handoff.take: 409 when another person holds it. */
export class HandoffTakeRequest extends HandoffSessionRequest {
  @Nested(() => HandoffPerson) person: HandoffPerson;
}

/** chat.handoff.release: hands the session back to the bot. */
export class HandoffReleaseRequest extends HandoffTakeRequest {}

/** chat.handoff.reply: the person holding the session writes to the visitor (409 unless they hold it). */
export class HandoffReplyRequest extends HandoffTakeRequest {
  @IsString() @CharLength(1, HANDOFF_REPLY_MAX) @NotBlank() text: string;
}

@Doc({ name: 'Handoff', description: 'A conversation that asked for a person. Names and the question are user text: render them as text.' })
export class HandoffView {
  @IsString() session_id: string;
  @Nullable() @IsUUID() chatbot_id: string | null;
  @Doc('`widget`, `api`, `mcp`, `email`, `whatsapp`, `telegram` or `slack`.') @IsString() channel: string;
  @Doc('`requested` (waiting), `taken` (a person answers; the bot is silent) or `released` (handed back).') @IsIn(HANDOFF_STATES) state: HandoffState;
  @Doc('`explicit` (the visitor asked) or `detected` (the model saw the need).') @IsIn(HANDOFF_KINDS) kind: HandoffKind;
  @Nullable() @IsString() reason: string | null;
  @Doc('The visitor message that asked for a person, when there was one.') @Nullable() @IsString() question: string | null;
  @IsISO8601() requested_at: string;
  @Nullable() @IsUUID() taken_by_id: string | null;
  @Nullable() @IsString() taken_by_label: string | null;
  @Nullable() @IsISO8601() taken_at: string | null;
  @Nullable() @IsISO8601() released_at: string | null;
}

@Doc({ name: 'HandoffMessage', description: 'One message of a handed-off conversation. A reply a person wrote has role `assistant` and `author_kind` `person`.' })
export class HandoffMessageView {
  @IsUUID() id: string;
  @IsIn(['user', 'assistant']) role: 'user' | 'assistant';
  @IsString() content: string;
  @Doc('`person` for a reply a person wrote; null for the visitor and the bot.') @Nullable() @IsIn(['person']) author_kind: 'person' | null;
  @Nullable() @IsString() author_label: string | null;
  @IsISO8601() created_at: string;
}

@Doc({ name: 'HandoffConversation', description: 'A handed-off conversation with its transcript (oldest first).' })
export class HandoffConversationView {
  @Nested(() => HandoffView) handoff: HandoffView;
  @IsArray() @Nested(() => HandoffMessageView) messages: HandoffMessageView[];
}

/** Path of the console's handoff routes. */
export class HandoffParams extends WorkspaceParams {
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
}

@Doc({ name: 'HandoffReplyRequest', description: 'Body of a reply to the visitor. Unknown members are rejected (400).' })
export class HandoffReplyBody {
  @Doc(`1 to ${HANDOFF_REPLY_MAX} characters, not only white space.`) @IsString() @CharLength(1, HANDOFF_REPLY_MAX) @NotBlank() text: string;
}

@Doc({ name: 'HandoffQueueQuery', description: 'Query of the handoff queue.' })
export class HandoffQueueQuery extends HandoffQueueRequest {}

// ---- The widget: a person's replies, live (POST /widget/v1/bots/{botId}/replies, long poll) ----

/** The body of the widget's long poll for a person's replies. */
@Doc({ name: 'WidgetRepliesRequest', description: 'Body of POST /bots/{botId}/replies. Unknown members are rejected (400).' })
export class WidgetRepliesBody {
  @Doc(WIDGET_SESSION_DESCRIPTION) @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @Doc('The `cursor` of the previous answer: only replies after it. Left out: the replies of the last minute.') @IsOptional() @IsISO8601({ strict: true }) after?: string;
}

/** chat.handoff.widget-replies: ctx.botIds = [chatbotId], as for the other widget requests. */
export class WidgetRepliesRequest extends WidgetRepliesBody {
  @IsUUID() chatbotId: string;
}

@Doc({ name: 'WidgetReply', description: "A reply a person wrote to the visitor. The label is the person's name: render it as text." })
export class WidgetReplyView {
  @IsUUID() id: string;
  @IsString() content: string;
  @Nullable() @IsString() author_label: string | null;
  @IsISO8601() created_at: string;
}

@Doc({ name: 'WidgetReplies', description: 'The handoff state of the session and the replies a person wrote after the cursor.' })
export class WidgetRepliesView {
  @Doc('`none` (no person asked for), `requested`, `taken` or `released`.') @IsIn(['none', ...HANDOFF_STATES]) state: HandoffState | 'none';
  @Nullable() @IsString() taken_by_label: string | null;
  @IsArray() @Nested(() => WidgetReplyView) replies: WidgetReplyView[];
  @Doc('Send it as `after` next time.') @IsISO8601() cursor: string;
}

/** The core NATS subject the chat service publishes on when a session's handoff changes (a reply, take, release); no payload that matters. */
export function handoffLiveSubject(tenantId: string, sessionId: string): string {
  const hex = Array.from(new TextEncoder().encode(sessionId), (b) => b.toString(16).padStart(2, '0')).join('');
  return `chat.handoff.live.${tenantId}.${hex}`;
}

/** console.handoff.notify (answered by the console): e-mail the owners and admins of the workspace. */
export class HandoffNotifyRequest {
  @IsUUID('all') workspaceId: string;
  /** The conversation.handoff event's id: a redelivered event is recorded once. */
  @IsOptional() @IsString() @CharLength(1, 100) eventId?: string;
  @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
  @IsOptional() @Nullable() @IsUUID() chatbotId?: string | null;
  @IsIn(HANDOFF_KINDS) kind: HandoffKind;
  @IsOptional() @Nullable() @IsString() @CharLength(0, 500) reason?: string | null;
  @IsOptional() @Nullable() @IsString() @CharLength(0, 4000) question?: string | null;
}

export interface HandoffNotifyReply {
  /** E-mails queued now (owners and admins inside their window get the next digest instead). */
  queued: number;
}
