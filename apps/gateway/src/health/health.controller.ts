import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SERVICE_NAMES, healthSubject } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Public } from '../auth/route-access.decorator';
import { GATEWAY_CONFIG, GatewayConfig } from '../config/gateway.config';

/** Liveness (process up) and readiness (every back-end service answers its NATS ping). */
@Controller()
export class HealthController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('healthz')
  @Public()
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public()
  async readyz(@Res() reply: FastifyReply): Promise<void> {
    const results = await Promise.all(
      SERVICE_NAMES.map(async (service) => {
        try {
          await this.rpc.send(healthSubject(service), {}, undefined, { timeoutMs: this.config.readyTimeoutMs });
          return [service, true] as const;
        } catch {
          return [service, false] as const;
        }
      }),
    );
    const services = Object.fromEntries(results.map(([s, ok]) => [s, ok ? 'up' : 'down']));
    const missing = results.filter(([, ok]) => !ok).map(([s]) => s);
    if (!missing.length) {
      void reply.status(200).send({ status: 'ready', services });
      return;
    }
    void reply.status(503).send({ error: 'Service Unavailable', code: 'service_unavailable', message: `Not ready: ${missing.join(', ')} not answering`, missing, services });
  }
}
