import { Module } from '@nestjs/common';
import { MessagingModule } from '@sa/messaging';
import { loadChatConfig } from './config/chat.config';

const config = loadChatConfig();

/** Not built yet: the service answers its NATS health ping (chat.health.ping) and nothing else. */
@Module({
  imports: [MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, service: 'chat', connectionName: 'chat' })],
})
export class AppModule {}
