import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { DomainError } from '@sa/errors';
import { counter } from '@sa/metrics';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { KNOWLEDGE_LOGGER } from '../knowledge.tokens';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';

const LEASE = 'resync';
const scheduled = counter({ name: 'sa_knowledge_resyncs_scheduled_total', help: 'URL sources the re-sync scheduler queued (queued) or put off to their next run (postponed)', labelNames: ['outcome'] as const });

/**
 * Re-syncs URL sources on their schedule (daily, weekly). Every `resyncPollMs` each replica tries
 * to take the scheduler lease (knowledge.scheduler_leases); the holder queues the sources whose
 * next run has come, through the same checks as a re-sync by hand (DocumentsService.requeue). A
 * holder renews its lease on each look; when it stops, another replica takes over after three
 * poll intervals. Queuing re-checks each document under a row lock, so even two holders (a lease
 * that expired mid-look) never queue one source twice.
 */
@Injectable()
export class ResyncScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly holderId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly documents: DocumentsRepository,
    private readonly service: DocumentsService,
    @Inject(KNOWLEDGE_CONFIG) private readonly config: KnowledgeConfig,
    @Inject(KNOWLEDGE_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.resyncPollMs > 0) this.timer = setInterval(() => void this.tick().catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'the re-sync scheduler failed; will retry')), this.config.resyncPollMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    await this.documents.releaseLease(LEASE, this.holderId).catch(() => undefined);
  }

  /** One look: with the lease, queues the due sources (at most resyncBatch). Returns how many were queued. */
  tick(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.look().finally(() => (this.running = null));
    return this.running;
  }

  private async look(): Promise<number> {
    const leaseMs = Math.max(3 * this.config.resyncPollMs, 1000);
    if (!(await this.documents.takeLease(LEASE, this.holderId, leaseMs))) return 0;
    let queued = 0;
    for (const due of await this.documents.dueSources(this.config.resyncBatch)) {
      try {
        await this.documents.transaction((m) => this.service.requeue(m, due.tenant_id, due, null));
        queued++;
        scheduled.inc({ outcome: 'queued' });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        // Taken by a sync meanwhile (409), no room in the quota (402) or gone (404): next run.
        if (err.code !== 'not_found') await this.documents.postpone(due.id);
        scheduled.inc({ outcome: 'postponed' });
        this.logger.info({ document_id: due.id, reason: err.message }, 'a scheduled re-sync was put off');
      }
    }
    if (queued) this.logger.info({ queued }, 'scheduled re-syncs queued');
    return queued;
  }
}
