import { IsIn, IsInt, IsOptional, IsString, IsUUID, Matches, Min } from 'class-validator';
import { Doc } from './schema-docs';
import { CharLength, NotBlank } from './validation';
import { KB_RESYNC_SCHEDULES, KB_TITLE_MAX, type KbResyncSchedule } from './knowledge';
import { WorkspaceParams } from './console';

/** Longest file name kept (the title defaults to it). */
export const KB_FILE_NAME_MAX = 255;

/**
 * knowledge.document.add-file (issue 19): a file the caller already put into blob storage
 * (`kb/<workspace>/<uuid>`, see libs/blob-storage) becomes a `file` document, queued; the
 * knowledge worker reads it, extracts its text (libs/doc-text) and embeds it. The page quota is
 * checked first (402). A key outside the caller's workspace is refused (400). Reply: the document.
 */
export class AddKbFileRequest {
  @Matches(/^kb\/[0-9a-f-]{36}\/[0-9a-f-]{36}$/, { message: 'storageKey must be a knowledge file key (kb/<workspace>/<uuid>)' }) storageKey: string;
  @IsString() @CharLength(1, KB_FILE_NAME_MAX) @NotBlank() fileName: string;
  @IsString() @CharLength(1, 255) contentType: string;
  @IsInt() @Min(1) size: number;
  /** Defaults to the file's name. */
  @IsOptional() @IsString() @CharLength(1, KB_TITLE_MAX) @NotBlank() title?: string;
  @IsOptional() @IsUUID() chatbotId?: string;
}

/** Reply of knowledge.document.delete. */
export interface KbDocumentDeleted {
  id: string;
  deleted: true;
}

/** Query of the console's upload route (the body is the file's bytes). */
@Doc({ description: 'The upload of a file to the knowledge base: its bytes are the request body (Content-Type application/octet-stream); these describe it.' })
export class UploadKbFileQuery {
  @Doc("The file's name; its extension decides how it is read (.pdf, .docx, .md, .markdown, .txt, .html, .htm).") @IsString() @CharLength(1, KB_FILE_NAME_MAX) @NotBlank() fileName: string;
  @Doc('Title of the document (default: the file name).') @IsOptional() @IsString() @CharLength(1, KB_TITLE_MAX) @NotBlank() title?: string;
  @Doc('Target bot (default: the whole workspace).') @IsOptional() @IsUUID() chatbotId?: string;
}

/** Path of the console's routes of one knowledge document. */
export class KbDocumentParams extends WorkspaceParams {
  @IsUUID('all') documentId: string;
}

/** Body of the console's schedule route. */
@Doc({ description: 'How often the URL source is re-synced.' })
export class ScheduleKbBody {
  @Doc('`none`, `daily` or `weekly`.') @IsIn(KB_RESYNC_SCHEDULES) schedule: KbResyncSchedule;
}

