import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadChannelsConfig } from './config/channels.config';

void runService('channels', AppModule, loadChannelsConfig()).catch((err: unknown) => {
  process.stderr.write(`channels failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
