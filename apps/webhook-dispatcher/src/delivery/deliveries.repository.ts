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
  attempt_id: string;
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
      `WITH claimed AS (
         UPDATE webhooks.deliveries d
            SET status = 'sending', attempts = d.attempts + 1, last_attempt_at = clock_timestamp(), lease_until = now() + $3::interval
          WHERE d.id = ANY($1::uuid[]) AND d.status = 'pending' AND d.owner = $2
          RETURNING d.id, d.tenant_id, d.webhook_id, d.event_id, d.event_type, d.data::text AS data_json, d.attempts AS attempt, d.next_trigger
       ), opened AS (
         INSERT INTO webhooks.attempts (delivery_id, attempt, trigger, owner)
         SELECT id, attempt, next_trigger, $2 FROM claimed
         RETURNING id, delivery_id
       )
       SELECT c.id, c.tenant_id, c.webhook_id, c.event_id, c.event_type, c.data_json, c.attempt, o.id::text AS attempt_id, w.url, w.secret
         FROM claimed c JOIN opened o ON o.delivery_id = c.id JOIN webhooks.webhooks w ON w.id = c.webhook_id`,
      [ids, this.owner, this.lease],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  private async finishMany(items: { claimed: ClaimedDelivery; outcome: AttemptOutcome }[]): Promise<void[]> {
    await this.pool.query(
      `WITH v AS (
         SELECT * FROM unnest($2::uuid[], $3::bigint[], $4::text[], $5::int[], $6::int[], $7::text[])
                    AS v(id, attempt_id, status, duration_ms, status_code, error)
       ), attempt AS (
         UPDATE webhooks.attempts a SET finished_at = clock_timestamp(), duration_ms = v.duration_ms, status_code = v.status_code, error = v.error
           FROM v WHERE a.id = v.attempt_id
       )
       UPDATE webhooks.deliveries d
          SET status = v.status, owner = NULL, lease_until = NULL, last_status_code = v.status_code, last_error = v.error, last_duration_ms = v.duration_ms
         FROM v WHERE d.id = v.id AND d.owner = $1 AND d.status = 'sending'`,
      [
        this.owner,
        items.map((i) => i.claimed.id),
        items.map((i) => i.claimed.attempt_id),
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
      `UPDATE webhooks.deliveries SET owner = NULL, lease_until = NULL WHERE id = ANY($1::uuid[]) AND owner = $2 AND status = 'pending'`,
      [ids, this.owner],
    );
  }

  async renewLeases(): Promise<void> {
    await this.ds.query(
      `UPDATE webhooks.deliveries SET lease_until = now() + $2::interval WHERE owner = $1 AND status IN ('pending', 'sending')`,
      [this.owner, this.lease],
    );
  }

  /**
   * Requests whose dispatcher died mid-flight (lease expired while `sending`) are recorded as
   * failed (interrupted), not sent again: the endpoint may have received them, and there are no
   * automatic retries (spec part 6). A manual redeliver can send them again.
   */
  async failInterrupted(): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `WITH stale AS (
         UPDATE webhooks.deliveries d
            SET status = 'failed', owner = NULL, lease_until = NULL, last_status_code = NULL, last_error = $1, last_duration_ms = NULL
          WHERE d.status = 'sending' AND d.lease_until < now()
          RETURNING d.id, d.attempts
       ), closed AS (
         UPDATE webhooks.attempts a SET finished_at = clock_timestamp(), error = $1
           FROM stale s WHERE a.delivery_id = s.id AND a.attempt = s.attempts AND a.finished_at IS NULL
       )
       SELECT id FROM stale`,
      [INTERRUPTED_ERROR],
    );
    return rows.length;
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
