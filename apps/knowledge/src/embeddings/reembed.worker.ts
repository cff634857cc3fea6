import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ClaimLoop } from '@sa/db';
import { DomainError } from '@sa/errors';
import { counter } from '@sa/metrics';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { KNOWLEDGE_LOGGER } from '../knowledge.tokens';
import { chunkId } from '../pipeline/document-processor';
import { VECTOR_STORE, type VectorStore } from '../vector-store/vector-store.port';
import { EmbeddingsUnavailable } from './embeddings.exception';
import { type Embedder, WorkspaceEmbedders, serviceContext } from './workspace-embedders';
import { type WorkspaceEmbedderRow, WorkspaceEmbeddersRepository } from './workspace-embedders.repository';

const switches = counter({ name: 'sa_knowledge_embedding_switches_total', help: 'Switches of a workspace embedding model this replica finished, by outcome (ready, failed)', labelNames: ['outcome'] as const });
const reembedded = counter({ name: 'sa_knowledge_reembedded_documents_total', help: 'Documents this replica embedded with the model a workspace is switching to' });

/** The run is no longer this replica's: the model was changed again, another replica took it over, or the service stops. */
class RunStopped extends Error {}

const FIRST_ID = '00000000-0000-0000-0000-000000000000';
/** Documents read per page of a run's walk through the workspace. */
const PAGE = 500;
/** Walks through the workspace before a run gives up for now (documents kept changing under it). */
const MAX_PASSES = 5;

/**
 * Re-embeds a workspace's knowledge when it switches embedding models (issue 32, "Models").
 *
 * A switch (knowledge.workspace_embedders, status `reindexing`) is claimed by one replica at a time
 * under a lease (KNOWLEDGE_LEASE_MS, renewed while it runs): at start, every KNOWLEDGE_REEMBED_POLL_MS,
 * and at once when this process changed it. The run walks the ready documents in steps of about
 * KNOWLEDGE_REEMBED_BATCH chunks: the step's documents are locked (no worker claims them, a re-sync
 * or a delete waits), their chunks of the active embedder are read, embedded with the target and
 * written as the target's chunks beside them; `done` counts the documents. A second walk checks
 * that every document has its target chunks (the pipeline embeds new and changed documents with
 * both models meanwhile) and fills any gap. Then, in one transaction, the target becomes the
 * active model, and the old model's chunks are deleted. Searches use the old index until then.
 *
 * The model failing (the provider's error, a vanished connection) fails the switch with the reason
 * in plain words; its chunks go, the old index stays. Anything else (the database, the bots service
 * unreachable) hands the run back to be resumed; chunks already written are kept.
 */
