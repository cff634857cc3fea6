import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadMcpConfig } from './config/mcp.config';

void runService('mcp', AppModule, loadMcpConfig().natsUrl).catch((err: unknown) => {
  process.stderr.write(`mcp failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
