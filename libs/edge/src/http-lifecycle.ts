import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { PinoNestLogger } from '@sa/logging';
import { exitGracefullyOnSignal } from '@sa/messaging';
import { clientErrorHandler, configureFastify, frameworkErrors, requestIdOf } from './fastify-setup';

/**
 * A public HTTP edge (the REST gateway, the MCP server) on Fastify, with what both need: the
 * body limit, X-Request-Id, access log and metrics, spec-shaped answers to requests the parser or
 * router refuses, and requests on open keep-alive connections still served while closing.
 */
export async function createEdgeApp(module: DynamicModule, config: { bodyLimitBytes: number; trustProxy: boolean }, logger: Logger): Promise<NestFastifyApplication> {
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    clientErrorHandler,
    frameworkErrors,
    trustProxy: config.trustProxy,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req),
    // sessionId path parameters may be 120 characters, more once percent-encoded.
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    return503OnClosing: false,
  });
  configureFastify(adapter.getInstance(), logger);
  return NestFactory.create<NestFastifyApplication>(module, adapter, { logger: new PinoNestLogger(logger) });
}

/**
 * Listens, and on SIGTERM or SIGINT stops gracefully: the listening socket closes at once (new
 * connections go to other replicas; requests on open keep-alive connections are still served),
 * requests in flight finish (chat streams run to their end) within SHUTDOWN_GRACE_MS, after which
 * the remaining connections are closed. Only then do the shutdown hooks run (token cache,
 * rate limiter, database pool, NATS drain), so nothing a request still needs goes away under it.
 */
export async function serveHttp(app: NestFastifyApplication, opts: { port: number; host: string; graceMs: number; logger: Logger }): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  exitGracefullyOnSignal(opts.logger, opts.graceMs, async (signal) => {
    opts.logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const deadline = setTimeout(() => {
      opts.logger.warn({ grace_ms: opts.graceMs }, 'requests still in flight after the grace period; closing their connections');
      fastify.server.closeAllConnections();
    }, opts.graceMs);
    await fastify.close();
    clearTimeout(deadline);
    await app.close();
  });
  await app.listen(opts.port, opts.host);
}
