// Event plumbing of the services: transactional outbox, relay to JetStream, idempotent durable
// consumers, and their Nest wiring. See docs in outbox-relay.ts and event-consumer.ts.
export { EventConsumer, consumerFilter, serverVersionAtLeast } from './event-consumer';
export type { AfterCommit, EventConsumerOptions, EventHandlerFn } from './event-consumer';
export { EventConsumerHost, eventConsumerToken, provideEventConsumer } from './event-consumer.provider';
export type { EventConsumerProviderOptions, EventHandler } from './event-consumer.provider';
export {
  DEFAULT_EVENT_STREAM_CONFIG,
  EVENT_STREAM_DUPLICATE_WINDOW_MS,
  EVENT_STREAM_MAX_AGE_MS,
  desiredStreamConfig,
  ensureEventStream,
} from './event-stream';
export type { EventStreamConfig } from './event-stream';
export { EventsModule } from './events.module';
export { EVENTS_LOGGER, EVENTS_NATS, EVENTS_OPTIONS } from './events.tokens';
export type { EventsModuleOptions } from './events.tokens';
export { Outbox } from './outbox';
export { OutboxRelay } from './outbox-relay';
export type { OutboxRelayOptions } from './outbox-relay';
export { outboxChannel, outboxTablesSql } from './outbox-sql';
export { parseEnvelope } from './parse-envelope';
