import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The bot an event is about, for webhooks scoped to one bot. A bot id that is not a UUID matches
 * no scoped webhook (they are all UUIDs) rather than failing the statement, which other events
 * share.
 */
function scopeBotId(event: EventEnvelope): string | null {
  const id = eventBotId(event);
  return id !== null && UUID.test(id) ? id : null;
}

/** What one event's deliveries were created as: held pending, or claimed in a reserved slot. */
export interface CreatedDeliveries {
  pending: OwnedDelivery[];
  claimed: ClaimedDelivery[];
}

/** An event, and the webhooks whose deliveries of it may be inserted claimed (slots reserved). */
interface NewEvent {
  event: EventEnvelope;
  reserved: readonly string[];
}

interface CreatedRow {
  id: string;
  webhook_id: string;
  event_id: string;
  trigger: string;
  started_at: Date | null;
  /** With `secret`: only for a delivery inserted claimed. */
  url: string | null;
  secret: string | null;
}

/** A claim, or an outcome to record: the two writes of an attempt, batched together. */
type DeliveryWrite = { claim: string; finish?: undefined } | { claim?: undefined; finish: { claimed: ClaimedDelivery; outcome: AttemptOutcome } };

/** What a claim returns of a delivery (with its webhook's url and secret joined after). */
const CLAIMED_COLUMNS = `d.id, d.tenant_id, d.webhook_id, d.event_id, d.event_type, d.data::text AS data_json, d.attempts AS attempt,
                    d.next_trigger AS trigger, d.last_attempt_at AS started_at`;

export const INTERRUPTED_ERROR = 'interrupted: the dispatcher stopped while this request was in flight; the endpoint may or may not have received it';

/**
 * The delivery log in SQL (schema `webhooks`, see the migration). Every statement that changes an
 * open delivery names its owner, so two dispatchers never act on one delivery at once.
 *
 * New deliveries, claims and outcomes go through a small pool of their own, and are grouped:
 * concurrent inserts (claims, outcomes) share one statement and one commit, while a lone one runs
 * at once. Under load this is what keeps PostgreSQL's work per delivery small.
 */
