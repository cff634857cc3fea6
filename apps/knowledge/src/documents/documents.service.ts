import { Inject, Injectable } from '@nestjs/common';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { CallerContext, IngestKbRequest, KbDocumentView, KbIngestAccepted, ListKbRequest } from '@sa/contracts';
import { NotFound, QuotaExhausted } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { DocumentsRepository, toDocumentView } from './documents.repository';

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
  ) {}

  async ingest(ctx: CallerContext, req: IngestKbRequest): Promise<KbIngestAccepted> {
    const chatbotId = await this.resolveBot(ctx, req.chatbotId);
    const limit = ctx.entitlements.pagesPerBot;
    const doc = await this.documents.transaction(async (m) => {
      await this.documents.lockQuota(m, ctx.tenantId, chatbotId);
      const used = await this.documents.countPages(m, ctx.tenantId, chatbotId);
      if (used + 1 > limit) {
        throw new QuotaExhausted(`The page quota of ${chatbotId ? 'this bot' : 'workspace-wide knowledge'} is used up (${used} of ${limit} pages)`, { pages_used: used, page_quota: limit });
      }
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
    return rows.map(toDocumentView);
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
