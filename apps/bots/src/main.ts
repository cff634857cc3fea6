import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadBotsConfig } from './config/bots.config';

void runService('bots', AppModule, loadBotsConfig()).catch((err: unknown) => {
  process.stderr.write(`bots failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
