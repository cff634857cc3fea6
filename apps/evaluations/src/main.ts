import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadEvaluationsConfig } from './config/evaluations.config';

void runService('evaluations', AppModule, loadEvaluationsConfig()).catch((err: unknown) => {
  process.stderr.write(`evaluations failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
