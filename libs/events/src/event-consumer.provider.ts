import { BeforeApplicationShutdown, FactoryProvider, OnApplicationBootstrap, Type } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { NatsConnection } from 'nats';
import { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { EventEnvelope, EventType } from '@sa/contracts';
import { AfterCommit, EventConsumer, EventConsumerOptions } from './event-consumer';
import { EVENTS_LOGGER, EVENTS_NATS, EVENTS_OPTIONS, EventsModuleOptions } from './events.tokens';

/**
 * What a Nest event handler class implements; `handle` runs inside the processing transaction and
 * may return a function to run after the commit (see EventHandlerFn).
 */
export interface EventHandler {
  handle(event: EventEnvelope, manager: EntityManager): Promise<void | AfterCommit>;
}

export interface EventConsumerProviderOptions extends Pick<EventConsumerOptions, 'maxDeliver' | 'ackWaitMs' | 'concurrency' | 'retryBaseDelayMs' | 'dedupe'> {
  /** Durable consumer name, e.g. `knowledge-bot-created`; unique per service and purpose. */
  durable: string;
  types: EventType[];
  /** An injectable class provided in the same module (it may inject anything it needs). */
  handler: Type<EventHandler>;
}

/** Runs one EventConsumer with the Nest application: started at bootstrap, stopped before shutdown. */
export class EventConsumerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(readonly consumer: EventConsumer) {}

  onApplicationBootstrap(): Promise<void> {
    return this.consumer.start();
  }

  // Before EventsModule drains the NATS connection and TypeORM closes the DataSource.
  beforeApplicationShutdown(): Promise<void> {
    return this.consumer.stop();
  }
}

export function eventConsumerToken(durable: string): string {
  return `EventConsumer:${durable}`;
}

/**
 * A provider that consumes events in a Nest app, using EventsModule's NATS connection, stream and
 * schema (for `processed_events`) and the app's DataSource. Usage, in a service module:
 *
 *   @Injectable()
 *   class BotCreatedHandler implements EventHandler {
 *     constructor(private readonly kbs: KnowledgeBases) {}
 *     async handle(event: EventEnvelope, manager: EntityManager) {
 *       const e = event as EventEnvelope<'bot.created'>;
 *       await this.kbs.createFor(manager, e.tenant_id, e.data.bot_id);
 *     }
 *   }
 *
 *   @Module({
 *     providers: [
 *       BotCreatedHandler,
 *       provideEventConsumer({ durable: 'knowledge-bot-created', types: ['bot.created'], handler: BotCreatedHandler }),
 *     ],
 *   })
 *
 * Each event is handled at most once per durable name (see EventConsumer); do all database work
 * through `manager` so it commits or rolls back together with the processed mark.
 */
export function provideEventConsumer(opts: EventConsumerProviderOptions): FactoryProvider<EventConsumerHost> {
  const { durable, types, handler, ...tuning } = opts;
  return {
    provide: eventConsumerToken(durable),
    inject: [EVENTS_OPTIONS, EVENTS_NATS, getDataSourceToken(), EVENTS_LOGGER, handler],
    useFactory: (events: EventsModuleOptions, nats: NatsConnection, dataSource: DataSource, logger: Logger, instance: EventHandler) =>
      new EventConsumerHost(
        new EventConsumer({
          ...tuning,
          dataSource,
          schema: events.schema,
          nats,
          stream: events.stream,
          durable,
          types,
          logger,
          handler: (event, manager) => instance.handle(event, manager),
        }),
      ),
  };
}
