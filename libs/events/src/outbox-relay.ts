import { JetStreamClient, NatsConnection, PubAck } from 'nats';
import { Pool, QueryResult } from 'pg';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { eventSubject } from '@sa/contracts';
import { EventStreamConfig, ensureEventStream } from './event-stream';
import { outboxChannel, qualifiedTable } from './outbox-sql';
import { checkOut, PgListener, pgClientConfig } from '@sa/db';
import { sampledGauges } from '@sa/metrics';

export interface OutboxRelayOptions {
  dataSource: DataSource;
  /** The schema whose `outbox` table this relay publishes. */
  schema: string;
  nats: NatsConnection;
  stream: EventStreamConfig;
  logger: Logger;
  /** Fallback polling when no NOTIFY arrives (LISTEN connection down, notification lost). */
  pollIntervalMs?: number;
  /** Rows claimed and published per transaction. */
  batchSize?: number;
  /** Published rows older than this are deleted. */
  retentionMs?: number;
  /** How often old published rows are looked for (also once at start). */
  cleanupIntervalMs?: number;
  /** How long to wait for each PubAck. */
  publishTimeoutMs?: number;
}

interface OutboxRow {
  id: string;
  type: string;
  payload: string;
}

const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const CLEANUP_CHUNK = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Publishes the committed rows of one schema's outbox to JetStream, at least once.
 *
 * Each pass claims a batch of unpublished rows with `FOR UPDATE SKIP LOCKED` (so any number of
 * replicas share the work without publishing a row twice), publishes each on
 * `<prefix>.<type>` with the event id as Nats-Msg-Id, waits for the PubAcks and marks the
 * acknowledged rows published in the same transaction. If the process dies between a PubAck and
 * the commit, the row is published again later: JetStream drops it as a duplicate within its
 * duplicate window, and consumers skip already processed ids in any case.
 *
 * Passes are triggered by the outbox trigger's NOTIFY (dedicated LISTEN connection) and by a poll
 * timer. Failures (database, NATS down) are logged and leave the rows for the next pass.
 */
/** The relays running in this process, for the outbox-lag gauges (read at scrape time). */
const runningRelays = new Set<OutboxRelay>();

sampledGauges(
  {
    unpublished: { name: 'sa_outbox_unpublished', help: 'Outbox rows committed but not yet published to JetStream, by schema' },
    oldest: { name: 'sa_outbox_oldest_unpublished_seconds', help: 'Age of the oldest outbox row not yet published (0 when none), by schema' },
  },
  ['schema'] as const,
  async () => {
    const rows = [];
    for (const relay of runningRelays) {
      const lag = await relay.lag().catch(() => null);
      if (lag) rows.push({ labels: { schema: relay.schema }, values: { unpublished: lag.unpublished, oldest: lag.oldestSeconds } });
    }
    return rows;
  },
);

