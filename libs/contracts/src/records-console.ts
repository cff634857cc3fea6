import { Type } from 'class-transformer';
import { Equals, IsArray, IsDefined, IsIn, IsInt, IsISO8601, IsNumber, IsOptional, IsString, IsUUID, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { ActionCallRecordView } from './action-records';
import { CHAT_CHANNELS, ChatChannel, ChatMessageView, ListConversationsRequest, SESSION_ID_MAX } from './chat';
import { WorkspaceParams } from './console';
import { LEAD_STATUSES, LeadStatus, LeadView, SCORE_BANDS, ScoreBand } from './leads';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, IsTimeIdCursor } from './validation';

/*
 * Issue 19 (lb): the console's Conversations, Leads and Bookings pages. The NATS requests extend
 * the REST API's (GET /v1/conversations, GET /v1/leads keep their spec'd queries: these classes
 * are only what the console sends); lead status changes are recorded with who and when.
 */

export const LEAD_NOTE_MAX = 1000;
export const LEADS_PAGE_DEFAULT = 50;
/** Rows per leads.lead.list call while the console streams a CSV export (well under NATS's 1 MB). */
export const LEADS_EXPORT_PAGE = 200;

/** Who did something, as the caller's edge knows them (the console: the signed-in person). */
@Doc({ name: 'ChangeActor', description: 'Who made the change: a person of the workspace (id and e-mail).' })
export class ChangeActorView {
  @IsIn(['person']) kind: 'person';
  @IsUUID() id: string;
  @IsString() @CharLength(1, 320) label: string;
}

/** chat.conversation.list as the console calls it (and the query of GET …/conversations): the REST query plus a channel filter. */
export class ConsoleConversationsRequest extends ListConversationsRequest {
  @Doc('Only sessions of this channel.') @IsOptional() @IsIn(CHAT_CHANNELS) channel?: ChatChannel;
}

/** Query of GET …/leads/export (and, with paging, GET …/leads): the console's lead filters. */
export class ConsoleLeadsFilter {
  @Doc('Only leads of this bot.') @IsOptional() @IsUUID() chatbotId?: string;
  @Doc('Only leads of this score band.') @IsOptional() @IsIn(SCORE_BANDS) band?: ScoreBand;
  @Doc('Only leads scoring at least this (0 to 100).') @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(100) minScore?: number;
  @Doc('Only leads in this status.') @IsOptional() @IsIn(LEAD_STATUSES) status?: LeadStatus;
  @Doc('Only leads of this channel.') @IsOptional() @IsIn(CHAT_CHANNELS) channel?: ChatChannel;
}

/** leads.lead.list as the console calls it: GET /v1/leads's query (chatbotId) plus the filters, a session and keyset paging. */
export class ConsoleLeadsRequest extends ConsoleLeadsFilter {
  @Doc('Only the lead of this session.') @IsOptional() @IsString() @CharLength(1, SESSION_ID_MAX) sessionId?: string;
  @Doc('1 to 500; default 500 (the REST limit).') @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit?: number;
  @Doc('Only leads older than this one in the list order (keyset paging): the `created_at` of the last lead of the previous page.')
  @ValidateIf((o: ConsoleLeadsRequest) => o.beforeId !== undefined || o.beforeCreatedAt !== undefined)
  @IsDefined()
  @IsISO8601({ strict: true })
  beforeCreatedAt?: string;
  @Doc('With beforeCreatedAt: the `id` of the last lead of the previous page.')
  @ValidateIf((o: ConsoleLeadsRequest) => o.beforeId !== undefined || o.beforeCreatedAt !== undefined)
  @IsDefined()
  @IsUUID()
  beforeId?: string;
}

/** leads.lead.get / leads.lead.history. */
export class LeadIdRequest {
  @IsUUID() leadId: string;
}

/** leads.lead.update-status: the edge names the actor (never the public body). */
export class UpdateLeadStatusRequest {
  @IsUUID() leadId: string;
  @IsIn(LEAD_STATUSES) status: LeadStatus;
  @IsOptional() @IsString() @CharLength(0, LEAD_NOTE_MAX) note?: string;
  @IsDefined() @ValidateNested() @Type(() => ChangeActorView) actor: ChangeActorView;
}

@Doc({ name: 'LeadStatusChange', description: 'One change of a lead\'s status: from, to, who, when and the note given.' })
export class LeadStatusChangeView {
  @IsUUID() id: string;
  @IsUUID() lead_id: string;
  @IsIn(LEAD_STATUSES) from_status: LeadStatus;
  @IsIn(LEAD_STATUSES) to_status: LeadStatus;
  @Nullable() @IsString() note: string | null;
  @Nested(() => ChangeActorView) actor: ChangeActorView;
  @IsISO8601() created_at: string;
}

// ---------------------------------------------------------------------------------------------
// The console's routes (apps/console, /api/workspaces/{workspaceId}/…)

