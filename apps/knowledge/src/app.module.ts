import { Module } from '@nestjs/common';
import { MessagingModule } from '@sa/messaging';
import { loadKnowledgeConfig } from './config/knowledge.config';

const config = loadKnowledgeConfig();

/** Not built yet: the service answers its NATS health ping (knowledge.health.ping) and nothing else. */
@Module({
  imports: [MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, service: 'knowledge', connectionName: 'knowledge' })],
})
export class AppModule {}