export class OutboxRelay {
  private readonly table: string;
  private readonly logger: Logger;
  private readonly listener: PgListener;
  /** One connection of its own for the passes (they run one at a time): plain pg, no ORM. */
  private readonly pool: Pool;
  private readonly batchSize: number;
  private readonly encoder = new TextEncoder();
  private js: JetStreamClient | null = null;
  private running = false;
  private streamReady = false;
  /** Set by kick(): another pass is wanted after the current one. */
  private wanted = false;
  private pass: Promise<void> | null = null;
  private cleanup: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly opts: OutboxRelayOptions) {
    this.table = qualifiedTable(opts.schema, 'outbox');
    this.batchSize = opts.batchSize ?? 100;
    this.logger = opts.logger.child({ component: 'outbox-relay', schema: opts.schema });
    const appName = opts.dataSource.options.type === 'postgres' ? opts.dataSource.options.applicationName : undefined;
    this.pool = new Pool({ ...pgClientConfig(opts.dataSource.options, `${appName ?? opts.schema}-outbox-relay`.slice(0, 63)), max: 1, idleTimeoutMillis: 30_000 });
    this.pool.on('error', () => undefined); // an idle client's error; the next pass reconnects
    this.listener = new PgListener({
      client: pgClientConfig(opts.dataSource.options, `${appName ?? opts.schema}-outbox-listen`.slice(0, 63)),
      channel: outboxChannel(opts.schema),
      logger: this.logger,
      onNotify: () => this.kick(),
      // Rows committed while we were not listening are picked up at once.
      onListening: () => this.kick(),
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.js = this.opts.nats.jetstream();
    await this.ensureStream();
    await this.listener.start();
    this.timers = [
      setInterval(() => this.kick(), this.opts.pollIntervalMs ?? 1000),
      setInterval(() => this.runCleanup(), this.opts.cleanupIntervalMs ?? 60 * 60 * 1000),
    ];
    for (const t of this.timers) t.unref();
    this.runCleanup();
    this.kick();
    runningRelays.add(this);
    this.logger.info({ stream: this.opts.stream.name }, 'outbox relay started');
  }

  /** Waits for the batch in flight (it commits or rolls back), then closes the LISTEN connection. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    runningRelays.delete(this);
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.all([this.pass, this.cleanup]);
    await this.listener.stop();
    await this.pool.end().catch(() => undefined);
    this.logger.info('outbox relay stopped');
  }

  get schema(): string {
    return this.opts.schema;
  }

  /** How far publishing is behind: unpublished rows and the age of the oldest (metrics). */
  async lag(): Promise<{ unpublished: number; oldestSeconds: number }> {
    const [row] = (await this.opts.dataSource.query(
      `SELECT count(*)::int AS n, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age FROM ${this.table} WHERE published_at IS NULL`,
    )) as { n: number; age: number }[];
    return { unpublished: row?.n ?? 0, oldestSeconds: row?.age ?? 0 };
  }

  /** Requests a pass; requests made while a pass runs coalesce into one more pass after it. */
  kick(): void {
    if (!this.running) return;
    this.wanted = true;
    if (this.pass) return;
    this.pass = (async () => {
      while (this.wanted && this.running) {
        this.wanted = false;
        await this.publishPending();
      }
    })()
      .catch((err: unknown) => this.logger.error({ err }, 'outbox relay pass failed'))
      .finally(() => (this.pass = null));
  }

  /** Publishes batches until the outbox has no unpublished row left, or a batch fails. */
  private async publishPending(): Promise<void> {
    if (!this.streamReady) await this.ensureStream();
    try {
      while (this.running) {
        const { claimed, published } = await this.publishBatch();
        if (claimed < this.batchSize || published < claimed) return;
      }
    } catch (err) {
      this.logger.error({ err }, 'outbox relay pass failed; will retry');
    }
  }

  /**
   * One transaction in two round trips: BEGIN with the claim, then the mark with COMMIT (each pair
   * one simple-protocol message; the batch size and the claimed ids, UUIDs read from the table,
   * are the only values, written as literals).
   */
  private async publishBatch(): Promise<{ claimed: number; published: number }> {
    const { client, release } = await checkOut(this.pool);
    let open = true;
    try {
      const results = (await client.query(
        `BEGIN; SELECT id, type, payload::text AS payload FROM ${this.table}
         WHERE published_at IS NULL ORDER BY created_at, id LIMIT ${Math.floor(this.batchSize)} FOR UPDATE SKIP LOCKED`,
      )) as unknown as QueryResult<OutboxRow>[];
      const rows = results[1].rows;
      if (rows.length === 0) {
        await client.query('COMMIT');
        open = false;
        release();
        return { claimed: 0, published: 0 };
      }
      // Pipelined: all publishes go out in order on the one connection, then the acks are awaited.
      const settled = await Promise.allSettled(rows.map((row) => this.publish(row)));
      const published: string[] = [];
      let duplicates = 0;
      let firstError: unknown;
      settled.forEach((r, i) => {
        if (r.status === 'fulfilled') {
          published.push(rows[i].id);
          if (r.value.duplicate) duplicates++;
        } else {
          firstError ??= r.reason;
        }
      });
      if (published.some((id) => !UUID.test(id))) throw new Error('outbox ids are not UUIDs');
      await client.query(published.length ? `UPDATE ${this.table} SET published_at = now() WHERE id = ANY('{${published.join(',')}}'::uuid[]); COMMIT` : 'COMMIT');
      open = false;
      if (firstError) this.logger.warn({ err: firstError, failed: rows.length - published.length }, 'publishing outbox events failed; will retry');
      release();
      this.logger.debug({ published: published.length, duplicates }, 'outbox batch published');
      return { claimed: rows.length, published: published.length };
    } catch (err) {
      // A connection that cannot roll back (lost, say) is closed rather than handed out again.
      const broken = open ? await client.query('ROLLBACK').then(() => undefined, (e: Error) => e) : undefined;
      release(broken);
      throw err;
    }
  }

  private async publish(row: OutboxRow): Promise<PubAck> {
    if (!this.js) throw new Error('relay not started');
    return this.js.publish(eventSubject(this.opts.stream.subjectPrefix, row.type), this.encoder.encode(row.payload), {
      msgID: row.id,
      timeout: this.opts.publishTimeoutMs ?? 5000,
    });
  }

  private async ensureStream(): Promise<void> {
    try {
      await ensureEventStream(this.opts.nats, this.opts.stream);
      this.streamReady = true;
    } catch (err) {
      this.logger.warn({ err, stream: this.opts.stream.name }, 'cannot create or check the event stream; will retry');
    }
  }

  private runCleanup(): void {
    if (this.cleanup || !this.running) return;
    this.cleanup = this.deleteOldPublished()
      .catch((err: unknown) => this.logger.error({ err }, 'deleting old outbox rows failed'))
      .finally(() => (this.cleanup = null));
  }

  /** Deletes published rows past the retention, in chunks so no statement runs long. */
  private async deleteOldPublished(): Promise<void> {
    const retentionMs = this.opts.retentionMs ?? DEFAULT_RETENTION_MS;
    let deleted = 0;
    while (this.running) {
      const [, count]: [unknown, number] = await this.opts.dataSource.query(
        `DELETE FROM ${this.table} WHERE id IN (
           SELECT id FROM ${this.table}
           WHERE published_at < now() - $1::double precision * interval '1 millisecond' LIMIT ${CLEANUP_CHUNK})`,
        [retentionMs],
      );
      deleted += count;
      if (count < CLEANUP_CHUNK) break;
    }
    if (deleted) this.logger.info({ deleted }, 'deleted old published outbox rows');
  }
}
