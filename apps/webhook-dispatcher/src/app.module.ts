import { Module } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { WEBHOOK_EVENT_TYPES } from '@sa/contracts';
import { DatabaseModule } from '@sa/db';
import { EventsModule, provideEventConsumer } from '@sa/events';
import { createLogger } from '@sa/logging';
import { OpsModule } from '@sa/ops';
import { MessagingModule, NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { outboundPolicyFromEnv } from '@sa/net-guard';
import { NatsIdentityFeed, NatsIdentitySource } from '@sa/identity';
import { SecretBox } from '@sa/webhook-registry';
import { DISPATCHER_CONFIG, DISPATCHER_LOGGER, DISPATCHER_POLICY, loadWebhookDispatcherConfig } from './config/webhook-dispatcher.config';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { DeliveryEngine, SECRET_BOX } from './delivery/delivery-engine';
import { DispatchHandler } from './delivery/dispatch.handler';
import { SecretSealer } from './delivery/secret-sealer';
import { WorkspaceEntitlements } from './delivery/workspace-entitlements';
import { WebhooksHandler } from './management/webhooks.handler';

// Fails at start, not at the first delivery, on a malformed key, or on none in production.
const config = loadWebhookDispatcherConfig();

/**
 * The webhook dispatcher (spec part 6): a durable JetStream consumer of the five webhook events,
 * the delivery log in schema `webhooks`, and the signed deliveries; and the management of a
 * workspace's webhooks over NATS (webhook-dispatcher.webhook.*, .delivery.*; the console asks).
 */
@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'webhook-dispatcher' }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'webhook-dispatcher', connectionName: 'webhook-dispatcher' }),
    OpsModule.forService('webhook-dispatcher', config),
    EventsModule.forService({
      schema: 'webhooks',
      service: 'webhook-dispatcher',
      natsUrl: config.natsUrl,
      stream: { name: config.eventsStream, subjectPrefix: config.eventsSubjectPrefix },
      relay: false,
      logLevel: config.logLevel,
    }),
  ],
  controllers: [WebhooksHandler],
  providers: [
    { provide: DISPATCHER_CONFIG, useValue: config },
    { provide: DISPATCHER_LOGGER, useValue: createLogger('webhook-dispatcher', { level: config.logLevel }) },
    // Webhook requests never follow redirects; the timeout is the delivery timeout.
    { provide: DISPATCHER_POLICY, useFactory: () => ({ ...outboundPolicyFromEnv(), timeoutMs: config.timeoutMs, maxRedirects: 0 }) },
    { provide: SECRET_BOX, useValue: new SecretBox(config.secretKey.key) },
    // Workspace plans are the gateway's data (schema `identity`): asked over NATS, changes heard from it.
    {
      provide: WorkspaceEntitlements,
      inject: [RpcClient, NATS_CONNECTION, DISPATCHER_LOGGER],
      useFactory: (rpc: RpcClient, nc: NatsConnection, logger) => new WorkspaceEntitlements(new NatsIdentitySource(rpc), new NatsIdentityFeed(nc, logger), logger),
    },
    DeliveriesRepository,
    DeliveryEngine,
    SecretSealer,
    DispatchHandler,
    provideEventConsumer({
      durable: 'webhook-dispatcher',
      types: [...WEBHOOK_EVENT_TYPES],
      handler: DispatchHandler,
      concurrency: config.consumerConcurrency,
      ackWaitMs: config.ackWaitMs,
      // One INSERT per event whose unique (event_id, webhook_id) makes a repeat a no-op.
      dedupe: 'handler',
    }),
  ],
})
export class AppModule {}
