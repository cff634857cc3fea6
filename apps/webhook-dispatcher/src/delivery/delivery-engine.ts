import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { EventEnvelope, eventBotId } from '@sa/contracts';
import { PgListener } from '@sa/db';
import { KeptConnections, OutboundPolicy, guardedFetch, isGuardError } from '@sa/net-guard';
import { DELIVERIES_CHANNEL, SecretBox } from '@sa/webhook-registry';
import { DISPATCHER_CONFIG, DISPATCHER_LOGGER, DISPATCHER_POLICY, WebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { AttemptOutcome, ClaimedDelivery, CreatedDeliveries, DeliveriesRepository, OwnedDelivery } from './deliveries.repository';
import { DeliveryScheduler } from './delivery-scheduler';
import { describeStatus, webhookRequest } from './webhook-request';
import { WorkspaceEntitlements } from './workspace-entitlements';
import { counter, histogram } from '@sa/metrics';

export const SECRET_BOX = Symbol('SECRET_BOX');
const PURGE_EVERY_MS = 3_600_000;
const ORPHANS_PER_SWEEP = 500;
/** Tries at a claim or an outcome while stopping; running, it is tried until RECORD_FOR_MS runs out. */
const FINISH_TRIES = 3;
/** How long a claim or an outcome is tried (at least): long enough to outlast a database restart or failover. */
const RECORD_FOR_MS = 10_000;
const RECORD_BACKOFF_MAX_MS = 2_000;
/** How long the webhooks an event kind of a workspace was last delivered to are remembered (slots reserved for them). */
const SUBSCRIBERS_TTL_MS = 60_000;
const SUBSCRIBERS_MAX = 10_000;
/** How long after an insert whose answer was lost its rows are looked for: a backend still running it has committed by then. */
const LOST_INSERT_SETTLE_MS = 500;


const attempts = counter({
  name: 'sa_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome (succeeded, failed) and HTTP status class of the answer (2xx … 5xx, or none)',
  labelNames: ['outcome', 'status_class'] as const,
});
const attemptDuration = histogram({ name: 'sa_webhook_attempt_duration_seconds', help: 'Duration of one webhook request', labelNames: ['outcome'] as const });

/**
 * Sends the deliveries this dispatcher holds: fresh ones handed over right after the event's
 * transaction commits, and (by a periodic sweep, woken at once by NOTIFY on
 * `webhooks_deliveries`) the ones nobody holds: manual redelivers, deliveries given back by a
 * stopping dispatcher, those of a crashed one once its lease expired, and backlogs that did not
 * fit in memory. Each is claimed (committed as `sending`), POSTed once through the SSRF guard
 * without following redirects and with the 10-second timeout, and its outcome recorded.
 */
@Injectable()
export class DeliveryEngine implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly scheduler: DeliveryScheduler;
  private readonly listener: PgListener;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;
  private lastRenew = 0;
  private lastPurge = 0;
  private stopping = false;
  /** Deliveries whose request is over and whose outcome is being written, by id. */
  private readonly recording = new Map<string, Promise<void>>();
  /** How many of those each webhook has: slots not to be reserved yet (see reserveFor). */
  private readonly recordingByWebhook = new Map<string, number>();
  /**
   * The webhooks the last event of a (workspace, kind, bot) was delivered to, learnt from the
   * inserts: slots are reserved for them before the next such event's insert. Only a hint: the
   * insert decides which deliveries exist, and an unused reservation is given back.
   */
  private readonly subscribers = new Map<string, { webhooks: string[]; until: number }>();
  /** Inserts whose answer was lost, being looked into (see recoverLostInsert); awaited at shutdown. */
  private readonly recoveries = new Set<Promise<void>>();
  /** Connections to endpoints kept between requests (WEBHOOK_KEEP_ALIVE_MS). */
  private readonly connections: KeptConnections | undefined;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly entitlements: WorkspaceEntitlements,
    @Inject(SECRET_BOX) private readonly secrets: SecretBox,
    @Inject(DISPATCHER_POLICY) private readonly policy: OutboundPolicy,
    @Inject(DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
  ) {
    this.connections = config.keepAliveMs > 0 ? new KeptConnections({ idleMs: config.keepAliveMs, maxIdlePerOrigin: config.endpointConcurrency }) : undefined;
    this.scheduler = new DeliveryScheduler({
      concurrency: config.concurrency,
      perKeyConcurrency: config.endpointConcurrency,
      perKeyQueueMax: config.endpointQueueMax,
      run: (id) => this.deliver(id),
      onError: (err, id) => this.logger.error({ err, delivery_id: id }, 'delivering a webhook failed unexpectedly; it is left to the sweep'),
      // Deliveries refused while the queue was full wait in the database: fetch them now.
      onRoom: () => this.sweepSoon(),
      busy: (webhookId) => this.recordingByWebhook.get(webhookId) ?? 0,
    });
    this.listener = new PgListener({
      client: { connectionString: config.databaseUrl, application_name: 'webhook-dispatcher-listener' },
      channel: DELIVERIES_CHANNEL,
      logger,
      onNotify: () => this.sweepSoon(),
      onListening: () => this.sweepSoon(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.entitlements.start();
    await this.listener.start();
    this.sweepTimer = setInterval(() => this.sweepSoon(), this.config.sweepMs);
    this.sweepSoon();
  }

  /** Stops taking work, lets requests in flight finish, and gives back what was not started. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.listener.stop();
    await this.sweeping;
    await Promise.all(this.recoveries);
    const unstarted = await this.scheduler.stop();
    await Promise.all(this.recording.values());
    this.connections?.close();
    try {
      await this.deliveries.release(unstarted);
    } catch (err) {
      this.logger.warn({ err, count: unstarted.length }, 'could not give back unsent deliveries; another dispatcher takes them when the lease expires');
    }
    await this.entitlements.stop();
    this.logger.info({ released: unstarted.length }, 'webhook delivery stopped');
  }

  /**
   * Creates the deliveries of an event, and starts at once those inserted claimed: a slot free for
   * a webhook (nothing of it queued, no outcome of it still being written) is reserved before the
   * insert, which then commits that webhook's delivery as `sending`: one write and one round trip
   * less than a pending row claimed later, and no wait for a claim before the request. At any
   * commit at most WEBHOOK_ENDPOINT_CONCURRENCY deliveries of an endpoint are `sending`, as with
   * claims. Resolves with the deliveries left pending, for accept() once the event is handled.
   */
  async create(event: EventEnvelope): Promise<OwnedDelivery[]> {
    const reserved = this.reserveFor(event);
    let created: CreatedDeliveries;
    try {
      created = await this.deliveries.createForEvent(event, reserved);
    } catch (err) {
      for (const webhookId of reserved) this.scheduler.cancel(webhookId);
      if (reserved.length > 0) this.recoverLostInsert(event.id, reserved);
      throw err;
    }
    const unused = [...reserved];
    for (const claimed of created.claimed) {
      unused.splice(unused.indexOf(claimed.webhook_id), 1); // always there: only reserved webhooks' deliveries are inserted claimed
      this.scheduler.startReserved(claimed.webhook_id, claimed.id, () => this.send(claimed));
    }
    for (const webhookId of unused) this.scheduler.cancel(webhookId);
    const webhooks = [...created.claimed, ...created.pending].map((d) => d.webhook_id);
    if (webhooks.length > 0) this.rememberSubscribers(event, webhooks);
    return created.pending;
  }

  /**
   * An insert that failed may still have committed, its answer lost with the connection (a
   * database restart or failover as it ran): the deliveries of its reserved slots are then
   * `sending` and ours, and no request was made for them. JetStream's redelivery of the event
   * inserts nothing (they exist), so left alone they would be closed as interrupted when their
   * lease ends, never sent. Once the database answers, they are put back to `pending` and queued
   * here; if the insert did not commit, there is nothing to find.
   */
  private recoverLostInsert(eventId: string, webhookIds: string[]): void {
    const recovery = (async () => {
      await new Promise((r) => setTimeout(r, LOST_INSERT_SETTLE_MS));
      const found = await this.untilWritten(
        () => this.deliveries.unclaimNeverSent(eventId, webhookIds, this.held()),
        (err) => this.logger.warn({ err, event_id: eventId }, 'could not look for the deliveries of an insert whose answer was lost yet; trying again'),
      );
      if (found.length === 0) return;
      this.logger.info({ event_id: eventId, count: found.length }, 'deliveries committed by an insert whose answer was lost are sent now');
      this.accept(found);
    })()
      .catch((err: unknown) =>
        this.logger.error({ err, event_id: eventId }, 'could not look for the deliveries of an insert whose answer was lost; any it committed will be closed as interrupted'),
      )
      .finally(() => this.recoveries.delete(recovery));
    this.recoveries.add(recovery);
  }

  private subscribersKey(event: EventEnvelope): string {
    return `${event.tenant_id} ${event.type} ${eventBotId(event) ?? ''}`;
  }

  /** Slots reserved for the webhooks the event is expected to go to (see `subscribers`). */
  private reserveFor(event: EventEnvelope): string[] {
    const key = this.subscribersKey(event);
    const known = this.subscribers.get(key);
    if (!known) return [];
    if (known.until < Date.now()) {
      this.subscribers.delete(key);
      return [];
    }
    return known.webhooks.filter((webhookId) => this.scheduler.reserve(webhookId));
  }

  private rememberSubscribers(event: EventEnvelope, webhooks: string[]): void {
    const key = this.subscribersKey(event);
    this.subscribers.delete(key); // re-inserted last: the oldest entry is the first dropped
    this.subscribers.set(key, { webhooks: [...new Set(webhooks)], until: Date.now() + SUBSCRIBERS_TTL_MS });
    if (this.subscribers.size > SUBSCRIBERS_MAX) this.subscribers.delete(this.subscribers.keys().next().value!);
  }

  /** Hands over deliveries just committed for this dispatcher; those that do not fit are given back. */
  accept(deliveries: OwnedDelivery[]): void {
    const refused = deliveries.filter((d) => !this.scheduler.offer(d.webhook_id, d.id)).map((d) => d.id);
    if (refused.length === 0) return;
    void this.deliveries
      .release(refused)
      .catch((err: unknown) => this.logger.warn({ err, count: refused.length }, 'could not give back deliveries; they are taken again when the lease expires'));
  }

  /** Runs a sweep now, or right after the one running. */
  sweepSoon(): void {
    if (this.stopping) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = (async () => {
      try {
        do {
          this.sweepAgain = false;
          await this.sweep();
        } while (this.sweepAgain && !this.stopping);
      } catch (err) {
        this.logger.warn({ err }, 'webhook delivery sweep failed; will retry');
      } finally {
        this.sweeping = null;
      }
    })();
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    if (now - this.lastRenew >= this.config.leaseMs / 3) {
      await this.deliveries.renewLeases(this.held());
      this.lastRenew = now;
    }
    const interrupted = await this.deliveries.failInterrupted();
    if (interrupted > 0) this.logger.warn({ count: interrupted }, 'deliveries interrupted by a stopped dispatcher were recorded as failed');
    // Per-webhook queues bound what is held in memory; full ones are skipped (offer refuses beyond).
    const orphans = await this.deliveries.claimOrphans(ORPHANS_PER_SWEEP, this.scheduler.fullKeys());
    if (orphans.length > 0) {
      this.logger.debug({ count: orphans.length }, 'took over deliveries nobody held');
      this.accept(orphans);
      if (orphans.length === ORPHANS_PER_SWEEP) this.sweepAgain = true;
    }
    if (now - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = now;
      const purged = await this.deliveries.purgeFinished(this.config.logRetentionDays);
      if (purged > 0) this.logger.info({ count: purged, days: this.config.logRetentionDays }, 'deleted old finished deliveries');
    }
  }

  /**
   * One attempt of one delivery. Never leaves it in limbo: a claim that fails is tried again
   * (still held, so its lease is renewed once the database answers) in a form that also takes
   * back a claim that committed although its answer was lost, until the time to write runs out;
   * then it is left to the sweep (pending: taken again once its lease expires; `sending`: closed as
   * interrupted). An outcome that cannot be written is tried again the same way; only then is it
   * left `sending` and no longer renewed, so it is closed as interrupted when the lease ends.
   * Resolves once the request is over: the endpoint's slot is free while the outcome is written
   * (in the background, still held, and awaited at shutdown).
   */
  private async deliver(id: string): Promise<void> {
    const claimed = await this.untilWritten(
      (first) => (first ? this.deliveries.claim(id) : this.deliveries.claimAgain(id)),
      (err) => this.logger.warn({ err, delivery_id: id }, 'could not claim a webhook delivery yet; trying again'),
    );
    if (!claimed) return; // deleted with its webhook, or taken over meanwhile
    await this.send(claimed);
  }

  /**
   * Sends a claimed delivery; resolves once the request is over, its outcome being written in the
   * background (still held, and awaited at shutdown). Never rejects.
   */
  private async send(claimed: ClaimedDelivery): Promise<void> {
    const outcome = await this.attempt(claimed);
    const webhookId = claimed.webhook_id;
    this.recordingByWebhook.set(webhookId, (this.recordingByWebhook.get(webhookId) ?? 0) + 1);
    const recorded = this.record(claimed, outcome).finally(() => {
      this.recording.delete(claimed.id);
      const left = this.recordingByWebhook.get(webhookId)! - 1;
      if (left === 0) this.recordingByWebhook.delete(webhookId);
      else this.recordingByWebhook.set(webhookId, left);
    });
    this.recording.set(claimed.id, recorded);
  }

  /**
   * Runs a write until it goes through, with a growing pause, for max(2 x lease, 10 s), or a few
   * times once the dispatcher is stopping: a database that goes away for a moment (a restart, a
   * failover) must not turn a delivery into an interrupted one. `onRetry` hears the first failure;
   * the last one is thrown.
   */
  private async untilWritten<T>(write: (first: boolean) => Promise<T>, onRetry: (err: unknown) => void): Promise<T> {
    const giveUpAt = Date.now() + Math.max(2 * this.config.leaseMs, RECORD_FOR_MS);
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(attempt === 1);
      } catch (err) {
        const pause = Math.min(100 * 2 ** (attempt - 1), RECORD_BACKOFF_MAX_MS);
        if ((this.stopping && attempt >= FINISH_TRIES) || Date.now() + pause > giveUpAt) throw err;
        if (attempt === 1) onRetry(err);
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /**
   * Writes the outcome of an attempt (see untilWritten); never rejects. The write is conditional
   * (still `sending`, still ours), so one that lands after the delivery was closed as interrupted
   * changes nothing, and one tried again after it committed unseen changes nothing either.
   */
  private async record(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    try {
      await this.untilWritten(
        () => this.deliveries.finish(claimed, outcome),
        (err) => this.logger.warn({ err, delivery_id: claimed.id }, 'could not record a webhook delivery outcome yet; trying again'),
      );
    } catch (err) {
      this.logger.error({ err, delivery_id: claimed.id }, 'could not record a webhook delivery outcome; it will be closed as interrupted');
      return;
    }
    const result = outcome.ok ? 'succeeded' : 'failed';
    attempts.inc({ outcome: result, status_class: outcome.statusCode ? `${Math.floor(outcome.statusCode / 100)}xx` : 'none' });
    attemptDuration.observe({ outcome: result }, outcome.durationMs / 1000);
    if (outcome.ok) this.logger.debug(this.logFields(claimed, outcome), 'webhook delivered');
    else this.logger.info({ ...this.logFields(claimed, outcome), error: outcome.error }, 'webhook delivery failed');
  }

  private logFields(claimed: ClaimedDelivery, outcome: AttemptOutcome): Record<string, unknown> {
    return {
      delivery_id: claimed.id,
      webhook_id: claimed.webhook_id,
      event_id: claimed.event_id,
      event: claimed.event_type,
      tenant_id: claimed.tenant_id,
      attempt: claimed.attempt,
      status_code: outcome.statusCode,
      duration_ms: Math.round(outcome.durationMs),
    };
  }

  /** Every delivery this process holds: queued, in flight, or with its outcome being written. */
  private held(): string[] {
    return [...this.scheduler.held(), ...this.recording.keys()];
  }

  /** Sends one claimed delivery; never throws (every failure is an outcome). */
  private async attempt(claimed: ClaimedDelivery): Promise<AttemptOutcome> {
    const started = performance.now();
    const failed = (error: string, statusCode: number | null = null): AttemptOutcome => ({ ok: false, statusCode, error, durationMs: performance.now() - started });
    try {
      if (!(await this.entitlements.webhooksEnabled(claimed.tenant_id))) return failed("not sent: the workspace's plan does not include webhooks");
    } catch (err) {
      return failed(`not sent: the workspace's plan could not be checked (${(err as Error).message})`);
    }
    let secret: string;
    try {
      secret = this.secrets.open(claimed.secret);
    } catch (err) {
      return failed(`not sent: ${(err as Error).message}`);
    }
    const request = webhookRequest({
      deliveryId: claimed.id,
      eventId: claimed.event_id,
      eventType: claimed.event_type,
      dataJson: claimed.data_json,
      secret,
      timestamp: Math.floor(Date.now() / 1000),
      userAgent: this.config.userAgent,
    });
    try {
      const res = await guardedFetch(claimed.url, this.policy, { method: 'POST', headers: request.headers, body: request.body, followRedirects: false, discardBody: true, connections: this.connections });
      const verdict = describeStatus(res.status);
      return { ok: verdict.ok, statusCode: res.status, error: verdict.error, durationMs: performance.now() - started };
    } catch (err) {
      return failed(isGuardError(err) ? err.message : `request failed: ${(err as Error).message}`);
    }
  }
}
