import { Controller, Type } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { HealthReply, ServiceName, healthSubject } from '@sa/contracts';
import { RpcHandler } from './rpc-handler.decorator';

const instance = `${process.pid}-${randomUUID().slice(0, 8)}`;
const startedAt = Date.now();

/** Builds the controller that answers `<service>.health.ping`, the gateway's readiness probe. */
export function healthControllerFor(service: ServiceName): Type<unknown> {
  @Controller()
  class HealthController {
    @RpcHandler(healthSubject(service))
    ping(): HealthReply {
      return { service, status: 'ok', instance, uptime_s: Math.round((Date.now() - startedAt) / 1000) };
    }
  }
  return HealthController;
}
