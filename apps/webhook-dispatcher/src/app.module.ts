import { Module } from '@nestjs/common';
import { MessagingModule } from '@sa/messaging';
import { loadWebhookDispatcherConfig } from './config/webhook-dispatcher.config';

const config = loadWebhookDispatcherConfig();

/** Not built yet: the service answers its NATS health ping (webhook-dispatcher.health.ping) and nothing else. */
@Module({
  imports: [MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, service: 'webhook-dispatcher', connectionName: 'webhook-dispatcher' })],
})
export class AppModule {}
