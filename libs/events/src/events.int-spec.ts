import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import * as net from 'node:net';
import { ConsumerInfo, JetStreamManager, NatsConnection, Subscription, connect } from 'nats';
import { DataSource } from 'typeorm';
import { BotCreatedEvent, EventEnvelope, eventSubject } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { createLogger } from '@sa/logging';
// Test-only dependency; the module-boundary rule does not tell tests from library code.
import { createTestDatabase } from '@sa/testing';
import { EventConsumer, EventConsumerOptions } from './event-consumer';
import { EventStreamConfig, ensureEventStream } from './event-stream';
import { Outbox } from './outbox';
import { OutboxRelay, OutboxRelayOptions } from './outbox-relay';
import { outboxTablesSql, qualifiedTable } from './outbox-sql';

// Relay and consumer against the real PostgreSQL and NATS JetStream. Every test gets its own
// schema (outbox, processed_events) and its own stream, so tests cannot see each other's events.

const NATS_URL = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const APP_NAME = 'events-int';
const logger = createLogger('events-int-spec', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nc: NatsConnection;
let jsm: JetStreamManager;
const streams: string[] = [];
let running: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  db = await createTestDatabase('sa_events');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: APP_NAME, poolSize: 20 })).initialize();
  nc = await connect({ servers: NATS_URL, name: 'events-int-spec' });
  jsm = await nc.jetstreamManager();
});

// In reverse order: consumers and relays stop before the connections they use close.
afterEach(async () => {
  for (const r of running.reverse()) await r.stop();
  running = [];
});

afterAll(async () => {
  for (const name of streams) await jsm.streams.delete(name).catch(() => undefined);
  await nc?.drain();
  await ds?.destroy();
  await db?.drop();
});

