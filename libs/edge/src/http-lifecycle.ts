import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { PinoNestLogger } from '@sa/logging';
import { exitGracefullyOnSignal } from '@sa/messaging';
import { EdgeGate } from './edge-gate';
import { clientErrorHandler, configureFastify, frameworkErrors, requestIdOf } from './fastify-setup';
import { HttpLimits, edgeServerOptions, limitConnectionsPerAddress } from './http-limits';
import { acceptJsonBodiesOnly } from './json-body';
import { installHttpPolicy } from './http-policy';

export interface EdgeHttpConfig extends HttpLimits {
  bodyLimitBytes: number;
  trustProxy: boolean;
  jsonMaxDepth: number;
  httpMaxConnectionsPerAddress: number;
  corsAllowedOrigins: readonly string[];
}

/**
 * A public HTTP edge (the REST gateway, the MCP server) on Fastify, with what both need: the
 * body limit, X-Request-Id, access log and metrics, spec-shaped answers to requests the parser or
 * router refuses, and requests on open keep-alive connections still served while closing. And
 * against hostile clients (docs/decisions/security.md, "Public edges"): header and request timeouts, a cap
 * on connections per client address, JSON bodies only and not nested too deeply, nosniff and
 * no-store, CORS only for configured origins on `cors.paths`, OPTIONS answered, and the module's
 * EdgeGate counting every request toward a rate limit before its body is read.
 */
export async function createEdgeApp(
  module: DynamicModule,
  config: EdgeHttpConfig,
  logger: Logger,
  cors: { paths: readonly string[]; allowHeaders: readonly string[] },
): Promise<NestFastifyApplication> {
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const adapter = new FastifyAdapter({
    ...edgeServerOptions(config),
    bodyLimit: config.bodyLimitBytes,
    clientErrorHandler,
    frameworkErrors,
    trustProxy: config.trustProxy,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req),
    // sessionId path parameters may be 120 characters, more once percent-encoded.
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    return503OnClosing: false,
  });
  const fastify = adapter.getInstance();
  limitConnectionsPerAddress(fastify.server, config.httpMaxConnectionsPerAddress);
  configureFastify(fastify, logger);
  installHttpPolicy(fastify, { corsAllowedOrigins: config.corsAllowedOrigins, corsPaths: cors.paths, corsAllowHeaders: cors.allowHeaders });
  acceptJsonBodiesOnly(fastify, { maxDepth: config.jsonMaxDepth });
  // bodyParser false: Nest would add its own JSON parser and one for HTML forms.
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { logger: new PinoNestLogger(logger), bodyParser: false });
  app.get(EdgeGate, { strict: false }).install(fastify);
  return app;
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
