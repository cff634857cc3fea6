import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NatsConnection, connect } from 'nats';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { EventEnvelope } from '@sa/contracts';
import { DatabaseModule } from '@sa/db';
// Test-only dependency; the module-boundary rule does not tell tests from library code.
import { createTestDatabase } from '@sa/testing';
import { EventHandler, EventConsumerHost, eventConsumerToken, provideEventConsumer } from './event-consumer.provider';
import { EventsModule } from './events.module';
import { EVENTS_NATS } from './events.tokens';
import { Outbox } from './outbox';
import { outboxTablesSql, qualifiedTable } from './outbox-sql';

// EventsModule and provideEventConsumer in a real Nest application context: the relay and the
// consumer follow the app's lifecycle, and shutdown stops them and closes the NATS connection.

const NATS_URL = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const id = randomBytes(4).toString('hex');
const schema = `evt_test_${id}`;
const stream = { name: `T_${id}`, subjectPrefix: `t${id}.events` };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let admin: NatsConnection;

/** Records events, and writes through the transaction's manager to show it is the same one. */
@Injectable()
class RecordingHandler implements EventHandler {
  readonly seen: EventEnvelope[] = [];

  async handle(event: EventEnvelope, manager: EntityManager): Promise<void> {
    await manager.query(`INSERT INTO ${qualifiedTable(schema, 'seen')} (event_id) VALUES ($1)`, [event.id]);
    this.seen.push(event);
  }
}

beforeAll(async () => {
  db = await createTestDatabase('sa_events_nest');
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  for (const sql of outboxTablesSql(schema).up) await pg.query(sql);
  await pg.query(`CREATE TABLE ${qualifiedTable(schema, 'seen')} (event_id uuid PRIMARY KEY)`);
  await pg.end();
  admin = await connect({ servers: NATS_URL });
});

afterAll(async () => {
  const jsm = await admin.jetstreamManager();
  await jsm.streams.delete(stream.name).catch(() => undefined);
  await admin.drain();
  await db.drop();
});

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('runs the relay and a consumer with the app and stops both at shutdown', async () => {
  @Module({
    imports: [
      DatabaseModule.forRoot({ url: db.url, applicationName: 'events-nest-int', poolSize: 5 }),
      EventsModule.forService({
        schema,
        natsUrl: NATS_URL,
        stream,
        relay: true,
        relayOptions: { pollIntervalMs: 100 },
        logLevel: process.env['TEST_LOG_LEVEL'] ?? 'silent',
      }),
    ],
    providers: [RecordingHandler, provideEventConsumer({ durable: 'nest-recorder', types: ['bot.created'], handler: RecordingHandler })],
  })
  class TestAppModule {}

  const app = await NestFactory.createApplicationContext(TestAppModule, { logger: false });
  const outbox = app.get(Outbox);
  const dataSource = app.get(DataSource);
  const handler = app.get(RecordingHandler);
  const nats = app.get<NatsConnection>(EVENTS_NATS);
  expect(app.get(eventConsumerToken('nest-recorder'))).toBeInstanceOf(EventConsumerHost);
  expect(outbox.schema).toBe(schema);

  // A failed check closes the app too: its NATS and PostgreSQL connections would keep Jest from exiting.
  try {
    const event = await dataSource.transaction((m) =>
      outbox.add(m, 'bot.created', randomUUID(), { bot_id: randomUUID(), name: 'n', language: 'en', slot_kind: 'plan', enterprise_plan_tier: null }),
    );
    await waitFor('the event to reach the handler', () => handler.seen.length === 1);
    expect(handler.seen[0]).toEqual(event);
    // The handler's write commits with the consumer's transaction, just after handle() returns.
    const seen = () => dataSource.query(`SELECT event_id FROM ${qualifiedTable(schema, 'seen')}`) as Promise<{ event_id: string }[]>;
    await waitFor("the handler's transaction to commit", async () => (await seen()).length > 0);
    expect(await seen()).toEqual([{ event_id: event.id }]);
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }

  await app.close();
  expect(nats.isClosed()).toBe(true);
  expect(dataSource.isInitialized).toBe(false);

  // Acked before the connection closed: nothing left pending on the durable consumer.
  const jsm = await admin.jetstreamManager();
  const info = await jsm.consumers.info(stream.name, 'nest-recorder');
  expect(info.num_ack_pending).toBe(0);
  expect(info.ack_floor.stream_seq).toBe(1);
  // The relay's LISTEN connection is gone too.
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  const { rows } = await pg.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'events-nest-int%'`);
  await pg.end();
  expect(rows[0].n).toBe(0);
});
