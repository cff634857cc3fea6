import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { CallerContext, PassageView, SearchKnowledgeRequest } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { WorkspaceEmbedders } from '../embeddings/workspace-embedders';
import { VECTOR_STORE, type VectorStore } from '../vector-store/vector-store.port';

export const DEFAULT_PASSAGES = 5;

/**
 * knowledge.search for the chat service: the passages of the workspace's knowledge nearest to a
 * question. With a bot, that bot's documents plus the workspace-wide ones (attached to no bot).
 * The question is embedded with the workspace's embedding model, and only its index is searched:
 * while the workspace switches models, the old index answers until the new one is complete.
 */
@Injectable()
export class SearchService {
  /** Bots known to belong to a workspace, briefly: chat asks for every turn, bots are never moved. */
  private readonly knownBots = new LRUCache<string, true>({ max: 10000, ttl: 10_000 });

  constructor(
    @Inject(VECTOR_STORE) private readonly store: VectorStore,
    private readonly embedders: WorkspaceEmbedders,
    private readonly rpc: RpcClient,
  ) {}

  async search(ctx: CallerContext, req: SearchKnowledgeRequest): Promise<PassageView[]> {
    const chatbotId = req.chatbotId ?? null;
    enforceBotAccess(ctx, BotAccess.MustName, chatbotId);
    if (chatbotId && !this.knownBots.has(`${ctx.tenantId}:${chatbotId}`)) {
      const { found } = await this.rpc.send('bots.bot.check', { ids: [chatbotId] }, ctx);
      if (!found.includes(chatbotId)) throw new NotFound('Bot');
      this.knownBots.set(`${ctx.tenantId}:${chatbotId}`, true);
    }
    const embedder = await this.embedders.active(await this.embedders.state(ctx.tenantId), ctx);
    const vector = await embedder.embeddings.embedQuery(req.query);
    const hits = await this.store.search({ tenantId: ctx.tenantId, chatbotId, embedder: embedder.id, vector, text: req.query, k: req.k ?? DEFAULT_PASSAGES });
    return hits.map((h) => ({ text: h.text, score: h.score, document_id: h.documentId, title: h.title, source_url: h.sourceUrl, chunk_id: h.chunkId }));
  }
}
