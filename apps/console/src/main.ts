import 'reflect-metadata';
import { MicroserviceOptions } from '@nestjs/microservices';
import { serveHttp } from '@sa/edge';
import { createLogger } from '@sa/logging';
import { DrainingNatsServer } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadConsoleConfig } from './config/console.config';
import { createConsoleApp } from './http/console-app';

async function bootstrap(): Promise<void> {
  const config = loadConsoleConfig();
  const logger = createLogger('console', { level: config.logLevel });
  const app = await createConsoleApp(AppModule.forRoot(config, logger), config, logger);
  // The owner of OAuth connections answers console.connection.verify (the MCP server asks) in the
  // NATS queue group `console`.
  app.connectMicroservice<MicroserviceOptions>({
    strategy: new DrainingNatsServer(
      { servers: [config.natsUrl], queue: 'console', name: `console-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
      config.shutdownGraceMs,
      logger,
    ),
  });
  await app.startAllMicroservices();
  await serveHttp(app, { port: config.port, host: config.host, graceMs: config.shutdownGraceMs, logger });
  logger.info({ url: `http://${config.host}:${config.port}/`, public_url: config.publicUrl }, 'console listening');
}

bootstrap().catch((err: unknown) => {
  process.stderr.write(`console failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
