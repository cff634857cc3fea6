import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { NatsConnection, connect } from 'nats';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { createLogger } from '@sa/logging';
import { EVENTS_LOGGER, EVENTS_NATS, EVENTS_OPTIONS, EventsModuleOptions } from './events.tokens';
import { Outbox } from './outbox';
import { OutboxRelay } from './outbox-relay';
import { within } from './within';

async function connectNats(opts: EventsModuleOptions, logger: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.natsUrl,
    name: `${opts.service ?? opts.schema}-events-${process.pid}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // No stack captured per request (each JetStream publish and pull is one): a large share of the
    // relay's CPU under load. Errors still carry their message and code.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'error') logger.warn({ nats: s.type, data: s.data }, 'events NATS connection problem');
      else if (s.type === 'reconnect') logger.info({ nats: s.type, data: s.data }, 'events NATS connection restored');
    }
  })().catch(() => undefined);
  return nc;
}

/** Runs the relay with the app (when enabled) and closes the NATS connection at shutdown. */
@Injectable()
class EventsLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private relay: OutboxRelay | null = null;

  constructor(
    @Inject(EVENTS_OPTIONS) private readonly opts: EventsModuleOptions,
    @Inject(EVENTS_NATS) private readonly nats: NatsConnection,
    @Inject(getDataSourceToken()) private readonly dataSource: DataSource,
    @Inject(EVENTS_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.opts.relay) return;
    this.relay = new OutboxRelay({
      ...this.opts.relayOptions,
      dataSource: this.dataSource,
      schema: this.opts.schema,
      nats: this.nats,
      stream: this.opts.stream,
      logger: this.logger,
    });
    await this.relay.start();
  }

  // Before the DataSource is destroyed (TypeORM closes it in onApplicationShutdown).
  async beforeApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }

  // After every EventConsumerHost stopped (they do so in beforeApplicationShutdown). Draining
  // waits for a reconnect when NATS is unreachable, so it is bounded, then the connection closed.
  async onApplicationShutdown(): Promise<void> {
    if (this.nats.isClosed()) return;
    await within(
      this.nats.drain().catch((err: unknown) => this.logger.warn({ err }, 'draining the events NATS connection failed')),
      5000,
    );
    if (!this.nats.isClosed()) await this.nats.close();
  }
}

/**
 * The event plumbing of one service (global):
 *  - `Outbox` for the service's schema: `outbox.add(manager, type, tenantId, data)` inside the
 *    transaction of the change;
 *  - `EVENTS_NATS`, a raw nats.js connection (also used by `provideEventConsumer`);
 *  - with `relay: true`, an OutboxRelay started at application bootstrap and stopped at shutdown.
 * Needs the app's TypeORM DataSource (DatabaseModule from @sa/db).
 */
@Global()
@Module({})
export class EventsModule {
  static forService(opts: EventsModuleOptions): DynamicModule {
    return {
      module: EventsModule,
      providers: [
        { provide: EVENTS_OPTIONS, useValue: opts },
        { provide: EVENTS_LOGGER, useFactory: () => createLogger(opts.service ?? opts.schema, { level: opts.logLevel }) },
        { provide: EVENTS_NATS, useFactory: connectNats, inject: [EVENTS_OPTIONS, EVENTS_LOGGER] },
        { provide: Outbox, useValue: new Outbox(opts.schema) },
        EventsLifecycle,
      ],
      exports: [Outbox, EVENTS_NATS, EVENTS_OPTIONS, EVENTS_LOGGER],
    };
  }
}