@Injectable()
export class DeliveriesRepository implements OnApplicationShutdown {
  private readonly lease: string;
  private readonly pool: Pool;
  private readonly creates: GroupBatcher<NewEvent, CreatedDeliveries>;
  private readonly writes: GroupBatcher<DeliveryWrite, ClaimedDelivery | null | void>;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
  ) {
    this.lease = `${config.leaseMs} milliseconds`;
    // Planned once per connection (generic plans): planning the claim-and-outcome statement anew at
    // every run cost PostgreSQL about as much as running it. The plans must then hold whatever the
    // table looks like later, so no sequential scans (a plan made while the table was nearly empty
    // would keep scanning it as it grows), and the open-deliveries index is about `open`, which no
    // statement here names (a plan that found ids through it read the whole backlog at every claim
    // and outcome: about 2,000 blocks a statement in the webhooks bench). What is left to them is
    // the primary key (and the webhooks' indexes), at any size.
    this.pool = new Pool({
      ...pgClientConfig(ds.options, 'webhook-dispatcher-delivery'),
      options: '-c plan_cache_mode=force_generic_plan -c enable_seqscan=off',
      max: 4,
      idleTimeoutMillis: 30_000,
    });
    this.pool.on('error', () => undefined); // an idle client's error; the next query reconnects
    this.creates = new GroupBatcher((calls) => this.createMany(calls), 200);
    // Two write statements in flight: a claim waits for the end of the write in progress at
    // most, not for it and then its own turn. No cap on a batch (what waits is bounded by
    // WEBHOOK_CONCURRENCY: one claim and one outcome per slot), so an outcome and the claim for the
    // slot it frees, queued in one turn, are never split over two statements that could commit
    // out of order: at any commit at most WEBHOOK_ENDPOINT_CONCURRENCY deliveries of an endpoint are
    // `sending`.
    this.writes = new GroupBatcher((ops) => this.writeMany(ops), Infinity, 2);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private get owner(): string {
    return this.config.instanceId;
  }

  /**
   * One delivery per webhook of the workspace subscribed to this event kind, whose scope is every
   * bot or the event's bot, held by this dispatcher. Those for the webhooks in `reserved` (slots
   * this dispatcher reserved for them) are inserted already claimed (`sending`, attempt 1), the
   * rest `pending`. The unique (event_id, webhook_id) makes a repeat a no-op (only new rows are
   * returned). Committed on return (no transaction of the caller's): events handled at once share
   * one INSERT (group commit, see createMany).
   */
  createForEvent(event: EventEnvelope, reserved: readonly string[] = []): Promise<CreatedDeliveries> {
    return this.creates.call({ event, reserved });
  }

  /**
   * The deliveries of several events in one statement. Rows are inserted in (event id, webhook
   * created_at) order, so two dispatchers given overlapping events (a redelivery) never deadlock
   * on the unique key; an event listed twice gets its rows once (the first caller).
   */
  private async createMany(calls: NewEvent[]): Promise<CreatedDeliveries[]> {
    const byEventId = new Map<string, NewEvent>();
    for (const c of calls) if (!byEventId.has(c.event.id)) byEventId.set(c.event.id, c); // the first listing's reservations
    const unique = [...byEventId.values()];
    const data = new Map(unique.map((c) => [c.event.id, JSON.stringify(c.event.data)]));
    const claimedPairs = unique.flatMap((c) => c.reserved.map((webhookId) => [c.event.id, webhookId]));
    const { rows } = await this.pool.query<CreatedRow>({
      name: 'webhooks-create-deliveries',
      text: `WITH ins AS (
         INSERT INTO webhooks.deliveries (tenant_id, webhook_id, event_id, event_type, occurred_at, data, owner, lease_until, status, attempts, created_at, last_attempt_at)
         SELECT w.tenant_id, w.id, e.id, e.type, e.occurred_at, e.data::json, $1, now() + $2::interval,
                CASE WHEN r.webhook_id IS NULL THEN 'pending' ELSE 'sending' END,
                CASE WHEN r.webhook_id IS NULL THEN 0 ELSE 1 END,
                t.at,
                CASE WHEN r.webhook_id IS NULL THEN NULL ELSE t.at END
           FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[], $7::text[], $8::uuid[]) AS e(tenant_id, id, type, occurred_at, data, bot_id)
           JOIN webhooks.webhooks w ON w.tenant_id = e.tenant_id AND e.type = ANY(w.events) AND (w.bot_id IS NULL OR w.bot_id = e.bot_id)
           LEFT JOIN unnest($9::uuid[], $10::uuid[]) AS r(event_id, webhook_id) ON r.event_id = e.id AND r.webhook_id = w.id
           -- one reading of the clock per row: a delivery inserted claimed starts its attempt as it is created
           CROSS JOIN LATERAL (SELECT clock_timestamp() AS at, w.id) AS t
          ORDER BY e.id, w.created_at
         ON CONFLICT ON CONSTRAINT deliveries_event_webhook_key DO NOTHING
         RETURNING id, webhook_id, event_id, status, next_trigger, last_attempt_at
       )
       SELECT ins.id, ins.webhook_id, ins.event_id, ins.next_trigger AS trigger, ins.last_attempt_at AS started_at,
              CASE WHEN ins.status = 'sending' THEN w.url END AS url, CASE WHEN ins.status = 'sending' THEN w.secret END AS secret
         FROM ins JOIN webhooks.webhooks w ON w.id = ins.webhook_id`,
      values: [
        this.owner,
        this.lease,
        unique.map((c) => c.event.tenant_id),
        unique.map((c) => c.event.id),
        unique.map((c) => c.event.type),
        unique.map((c) => new Date(c.event.occurred_at).toISOString()),
        unique.map((c) => data.get(c.event.id)),
        unique.map((c) => scopeBotId(c.event)),
        claimedPairs.map(([eventId]) => eventId),
        claimedPairs.map(([, webhookId]) => webhookId),
      ],
    });
    const byEvent = new Map<string, CreatedDeliveries>();
    for (const c of unique) byEvent.set(c.event.id, { pending: [], claimed: [] });
    for (const r of rows) {
      const created = byEvent.get(r.event_id)!;
      if (r.url === null) {
        created.pending.push({ id: r.id, webhook_id: r.webhook_id });
        continue;
      }
      const { event } = byEventId.get(r.event_id)!;
      created.claimed.push({
        id: r.id,
        tenant_id: event.tenant_id,
        webhook_id: r.webhook_id,
        event_id: event.id,
        event_type: event.type,
        data_json: data.get(event.id)!,
        attempt: 1,
        trigger: r.trigger,
        started_at: r.started_at!,
        url: r.url,
        secret: r.secret!,
      });
    }
    return calls.map((c) => {
      const created = byEvent.get(c.event.id) ?? { pending: [], claimed: [] };
      byEvent.delete(c.event.id); // a second listing of the same event: nothing new for it
      return created;
    });
  }

  /**
   * Moves a pending delivery this dispatcher holds to `sending` and opens an attempt, in one
   * statement committed before the request goes out: after a crash it is known to have been
   * (perhaps) sent, and is never sent again automatically. Null when it is no longer ours.
   */
  claim(id: string): Promise<ClaimedDelivery | null> {
    return this.writes.call({ claim: id }) as Promise<ClaimedDelivery | null>;
  }

  /**
   * A claim again after one whose answer was lost (the connection dropped while it ran): the
   * delivery is claimed if it is still pending and ours, or taken back as it is if that claim did
   * commit (`sending` and ours: this owner id is this process's, and it runs one attempt of a
   * delivery at a time). Null when it is no longer ours (closed as interrupted, or taken over).
   */
  async claimAgain(id: string): Promise<ClaimedDelivery | null> {
    const { rows } = await this.pool.query<ClaimedDelivery>({
      name: 'webhooks-claim-again',
      text: `WITH claimed AS (
         UPDATE webhooks.deliveries d
            SET status = 'sending',
                attempts = CASE WHEN d.status = 'pending' THEN d.attempts + 1 ELSE d.attempts END,
                last_attempt_at = CASE WHEN d.status = 'pending' THEN clock_timestamp() ELSE d.last_attempt_at END,
                lease_until = now() + $3::interval
          WHERE d.id = $2 AND d.owner = $1 AND d.status IN ('pending', 'sending')
          RETURNING ${CLAIMED_COLUMNS}
       )
       SELECT c.*, w.url, w.secret FROM claimed c JOIN webhooks.webhooks w ON w.id = c.webhook_id`,
      values: [this.owner, id, this.lease],
    });
    return rows[0] ?? null;
  }

  /** Records the outcome of an attempt and closes the delivery (no automatic retries). */
  async finish(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    await this.writes.call({ finish: { claimed, outcome } });
  }

  /**
   * Claims and outcomes waiting at the same moment share one statement and one commit: when an
   * endpoint's request ends, its outcome and the claim of the next delivery for the freed slot
   * are written together. The two sets of rows are disjoint (`pending` ones are claimed, `sending`
   * ones closed) and held by this dispatcher: no other statement of its own waits on them (the
   * sweeps and lease renewals skip locked rows; given-back and redelivered rows are never being
   * claimed or closed), so the rows are locked as they are updated, without a separate pass that
   * locked them in id order first (which cost a WAL record per row).
   *
   * Outcomes close the deliveries and write their attempts. The attempt row is written here, not
   * at the claim (one write less per delivery): an attempt interrupted by a crash gets its row
   * from failInterrupted(). An outcome that arrives after its delivery was closed as interrupted
   * (written late, the database away past the lease) changes neither the delivery nor its attempt,
   * nor does one of an earlier attempt (tried again after it committed unseen, while a redeliver
   * started the next).
   */
  private async writeMany(ops: DeliveryWrite[]): Promise<(ClaimedDelivery | null | void)[]> {
    const ids: string[] = [];
    const done: { claimed: ClaimedDelivery; outcome: AttemptOutcome }[] = [];
    for (const op of ops) {
      if (op.claim !== undefined) ids.push(op.claim);
      else done.push(op.finish);
    }
    const { rows } = await this.pool.query<ClaimedDelivery>({
      name: 'webhooks-claim-and-finish',
      text: `WITH v AS (
         SELECT * FROM unnest($4::uuid[], $5::int[], $6::text[], $7::timestamptz[], $8::text[], $9::int[], $10::int[], $11::text[])
                    AS v(id, attempt, trigger, started_at, status, duration_ms, status_code, error)
       ), closed AS (
         UPDATE webhooks.deliveries d
            SET status = v.status, owner = NULL, lease_until = NULL, last_status_code = v.status_code, last_error = v.error, last_duration_ms = v.duration_ms
           FROM v WHERE d.id = v.id AND d.owner = $1 AND d.status = 'sending' AND d.attempts = v.attempt
          RETURNING d.id
       ), logged AS (
         INSERT INTO webhooks.attempts (delivery_id, attempt, trigger, owner, started_at, finished_at, duration_ms, status_code, error)
         SELECT v.id, v.attempt, v.trigger, $1, v.started_at, clock_timestamp(), v.duration_ms, v.status_code, v.error FROM v JOIN closed USING (id)
         ON CONFLICT ON CONSTRAINT attempts_delivery_attempt_key
         DO UPDATE SET finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms, status_code = EXCLUDED.status_code, error = EXCLUDED.error
       ), claimed AS (
         UPDATE webhooks.deliveries d
            SET status = 'sending', attempts = d.attempts + 1, last_attempt_at = clock_timestamp(), lease_until = now() + $3::interval
          WHERE d.id = ANY($2::uuid[]) AND d.status = 'pending' AND d.owner = $1
          RETURNING ${CLAIMED_COLUMNS}
       )
       SELECT c.*, w.url, w.secret FROM claimed c JOIN webhooks.webhooks w ON w.id = c.webhook_id`,
      values: [
        this.owner,
        ids,
        this.lease,
        done.map((i) => i.claimed.id),
        done.map((i) => i.claimed.attempt),
        done.map((i) => i.claimed.trigger),
        done.map((i) => i.claimed.started_at),
        done.map((i) => (i.outcome.ok ? 'succeeded' : 'failed')),
        done.map((i) => Math.round(i.outcome.durationMs)),
        done.map((i) => i.outcome.statusCode),
        done.map((i) => i.outcome.error),
      ],
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ops.map((op) => (op.claim !== undefined ? (byId.get(op.claim) ?? null) : undefined));
  }

  /**
   * Puts back to `pending` (attempt 0, held by this dispatcher) the deliveries of an event that an
   * insert of this dispatcher committed claimed (`sending`, attempt 1) while its answer was lost:
   * no request was made for them, since one starts only once the insert's answer is in. Rows whose
   * id is in `exclude` (queued, in flight or being recorded here) are left alone, and so is a row
   * whose outcome commits meanwhile (no longer `sending` when this statement gets to it).
   */
  async unclaimNeverSent(eventId: string, webhookIds: string[], exclude: string[]): Promise<OwnedDelivery[]> {
    const { rows } = await this.pool.query<OwnedDelivery>({
      name: 'webhooks-unclaim-never-sent',
      text: `UPDATE webhooks.deliveries
                SET status = 'pending', attempts = 0, last_attempt_at = NULL, lease_until = now() + $5::interval
              WHERE event_id = $1 AND webhook_id = ANY($2::uuid[]) AND owner = $3 AND status = 'sending' AND attempts = 1
                AND next_trigger = 'event' AND NOT (id = ANY($4::uuid[]))
              RETURNING id, webhook_id`,
      values: [eventId, webhookIds, this.owner, exclude, this.lease],
    });
    return rows;
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
   * whose outcome could not be written is left to expire and be closed as interrupted. Rows locked
   * by a claim or an outcome being written are skipped (that write sets or ends the lease), so this
   * never waits for, nor holds up, the delivery path.
   */
  async renewLeases(held: string[]): Promise<void> {
    if (held.length === 0) return;
    await this.pool.query({
      name: 'webhooks-renew-leases',
      text: `UPDATE webhooks.deliveries d SET lease_until = now() + $3::interval
         FROM (SELECT id FROM webhooks.deliveries WHERE id = ANY($2::uuid[]) AND owner = $1 AND status IN ('pending', 'sending')
                ORDER BY id FOR UPDATE SKIP LOCKED) h
        WHERE d.id = h.id`,
      values: [this.owner, held, this.lease],
    });
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
         SELECT id, owner FROM webhooks.deliveries WHERE open AND status = 'sending' AND lease_until < now() ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED
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
                WHERE open AND status = 'pending' AND (owner IS NULL OR lease_until < now()) AND NOT (webhook_id = ANY($4::uuid[]))
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
         SELECT id FROM webhooks.deliveries WHERE NOT open AND created_at < now() - make_interval(days => $1) LIMIT 10000
       ) RETURNING id`,
      [olderThanDays],
    );
    return rows.length;
  }
}
