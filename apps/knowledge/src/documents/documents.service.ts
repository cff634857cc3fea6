import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { EntityManager } from 'typeorm';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { AddKbQaRequest, CallerContext, IngestKbRequest, KbDocumentView, KbIngestAccepted, ListKbRequest, ResyncKbRequest, ScheduleKbRequest } from '@sa/contracts';
import { BadRequest, DomainError, NotFound, QuotaExhausted } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { KNOWLEDGE_LOGGER } from '../knowledge.tokens';
import { DocumentClaimsRepository } from '../pipeline/document-claims.repository';
import { DocumentProcessor } from '../pipeline/document-processor';
import { DocumentRow, DocumentsRepository, toDocumentView } from './documents.repository';
import { EvalChangePublisher } from './eval-change.publisher';

/**
 * Spec part 4, /kb: a restricted token must name an allowed bot (403); a bot must belong to the
 * caller's workspace (404); the bot's page quota is checked before queuing (402).
 */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly documents: DocumentsRepository,
    private readonly rpc: RpcClient,
    @Inject(KNOWLEDGE_CONFIG) private readonly config: KnowledgeConfig,
    private readonly claims: DocumentClaimsRepository,
    private readonly processor: DocumentProcessor,
    @Inject(KNOWLEDGE_LOGGER) private readonly logger: Logger,
    @Optional() private readonly evalChanges?: EvalChangePublisher,
  ) {}

  async ingest(ctx: CallerContext, req: IngestKbRequest): Promise<KbIngestAccepted> {
    const chatbotId = await this.resolveBot(ctx, req.chatbotId);
    const limit = ctx.entitlements.pagesPerBot;
    const doc = await this.documents.transaction(async (m) => {
      await this.documents.lockQuota(m, ctx.tenantId, chatbotId);
      await this.checkRoom(m, ctx.tenantId, chatbotId, limit);
      const text = req.text;
      return this.documents.insert(m, {
        tenantId: ctx.tenantId,
        chatbotId,
        title: req.title,
        sourceUrl: req.url ?? null,
        sourceType: text !== undefined ? 'snippet' : 'url',
        content: text ?? null,
        discover: text === undefined,
        pageQuota: limit,
      });
    });
    return { id: doc.id, status: doc.status };
  }

  async list(ctx: CallerContext, req: ListKbRequest): Promise<KbDocumentView[]> {
    const chatbotId = req.chatbotId ? await this.resolveBot(ctx, req.chatbotId) : await this.resolveBot(ctx, undefined);
    const rows = await this.documents.list(ctx.tenantId, chatbotId ?? undefined, this.config.maxListed);
    const progress = await this.documents.pageProgress(
      ctx.tenantId,
      rows.filter((r) => r.source_type === 'url' && r.parent_id === null).map((r) => r.id),
    );
    return rows.map((r) => {
      const view = toDocumentView(r);
      const pages = progress.get(r.id);
      return pages ? { ...view, pages } : view;
    });
  }

  /**
   * knowledge.document.add-qa: one `qa` document (title = question) with one chunk "Q: …\nA: …",
   * one page of the quota (402). It is inserted claimed by this call and embedded before the reply
   * (at most qaInlineMs; then the reply says `processing` and the indexing finishes on its own).
   * If that fails, the document goes back to the queue and the ingestion worker retries it.
   */
  async addQa(ctx: CallerContext, req: AddKbQaRequest): Promise<KbDocumentView> {
    const chatbotId = await this.resolveBot(ctx, req.chatbotId);
    const question = req.question.trim();
    const answer = req.answer.trim();
    const claimant = `add-qa-${randomUUID()}`;
    const doc = await this.documents.transaction(async (m) => {
      await this.documents.lockQuota(m, ctx.tenantId, chatbotId);
      await this.checkRoom(m, ctx.tenantId, chatbotId, ctx.entitlements.pagesPerBot);
      return this.documents.insert(m, {
        tenantId: ctx.tenantId,
        chatbotId,
        title: question,
        sourceUrl: null,
        sourceType: 'qa',
        content: `Q: ${question}\nA: ${answer}`,
        claim: { by: claimant, leaseMs: this.config.leaseMs },
      });
    });
    const indexed = this.indexInline(doc.id, claimant);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([indexed, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.config.qaInlineMs)))]);
    clearTimeout(timer);
    return toDocumentView((await this.documents.get(ctx.tenantId, doc.id)) ?? doc);
  }

  /** Indexes a document this call holds the claim of; on failure hands it to the ingestion worker. */
  private async indexInline(id: string, claimant: string): Promise<void> {
    try {
      const doc = await this.claims.getClaimed(id, claimant);
      if (!doc) return;
      const result = await this.processor.process(doc, new AbortController().signal);
      if (await this.claims.markReady(id, claimant, result.chunkCount, result.embedder, result.contentHash)) this.evalChanges?.knowledgeChanged(doc.tenant_id, doc.chatbot_id);
    } catch (err) {
      this.logger.warn({ document_id: id, err: (err as Error).message }, 'indexing a Q&A pair inline failed; the ingestion worker retries it');
      await this.claims.release(id, claimant).catch(() => undefined);
    }
  }

  /**
   * knowledge.document.resync: a URL source is fetched again (with the pages discovered from it).
   * 400 for another source type, 409 while it is queued or processing, 402 when a failed source
   * would count again and the quota is used up.
   */
  async resync(ctx: CallerContext, req: ResyncKbRequest): Promise<KbDocumentView> {
    const doc = await this.ownUrlSource(ctx, req.documentId);
    const row = await this.documents.transaction((m) => this.requeue(m, ctx.tenantId, doc, ctx.entitlements.pagesPerBot));
    return toDocumentView(row);
  }

  /**
   * Queues a URL source again after checking its current state: 409 while queued or processing;
   * a failed one counts toward the quota again, so it needs room (402). `limit` null: the quota
   * recorded on the document (the scheduler has no caller), and without one a failed source waits.
   */
  async requeue(m: EntityManager, tenantId: string, doc: Pick<DocumentRow, 'id' | 'chatbot_id'>, limit: number | null): Promise<DocumentRow> {
    await this.documents.lockQuota(m, tenantId, doc.chatbot_id);
    const current = await this.documents.lockDocument(m, tenantId, doc.id);
    if (!current) throw new NotFound('Document');
    if (current.status === 'queued' || current.status === 'processing') {
      throw new DomainError('conflict', `This document is already being synced (${current.status})`, { status: current.status });
    }
    if (current.status === 'failed') {
      const quota = limit ?? current.page_quota;
      if (quota === null) throw new QuotaExhausted('The page quota of this document is not known; re-sync it by hand');
      await this.checkRoom(m, tenantId, current.chatbot_id, quota);
    }
    return this.documents.requeue(m, doc.id, limit);
  }

  /** knowledge.document.schedule: re-sync a URL source daily, weekly or never (`none`). */
  async schedule(ctx: CallerContext, req: ScheduleKbRequest): Promise<KbDocumentView> {
    await this.ownUrlSource(ctx, req.documentId);
    const row = await this.documents.setSchedule(ctx.tenantId, req.documentId, req.schedule);
    if (!row) throw new NotFound('Document');
    return toDocumentView(row);
  }

  /** A URL source of the caller's workspace (404) and of a bot the caller may use (403); 400 for another source type. */
  private async ownUrlSource(ctx: CallerContext, id: string): Promise<DocumentRow> {
    const doc = await this.documents.get(ctx.tenantId, id);
    if (!doc) throw new NotFound('Document');
    enforceBotAccess(ctx, BotAccess.OfResource, doc.chatbot_id, { what: 'that document' });
    if (doc.source_type !== 'url') throw new BadRequest(`Only URL sources can be re-synced; this is a ${doc.source_type} document`);
    return doc;
  }

  /** 402 when the bot (or the workspace-wide knowledge) has no page left under `limit`. */
  async checkRoom(m: EntityManager, tenantId: string, chatbotId: string | null, limit: number): Promise<void> {
    const used = await this.documents.countPages(m, tenantId, chatbotId);
    if (used + 1 > limit) {
      throw new QuotaExhausted(`The page quota of ${chatbotId ? 'this bot' : 'workspace-wide knowledge'} is used up (${used} of ${limit} pages)`, { pages_used: used, page_quota: limit });
    }
  }

  /** The bot named by the request, checked against the token's bots and the workspace. */
  async resolveBot(ctx: CallerContext, chatbotId: string | undefined): Promise<string | null> {
    enforceBotAccess(ctx, BotAccess.MustName, chatbotId);
    if (!chatbotId) return null;
    const { found } = await this.rpc.send('bots.bot.check', { ids: [chatbotId] }, ctx);
    if (!found.includes(chatbotId)) throw new NotFound('Bot');
    return chatbotId;
  }
}
