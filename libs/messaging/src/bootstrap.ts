import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { ServiceName } from '@sa/contracts';
import { createLogger, PinoNestLogger } from '@sa/logging';
import { DrainingNatsServer } from './draining-nats-server';

export interface ServiceRunOptions {
  natsUrl: string;
  /** SHUTDOWN_GRACE_MS: how long work in flight may take to finish once SIGTERM arrives. */
  shutdownGraceMs: number;
}

/**
 * Starts one back-end service as a NATS microservice in the queue group named after it, so any
 * number of replicas share its subjects.
 *
 * SIGTERM or SIGINT stops it gracefully, in this order: it leaves the queue group at once (other
 * replicas take new requests), answers the requests already taken, runs the shutdown hooks (the
 * apps' workers finish or hand back what they hold; event consumers stop pulling and leave
 * unfinished messages unacknowledged), drains NATS and exits 0. Each step is bounded by
 * SHUTDOWN_GRACE_MS. A process that is still busy 5 s after that exits 1.
 */
export async function runService(service: ServiceName, module: Type<unknown>, opts: ServiceRunOptions): Promise<void> {
  const logger = createLogger(service);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const server = new DrainingNatsServer(
    { servers: [opts.natsUrl], queue: service, name: `${service}-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
    opts.shutdownGraceMs,
    logger,
  );
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, { strategy: server, logger: new PinoNestLogger(logger) });

  exitGracefullyOnSignal(logger, opts.shutdownGraceMs, async (signal) => {
    logger.info({ signal, in_flight: server.handling }, 'shutting down: taking no new requests, finishing the work in flight');
    server.stopAccepting();
    await app.close();
  });

  await app.listen();
  logger.info({ nats: opts.natsUrl }, `${service} service listening on NATS queue group "${service}"`);
}

/**
 * Runs `shutdown` once, on the first SIGTERM or SIGINT, then exits 0; exits 1 when it throws, or
 * when it is still running after twice the grace period plus 5 s.
 */
export function exitGracefullyOnSignal(logger: Logger, graceMs: number, shutdown: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      logger.error({ grace_ms: graceMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, graceMs * 2 + 5000).unref();
    try {
      await shutdown(signal);
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
