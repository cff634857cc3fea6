import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { EdgeAuthLifecycle, EdgeAuthenticator, EdgeGate, RateLimiter, createAuthenticator, createRateLimiter, createTokenVerifier } from '@sa/edge';
import { TokenVerifier, mergePlanLimits } from '@sa/identity';
import { GATEWAY_CONFIG, GatewayConfig } from '../config/gateway.config';
import { AuthGuard } from './auth.guard';
import { ANONYMOUS_RATE_LIMITER, GATEWAY_LOGGER, PLAN_LIMITS, RATE_LIMITER } from './auth.tokens';
import { WIDGET_RATE_LIMITER, WIDGET_ROUTES } from '../widget/widget-access';

/**
 * Token verification, rate limiting (the EdgeGate counts every request before its body is read;
 * widget routes per client address with their own limit) and the global guard that checks each
 * route's scope.
 */
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
      provide: ANONYMOUS_RATE_LIMITER,
      inject: [GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (config: GatewayConfig, logger: Logger) => createRateLimiter(config, logger, config.anonymousRateLimitRequests, config.anonymousRateLimitWindowSeconds),
    },
    {
      provide: EdgeAuthenticator,
      inject: [TokenVerifier, RATE_LIMITER, GATEWAY_CONFIG],
      useFactory: (verifier: TokenVerifier, limiter: RateLimiter, config: GatewayConfig) => createAuthenticator(verifier, limiter, config),
    },
    {
      provide: EdgeGate,
      inject: [EdgeAuthenticator, ANONYMOUS_RATE_LIMITER, WIDGET_RATE_LIMITER],
      useFactory: (auth: EdgeAuthenticator, anonymous: RateLimiter, widget: RateLimiter) =>
        new EdgeGate(auth, anonymous, { routeLimit: (req, path) => (path.startsWith(WIDGET_ROUTES) ? { limiter: widget, key: `widget:ip:${req.ip}` } : null) }),
    },
    { provide: PLAN_LIMITS, inject: [GATEWAY_CONFIG], useFactory: (config: GatewayConfig) => mergePlanLimits(config.planLimits) },
    { provide: APP_GUARD, useClass: AuthGuard },
    {
      provide: EdgeAuthLifecycle,
      inject: [TokenVerifier, RATE_LIMITER, WIDGET_RATE_LIMITER, ANONYMOUS_RATE_LIMITER],
      useFactory: (verifier: TokenVerifier, ...limiters: RateLimiter[]) => new EdgeAuthLifecycle(verifier, limiters),
    },
  ],
  exports: [TokenVerifier, RATE_LIMITER, WIDGET_RATE_LIMITER, PLAN_LIMITS, EdgeAuthenticator, EdgeGate],
})
export class AuthModule {}
