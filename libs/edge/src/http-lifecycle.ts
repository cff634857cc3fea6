import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';

/**
 * Listens, and on SIGTERM or SIGINT stops gracefully: the listening socket closes at once (new
 * connections go to other replicas; requests on open keep-alive connections are still served),
 * requests in flight finish (chat streams run to their end) within SHUTDOWN_GRACE_MS, after which
 * the remaining connections are closed. Only then do the shutdown hooks run (token cache,
 * rate limiter, database pool, NATS drain), so nothing a request still needs goes away under it.
 */
export async function serveHttp(app: NestFastifyApplication, opts: { port: number; host: string; graceMs: number; logger: Logger }): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const { logger } = opts;
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    setTimeout(() => {
      logger.error({ grace_ms: opts.graceMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, opts.graceMs * 2 + 5000).unref();
    const deadline = setTimeout(() => {
      logger.warn({ grace_ms: opts.graceMs }, 'requests still in flight after the grace period; closing their connections');
      fastify.server.closeAllConnections();
    }, opts.graceMs);
    try {
      await fastify.close();
      clearTimeout(deadline);
      await app.close();
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await app.listen(opts.port, opts.host);
}