@Injectable()
export class ReembedWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly loop: ClaimLoop<WorkspaceEmbedderRow>;
  private current: { tenantId: string; abort: AbortController } | null = null;

  constructor(
    private readonly repository: WorkspaceEmbeddersRepository,
    private readonly embedders: WorkspaceEmbedders,
    @Inject(VECTOR_STORE) private readonly store: VectorStore,
    @Inject(KNOWLEDGE_CONFIG) private readonly config: KnowledgeConfig,
    @Inject(KNOWLEDGE_LOGGER) private readonly logger: Logger,
  ) {
    // A run handed back after an error is tried again at the next look, not at once.
    this.loop = new ClaimLoop({
      pollMs: config.reembedPollMs,
      claim: () => this.repository.claim(this.workerId, this.config.leaseMs),
      work: (row) => this.run(row),
      onError: (err) => this.logger.warn({ err: err.message }, 'looking for embedding model switches failed; will retry'),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const stopped = this.loop.stop();
    this.current?.abort.abort();
    await stopped;
  }

  /** The workspace's switch changed in this process: a run of it stops, and work is looked for at once. */
  wake(tenantId: string): void {
    if (this.current?.tenantId === tenantId) this.current.abort.abort();
    void this.pump();
  }

  /** Runs the switches waiting, one after another, until none is left (one pump at a time). */
  pump(): Promise<void> {
    return this.loop.pump();
  }

  /** Drops the workspace's chunks of every embedder its state no longer names (a replaced index, a dropped switch's partial one). */
  async dropUnusedIndexes(tenantId: string): Promise<void> {
    await this.store.deleteEmbedders(tenantId, await this.embedders.indexIds(await this.embedders.state(tenantId)));
  }

  /** Runs one switch; false when it was handed back after an error that a later run may get past. */
  private async run(row: WorkspaceEmbedderRow): Promise<boolean> {
    const { tenant_id: tenantId, generation } = row;
    const abort = new AbortController();
    this.current = { tenantId, abort };
    const log = this.logger.child({ tenant_id: tenantId, generation });
    const renew = setInterval(
      () =>
        void this.repository
          .progress(tenantId, generation, this.workerId, this.config.leaseMs)
          .then((kept) => kept || abort.abort())
          .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not renew the lease of a re-embedding run')),
      Math.max(500, Math.floor(this.config.leaseMs / 3)),
    );
    let activeId: string | null = null;
    try {
      activeId = row.active_embedder ?? (await this.embedders.installationId());
      const target = await this.embedders.target(row, serviceContext(tenantId, `knowledge-reembed-${generation}`));
      if (!target.connectionId) await this.embedders.installationId();
      // A switch started again keeps what it wrote; one replaced drops its partial index.
      await this.dropUnusedIndexes(tenantId);
      log.info({ from: activeId, to: target.id, documents: row.total }, 're-embedding the knowledge with a new embedding model');
      await this.reembed(row, activeId, target, abort.signal);
      if (!(await this.repository.complete(tenantId, generation, this.workerId, activeId, target.id))) throw new RunStopped();
      switches.inc({ outcome: 'ready' });
      log.info({ from: activeId, to: target.id }, 'the knowledge is now searched with the new embedding model');
      await this.dropUnusedIndexes(tenantId).catch((err: unknown) => log.warn({ err: (err as Error).message }, 'the old index could not be deleted; the next switch deletes it'));
      return true;
    } catch (err) {
      const stopped = err instanceof RunStopped || abort.signal.aborted;
      const reason = stopped ? null : modelFailure(err);
      if (reason === null) {
        await this.repository.release(tenantId, generation, this.workerId).catch(() => undefined);
        if (!stopped) {
          log.warn({ err: (err as Error).message }, 're-embedding was interrupted; it resumes later');
          return false;
        }
        // Replaced or dropped (not handed back on shutdown): what this run wrote after that goes.
        if (!this.loop.stopped) await this.dropUnusedIndexes(tenantId).catch((e: unknown) => log.warn({ err: (e as Error).message }, 'a partial index could not be deleted; the next switch deletes it'));
        return true;
      }
      // The partial index goes first: a failed switch is seen with the old index only.
      if (activeId && (await this.repository.progress(tenantId, generation, this.workerId, this.config.leaseMs))) {
        await this.store.deleteEmbedders(tenantId, [activeId]).catch((e: unknown) => log.warn({ err: (e as Error).message }, 'the partial index could not be deleted; the next switch deletes it'));
      }
      if (await this.repository.fail(tenantId, generation, this.workerId, reason)) {
        switches.inc({ outcome: 'failed' });
        log.warn({ reason }, 'switching the embedding model failed; the old index still answers');
      }
      return true;
    } finally {
      clearInterval(renew);
      this.current = null;
    }
  }

  /** Walks the workspace until a walk finds every ready document with its target chunks. */
  private async reembed(row: WorkspaceEmbedderRow, activeId: string, target: Embedder, signal: AbortSignal): Promise<void> {
    for (let pass = 1; pass <= MAX_PASSES; pass++) {
      let wrote = 0;
      for (let after = FIRST_ID; ; ) {
        const docs = await this.repository.reindexable(row.tenant_id, after, PAGE);
        if (!docs.length) break;
        for (const step of steps(docs, this.config.reembedBatch)) {
          if (signal.aborted) throw new RunStopped();
          const written = await this.step(row.tenant_id, step, activeId, target, signal);
          wrote += written;
          reembedded.inc(written);
          if (!(await this.repository.progress(row.tenant_id, row.generation, this.workerId, this.config.leaseMs, pass === 1 ? step.length : 0))) throw new RunStopped();
        }
        after = docs[docs.length - 1].id;
      }
      if (!wrote) return;
    }
    throw new Error(`documents kept changing through ${MAX_PASSES} walks`);
  }

  /** Embeds the chunks of the step's documents that lack their target chunks; returns how many documents it wrote. */
  private step(tenantId: string, ids: string[], activeId: string, target: Embedder, signal: AbortSignal): Promise<number> {
    return this.repository.withReadyLocked(tenantId, ids, async (locked) => {
      if (!locked.length) return 0;
      const [from, done] = await Promise.all([this.store.passages(tenantId, activeId, locked), this.store.passages(tenantId, target.id, locked)]);
      const perDocument = (passages: { documentId: string }[]) => passages.reduce((m, p) => m.set(p.documentId, (m.get(p.documentId) ?? 0) + 1), new Map<string, number>());
      const have = perDocument(done);
      const todo = [...perDocument(from)].filter(([id, n]) => have.get(id) !== n).map(([id]) => id);
      if (!todo.length) return 0;
      const passages = from.filter((p) => todo.includes(p.documentId));
      const vectors = await target.embeddings.embedDocuments(passages.map((p) => p.text));
      if (signal.aborted) throw new RunStopped();
      await this.store.upsert(
        passages.map((p, i) => ({
          id: chunkId(p.documentId, p.ordinal, target),
          tenantId,
          documentId: p.documentId,
          chatbotId: p.chatbotId,
          ordinal: p.ordinal,
          text: p.text,
          title: p.title,
          sourceUrl: p.sourceUrl,
          embedder: target.id,
          vector: vectors[i],
        })),
      );
      return todo.length;
    });
  }
}

/** Consecutive documents grouped until each group holds about `chunks` chunks (a larger document alone). */
function steps(docs: { id: string; chunk_count: number }[], chunks: number): string[][] {
  const out: string[][] = [];
  let group: string[] = [];
  let size = 0;
  for (const d of docs) {
    if (group.length && size + d.chunk_count > chunks) {
      out.push(group);
      group = [];
      size = 0;
    }
    group.push(d.id);
    size += d.chunk_count;
  }
  if (group.length) out.push(group);
  return out;
}

/** Why the switch cannot complete, when the model is the reason (its provider, or a connection gone); null for what a later run may get past. */
function modelFailure(err: unknown): string | null {
  if (err instanceof EmbeddingsUnavailable) return err.reason;
  if (err instanceof DomainError && err.code !== 'service_unavailable' && err.code !== 'internal_error') return err.message;
  return null;
}
