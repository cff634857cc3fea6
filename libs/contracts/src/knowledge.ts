import type { BehaviourSettings } from './behaviour';
import type { ModelConnectionSpec } from './models';
import { IsArray, IsDefined, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Max, Min, ValidateIf } from 'class-validator';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, IsHttpUrl, NotBlank } from './validation';

export const KB_TITLE_MAX = 300;
export const KB_TEXT_MAX = 200_000;
export const KB_SOURCE_TYPES = ['url', 'file', 'qa', 'snippet'] as const;
export type KbSourceType = (typeof KB_SOURCE_TYPES)[number];
export const KB_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const;
export type KbStatus = (typeof KB_STATUSES)[number];
/** How often a URL source is re-synced by the knowledge service's scheduler (issue 19). */
export const KB_RESYNC_SCHEDULES = ['none', 'daily', 'weekly'] as const;
export type KbResyncSchedule = (typeof KB_RESYNC_SCHEDULES)[number];
export const KB_QA_QUESTION_MAX = 300;
export const KB_QA_ANSWER_MAX = 4000;

/** The description of a chatbotId that filters a list (REST query, MCP argument). */
export const ONLY_THIS_BOT = 'Only this bot. A token restricted to specific bots must send an allowed chatbotId.';

/** Body of POST /v1/kb/ingest (spec part 4) and request of knowledge.document.ingest. */
@Doc({
  name: 'KbIngestRequest',
  description: 'Body of POST /kb/ingest. Unknown members are rejected (400). At least one of `url` or a non-empty `text` must be present; otherwise 400.',
  rules: { anyOf: [{ required: ['url'] }, { required: ['text'] }] },
})
export class IngestKbRequest {
  @Doc('Title of the document.') @IsString() @CharLength(1, KB_TITLE_MAX) @NotBlank() title: string;
  /** An absolute http(s) URL; checked further (addresses, robots.txt) when it is fetched. */
  @Doc('A page to crawl (http or https). One of `url` or `text` is required.')
  @ValidateIf((o: IngestKbRequest) => o.url !== undefined || o.text === undefined)
  @IsDefined({ message: 'one of url or text is required' })
  @IsHttpUrl()
  url?: string;
  @Doc('Raw text. One of `url` or `text` is required.') @IsOptional() @IsString() @CharLength(1, KB_TEXT_MAX) text?: string;
  @Doc('Target bot (default: the whole workspace). A token restricted to specific bots must send an allowed chatbotId.') @IsOptional() @IsUUID() chatbotId?: string;
}

/** Query of GET /v1/kb and request of knowledge.document.list. */
export class ListKbRequest {
  @Doc(ONLY_THIS_BOT) @IsOptional() @IsUUID() chatbotId?: string;
}

/** Issue 36: how far the crawl of a site or sitemap source is (its pages, by status). */
@Doc({ name: 'KBCrawlProgress', description: 'The pages found on a crawled source (site root or sitemap), by status.' })
export class KbPagesView {
  @Doc('Pages found (queued, processing, ready or failed).') @IsInt() @Min(0) found: number;
  @Doc('Pages ready (indexed).') @IsInt() @Min(0) ready: number;
  @Doc('Pages that failed (404, 500 after retries, timed out, refused by robots.txt, ...).') @IsInt() @Min(0) failed: number;
}

