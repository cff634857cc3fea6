import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadLeadsConfig } from './config/leads.config';

void runService('leads', AppModule, loadLeadsConfig()).catch((err: unknown) => {
  process.stderr.write(`leads failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
