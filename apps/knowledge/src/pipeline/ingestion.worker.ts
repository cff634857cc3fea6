import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { backoffMs } from '@sa/backoff';
import { PgListener } from '@sa/db';
import { counter, gauge, histogram, sampledGauges } from '@sa/metrics';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { KNOWLEDGE_LOGGER } from '../knowledge.tokens';
import { ClaimedDocument, DocumentClaimsRepository } from './document-claims.repository';
import { DocumentProcessor } from './document-processor';
import { EvalChangePublisher } from '../documents/eval-change.publisher';
import { DOCUMENT_RETRY_BACKOFF, FETCH_TIMEOUT_ATTEMPTS, FetchTimeout, PermanentFailure } from './failures';

const outcomes = counter({ name: 'sa_ingestion_documents_total', help: 'Documents this replica finished, by outcome (ready, unchanged, removed, failed, retry, released)', labelNames: ['outcome'] as const });
const durations = histogram({ name: 'sa_ingestion_duration_seconds', help: 'Time to process one document (fetch, chunk, embed, store)', buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] });
const inProgress = gauge({ name: 'sa_ingestion_in_progress', help: 'Documents this replica is processing now' });

/**
 * Runs the ingestion pipeline: queued → processing → ready | failed, at most `concurrency`
 * documents at once per replica. Woken by NOTIFY on new documents, and polls as a fallback (which
 * also picks up documents whose worker died: their lease expires). On shutdown it stops claiming,
 * lets running documents finish within the grace period, and hands the rest back to the queue.
 */
