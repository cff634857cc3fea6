import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { clientErrorHandler, configureFastify, frameworkErrors, requestIdOf, serveHttp } from '@sa/edge';
import { createLogger, PinoNestLogger } from '@sa/logging';
import { AppModule } from './app.module';
import { loadMcpConfig } from './config/mcp.config';

/**
 * The MCP server: HTTP (Streamable HTTP at /mcp) for agents, plus the NATS queue group `mcp` so
 * the gateway's readiness check reaches it like every other service.
 */
async function bootstrap(): Promise<void> {
  const config = loadMcpConfig();
  const logger = createLogger('mcp', { level: config.logLevel });
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    clientErrorHandler,
    frameworkErrors,
    trustProxy: config.trustProxy,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req),
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: false,
  });
  configureFastify(adapter.getInstance(), logger);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, logger), adapter, { logger: new PinoNestLogger(logger) });
  app.connectMicroservice<MicroserviceOptions>({
    transport: Transport.NATS,
    options: { servers: [config.natsUrl], queue: 'mcp', name: `mcp-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
  });
  await app.startAllMicroservices();
  await serveHttp(app, { port: config.port, host: config.host, graceMs: config.shutdownGraceMs, logger });
  logger.info({ url: `http://${config.host}:${config.port}/mcp` }, 'MCP server listening');
}

bootstrap().catch((err: unknown) => {
  process.stderr.write(`mcp failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
