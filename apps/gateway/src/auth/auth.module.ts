import { BeforeApplicationShutdown, Global, Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { EdgeAuthenticator, RateLimiter, createAuthenticator, createRateLimiter, createTokenVerifier } from '@sa/edge';
import { TokenVerifier, mergePlanLimits } from '@sa/identity';
import { GATEWAY_CONFIG, GatewayConfig } from '../config/gateway.config';
import { AuthGuard } from './auth.guard';
import { GATEWAY_LOGGER, PLAN_LIMITS, RATE_LIMITER } from './auth.tokens';
import { WIDGET_RATE_LIMITER } from '../widget/widget-access';

@Injectable()
class AuthLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly verifier: TokenVerifier,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(WIDGET_RATE_LIMITER) private readonly widgetLimiter: RateLimiter,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.verifier.start();
  }

  /** Before the database pool closes: the verifier writes its last batch of last_used_at. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.verifier.stop();
    await this.limiter.close();
    await this.widgetLimiter.close();
  }
}

/** Token verification, rate limiting and the global guard that applies them to every route. */
@Global()
@Module({
  providers: [
    {
      provide: TokenVerifier,
      inject: [getDataSourceToken(), GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (ds: DataSource, config: GatewayConfig, logger: Logger) => createTokenVerifier(ds, config, logger, 'gateway'),
    },
    {
      provide: RATE_LIMITER,
      inject: [GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (config: GatewayConfig, logger: Logger) => createRateLimiter(config, logger, config.rateLimitRequests, config.rateLimitWindowSeconds),
    },
    {
      provide: WIDGET_RATE_LIMITER,
      inject: [GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (config: GatewayConfig, logger: Logger) => createRateLimiter(config, logger, config.widgetRateLimitRequests, config.widgetRateLimitWindowSeconds),
    },
    {
      provide: EdgeAuthenticator,
      inject: [TokenVerifier, RATE_LIMITER, GATEWAY_CONFIG],
      useFactory: (verifier: TokenVerifier, limiter: RateLimiter, config: GatewayConfig) => createAuthenticator(verifier, limiter, config),
    },
    { provide: PLAN_LIMITS, inject: [GATEWAY_CONFIG], useFactory: (config: GatewayConfig) => mergePlanLimits(config.planLimits) },
    { provide: APP_GUARD, useClass: AuthGuard },
    AuthLifecycle,
  ],
  exports: [TokenVerifier, RATE_LIMITER, WIDGET_RATE_LIMITER, PLAN_LIMITS, EdgeAuthenticator],
})
export class AuthModule {}
