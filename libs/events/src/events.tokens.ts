import { EventStreamConfig } from './event-stream';
import { OutboxRelayOptions } from './outbox-relay';

/** The raw nats.js NatsConnection EventsModule opens for events (relay and consumers). */
export const EVENTS_NATS = Symbol('EVENTS_NATS');
/** The EventsModuleOptions the module was configured with. */
export const EVENTS_OPTIONS = Symbol('EVENTS_OPTIONS');
/** The pino Logger of the events plumbing. */
export const EVENTS_LOGGER = Symbol('EVENTS_LOGGER');

export interface EventsModuleOptions {
  /** The service's PostgreSQL schema, which holds its `outbox` and `processed_events` tables. */
  schema: string;
  natsUrl: string;
  stream: EventStreamConfig;
  /** Run an OutboxRelay in this process (services that write events). */
  relay: boolean;
  /** Names the logger and the NATS connection; the schema by default. */
  service?: string;
  /** Level of the events logger; LOG_LEVEL (else info) by default. */
  logLevel?: string;
  /** Tuning of the relay (tests use short intervals). */
  relayOptions?: Pick<OutboxRelayOptions, 'pollIntervalMs' | 'batchSize' | 'retentionMs' | 'cleanupIntervalMs' | 'publishTimeoutMs'>;
}
