import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { BLOB_STORE, type BlobStore, knowledgeFileKey } from '@sa/blob-storage';
import {
  AddKbQaRequest,
  IngestKbRequest,
  KbDocumentParams,
  KbDocumentView,
  KbIngestAccepted,
  ListKbRequest,
  ScheduleKbBody,
  UploadKbFileQuery,
  WorkspaceParams,
} from '@sa/contracts';
import { fileKindOf } from '@sa/doc-text';
import { dto } from '@sa/edge';
import { BadRequest } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { ApiConsoleErrors, ApiData, ApiEmpty, ApiList } from '../openapi/console-responses';

const FILE_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  markdown: 'text/markdown',
  text: 'text/plain',
  html: 'text/html',
};

/**
 * The knowledge base (issue 19): everyone reads the documents (status, chunks, why one failed);
 * owners and admins add URLs, text, files and Q&A pairs, delete documents, and re-sync URL
 * sources now or on a schedule. The knowledge service does it over NATS (knowledge.document.*),
 * within the workspace of the route; an uploaded file goes into blob storage first.
 */
@ApiTags('Knowledge')
@Controller('api/workspaces/:workspaceId/knowledge')
export class KnowledgeController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listKnowledge', summary: 'List knowledge documents', description: 'Newest first (the documents added before the pages found on crawled sites), with status, chunk count and why a failed one failed; a crawled source with its pages found, ready and failed (`pages`). `chatbotId`: only that bot\'s documents.' })
  @ApiList('The documents.', KbDocumentView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ListKbRequest, 'query')) query: ListKbRequest,
  ): Promise<{ data: KbDocumentView[] }> {
    return { data: await this.rpc.send('knowledge.document.list', query, workspaceOf(caller).ctx) };
  }

  @Post()
  @HttpCode(202)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'addKnowledge', summary: 'Add a URL or text', description: 'As POST /v1/kb/ingest: a page to crawl (a site root also queues its pages) or raw text; queued for the worker. The page quota is checked first (402).' })
  @ApiData(202, 'The queued document.', KbIngestAccepted)
  @ApiConsoleErrors(400, 401, 402, 403, 404, 503)
  async add(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(IngestKbRequest, 'body')) body: IngestKbRequest,
  ): Promise<{ data: KbIngestAccepted }> {
    const accepted = await this.rpc.send('knowledge.document.ingest', body, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'knowledge.added', 'document', accepted.id, { title: body.title, url: body.url ?? null, chatbot_id: body.chatbotId ?? null, kind: body.url !== undefined ? 'url' : 'snippet' });
    return { data: accepted };
  }

  @Post('files')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiConsumes('application/octet-stream')
  @ApiBody({ description: 'The file\'s bytes (PDF, DOCX, Markdown, plain text or HTML), at most KB_FILE_MAX_BYTES.', schema: { type: 'string', format: 'binary' } })
  @ApiOperation({
    operationId: 'uploadKnowledgeFile',
    summary: 'Upload a file',
    description: 'The body is the file (Content-Type application/octet-stream); its name decides how it is read. It is stored, then queued as a `file` document; the worker extracts its text. An unsupported type is 400 at once; an unreadable file fails with its reason. The page quota is checked first (402).',
  })
  @ApiData(201, 'The queued document.', KbDocumentView)
  @ApiConsoleErrors(400, 401, 402, 403, 404, 503)
  async upload(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(UploadKbFileQuery, 'query')) query: UploadKbFileQuery,
    @Req() req: FastifyRequest,
  ): Promise<{ data: KbDocumentView }> {
    const bytes = req.body;
    if (!Buffer.isBuffer(bytes) || bytes.length === 0) throw new BadRequest('Send the file as the request body with Content-Type application/octet-stream');
    const kind = fileKindOf({ fileName: query.fileName, bytes });
    const { ctx } = workspaceOf(caller);
    const storageKey = knowledgeFileKey(ctx.tenantId);
    await this.blobs.put(storageKey, bytes, FILE_TYPES[kind]);
    let doc: KbDocumentView;
    try {
      doc = await this.rpc.send('knowledge.document.add-file', { storageKey, fileName: query.fileName, contentType: FILE_TYPES[kind], size: bytes.length, title: query.title, chatbotId: query.chatbotId }, ctx);
    } catch (err) {
      await this.blobs.delete(storageKey).catch(() => undefined);
      throw err;
    }
    await this.audit.record(caller, 'knowledge.file_uploaded', 'document', doc.id, { title: doc.title, file_name: query.fileName, kind, bytes: bytes.length, chatbot_id: doc.chatbot_id });
    return { data: doc };
  }

  @Post('qa')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'addKnowledgeQa', summary: 'Add a Q&A pair', description: 'A question and its answer as a `qa` document, retrieved as a whole answer. Counts one page (402 when the quota is used up).' })
  @ApiData(201, 'The document.', KbDocumentView)
  @ApiConsoleErrors(400, 401, 402, 403, 404, 503)
  async addQa(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(AddKbQaRequest, 'body')) body: AddKbQaRequest,
  ): Promise<{ data: KbDocumentView }> {
    const doc = await this.rpc.send('knowledge.document.add-qa', body, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'knowledge.qa_added', 'document', doc.id, { question: body.question, chatbot_id: doc.chatbot_id });
    return { data: doc };
  }

  @Delete(':documentId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'deleteKnowledge', summary: 'Delete a document', description: 'Its chunks leave the vector store, its file leaves storage, its page returns to the quota. A crawled site goes with the pages found on it.' })
  @ApiEmpty(204, 'Deleted.')
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async delete(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(KbDocumentParams, 'path')) params: KbDocumentParams): Promise<void> {
    await this.rpc.send('knowledge.document.delete', { documentId: params.documentId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'knowledge.deleted', 'document', params.documentId);
  }

  @Post(':documentId/resync')
  @HttpCode(202)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'resyncKnowledge', summary: 'Re-sync a URL source now', description: 'Fetches the source (and the pages found on it) again: unchanged pages are not re-embedded, changed ones replace their chunks, vanished ones are removed. 400 for a source that is not a URL, 409 while it is queued or processing.' })
  @ApiData(202, 'The document, queued.', KbDocumentView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async resync(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(KbDocumentParams, 'path')) params: KbDocumentParams): Promise<{ data: KbDocumentView }> {
    const doc = await this.rpc.send('knowledge.document.resync', { documentId: params.documentId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'knowledge.resynced', 'document', params.documentId);
    return { data: doc };
  }

  @Put(':documentId/schedule')
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'scheduleKnowledge', summary: 'Re-sync a URL source on a schedule', description: '`daily`, `weekly` or `none`. 400 for a source that is not a URL.' })
  @ApiData(200, 'The document.', KbDocumentView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async schedule(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(KbDocumentParams, 'path')) params: KbDocumentParams,
    @Body(dto(ScheduleKbBody, 'body')) body: ScheduleKbBody,
  ): Promise<{ data: KbDocumentView }> {
    const doc = await this.rpc.send('knowledge.document.schedule', { documentId: params.documentId, schedule: body.schedule }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'knowledge.scheduled', 'document', params.documentId, { schedule: body.schedule });
    return { data: doc };
  }
}
