import { AckPolicy, Consumer, ConsumerConfig, ConsumerEvents, ConsumerMessages, DeliverPolicy, JetStreamManager, JsMsg, NatsConnection, nanos } from 'nats';
import { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { EventEnvelope, EventType, eventSubject } from '@sa/contracts';
import { backoffMs } from '@sa/backoff';
import { withLogContext } from '@sa/logging';
import { EventStreamConfig, JS_ERR_CONSUMER_NOT_FOUND, ensureEventStream, jsErrorCode } from './event-stream';
import { qualifiedTable } from './outbox-sql';
import { parseEnvelope } from './parse-envelope';
import { within } from './within';
import { counter } from '@sa/metrics';

const consumed = counter({
  name: 'sa_events_handled_total',
  help: 'Events taken from JetStream by a durable consumer, by consumer, event type and outcome (handled, duplicate, retry, gave_up, malformed)',
  labelNames: ['consumer', 'type', 'outcome'] as const,
});

/**
 * Handles one event inside the transaction that marks it processed. It may return a function,
 * which runs once that transaction has committed (work that must only start after the commit,
 * such as handing rows just written to an in-process worker).
 */
export type EventHandlerFn = (event: EventEnvelope, manager: EntityManager) => Promise<void | AfterCommit>;
export type AfterCommit = () => void;

export interface EventConsumerOptions {
  dataSource: DataSource;
  /** The schema whose `processed_events` table records what this consumer has handled. */
  schema: string;
  nats: NatsConnection;
  stream: EventStreamConfig;
  /** Durable consumer name: one per (service, purpose); replicas with the same name share the work. */
  durable: string;
  types: EventType[];
  /** Runs inside the transaction that records the event as processed; throw to have it retried. */
  handler: EventHandlerFn;
  logger: Logger;
  /**
   * `processed-table` (default): the consumer records each event in `processed_events` and runs
   * the handler in that transaction. `handler`: the handler is idempotent by itself (for example
   * one statement whose unique key makes a repeat a no-op) and runs without a transaction or a
   * mark, `manager` being the DataSource's; it must not rely on being called only once.
   */
  dedupe?: 'processed-table' | 'handler';
  /** Deliveries before an event whose handler keeps failing is given up (terminated). */
  maxDeliver?: number;
  /** Unacknowledged messages are redelivered after this long. */
  ackWaitMs?: number;
  /** Messages handled at once (each in its own transaction). */
  concurrency?: number;
  /** First retry delay after a handler failure; doubles with each attempt, up to one minute. */
  retryBaseDelayMs?: number;
}

/** `2.10.4` >= `2.10.0`; suffixes such as `-beta` are ignored. */
export function serverVersionAtLeast(version: string | undefined, min: [number, number, number]): boolean {
  if (!version) return false;
  const parts = version.split('-')[0].split('.').map((p) => parseInt(p, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const v = parts[i] ?? 0;
    if (v !== min[i]) return v > min[i];
  }
  return true;
}

/**
 * The consumer's subject filter: the one subject for a single type, `filter_subjects` for several
 * on servers that support it (2.10+), else the whole prefix (the consumer then acks and skips the
 * types it does not want).
 */
export function consumerFilter(
  serverVersion: string | undefined,
  prefix: string,
  types: readonly string[],
): { filter_subject?: string; filter_subjects?: string[] } {
  const subjects = [...new Set(types)].sort().map((t) => eventSubject(prefix, t));
  if (subjects.length === 1) return { filter_subject: subjects[0] };
  if (serverVersionAtLeast(serverVersion, [2, 10, 0])) return { filter_subjects: subjects };
  return { filter_subject: `${prefix}.>` };
}

/**
 * A durable JetStream pull consumer that hands each event to `handler` exactly once per durable
 * name, given at-least-once delivery:
 *  - per message, one DB transaction inserts (durable, event id) into `<schema>.processed_events`;
 *    when the row already exists the event was handled before (a JetStream redelivery, or a
 *    republish by the outbox relay) and it is acked without calling the handler; otherwise the
 *    handler runs in that same transaction, which then commits, and the message is acked;
 *  - a failing handler rolls back, and the message is nak'ed with an exponential delay; on the
 *    maxDeliver-th failure it is logged and terminated. A malformed message is terminated.
 * The JetStream consumer is created or updated at start (explicit ack, deliver all). Pulling
 * survives NATS reconnects (the client re-issues pulls), and if consumption ends or the consumer
 * disappears, it is set up again after a backoff. Nothing here throws into the process.
 */
export class EventConsumer {
  private readonly logger: Logger;
  private readonly table: string;
  private readonly types: Set<string>;
  private readonly maxDeliver: number;
  private readonly concurrency: number;
  private running = false;
  private loop: Promise<void> | null = null;
  private messages: ConsumerMessages | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private wakeUp: (() => void) | null = null;

  constructor(private readonly opts: EventConsumerOptions) {
    if (opts.types.length === 0) throw new Error(`event consumer ${opts.durable} has no event types`);
    if (!/^[A-Za-z0-9_-]+$/.test(opts.durable)) throw new Error(`invalid durable consumer name: ${opts.durable}`);
    this.logger = opts.logger.child({ component: 'event-consumer', durable: opts.durable });
    this.table = qualifiedTable(opts.schema, 'processed_events');
    this.types = new Set(opts.types);
    this.maxDeliver = opts.maxDeliver ?? 10;
    this.concurrency = Math.max(1, opts.concurrency ?? 1);
  }

  /**
   * Sets up the stream and the durable consumer and starts pulling. Resolves once pulling started
   * or the first setup attempt failed (it is then retried in the background, and logged).
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await new Promise<void>((firstAttempt) => {
      this.loop = this.run(firstAttempt);
    });
  }

  /** Stops pulling and waits for the messages being handled; unstarted ones are nak'ed. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wakeUp?.();
    // Ends the iteration in run() once the messages already buffered are given back (nak).
    void this.messages?.close().catch(() => undefined);
    await this.loop;
    await Promise.all(this.inFlight);
    // Acks are fire-and-forget: make sure the server has them before the caller closes NATS
    // (bounded: while disconnected, flush would wait for the reconnect).
    if (!this.opts.nats.isClosed()) await within(this.opts.nats.flush().catch(() => undefined), 2000);
    this.logger.info('event consumer stopped');
  }

  private async run(firstAttempt: () => void): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        const consumer = await this.setup();
        const messages = await consumer.consume({ max_messages: this.concurrency * 2 });
        this.messages = messages;
        void this.watchStatus(messages);
        failures = 0;
        firstAttempt();
        this.logger.info({ stream: this.opts.stream.name, types: [...this.types] }, 'event consumer started');
        if (!this.running) void messages.close().catch(() => undefined);
        for await (const msg of messages) {
          if (this.running) await this.waitForSlot();
          if (!this.running) {
            this.giveBack(msg);
            continue;
          }
          this.track(this.handle(msg));
        }
        if (this.running) this.logger.warn('event consumption ended; setting it up again');
      } catch (err) {
        firstAttempt();
        if (this.running) this.logger.error({ err }, 'event consumer failed; setting it up again');
      } finally {
        this.messages = null;
      }
      if (this.running) await this.sleep(backoffMs(++failures, { baseMs: 500, maxMs: 30_000 }));
    }
  }

  /** Creates or updates the stream and the durable consumer; returns the consumer to pull from. */
  private async setup(): Promise<Consumer> {
    const { nats, stream, durable } = this.opts;
    await ensureEventStream(nats, stream);
    const jsm = await nats.jetstreamManager();
    await this.ensureConsumer(jsm);
    return nats.jetstream().consumers.get(stream.name, durable);
  }

  private async ensureConsumer(jsm: JetStreamManager): Promise<void> {
    const { stream, durable } = this.opts;
    const wanted = {
      ack_wait: nanos(this.opts.ackWaitMs ?? 30_000),
      max_deliver: this.maxDeliver,
      ...consumerFilter(this.opts.nats.info?.version, stream.subjectPrefix, [...this.types]),
    };
    let existing: ConsumerConfig | null = null;
    try {
      existing = (await jsm.consumers.info(stream.name, durable)).config;
    } catch (err) {
      if (jsErrorCode(err) !== JS_ERR_CONSUMER_NOT_FOUND) throw err;
    }
    if (!existing) {
      await jsm.consumers.add(stream.name, { durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ...wanted });
      return;
    }
    const sameFilter =
      existing.filter_subject === wanted.filter_subject && (existing.filter_subjects ?? []).join() === (wanted.filter_subjects ?? []).join();
    if (sameFilter && existing.ack_wait === wanted.ack_wait && existing.max_deliver === wanted.max_deliver) return;
    // Keys set to undefined are dropped, so switching between the two filter forms works.
    await jsm.consumers.update(stream.name, durable, { filter_subject: undefined, filter_subjects: undefined, ...wanted });
    this.logger.info(wanted, 'updated the durable consumer configuration');
  }

  /** Closes consumption when the JetStream consumer or stream is gone; run() then recreates it. */
  private async watchStatus(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const s of await messages.status()) {
        if (s.type === ConsumerEvents.ConsumerNotFound || s.type === ConsumerEvents.StreamNotFound || s.type === ConsumerEvents.ConsumerDeleted) {
          this.logger.warn({ status: s.type, data: s.data }, 'the durable consumer is gone; recreating it');
          await messages.close();
          return;
        }
        if (s.type === ConsumerEvents.HeartbeatsMissed) this.logger.debug({ data: s.data }, 'event consumer missed heartbeats');
      }
    } catch (err) {
      this.logger.debug({ err }, 'event consumer status stream ended');
    }
  }

  /** Never rejects: a failure to ack or nak (connection closed) only means a later redelivery. */
  private async handle(msg: JsMsg): Promise<void> {
    try {
      await this.process(msg);
    } catch (err) {
      this.logger.warn({ err, seq: msg.seq }, 'could not acknowledge an event message; it will be redelivered');
    }
  }

  private async process(msg: JsMsg): Promise<void> {
    const event = parseEnvelope(msg.data);
    if (!event || msg.subject !== eventSubject(this.opts.stream.subjectPrefix, event.type)) {
      this.logger.error({ subject: msg.subject, seq: msg.seq }, 'malformed event message; terminating it');
      consumed.inc({ consumer: this.opts.durable, type: 'unknown', outcome: 'malformed' });
      this.terminate(msg, 'malformed event');
      return;
    }
    if (!this.types.has(event.type)) {
      msg.ack(); // outside our types: only delivered when the server cannot filter on several subjects
      return;
    }
    // Made only when something is logged: a pino child per message is a measurable cost under load.
    const log = (): Logger => this.logger.child({ event_id: event.id, event_type: event.type, tenant_id: event.tenant_id });
    let handled: boolean;
    let afterCommit: AfterCommit | undefined;
    try {
      handled = await withLogContext({ tenantId: event.tenant_id }, async () => {
        if (this.opts.dedupe === 'handler') {
          afterCommit = (await this.opts.handler(event, this.opts.dataSource.manager)) ?? undefined;
          return true;
        }
        return this.opts.dataSource.transaction(async (manager) => {
          // Blocks while another transaction holds the same (consumer, event id), then conflicts
          // if that one committed: concurrent deliveries of one event are handled once.
          const claimed: unknown[] = await manager.query(
            `INSERT INTO ${this.table} (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
            [this.opts.durable, event.id],
          );
          if (claimed.length === 0) return false;
          afterCommit = (await this.opts.handler(event, manager)) ?? undefined;
          return true;
        });
      });
    } catch (err) {
      const attempt = msg.info.deliveryCount;
      if (attempt >= this.maxDeliver) {
        log().error({ err, attempt }, 'event handler failed on the last allowed delivery; giving up on this event');
        consumed.inc({ consumer: this.opts.durable, type: event.type, outcome: 'gave_up' });
        this.terminate(msg, 'handler failed');
      } else {
        const delay = backoffMs(attempt, { baseMs: this.opts.retryBaseDelayMs ?? 1000, maxMs: 60_000 });
        log().warn({ err, attempt, retry_in_ms: delay }, 'event handler failed; will retry');
        consumed.inc({ consumer: this.opts.durable, type: event.type, outcome: 'retry' });
        msg.nak(delay);
      }
      return;
    }
    msg.ack();
    consumed.inc({ consumer: this.opts.durable, type: event.type, outcome: handled ? 'handled' : 'duplicate' });
    if (!handled) log().debug('event already processed; skipped');
    else if (afterCommit) {
      try {
        afterCommit();
      } catch (err) {
        log().error({ err }, 'the after-commit step of an event handler failed');
      }
    }
  }

  /** Servers before 2.11 do not understand `+TERM <reason>` and ignore it (then redeliver). */
  private terminate(msg: JsMsg, reason: string): void {
    msg.term(serverVersionAtLeast(this.opts.nats.info?.version, [2, 11, 0]) ? reason : undefined);
  }

  /** A message pulled but not started when stopping: redelivered to another replica, or to us later. */
  private giveBack(msg: JsMsg): void {
    try {
      msg.nak();
    } catch {
      // Connection closed: it is redelivered after ack_wait anyway.
    }
  }

  private async waitForSlot(): Promise<void> {
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /** A backoff pause that stop() cuts short. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
