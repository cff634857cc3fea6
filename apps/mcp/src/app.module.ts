import { Module } from '@nestjs/common';
import { MessagingModule } from '@sa/messaging';
import { loadMcpConfig } from './config/mcp.config';

const config = loadMcpConfig();

/** Not built yet: the service answers its NATS health ping (mcp.health.ping) and nothing else. */
@Module({
  imports: [MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, service: 'mcp', connectionName: 'mcp' })],
})
export class AppModule {}
