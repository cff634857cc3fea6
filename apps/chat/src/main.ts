import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadChatConfig } from './config/chat.config';

void runService('chat', AppModule, loadChatConfig()).catch((err: unknown) => {
  process.stderr.write(`chat failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
