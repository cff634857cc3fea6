import { Global, Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { EdgeAuthLifecycle, EdgeAuthenticator, EdgeGate, RateLimiter, createAuthenticator, createRateLimiter, createTokenVerifier } from '@sa/edge';
import { TokenVerifier, mergePlanLimits, relayIdentityChanges } from '@sa/identity';
import { DbIdentitySource, PgIdentityFeed } from '@sa/identity-db';
import { NATS_CONNECTION } from '@sa/messaging';
import { CHANNEL_WEBHOOK_PATH } from '@sa/contracts';
import { GATEWAY_CONFIG, GatewayConfig } from '../config/gateway.config';
import { IdentityHandler } from '../identity/identity.handler';
import { TokensHandler } from '../identity/tokens.handler';
import { AuthGuard } from './auth.guard';
import { ANONYMOUS_RATE_LIMITER, CHANNEL_WEBHOOK_RATE_LIMITER, GATEWAY_LOGGER, PLAN_LIMITS, RATE_LIMITER } from './auth.tokens';
import { WIDGET_RATE_LIMITER, WIDGET_ROUTES } from '../widget/widget-access';

const IDENTITY_FEED = Symbol('IDENTITY_FEED');

/** Relays every identity change the gateway hears from PostgreSQL to NATS (identity.changes). */
@Injectable()
class IdentityChangeRelay implements OnModuleInit {
  constructor(
    @Inject(IDENTITY_FEED) private readonly feed: PgIdentityFeed,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  // Before the verifier starts the feed (onApplicationBootstrap), so the first reset is relayed too.
  onModuleInit(): void {
    relayIdentityChanges(this.feed, this.nc, this.logger);
  }
}

/**
 * Token verification, rate limiting (the EdgeGate counts every request before its body is read;
 * widget routes per client address with their own limit) and the global guard that checks each
 * route's scope. The gateway owns schema `identity`: it verifies from its own database, and
 * answers identity.* over NATS for the processes that do not own it (IdentityHandler), and manages
 * a workspace's API tokens for its people (TokensHandler, asked by the console).
 */
@Global()
@Module({
  controllers: [IdentityHandler, TokensHandler],
  providers: [
    { provide: DbIdentitySource, inject: [getDataSourceToken()], useFactory: (ds: DataSource) => new DbIdentitySource(ds) },
    {
      provide: IDENTITY_FEED,
      inject: [GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (config: GatewayConfig, logger: Logger) => new PgIdentityFeed(config.databaseUrl, logger, 'gateway-identity-listener'),
    },
    IdentityChangeRelay,
    {
      provide: TokenVerifier,
      inject: [DbIdentitySource, IDENTITY_FEED, GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (source: DbIdentitySource, feed: PgIdentityFeed, config: GatewayConfig, logger: Logger) => createTokenVerifier(source, feed, config, logger),
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
      provide: CHANNEL_WEBHOOK_RATE_LIMITER,
      inject: [GATEWAY_CONFIG, GATEWAY_LOGGER],
      useFactory: (config: GatewayConfig, logger: Logger) => createRateLimiter(config, logger, config.channelWebhookRateLimitRequests, config.channelWebhookRateLimitWindowSeconds),
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
      inject: [EdgeAuthenticator, ANONYMOUS_RATE_LIMITER, WIDGET_RATE_LIMITER, CHANNEL_WEBHOOK_RATE_LIMITER],
      useFactory: (auth: EdgeAuthenticator, anonymous: RateLimiter, widget: RateLimiter, channels: RateLimiter) =>
        new EdgeGate(auth, anonymous, {
          routeLimit: (req, path) =>
            path.startsWith(WIDGET_ROUTES)
              ? { limiter: widget, key: `widget:ip:${req.ip}` }
              : path.startsWith(`${CHANNEL_WEBHOOK_PATH}/`)
                ? // Issue 35: a provider posts from many addresses; its connection is what is limited.
                  { limiter: channels, key: `channel-webhook:${path.slice(CHANNEL_WEBHOOK_PATH.length + 1, CHANNEL_WEBHOOK_PATH.length + 100).toLowerCase()}` }
                : null,
        }),
    },
    { provide: PLAN_LIMITS, inject: [GATEWAY_CONFIG], useFactory: (config: GatewayConfig) => mergePlanLimits(config.planLimits) },
    { provide: APP_GUARD, useClass: AuthGuard },
    {
      provide: EdgeAuthLifecycle,
      inject: [TokenVerifier, RATE_LIMITER, WIDGET_RATE_LIMITER, ANONYMOUS_RATE_LIMITER, CHANNEL_WEBHOOK_RATE_LIMITER],
      useFactory: (verifier: TokenVerifier, ...limiters: RateLimiter[]) => new EdgeAuthLifecycle(verifier, limiters),
    },
  ],
  exports: [TokenVerifier, RATE_LIMITER, WIDGET_RATE_LIMITER, PLAN_LIMITS, EdgeAuthenticator, EdgeGate],
})
export class AuthModule {}
