import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { ConnectionVerifier, EdgeAuthLifecycle, EdgeAuthenticator, EdgeGate, HttpErrorFilter, RateLimiter, createAuthenticator, createRateLimiter, createTokenVerifier } from '@sa/edge';
import { NatsIdentityFeed, NatsIdentitySource, TokenVerifier } from '@sa/identity';
import { MessagingModule, NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { OpsModule } from '@sa/ops';
import { MCP_CONFIG, MCP_LOGGER, McpConfig } from './config/mcp.config';
import { McpController } from './http/mcp.controller';
import { OriginPolicy, parseList } from './http/origin-policy';
import { ProtectedResourceController } from './http/protected-resource';
import { ToolServerFactory } from './tools/tool-server';

const RATE_LIMITER = Symbol('RATE_LIMITER');
const ANONYMOUS_RATE_LIMITER = Symbol('ANONYMOUS_RATE_LIMITER');

/**
 * The MCP server (spec part 1 and part 4): no database of its own; identity from the gateway (its
 * owner) and tools over NATS.
 */
@Module({})
export class AppModule {
  static forRoot(config: McpConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'mcp', connectionName: 'mcp' }),
        OpsModule.forService('mcp', config, [], { database: false }),
      ],
      controllers: [McpController, ProtectedResourceController],
      providers: [
        { provide: MCP_CONFIG, useValue: config },
        { provide: MCP_LOGGER, useValue: logger },
        { provide: APP_FILTER, useValue: new HttpErrorFilter(logger) },
        {
          provide: TokenVerifier,
          inject: [RpcClient, NATS_CONNECTION],
          useFactory: (rpc: RpcClient, nc: NatsConnection) => createTokenVerifier(new NatsIdentitySource(rpc), new NatsIdentityFeed(nc, logger), config, logger),
        },
        { provide: RATE_LIMITER, useFactory: () => createRateLimiter(config, logger, config.rateLimitRequests, config.rateLimitWindowSeconds) },
        { provide: ANONYMOUS_RATE_LIMITER, useFactory: () => createRateLimiter(config, logger, config.anonymousRateLimitRequests, config.anonymousRateLimitWindowSeconds) },
        {
          // OAuth access tokens of MCP connections (issue 17), asked of the console on every request (no cache).
          provide: ConnectionVerifier,
          inject: [RpcClient, TokenVerifier],
          useFactory: (rpc: RpcClient, tokens: TokenVerifier) =>
            new ConnectionVerifier((tokenHash) => rpc.send('console.connection.verify', { tokenHash }), (id) => tokens.workspaceById(id), config.resourceUrl),
        },
        {
          provide: EdgeAuthenticator,
          inject: [TokenVerifier, RATE_LIMITER, ConnectionVerifier],
          useFactory: (verifier: TokenVerifier, limiter: RateLimiter, connections: ConnectionVerifier) => createAuthenticator(verifier, limiter, config, [connections]),
        },
        { provide: EdgeGate, inject: [EdgeAuthenticator, ANONYMOUS_RATE_LIMITER], useFactory: (auth: EdgeAuthenticator, anonymous: RateLimiter) => new EdgeGate(auth, anonymous) },
        // An origin granted CORS may also call: CORS_ALLOWED_ORIGINS extends MCP_ALLOWED_ORIGINS.
        {
          provide: OriginPolicy,
          useValue: new OriginPolicy({ allowedOrigins: [...parseList(config.allowedOrigins), ...config.corsAllowedOrigins], allowedHosts: parseList(config.allowedHosts) }),
        },
        {
          provide: ToolServerFactory,
          inject: [RpcClient, NATS_CONNECTION],
          useFactory: (rpc: RpcClient, nc: NatsConnection) =>
            ToolServerFactory.create(rpc, nc, { startTimeoutMs: config.chatStartTimeoutMs, idleTimeoutMs: config.chatIdleTimeoutMs, lostAfterMs: config.rpcLostAfterMs }, logger),
        },
        {
          provide: EdgeAuthLifecycle,
          inject: [TokenVerifier, RATE_LIMITER, ANONYMOUS_RATE_LIMITER],
          useFactory: (verifier: TokenVerifier, ...limiters: RateLimiter[]) => new EdgeAuthLifecycle(verifier, limiters),
        },
      ],
    };
  }
}