export class ConversationParams extends WorkspaceParams {
  @Doc('Session id.') @IsString() @CharLength(1, SESSION_ID_MAX) sessionId: string;
}

export class LeadParams extends WorkspaceParams {
  @IsUUID('all') leadId: string;
}

export class BookingParams extends WorkspaceParams {
  @IsUUID('all') bookingId: string;
}

/** Query of GET …/leads. */
export class ConsoleLeadsQuery extends ConsoleLeadsFilter {
  @Doc(`1 to 200; default ${LEADS_PAGE_DEFAULT}.`) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(200) limit?: number;
  @Doc('The `next` cursor of the previous page.') @IsOptional() @IsString() @Matches(/^[0-9TZ:.+-]{20,35}_[0-9a-fA-F-]{36}$/) @IsTimeIdCursor() cursor?: string;
}

/** Body of POST …/leads/{leadId}/status. */
export class ChangeLeadStatusBody {
  @Doc('The new status.') @IsIn(LEAD_STATUSES) status: LeadStatus;
  @Doc(`Why (at most ${LEAD_NOTE_MAX} characters).`) @IsOptional() @IsString() @CharLength(0, LEAD_NOTE_MAX) note?: string;
}

@Doc({ name: 'LeadPage', description: 'A page of leads, newest first, and the cursor of the next page (null on the last).' })
export class LeadPageView {
  @IsArray() @Nested(() => LeadView) data: LeadView[];
  @Nullable() @IsString() next: string | null;
}

@Doc({ name: 'LeadDetail', description: 'A lead with its status history (newest first) and its conversation.' })
export class LeadDetailView {
  @Nested(() => LeadView) lead: LeadView;
  @IsArray() @Nested(() => LeadStatusChangeView) history: LeadStatusChangeView[];
  @IsArray() @Nested(() => ChatMessageView) messages: ChatMessageView[];
}

/** Longest passage text kept with an answer (characters; issue 32, "Why this answer"). */
export const MESSAGE_PASSAGE_TEXT_MAX = 1000;

/** One passage an answer was given, as stored with the assistant message (issue 32, "Why this answer"). */
@Doc({ name: 'MessagePassage', description: 'A knowledge passage the bot was given for this answer, as it was when the answer was written.' })
export class MessagePassageView {
  @Doc('The knowledge document (it may have been deleted or re-synced since).') @IsUUID() document_id: string;
  @Doc("The document's title then, or null.") @Nullable() @IsString() title: string | null;
  @Doc('The chunk of the document (its id then; a re-sync replaces chunks), or null when not known.') @Nullable() @IsString() chunk: string | null;
  @Doc('Its retrieval score (higher is nearer to the question).') @IsNumber() score: number;
  @Doc(`The passage's text, clipped to ${MESSAGE_PASSAGE_TEXT_MAX} characters. Plain text: never render it as HTML.`) @IsString() text: string;
  @Doc("The document's source URL then, or null.") @Nullable() @IsString() source_url: string | null;
}

/**
 * A message of the console's transcript (chat.conversation.transcript): the public ChatMessage plus,
 * on the bot's answers, the passages it was given. Only owners and admins get it; the public API's
 * GET /v1/conversations/{sessionId} never carries `passages`.
 */
@Doc({ name: 'ConsoleChatMessage', description: 'One message of a conversation. Owners and admins also get the passages behind each bot answer.' })
export class ConsoleChatMessageView extends ChatMessageView {
  @Doc({
    description:
      "The bot's answers, for owners and admins only (members never get this member): the passages the bot was given, best first. " +
      'Null when none were recorded (answers stored before passages were kept) or when left out of a very long transcript (`passages_omitted`). ' +
      'Absent on the visitor\'s messages and on replies a person wrote.',
  })
  @IsOptional()
  @Nullable()
  @IsArray()
  @Nested(() => MessagePassageView)
  passages?: MessagePassageView[] | null;
  @Doc('True when this answer has passages that were left out to keep a very long transcript small (only the latest answers keep theirs).')
  @IsOptional()
  @Equals(true)
  passages_omitted?: true;
  @Doc({
    description:
      "The bot's answers, for owners and admins only (members never get this member): the calls of actions the bot made for this answer, oldest first " +
      '(issue 34), each with its input, what became of it, its HTTP status, duration and a result cut to 1000 characters. Header values are never in it. ' +
      "Absent on the visitor's messages.",
  })
  @IsOptional()
  @IsArray()
  @Nested(() => ActionCallRecordView)
  actions?: ActionCallRecordView[];
}

@Doc({ name: 'ConversationDetail', description: 'A session\'s messages (with sources and feedback) and its lead, if it became one.' })
export class ConversationDetailView {
  @IsString() session_id: string;
  @IsArray() @Nested(() => ConsoleChatMessageView) messages: ConsoleChatMessageView[];
  @Nullable() @Nested(() => LeadView) lead: LeadView | null;
}
