import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadKnowledgeConfig } from './config/knowledge.config';

void runService('knowledge', AppModule, loadKnowledgeConfig()).catch((err: unknown) => {
  process.stderr.write(`knowledge failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
