import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, PinoNestLogger } from '@sa/logging';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config/gateway.config';
import { clientErrorHandler, configureFastify, frameworkErrors, requestIdOf, serveHttp } from '@sa/edge';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', { level: config.logLevel });
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    clientErrorHandler,
    frameworkErrors,
    trustProxy: config.trustProxy,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req),
    // sessionId path parameters may be 120 characters, more once percent-encoded.
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    // While closing, requests on open keep-alive connections are still served (not refused).
    return503OnClosing: false,
  });
  configureFastify(adapter.getInstance(), logger);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, logger), adapter, {
    logger: new PinoNestLogger(logger),
  });
  await serveHttp(app, { port: config.port, host: config.host, graceMs: config.shutdownGraceMs, logger });
  logger.info({ url: `http://${config.host}:${config.port}/v1` }, 'gateway listening');
}

bootstrap().catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