function rand(): string {
  return randomBytes(4).toString('hex');
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

interface Scenario {
  schema: string;
  stream: EventStreamConfig;
  outbox: Outbox;
}

/** A fresh schema with the outbox tables, and a fresh (created) stream. */
async function scenario(): Promise<Scenario> {
  const id = rand();
  const schema = `evt_test_${id}`;
  for (const sql of outboxTablesSql(schema).up) await ds.query(sql);
  const stream = { name: `T_${id}`, subjectPrefix: `t${id}.events` };
  streams.push(stream.name);
  await ensureEventStream(nc, stream);
  return { schema, stream, outbox: new Outbox(schema) };
}

function botCreated(): BotCreatedEvent {
  return { bot_id: randomUUID(), name: `bot-${rand()}`, language: 'en', slot_kind: 'plan', enterprise_plan_tier: null };
}

async function addEvent(s: Scenario, tenantId = randomUUID()): Promise<EventEnvelope<'bot.created'>> {
  return ds.transaction((m) => s.outbox.add(m, 'bot.created', tenantId, botCreated()));
}

async function startRelay(s: Scenario, opts: Partial<OutboxRelayOptions> = {}): Promise<OutboxRelay> {
  const relay = new OutboxRelay({ dataSource: ds, schema: s.schema, nats: nc, stream: s.stream, logger, pollIntervalMs: 100, ...opts });
  running.push(relay);
  await relay.start();
  return relay;
}

/** A consumer whose handler records every event it is called with. */
async function startConsumer(
  s: Scenario,
  durable: string,
  opts: Partial<EventConsumerOptions> = {},
): Promise<{ consumer: EventConsumer; handled: EventEnvelope[] }> {
  const handled: EventEnvelope[] = [];
  const consumer = new EventConsumer({
    dataSource: ds,
    schema: s.schema,
    nats: nc,
    stream: s.stream,
    durable,
    types: ['bot.created'],
    logger,
    retryBaseDelayMs: 50,
    handler: async (event) => {
      handled.push(event);
    },
    ...opts,
  });
  running.push(consumer);
  await consumer.start();
  return { consumer, handled };
}

/** Every message published on the scenario's subjects (a plain NATS subscription also sees those JetStream drops as duplicates). */
async function tap(s: Scenario): Promise<{ sub: Subscription; msgIds: string[] }> {
  const msgIds: string[] = [];
  const sub = nc.subscribe(`${s.stream.subjectPrefix}.>`, { callback: (_err, m) => msgIds.push(m.headers?.get('Nats-Msg-Id') ?? '') });
  await nc.flush();
  running.push({ stop: async () => sub.unsubscribe() });
  return { sub, msgIds };
}

async function streamMessages(s: Scenario): Promise<number> {
  return (await jsm.streams.info(s.stream.name)).state.messages;
}

async function consumerInfo(s: Scenario, durable: string): Promise<ConsumerInfo> {
  return jsm.consumers.info(s.stream.name, durable);
}

/** The consumer has acked (or terminated) everything in the stream. */
async function caughtUp(s: Scenario, durable: string): Promise<boolean> {
  const [info, total] = await Promise.all([consumerInfo(s, durable), streamMessages(s)]);
  return info.ack_floor.stream_seq === total && info.num_ack_pending === 0 && info.num_pending === 0;
}

async function unpublishedCount(s: Scenario): Promise<number> {
  const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM ${qualifiedTable(s.schema, 'outbox')} WHERE published_at IS NULL`);
  return n;
}

async function processedIds(s: Scenario, durable: string): Promise<string[]> {
  const rows: { event_id: string }[] = await ds.query(`SELECT event_id FROM ${qualifiedTable(s.schema, 'processed_events')} WHERE consumer = $1`, [durable]);
  return rows.map((r) => r.event_id);
}

/** A TCP proxy in front of NATS, to cut and restore a client's connection. */
class NatsProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  async open(): Promise<void> {
    const target = new URL(NATS_URL);
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 4222), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
  }

  /** Drops every connection (the client reconnects at once). */
  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  /** Stops accepting connections too: NATS is down for the clients behind the proxy. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.cut();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function connectVia(proxy: NatsProxy): Promise<NatsConnection> {
  const c = await connect({ servers: `nats://127.0.0.1:${proxy.port}`, maxReconnectAttempts: -1, reconnectTimeWait: 100, name: 'events-int-proxied' });
  running.push({ stop: () => c.close() });
  return c;
}

function reconnected(c: NatsConnection): Promise<void> {
  return (async () => {
    for await (const s of c.status()) if (s.type === 'reconnect') return;
  })();
}

describe('outbox relay and event consumer', () => {
  it('publishes an event added in a committed transaction at once (NOTIFY) and it is consumed exactly once', async () => {
    const s = await scenario();
    const published = await tap(s);
    // Polling every minute: only the trigger's NOTIFY can make this quick.
    await startRelay(s, { pollIntervalMs: 60_000 });
    const { handled } = await startConsumer(s, 'once');

    const event = await addEvent(s);

    await waitFor('the event to be handled', () => handled.length === 1, 5000);
    expect(handled[0]).toEqual(event);
    await waitFor('the consumer to ack', () => caughtUp(s, 'once'));
    await sleep(300);
    expect(handled).toHaveLength(1);
    expect(published.msgIds).toEqual([event.id]);
    expect(await streamMessages(s)).toBe(1);
    expect(await unpublishedCount(s)).toBe(0);
    expect(await processedIds(s, 'once')).toEqual([event.id]);
  });

  it('never publishes an event added in a rolled-back transaction', async () => {
    const s = await scenario();
    const published = await tap(s);
    await startRelay(s);
    const { handled } = await startConsumer(s, 'rollback');

    let rolledBackId = '';
    await expect(
      ds.transaction(async (m) => {
        rolledBackId = (await s.outbox.add(m, 'bot.created', randomUUID(), botCreated())).id;
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const committed = await addEvent(s);

    await waitFor('the committed event to be handled', () => handled.length === 1);
    await sleep(300); // a few more relay polls
    expect(rolledBackId).not.toBe('');
    expect(handled.map((e) => e.id)).toEqual([committed.id]);
    expect(published.msgIds).toEqual([committed.id]);
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM ${qualifiedTable(s.schema, 'outbox')} WHERE id = $1`, [rolledBackId]);
    expect(n).toBe(0);
  });

  it('an event published before a relay crash (row still unpublished) reaches the consumer exactly once', async () => {
    const s = await scenario();
    const event = await addEvent(s);
    const published = await tap(s);
    // What a relay that died after the PubAck and before its commit left behind:
    const [row] = await ds.query(`SELECT payload::text AS payload FROM ${qualifiedTable(s.schema, 'outbox')} WHERE id = $1`, [event.id]);
    const first = await nc.jetstream().publish(eventSubject(s.stream.subjectPrefix, event.type), new TextEncoder().encode(row.payload), { msgID: event.id });
    expect(first.duplicate).toBe(false);
    expect(await unpublishedCount(s)).toBe(1);

    const { handled } = await startConsumer(s, 'crash');
    await startRelay(s);

    await waitFor('the relay to mark the row published', async () => (await unpublishedCount(s)) === 0);
    await waitFor('the consumer to ack', () => caughtUp(s, 'crash'));
    await sleep(300);
    // The relay did publish it again, and JetStream dropped that copy.
    expect(published.msgIds).toEqual([event.id, event.id]);
    expect(await streamMessages(s)).toBe(1);
    expect(handled.map((e) => e.id)).toEqual([event.id]);
  });

  it('skips a redelivery of an already processed event id that JetStream did not dedupe', async () => {
    const s = await scenario();
    await startRelay(s);
    const { handled } = await startConsumer(s, 'dedupe');
    const event = await addEvent(s);
    await waitFor('the event to be handled', () => handled.length === 1);

    // The same envelope again, under another Nats-Msg-Id (e.g. republished after the window).
    const again = await nc
      .jetstream()
      .publish(eventSubject(s.stream.subjectPrefix, event.type), new TextEncoder().encode(JSON.stringify(event)), { msgID: `${event.id}-again` });
    expect(again.duplicate).toBe(false);

    await waitFor('the consumer to ack both messages', () => caughtUp(s, 'dedupe'));
    expect(await streamMessages(s)).toBe(2);
    expect(handled.map((e) => e.id)).toEqual([event.id]);
    expect(await processedIds(s, 'dedupe')).toEqual([event.id]);
  });

  it('two relays publish each of 200 events exactly once', async () => {
    const s = await scenario();
    const published = await tap(s);
    await startRelay(s, { batchSize: 10, pollIntervalMs: 20 });
    await startRelay(s, { batchSize: 10, pollIntervalMs: 20 });
    const { handled } = await startConsumer(s, 'many', { concurrency: 4 });

    const added: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, () =>
        ds.transaction(async (m) => {
          for (let i = 0; i < 10; i++) added.push((await s.outbox.add(m, 'bot.created', randomUUID(), botCreated())).id);
        }),
      ),
    );

    await waitFor('200 events handled', () => handled.length >= 200, 20_000);
    await waitFor('the consumer to ack', () => caughtUp(s, 'many'));
    expect(await unpublishedCount(s)).toBe(0);
    expect(await streamMessages(s)).toBe(200);
    // Every publish seen on the wire, duplicates included: none was published twice.
    expect(published.msgIds).toHaveLength(200);
    expect(new Set(published.msgIds)).toEqual(new Set(added));
    expect(handled).toHaveLength(200);
    expect(new Set(handled.map((e) => e.id))).toEqual(new Set(added));
  });

  it('a consumer stopped and restarted with the same durable continues where it left off', async () => {
    const s = await scenario();
    await startRelay(s);
    const first = await startConsumer(s, 'restart');
    const before = [await addEvent(s), await addEvent(s), await addEvent(s)].map((e) => e.id);
    await waitFor('the first three events', () => first.handled.length === 3);
    const { created } = await consumerInfo(s, 'restart');
    await first.consumer.stop();

    const after = [await addEvent(s), await addEvent(s)].map((e) => e.id);
    await waitFor('the relay to publish while no consumer runs', async () => (await streamMessages(s)) === 5);
    expect(first.handled).toHaveLength(3);

    const second = await startConsumer(s, 'restart');
    await waitFor('the consumer to catch up', () => caughtUp(s, 'restart'));
    await sleep(200);
    expect(first.handled.map((e) => e.id)).toEqual(before);
    expect(second.handled.map((e) => e.id)).toEqual(after);
    // The same JetStream consumer, and no message delivered twice (the acks of the first run held).
    const info = await consumerInfo(s, 'restart');
    expect(info.created).toBe(created);
    expect(info.delivered).toMatchObject({ consumer_seq: 5, stream_seq: 5 });
    expect(info.num_redelivered).toBe(0);
  });

  it('redelivers an event whose handler threw, and handles it once; the failed attempt rolls back', async () => {
    const s = await scenario();
    const sideTable = qualifiedTable(s.schema, 'side_effects');
    await ds.query(`CREATE TABLE ${sideTable} (event_id uuid NOT NULL)`);
    const attempts: { id: string; delivery: number }[] = [];
    await startRelay(s);
    await startConsumer(s, 'flaky', {
      handler: async (event, manager) => {
        await manager.query(`INSERT INTO ${sideTable} (event_id) VALUES ($1)`, [event.id]);
        attempts.push({ id: event.id, delivery: attempts.length + 1 });
        if (attempts.length === 1) throw new Error('transient failure');
      },
    });
    const event = await addEvent(s);

    await waitFor('the retry to succeed', () => attempts.length === 2);
    await waitFor('the consumer to ack', () => caughtUp(s, 'flaky'));
    await sleep(300);
    expect(attempts.map((a) => a.id)).toEqual([event.id, event.id]);
    const rows: unknown[] = await ds.query(`SELECT event_id FROM ${sideTable}`);
    expect(rows).toEqual([{ event_id: event.id }]);
    expect(await processedIds(s, 'flaky')).toEqual([event.id]);
  });

  it('runs the function a handler returns only after its transaction committed, and not when the commit fails', async () => {
    const s = await scenario();
    const sideTable = qualifiedTable(s.schema, 'after_commit');
    // Checked at commit: a transaction that inserted an event twice fails only when it commits.
    await ds.query(`CREATE TABLE ${sideTable} (event_id uuid NOT NULL, CONSTRAINT one_per_event UNIQUE (event_id) DEFERRABLE INITIALLY DEFERRED)`);
    await startRelay(s);
    const afterCommit: string[] = [];
    let calls = 0;
    await startConsumer(s, 'after-commit', {
      handler: async (event, manager) => {
        const call = ++calls;
        await manager.query(`INSERT INTO ${sideTable} (event_id) VALUES ($1)`, [event.id]);
        if (call === 1) await manager.query(`INSERT INTO ${sideTable} (event_id) VALUES ($1)`, [event.id]);
        return () => {
          // Outside the transaction: its row is visible, so it has committed.
          void ds
            .query(`SELECT count(*)::int AS n FROM ${sideTable} WHERE event_id = $1`, [event.id])
            .then((r: { n: number }[]) => afterCommit.push(`call ${call} saw ${r[0].n}`));
        };
      },
    });
    const event = await addEvent(s);
    await waitFor('the after-commit function', () => afterCommit.length >= 1);
    await sleep(300);
    expect(calls).toBe(2);
    expect(afterCommit).toEqual(['call 2 saw 1']);
    expect(await processedIds(s, 'after-commit')).toEqual([event.id]);
  });

  it("with dedupe 'handler', calls the handler outside a transaction and records nothing itself", async () => {
    const s = await scenario();
    await startRelay(s);
    const seen: { id: string; inTransaction: boolean }[] = [];
    await startConsumer(s, 'self-dedupe', {
      dedupe: 'handler',
      handler: async (event, manager) => {
        seen.push({ id: event.id, inTransaction: manager.queryRunner?.isTransactionActive ?? false });
      },
    });
    const event = await addEvent(s);
    await waitFor('the handler', () => seen.length === 1);
    await waitFor('the consumer to ack', () => caughtUp(s, 'self-dedupe'));
    expect(seen).toEqual([{ id: event.id, inTransaction: false }]);
    expect(await processedIds(s, 'self-dedupe')).toEqual([]);
  });

  it('gives up on an event after maxDeliver failures, and keeps consuming', async () => {
    const s = await scenario();
    await startRelay(s);
    const poison = await addEvent(s);
    let calls = 0;
    const ok: string[] = [];
    await startConsumer(s, 'poison', {
      maxDeliver: 3,
      handler: async (event) => {
        if (event.id === poison.id) {
          calls++;
          throw new Error('always fails');
        }
        ok.push(event.id);
      },
    });
    const good = await addEvent(s);

    await waitFor('the good event', () => ok.length === 1);
    await waitFor('the poison event to be terminated', () => caughtUp(s, 'poison'));
    await sleep(500);
    expect(calls).toBe(3);
    expect(ok).toEqual([good.id]);
    expect(await processedIds(s, 'poison')).toEqual([good.id]);
  });

  it('terminates a malformed message without calling the handler', async () => {
    const s = await scenario();
    await startRelay(s);
    const { handled } = await startConsumer(s, 'malformed');
    const js = nc.jetstream();
    await js.publish(eventSubject(s.stream.subjectPrefix, 'bot.created'), new TextEncoder().encode('{"not":"an envelope"}'));
    await js.publish(eventSubject(s.stream.subjectPrefix, 'bot.created'), new TextEncoder().encode('garbage'));
    const event = await addEvent(s);

    await waitFor('the valid event', () => handled.length === 1);
    await waitFor('everything acked or terminated', () => caughtUp(s, 'malformed'));
    expect(handled.map((e) => e.id)).toEqual([event.id]);
    expect((await consumerInfo(s, 'malformed')).num_redelivered).toBe(0);
  });

  it('creates or repairs the stream idempotently', async () => {
    const stream = { name: `T_${rand()}`, subjectPrefix: `t${rand()}.events` };
    streams.push(stream.name);
    const created = await ensureEventStream(nc, stream);
    expect(created.config.subjects).toEqual([`${stream.subjectPrefix}.>`]);
    expect(created.config.storage).toBe('file');
    expect(created.config.duplicate_window).toBe(120_000 * 1e6);
    expect((await ensureEventStream(nc, stream)).created).toEqual(created.created);

    await jsm.streams.update(stream.name, { max_age: 60 * 1e9, duplicate_window: 10 * 1e9 });
    const repaired = await ensureEventStream(nc, stream);
    expect(repaired.config.max_age).toBe(7 * 24 * 3600 * 1e9);
    expect(repaired.config.duplicate_window).toBe(120 * 1e9);
  });

  it('deletes published rows past the retention, and only those', async () => {
    const s = await scenario();
    const table = qualifiedTable(s.schema, 'outbox');
    const insert = (published: string | null, created = 'now()') =>
      ds.query(
        `INSERT INTO ${table} (id, type, tenant_id, payload, created_at, published_at)
         VALUES ($1, 'bot.created', $2, '{}'::jsonb, ${created}, ${published ?? 'NULL'}) RETURNING id`,
        [randomUUID(), randomUUID()],
      );
    const [{ id: oldPublished }] = await insert(`now() - interval '8 days'`, `now() - interval '8 days'`);
    const [{ id: recentPublished }] = await insert(`now() - interval '6 days'`, `now() - interval '6 days'`);

    await startRelay(s);
    await waitFor('the old row to be deleted', async () => (await ds.query(`SELECT 1 FROM ${table} WHERE id = $1`, [oldPublished])).length === 0);
    expect(await ds.query(`SELECT id FROM ${table}`)).toEqual([{ id: recentPublished }]);
  });

  it('keeps rows while NATS is unreachable and publishes them once it is back', async () => {
    const s = await scenario();
    const proxy = new NatsProxy();
    await proxy.open();
    running.push({ stop: () => proxy.close() });
    const viaProxy = await connectVia(proxy);
    await startRelay(s, { nats: viaProxy, publishTimeoutMs: 300 });
    const { handled } = await startConsumer(s, 'outage');

    await proxy.close();
    const event = await addEvent(s);
    await sleep(1500);
    expect(await unpublishedCount(s)).toBe(1);
    expect(await streamMessages(s)).toBe(0);

    await proxy.open();
    await waitFor('the row to be published', async () => (await unpublishedCount(s)) === 0);
    await waitFor('the event to be handled', () => handled.length === 1);
    await waitFor('the consumer to ack', () => caughtUp(s, 'outage'));
    expect(await streamMessages(s)).toBe(1);
    expect(handled.map((e) => e.id)).toEqual([event.id]);
  });

  it('the consumer keeps consuming after its NATS connection drops and reconnects', async () => {
    const s = await scenario();
    const proxy = new NatsProxy();
    await proxy.open();
    running.push({ stop: () => proxy.close() });
    const viaProxy = await connectVia(proxy);
    await startRelay(s);
    const { handled } = await startConsumer(s, 'reconnect', { nats: viaProxy });
    const first = await addEvent(s);
    await waitFor('the first event', () => handled.length === 1);

    const back = reconnected(viaProxy);
    proxy.cut();
    await back;
    const second = await addEvent(s);

    await waitFor('the event added after the reconnect', () => handled.length === 2, 15_000);
    expect(handled.map((e) => e.id)).toEqual([first.id, second.id]);
  });

  it('recreates its durable consumer when it is deleted from under it', async () => {
    const s = await scenario();
    await startRelay(s);
    const { handled } = await startConsumer(s, 'recreated');
    const first = await addEvent(s);
    await waitFor('the first event', () => handled.length === 1);

    await jsm.consumers.delete(s.stream.name, 'recreated');
    const second = await addEvent(s);

    await waitFor('the event added after the deletion', () => handled.length === 2, 15_000);
    await waitFor('the recreated consumer to ack', () => caughtUp(s, 'recreated'));
    // The recreated consumer starts from the beginning again; processed_events skips the first.
    expect(handled.map((e) => e.id)).toEqual([first.id, second.id]);
    expect((await consumerInfo(s, 'recreated')).delivered.stream_seq).toBe(2);
  });

  it('survives its connection being lost in the middle of a pass, and publishes the row afterwards', async () => {
    const s = await scenario();
    const { handled } = await startConsumer(s, 'lost-pass');
    const relay = await startRelay(s, { pollIntervalMs: 100 });
    // The first pass waits in its publishes while its connection is terminated under it.
    const r = relay as unknown as { publish: (row: unknown) => Promise<unknown> };
    const publish = r.publish.bind(relay);
    let stalled = 0;
    r.publish = async (row) => {
      if (stalled++ === 0) await sleep(500);
      return publish(row);
    };
    const event = await addEvent(s);
    await sleep(150);
    const [{ n }] = await ds.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [`${APP_NAME}-outbox-relay`],
    );
    expect(n).toBe(1);
    // No uncaught 'error' event (it would fail this file); the next pass publishes the row.
    await waitFor('the event to be handled', () => handled.length === 1, 10000);
    expect(handled[0].id).toBe(event.id);
    await waitFor('the row marked published', async () => (await unpublishedCount(s)) === 0, 5000);
  });

  it('re-establishes LISTEN after its connection is terminated', async () => {
    const s = await scenario();
    const listenApp = `${APP_NAME}-outbox-listen`;
    const listenPids = async (): Promise<number[]> =>
      (await ds.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [listenApp])).map(
        (r: { pid: number }) => r.pid,
      );
    await startRelay(s, { pollIntervalMs: 60_000 });
    const { handled } = await startConsumer(s, 'listen');
    const [pid] = await listenPids();
    expect(pid).toBeDefined();

    await ds.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor('a new LISTEN connection', async () => {
      const pids = await listenPids();
      return pids.length === 1 && pids[0] !== pid;
    });
    await sleep(100);
    const event = await addEvent(s);

    // No poll within the test: only a NOTIFY on the new connection publishes it.
    await waitFor('the event to be handled', () => handled.length === 1, 5000);
    expect(handled[0].id).toBe(event.id);
  });
});
