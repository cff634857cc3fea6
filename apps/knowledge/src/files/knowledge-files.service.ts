import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { BLOB_STORE, type BlobStore, isKnowledgeFileKeyOf } from '@sa/blob-storage';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { AddKbFileRequest, CallerContext, KbDocumentDeleted, KbDocumentIdRequest, KbDocumentView } from '@sa/contracts';
import { BadRequest, NotFound } from '@sa/errors';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { DocumentsRepository, toDocumentView } from '../documents/documents.repository';
import { DocumentsService } from '../documents/documents.service';
import { EvalChangePublisher } from '../documents/eval-change.publisher';
import { KNOWLEDGE_LOGGER } from '../knowledge.tokens';
import { VECTOR_STORE, type VectorStore } from '../vector-store/vector-store.port';
import { KnowledgeFilesRepository } from './knowledge-files.repository';

/**
 * Uploaded files become `file` documents (the worker extracts and embeds them); any document can
 * be deleted: its chunks leave the vector store, its file leaves blob storage, its row goes (so
 * its page returns to the quota). A crawled site goes with the pages discovered from it.
 */
@Injectable()
export class KnowledgeFilesService {
  constructor(
    private readonly files: KnowledgeFilesRepository,
    private readonly documents: DocumentsRepository,
    private readonly documentsService: DocumentsService,
    @Inject(VECTOR_STORE) private readonly store: VectorStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(KNOWLEDGE_CONFIG) private readonly config: KnowledgeConfig,
    @Inject(KNOWLEDGE_LOGGER) private readonly logger: Logger,
    @Optional() private readonly evalChanges?: EvalChangePublisher,
  ) {}

  async addFile(ctx: CallerContext, req: AddKbFileRequest): Promise<KbDocumentView> {
    if (!isKnowledgeFileKeyOf(req.storageKey, ctx.tenantId)) throw new BadRequest('storageKey is not a file of this workspace');
    if (req.size > this.config.fileMaxBytes) throw new BadRequest(`The file is ${req.size} bytes; at most ${this.config.fileMaxBytes} bytes are accepted`);
    const chatbotId = await this.documentsService.resolveBot(ctx, req.chatbotId);
    const limit = ctx.entitlements.pagesPerBot;
    const row = await this.documents.transaction(async (m) => {
      await this.documents.lockQuota(m, ctx.tenantId, chatbotId);
      await this.documentsService.checkRoom(m, ctx.tenantId, chatbotId, limit);
      return this.files.insertFile(m, {
        tenantId: ctx.tenantId,
        chatbotId,
        title: req.title ?? req.fileName,
        storageKey: req.storageKey,
        fileName: req.fileName,
        contentType: req.contentType,
        size: req.size,
      });
    });
    return toDocumentView(row);
  }

  /**
   * Chunks out first (nothing changes if the vector store is down), then the rows, then the chunks
   * once more: a worker that was embedding the document meanwhile may have written some, and it
   * also checks after writing (DocumentProcessor), so none survive. Then the files.
   */
  async delete(ctx: CallerContext, req: KbDocumentIdRequest): Promise<KbDocumentDeleted> {
    const doc = await this.files.find(ctx.tenantId, req.documentId);
    if (!doc) throw new NotFound('Document');
    enforceBotAccess(ctx, BotAccess.OfResource, doc.chatbot_id, { what: 'that document' });
    const before = await this.files.withDescendants(ctx.tenantId, doc.id);
    for (const id of before) await this.store.deleteByDocument(ctx.tenantId, id);
    const { ids, storageKeys } = await this.files.deleteTree(ctx.tenantId, doc.id);
    if (!ids.length) throw new NotFound('Document');
    for (const id of ids) await this.store.deleteByDocument(ctx.tenantId, id);
    for (const key of storageKeys) {
      await this.blobs.delete(key).catch((err: unknown) => this.logger.warn({ document_id: doc.id, err: (err as Error).message }, 'could not delete the stored file of a deleted document'));
    }
    this.logger.info({ document_id: doc.id, documents: ids.length, tenant_id: ctx.tenantId }, 'document deleted');
    this.evalChanges?.knowledgeChanged(ctx.tenantId, doc.chatbot_id);
    return { id: doc.id, deleted: true };
  }
}
