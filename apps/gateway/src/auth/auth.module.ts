import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { EdgeAuthLifecycle, EdgeAuthenticator, RateLimiter, createAuthenticator, createRateLimiter, createTokenVerifier } from '@sa/edge';
import { TokenVerifier, mergePlanLimits } from '@sa/identity';
import { GATEWAY_CONFIG, GatewayConfig } from '../config/gateway.config';
import { AuthGuard } from './auth.guard';
import { GATEWAY_LOGGER, PLAN_LIMITS, RATE_LIMITER } from './auth.tokens';
import { WIDGET_RATE_LIMITER } from '../widget/widget-access';

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
    {
      provide: EdgeAuthLifecycle,
      inject: [TokenVerifier, RATE_LIMITER, WIDGET_RATE_LIMITER],
      useFactory: (verifier: TokenVerifier, limiter: RateLimiter, widgetLimiter: RateLimiter) => new EdgeAuthLifecycle(verifier, [limiter, widgetLimiter]),
    },
  ],
  exports: [TokenVerifier, RATE_LIMITER, WIDGET_RATE_LIMITER, PLAN_LIMITS, EdgeAuthenticator],
})
export class AuthModule {}
