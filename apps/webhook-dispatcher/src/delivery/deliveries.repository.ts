import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { EventEnvelope, eventBotId } from '@sa/contracts';
import { pgClientConfig, queryRows } from '@sa/db';
import { DISPATCHER_CONFIG, WebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { GroupBatcher } from './group-batcher';

/** A delivery this dispatcher holds, to be sent. */
export interface OwnedDelivery {
  id: string;
  webhook_id: string;
}

/** A delivery claimed for one attempt: everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  data_json: string;
  attempt: number;
  trigger: string;
  started_at: Date;
  url: string;
  secret: string;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export const INTERRUPTED_ERROR = 'interrupted: the dispatcher stopped while this request was in flight; the endpoint may or may not have received it';

/**
 * The delivery log in SQL (schema `webhooks`, see the migration). Every statement that changes an
 * open delivery names its owner, so two dispatchers never act on one delivery at once.
 *
 * Claims and outcomes go through a small pool of their own, so sending never queues behind the
 * event consumer's transactions, and are grouped: concurrent claims (and outcomes) share one
 * statement, while a lone one runs at once.
 */
@Injectable()
export class DeliveriesRepository implements OnApplicationShutdown {
  private readonly lease: string;
  private readonly pool: Pool;
  private readonly claims: GroupBatcher<string, ClaimedDelivery | null>;
  private readonly outcomes: GroupBatcher<{ claimed: ClaimedDelivery; outcome: AttemptOutcome }, void>;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
  ) {
    this.lease = `${config.leaseMs} milliseconds`;
    this.pool = new Pool({ ...pgClientConfig(ds.options, 'webhook-dispatcher-delivery'), max: 4, idleTimeoutMillis: 30_000 });
    this.pool.on('error', () => undefined); // an idle client's error; the next query reconnects
    this.claims = new GroupBatcher((ids) => this.claimMany(ids), 200);
    this.outcomes = new GroupBatcher((items) => this.finishMany(items), 200);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private get owner(): string {
    return this.config.instanceId;
  }

  /**
   * One pending delivery per webhook of the workspace subscribed to this event kind, whose scope is
   * every bot or the event's bot, held by this dispatcher. The unique (event_id, webhook_id) makes
   * a repeat a no-op (only new rows are returned).
   */
  createForEvent(manager: EntityManager, event: EventEnvelope): Promise<OwnedDelivery[]> {
    return queryRows<OwnedDelivery>(
      manager,
      `INSERT INTO webhooks.deliveries (tenant_id, webhook_id, event_id, event_type, occurred_at, data, owner, lease_until)
       SELECT w.tenant_id, w.id, $2, $3, $4, $5::json, $6, now() + $7::interval
         FROM webhooks.webhooks w
        WHERE w.tenant_id = $1 AND $3 = ANY(w.events) AND (w.bot_id IS NULL OR w.bot_id = $8::uuid)
        ORDER BY w.created_at
       ON CONFLICT ON CONSTRAINT deliveries_event_webhook_key DO NOTHING
       RETURNING id, webhook_id`,
      [event.tenant_id, event.id, event.type, event.occurred_at, JSON.stringify(event.data), this.owner, this.lease, eventBotId(event)],
    );
  }

  /**
   * Moves a pending delivery this dispatcher holds to `sending` and opens an attempt, in one
   * statement committed before the request goes out: after a crash it is known to have been
   * (perhaps) sent, and is never sent again automatically. Null when it is no longer ours.
   */
  claim(id: string): Promise<ClaimedDelivery | null> {
    return this.claims.call(id);
  }

  /** Records the outcome of an attempt and closes the delivery (no automatic retries). */
  finish(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    return this.outcomes.call({ claimed, outcome });
  }

  private async claimMany(ids: string[]): Promise<(ClaimedDelivery | null)[]> {
    const { rows } = await this.pool.query<ClaimedDelivery>(
      `WITH locked AS (
         SELECT id FROM webhooks.deliveries WHERE id = ANY($1::uuid[]) AND status = 'pending' AND owner = $2 ORDER BY id FOR UPDATE
       ), claimed AS (
         UPDATE webhooks.deliveries d
            SET status = 'sending', attempts = d.attempts + 1, last_attempt_at = clock_timestamp(), lease_until = now() + $3::interval
           FROM locked l WHERE d.id = l.id
          RETURNING d.id, d.tenant_id, d.webhook_id, d.event_id, d.event_type, d.data::text AS data_json, d.attempts AS attempt,
                    d.next_trigger AS trigger, d.last_attempt_at AS started_at
       )
       SELECT c.*, w.url, w.secret FROM claimed c JOIN webhooks.webhooks w ON w.id = c.webhook_id`,
      [ids, this.owner, this.lease],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * Closes the deliveries and writes their attempts, in one statement. The attempt row is written
   * here, not at the claim (one write less per delivery): an attempt interrupted by a crash gets
   * its row from failInterrupted().
   */
  private async finishMany(items: { claimed: ClaimedDelivery; outcome: AttemptOutcome }[]): Promise<void[]> {
    await this.pool.query(
      `WITH v AS (
         SELECT * FROM unnest($2::uuid[], $3::int[], $4::text[], $5::timestamptz[], $6::text[], $7::int[], $8::int[], $9::text[])
                    AS v(id, attempt, trigger, started_at, status, duration_ms, status_code, error)
       ), locked AS (
         SELECT d.id FROM webhooks.deliveries d JOIN v ON v.id = d.id WHERE d.owner = $1 AND d.status = 'sending' ORDER BY d.id FOR UPDATE OF d
       ), closed AS (
         UPDATE webhooks.deliveries d
            SET status = v.status, owner = NULL, lease_until = NULL, last_status_code = v.status_code, last_error = v.error, last_duration_ms = v.duration_ms
           FROM v JOIN locked l ON l.id = v.id WHERE d.id = v.id
       )
       INSERT INTO webhooks.attempts (delivery_id, attempt, trigger, owner, started_at, finished_at, duration_ms, status_code, error)
       SELECT v.id, v.attempt, v.trigger, $1, v.started_at, clock_timestamp(), v.duration_ms, v.status_code, v.error FROM v
       ON CONFLICT ON CONSTRAINT attempts_delivery_attempt_key
       DO UPDATE SET finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms, status_code = EXCLUDED.status_code, error = EXCLUDED.error`,
      [
        this.owner,
        items.map((i) => i.claimed.id),
        items.map((i) => i.claimed.attempt),
        items.map((i) => i.claimed.trigger),
        items.map((i) => i.claimed.started_at),
        items.map((i) => (i.outcome.ok ? 'succeeded' : 'failed')),
        items.map((i) => Math.round(i.outcome.durationMs)),
        items.map((i) => i.outcome.statusCode),
        items.map((i) => i.outcome.error),
      ],
    );
    return items.map(() => undefined);
  }

  /** Gives deliveries back (held but not started): any dispatcher may take them at once. */
  async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query(
      `UPDATE webhooks.deliveries d SET owner = NULL, lease_until = NULL
         FROM (SELECT id FROM webhooks.deliveries WHERE id = ANY($1::uuid[]) AND owner = $2 AND status = 'pending' ORDER BY id FOR UPDATE) r
        WHERE d.id = r.id`,
      [ids, this.owner],
    );
  }

  /**
   * Renews the leases of the deliveries this process really holds (queued or in flight), so one
   * whose outcome could not be written is left to expire and be closed as interrupted. Rows are
   * locked in id order, like every multi-row statement here, so statements never deadlock.
   */
  async renewLeases(held: string[]): Promise<void> {
    if (held.length === 0) return;
    await this.pool.query(
      `UPDATE webhooks.deliveries d SET lease_until = now() + $3::interval
         FROM (SELECT id FROM webhooks.deliveries WHERE id = ANY($2::uuid[]) AND owner = $1 AND status IN ('pending', 'sending')
                ORDER BY id FOR UPDATE SKIP LOCKED) h
        WHERE d.id = h.id`,
      [this.owner, held, this.lease],
    );
  }

  /**
   * Requests whose dispatcher died mid-flight (lease expired while `sending`) are recorded as
   * failed (interrupted), not sent again: the endpoint may have received them, and there are no
   * automatic retries (spec part 6). A manual redeliver can send them again.
   */
  async failInterrupted(): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      this.ds,
      `WITH expired AS (
         SELECT id, owner FROM webhooks.deliveries WHERE status = 'sending' AND lease_until < now() ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED
       ), stale AS (
         UPDATE webhooks.deliveries d
            SET status = 'failed', owner = NULL, lease_until = NULL, last_status_code = NULL, last_error = $1, last_duration_ms = NULL
           FROM expired e WHERE d.id = e.id
          RETURNING d.id, d.attempts, d.next_trigger, d.last_attempt_at, e.owner
       ), logged AS (
         INSERT INTO webhooks.attempts (delivery_id, attempt, trigger, owner, started_at, finished_at, error)
         SELECT id, attempts, next_trigger, owner, COALESCE(last_attempt_at, clock_timestamp()), clock_timestamp(), $1 FROM stale
         ON CONFLICT ON CONSTRAINT attempts_delivery_attempt_key DO NOTHING
       )
       SELECT count(*)::int AS n FROM stale`,
      [INTERRUPTED_ERROR],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Takes up to `limit` pending deliveries nobody holds (released, redelivered, or held by a
   * dispatcher whose lease expired), oldest first, skipping the given webhooks (queues full).
   */
  claimOrphans(limit: number, skipWebhooks: string[]): Promise<OwnedDelivery[]> {
    return queryRows<OwnedDelivery>(
      this.ds,
      `UPDATE webhooks.deliveries d SET owner = $1, lease_until = now() + $2::interval
         FROM (SELECT id FROM webhooks.deliveries
                WHERE status = 'pending' AND (owner IS NULL OR lease_until < now()) AND NOT (webhook_id = ANY($4::uuid[]))
                ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED) o
        WHERE d.id = o.id
        RETURNING d.id, d.webhook_id`,
      [this.owner, this.lease, limit, skipWebhooks],
    );
  }

  /** Deletes finished deliveries (and their attempts) created before the retention window. */
  async purgeFinished(olderThanDays: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `DELETE FROM webhooks.deliveries WHERE id IN (
         SELECT id FROM webhooks.deliveries WHERE status IN ('succeeded', 'failed') AND created_at < now() - make_interval(days => $1) LIMIT 10000
       ) RETURNING id`,
      [olderThanDays],
    );
    return rows.length;
  }
}
