import { randomBytes } from 'node:crypto';
import { connect, NatsConnection } from 'nats';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { EventEnvelope, EventType } from '@sa/contracts';
import { EventConsumer, outboxTablesSql } from '@sa/events';
import { e2eState } from './state';

export interface EventProbe {
  /** Every event the probe consumed, in order. */
  seen: EventEnvelope[];
  /** A connection to the e2e database (the probe's own schema lives there). */
  db: DataSource;
  stop(): Promise<void>;
}

/**
 * A durable JetStream consumer of the running system's events, for tests: the same
 * EventConsumer the services use (idempotent by event id), recording what it receives.
 */
export async function startEventProbe(name: string, types: EventType[], opts: { ackWaitMs?: number } = {}): Promise<EventProbe> {
  const s = e2eState();
  const schema = `e2e_${name}_${randomBytes(3).toString('hex')}`;
  const db = await new DataSource({ type: 'postgres', url: s.databaseUrl, applicationName: `e2e-${name}` }).initialize();
  for (const sql of outboxTablesSql(schema).up) await db.query(sql);
  const nc: NatsConnection = await connect({ servers: s.natsUrl });
  const seen: EventEnvelope[] = [];
  const consumer = new EventConsumer({
    dataSource: db,
    schema,
    nats: nc,
    stream: { name: 'SA_EVENTS', subjectPrefix: 'events' },
    durable: `e2e-${schema}`,
    types,
    handler: async (event) => {
      seen.push(event);
    },
    logger: pino({ level: 'warn' }),
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
  });
  await consumer.start();
  return {
    seen,
    db,
    stop: async () => {
      await consumer.stop();
      await nc.drain();
      await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await db.destroy();
    },
  };
}
