import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { ServiceName } from '@sa/contracts';
import { createLogger, PinoNestLogger } from '@sa/logging';

/**
 * Starts one back-end service as a NATS microservice in the queue group named after it, so any
 * number of replicas share its subjects. SIGTERM/SIGINT close it gracefully (Nest shutdown hooks).
 */
export async function runService(service: ServiceName, module: Type<unknown>, natsUrl: string): Promise<void> {
  const logger = createLogger(service);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    transport: Transport.NATS,
    options: { servers: [natsUrl], queue: service, name: `${service}-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 },
    logger: new PinoNestLogger(logger),
  });
  app.enableShutdownHooks();
  await app.listen();
  logger.info({ nats: natsUrl }, `${service} service listening on NATS queue group "${service}"`);
}