/** KBDocument of spec part 2, plus failure_reason (ours: why a failed document failed). */
@Doc({ name: 'KBDocument', description: 'A knowledge-base document. POST /kb/ingest creates it `queued`; poll GET /kb for its status.' })
export class KbDocumentView {
  @IsUUID() id: string;
  @IsString() title: string;
  @Nullable() @IsString() source_url: string | null;
  @IsIn(KB_SOURCE_TYPES) source_type: KbSourceType;
  @IsIn(KB_STATUSES) status: KbStatus;
  @IsInt() chunk_count: number;
  @Nullable() @IsUUID() chatbot_id: string | null;
  @IsISO8601() created_at: string;
  @Doc({
    description: 'Not in the spec (this implementation adds it; marked x-extension): why a `failed` document failed, in words a person can act on; null otherwise.',
    extension: true,
  })
  @Nullable()
  @IsString()
  failure_reason: string | null;
  // Issue 19 (kq): re-sync. Optional so every existing producer and reader stays valid.
  @Doc({ description: 'Not in the spec (x-extension): how often this URL source is re-synced (`none`, `daily`, `weekly`).', extension: true })
  @IsOptional()
  @IsIn(KB_RESYNC_SCHEDULES)
  resync_schedule?: KbResyncSchedule;
  @Doc({ description: 'Not in the spec (x-extension): when this document was last fetched and indexed (ready), or null.', extension: true })
  @IsOptional()
  @Nullable()
  @IsISO8601()
  last_synced_at?: string | null;
  @Doc({ description: 'Not in the spec (x-extension): when the scheduler re-syncs it next (null without a schedule).', extension: true })
  @IsOptional()
  @Nullable()
  @IsISO8601()
  next_sync_at?: string | null;
  @Doc({ description: 'Not in the spec (x-extension): the crawled source (site root or sitemap) this page was discovered from, or null.', extension: true })
  @IsOptional()
  @Nullable()
  @IsUUID()
  parent_id?: string | null;
  // Issue 36 (crawl progress): only on a URL source that pages were found on.
  @Doc({ description: 'Not in the spec (x-extension): on a crawled source (site root or sitemap) that pages were found on, how many, and how many are ready or failed; absent otherwise.', extension: true })
  @IsOptional()
  @Nested(() => KbPagesView)
  pages?: KbPagesView;
}

/**
 * knowledge.document.add-qa (issue 19): a question and its answer as one `qa` document (title =
 * question) holding one chunk "Q: …\nA: …", retrieved whole. Counts one page against the quota (402).
 */
export class AddKbQaRequest {
  @IsString() @CharLength(1, KB_QA_QUESTION_MAX) @NotBlank() question: string;
  @IsString() @CharLength(1, KB_QA_ANSWER_MAX) @NotBlank() answer: string;
  @IsOptional() @IsUUID() chatbotId?: string;
}

/** A document of the caller's workspace (404 otherwise; a bot-restricted caller only its bots' documents). */
export class KbDocumentIdRequest {
  @IsUUID() documentId: string;
}

/**
 * knowledge.document.resync (issue 19): re-fetch a URL source now (and the pages discovered from
 * it). 400 for a source that is not a URL, 409 while it is queued or processing.
 * Reply: the document, `queued`.
 */
export class ResyncKbRequest extends KbDocumentIdRequest {}

/** knowledge.document.schedule (issue 19): re-sync a URL source daily, weekly, or not (`none`). 400 for a non-URL source. */
export class ScheduleKbRequest extends KbDocumentIdRequest {
  @IsIn(KB_RESYNC_SCHEDULES) schedule: KbResyncSchedule;
}

/** The `data` of the 202 of POST /v1/kb/ingest: the spec shows `{id: string, status: string}`. */
@Doc({ description: 'The `data` of the 202 response of POST /kb/ingest.' })
export class KbIngestAccepted {
  @Doc('Identifier of the queued document (a uuid in this implementation).') @IsString() id: string;
  @Doc('The document status; `queued` on acceptance.') @IsString() status: KbStatus;
}

/** knowledge.passage.search: retrieval for chat. Without chatbotId, the whole workspace. */
export class SearchKnowledgeRequest {
  @IsString() @CharLength(1, 4000) query: string;
  @IsOptional() @ValidateIf((_o, v) => v !== null) @IsUUID() chatbotId?: string | null;
  @IsOptional() @IsInt() @Min(1) @Max(50) k?: number;
}

export interface PassageView {
  text: string;
  score: number;
  document_id: string;
  title: string | null;
  source_url: string | null;
  /** The chunk's id (issue 32, "Why this answer"); optional so older knowledge replies stay valid. */
  chunk_id?: string;
}

/** bots.bot.check: which of these ids are bots of the caller's workspace. */
export class CheckBotsRequest {
  @IsArray() @IsUUID('all', { each: true }) ids: string[];
}

export interface CheckBotsReply {
  found: string[];
}

/** bots.bot.describe: name and language of bots of the caller's workspace (unknown ids are left out). */
export interface BotSummary {
  id: string;
  name: string;
  language: string;
  /** The bot's behaviour (issue 32); bots.bot.describe always sets it. */
  behaviour?: BehaviourSettings;
  /** The bot's model (issue 32, "Models"): its connection (key sealed) and temperature; bots.bot.describe sets it, null members meaning the installation's. */
  model?: { connection: ModelConnectionSpec | null; temperature: number | null };
}
