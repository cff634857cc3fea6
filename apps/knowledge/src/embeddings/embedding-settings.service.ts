import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { CallerContext, EMBEDDING_MODEL_KINDS, EmbeddingSettingsView, UpdateEmbeddingSettingsRequest } from '@sa/contracts';
import { BadRequest } from '@sa/errors';
import { KNOWLEDGE_LOGGER } from '../knowledge.tokens';
import { EmbeddingsUnavailable } from './embeddings.exception';
import { ReembedWorker } from './reembed.worker';
import { WorkspaceEmbedders, embedsAs } from './workspace-embedders';
import { type WorkspaceEmbedderRow, WorkspaceEmbeddersRepository } from './workspace-embedders.repository';

/**
 * knowledge.embedding.get and .update: the workspace's embedding model and its switches. A switch
 * is accepted only after the model embedded a short text (a refusal is a 400 in plain words and
 * changes nothing); the re-embedding then runs in the background (ReembedWorker).
 */
@Injectable()
export class EmbeddingSettingsService {
  constructor(
    private readonly repository: WorkspaceEmbeddersRepository,
    private readonly embedders: WorkspaceEmbedders,
    private readonly worker: ReembedWorker,
    @Inject(KNOWLEDGE_LOGGER) private readonly logger: Logger,
  ) {}

  async get(ctx: CallerContext): Promise<EmbeddingSettingsView> {
    return this.view((await this.embedders.state(ctx.tenantId)).row);
  }

  async update(ctx: CallerContext, req: UpdateEmbeddingSettingsRequest): Promise<EmbeddingSettingsView> {
    const { row } = await this.embedders.state(ctx.tenantId);
    const connectionId = req.connection_id;
    if (connectionId === null) {
      if (!row?.active_connection_id) return this.keep(ctx, row);
      if (row.status === 'reindexing' && row.target_connection_id === null) return this.view(row);
      try {
        await this.embedders.installationId();
      } catch (err) {
        throw new BadRequest(err instanceof EmbeddingsUnavailable ? err.reason : (err as Error).message);
      }
      return this.start(ctx, { connectionId: null, embedder: null });
    }
    // Fresh: the connection may have been edited a moment ago.
    const spec = await this.embedders.spec(ctx, connectionId, true);
    if (!EMBEDDING_MODEL_KINDS.includes(spec.kind)) throw new BadRequest('Anthropic has no embeddings API; choose an openai or ollama connection');
    if (connectionId === row?.active_connection_id && embedsAs(spec, row.active_embedder)) return this.keep(ctx, row);
    if (row?.status === 'reindexing' && connectionId === row.target_connection_id && embedsAs(spec, row.target_embedder)) return this.view(row);
    return this.start(ctx, { connectionId, embedder: await this.embedders.probe(spec) });
  }

  /** The active model chosen again: nothing to do, or a switch in progress (or failed) is dropped with its chunks. */
  private async keep(ctx: CallerContext, current: WorkspaceEmbedderRow | null): Promise<EmbeddingSettingsView> {
    if (!current || current.status === 'ready') return this.view(current);
    const row = await this.repository.cancel(ctx.tenantId);
    this.logger.info({ tenant_id: ctx.tenantId, request_id: ctx.requestId }, 'embedding model switch dropped: the current model was chosen again');
    this.worker.wake(ctx.tenantId);
    await this.worker.dropUnusedIndexes(ctx.tenantId).catch((err: unknown) => this.logger.warn({ tenant_id: ctx.tenantId, err: (err as Error).message }, 'the partial index could not be deleted; the next switch deletes it'));
    return this.view(row);
  }

  private async start(ctx: CallerContext, target: { connectionId: string | null; embedder: string | null }): Promise<EmbeddingSettingsView> {
    const total = await this.repository.countReindexable(ctx.tenantId);
    const row = await this.repository.startSwitch(ctx.tenantId, target, total);
    this.logger.info({ tenant_id: ctx.tenantId, request_id: ctx.requestId, connection_id: target.connectionId, embedder: target.embedder, documents: total }, 'embedding model switch started');
    this.worker.wake(ctx.tenantId);
    return this.view(row);
  }

  private async view(row: WorkspaceEmbedderRow | null): Promise<EmbeddingSettingsView> {
    // The installation's remote embedder says its dimension once it has answered (asked here if need be).
    const embedder = row?.active_embedder ?? (await this.embedders.installationId().catch(() => this.embedders.activeId(row)));
    return {
      connection_id: row?.active_connection_id ?? null,
      embedder,
      status: row?.status ?? 'ready',
      target_connection_id: row && row.status !== 'ready' ? row.target_connection_id : null,
      done: row?.done ?? 0,
      total: row?.total ?? 0,
      error: row?.error ?? null,
      started_at: row?.started_at?.toISOString() ?? null,
      completed_at: row?.completed_at?.toISOString() ?? null,
    };
  }
}
