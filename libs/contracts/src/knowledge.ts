import { IsArray, IsDefined, IsInt, IsOptional, IsString, IsUUID, Max, Min, ValidateIf } from 'class-validator';
import { CharLength, IsHttpUrl, NotBlank } from './validation';

export const KB_TITLE_MAX = 300;
export const KB_TEXT_MAX = 200_000;
export const KB_SOURCE_TYPES = ['url', 'file', 'qa', 'snippet'] as const;
export type KbSourceType = (typeof KB_SOURCE_TYPES)[number];
export const KB_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const;
export type KbStatus = (typeof KB_STATUSES)[number];

/** Body of POST /v1/kb/ingest (spec part 4) and request of knowledge.document.ingest. */
export class IngestKbRequest {
  @IsString() @CharLength(1, KB_TITLE_MAX) @NotBlank() title: string;
  /** An absolute http(s) URL; checked further (addresses, robots.txt) when it is fetched. */
  @ValidateIf((o: IngestKbRequest) => o.url !== undefined || o.text === undefined)
  @IsDefined({ message: 'one of url or text is required' })
  @IsHttpUrl()
  url?: string;
  @IsOptional() @IsString() @CharLength(1, KB_TEXT_MAX) text?: string;
  @IsOptional() @IsUUID() chatbotId?: string;
}

/** Query of GET /v1/kb and request of knowledge.document.list. */
export class ListKbRequest {
  @IsOptional() @IsUUID() chatbotId?: string;
}

/** KBDocument of spec part 2, plus failure_reason (ours: why a failed document failed). */
export interface KbDocumentView {
  id: string;
  title: string;
  source_url: string | null;
  source_type: KbSourceType;
  status: KbStatus;
  chunk_count: number;
  chatbot_id: string | null;
  created_at: string;
  failure_reason: string | null;
}

export interface KbIngestAccepted {
  id: string;
  status: KbStatus;
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
}