@Injectable()
export class IngestionWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly running = new Map<string, { doc: ClaimedDocument; abort: AbortController; done: Promise<void> }>();
  private readonly listener: PgListener;
  private poller: NodeJS.Timeout | null = null;
  private stopping = false;
  private pumping = false;
  /** A wake-up that arrived while a pump was running: pump once more when it ends. */
  private pumpAgain = false;
  /** The claiming pass running now (shutdown waits for it). */
  private pumped: Promise<void> = Promise.resolve();

  constructor(
    private readonly claims: DocumentClaimsRepository,
    private readonly processor: DocumentProcessor,
    @Inject(KNOWLEDGE_CONFIG) private readonly config: KnowledgeConfig,
    @Inject(KNOWLEDGE_LOGGER) private readonly logger: Logger,
    @Optional() private readonly evalChanges?: EvalChangePublisher,
  ) {
    this.listener = new PgListener({
      client: { connectionString: config.databaseUrl, application_name: 'knowledge-worker-listener' },
      channel: 'knowledge_documents',
      logger,
      onNotify: () => void this.pump(),
      onListening: () => void this.pump(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.registerQueueGauges();
    await this.listener.start();
    this.poller = setInterval(() => void this.pump(), this.config.pollMs);
    void this.pump();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.poller) clearInterval(this.poller);
    await this.listener.stop();
    // A claim on its way ends first: what it took is started (and waited for below) or given back.
    await this.pumped;
    const inFlight = [...this.running.values()];
    const deadline = new Promise((r) => setTimeout(r, this.config.shutdownGraceMs).unref());
    await Promise.race([Promise.all(inFlight.map((r) => r.done)), deadline]);
    for (const r of this.running.values()) {
      r.abort.abort();
      await this.claims.release(r.doc.id, this.workerId).catch(() => undefined);
      outcomes.inc({ outcome: 'released' });
      this.logger.info({ document_id: r.doc.id }, 'released a document on shutdown');
    }
  }

  /** The queue as a whole (every replica), read at scrape time. */
  private registerQueueGauges(): void {
    sampledGauges(
      {
        count: { name: 'sa_ingestion_queue_documents', help: 'Documents waiting (queued) or being processed (processing), across all replicas' },
        oldest: { name: 'sa_ingestion_queue_oldest_seconds', help: 'Age of the oldest queued or processing document (0 when none)' },
      },
      ['status'] as const,
      async () => {
        const stats = await this.claims.queueStats();
        return (['queued', 'processing'] as const).map((status) => {
          const row = stats.find((r) => r.status === status);
          return { labels: { status }, values: { count: row?.count ?? 0, oldest: row?.oldest_seconds ?? 0 } };
        });
      },
    );
  }

  /** Documents being processed by this replica now (metrics, tests). */
  get busy(): number {
    return this.running.size;
  }

  /** Claims documents while there is a free slot. */
  async pump(): Promise<void> {
    if (this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.pumped = this.claimWhileFree();
    await this.pumped;
  }

  private async claimWhileFree(): Promise<void> {
    try {
      do {
        this.pumpAgain = false;
        const failed = await this.claims.failExhausted(this.config.maxAttempts);
        if (failed) this.logger.warn({ failed }, 'documents failed after their last attempt');
        while (!this.stopping && this.running.size < this.config.concurrency) {
          const doc = await this.claims.claim(this.workerId, this.config.leaseMs, this.config.maxAttempts);
          if (!doc) break;
          // The replica began stopping while the claim was on its way: the document goes back at
          // once (left claimed, it would wait out its lease, KNOWLEDGE_LEASE_MS, before another took it).
          if (this.stopping) {
            await this.claims.release(doc.id, this.workerId).catch(() => undefined);
            break;
          }
          this.start(doc);
        }
      } while (this.pumpAgain && !this.stopping);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'claiming documents failed; will retry');
    } finally {
      this.pumping = false;
    }
  }

  private start(doc: ClaimedDocument): void {
    const abort = new AbortController();
    const done = this.run(doc, abort)
      .catch((err: unknown) => this.logger.error({ document_id: doc.id, err: (err as Error).message }, 'recording the outcome of a document failed; its lease will expire'))
      .finally(() => {
      this.running.delete(doc.id);
      inProgress.set(this.running.size);
      if (!this.stopping) void this.pump();
    });
    this.running.set(doc.id, { doc, abort, done });
    inProgress.set(this.running.size);
  }

  private async run(doc: ClaimedDocument, abort: AbortController): Promise<void> {
    const log = this.logger.child({ document_id: doc.id, tenant_id: doc.tenant_id });
    const renew = setInterval(() => {
      void this.claims
        .renew(doc.id, this.workerId, this.config.leaseMs)
        .then((kept) => {
          if (!kept) abort.abort();
        })
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not renew the lease'));
    }, Math.max(500, Math.floor(this.config.leaseMs / 3)));
    const started = Date.now();
    const stopTimer = durations.startTimer();
    try {
      const result = await this.processor.process(doc, abort.signal);
      if (result.removed) {
        stopTimer();
        outcomes.inc({ outcome: 'removed' });
        log.info({ source_url: doc.source_url }, 'page vanished from its site; removed with its chunks');
        this.evalChanges?.knowledgeChanged(doc.tenant_id, doc.chatbot_id);
        return;
      }
      if (abort.signal.aborted) return;
      const kept = await this.claims.markReady(doc.id, this.workerId, result.chunkCount, result.embedder, result.contentHash);
      stopTimer();
      outcomes.inc({ outcome: result.unchanged ? 'unchanged' : 'ready' });
      log.info({ chunks: result.chunkCount, discovered: result.discovered, unchanged: result.unchanged, ms: Date.now() - started, kept }, 'document ready');
      if (kept && !result.unchanged) this.evalChanges?.knowledgeChanged(doc.tenant_id, doc.chatbot_id);
    } catch (err) {
      if (abort.signal.aborted && this.stopping) return;
      const reason = err instanceof Error ? err.message : String(err);
      const lastAttempt = doc.attempts >= this.config.maxAttempts || (err instanceof FetchTimeout && doc.attempts >= FETCH_TIMEOUT_ATTEMPTS);
      if (err instanceof PermanentFailure || lastAttempt) {
        const why = err instanceof PermanentFailure ? reason : `Failed after ${doc.attempts} attempts: ${reason}`;
        // A source that fails for good (gone, blocked) on a re-sync takes its old chunks with it.
        if ((await this.claims.markFailed(doc.id, this.workerId, why)) && doc.chunk_count > 0) {
          await this.processor.discard(doc);
          this.evalChanges?.knowledgeChanged(doc.tenant_id, doc.chatbot_id);
        }
        outcomes.inc({ outcome: 'failed' });
        log.info({ reason: why }, 'document failed');
      } else {
        const delay = backoffMs(doc.attempts, DOCUMENT_RETRY_BACKOFF);
        await this.claims.retryLater(doc.id, this.workerId, reason, delay);
        outcomes.inc({ outcome: 'retry' });
        log.warn({ reason, attempt: doc.attempts, retry_in_ms: delay }, 'document will be retried');
      }
    } finally {
      clearInterval(renew);
    }
  }
}
