import { Module } from '@nestjs/common';
import { MessagingModule } from '@sa/messaging';
import { loadLeadsConfig } from './config/leads.config';

const config = loadLeadsConfig();

/** Not built yet: the service answers its NATS health ping (leads.health.ping) and nothing else. */
@Module({
  imports: [MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, service: 'leads', connectionName: 'leads' })],
})
export class AppModule {}
