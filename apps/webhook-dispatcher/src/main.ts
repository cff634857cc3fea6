import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadWebhookDispatcherConfig } from './config/webhook-dispatcher.config';

void runService('webhook-dispatcher', AppModule, loadWebhookDispatcherConfig()).catch((err: unknown) => {
  process.stderr.write(`webhook-dispatcher failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
