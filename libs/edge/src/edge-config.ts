import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { MAX_JSON_DEPTH, Plan } from '@sa/contracts';
import { env } from '@sa/config';
import { IdentityChangeFeed, IdentitySource, PlanLimit, TokenVerifier, mergePlanLimits } from '@sa/identity';
import { BearerVerifier, EdgeAuthenticator } from './edge-auth';
import { MemoryRateLimiter, RateLimiter, RedisRateLimiter } from './rate-limiter';

/** A comma-separated list of exact browser origins (`https://app.example.com`, no path, no `*`). */
function originList(name: string) {
  return (src: Record<string, string | undefined>, problems: string[]): string[] => {
    const origins = (src[name] ?? '').split(',').map((o) => o.trim()).filter(Boolean);
    for (const origin of origins) {
      let valid = false;
      try {
        const url = new URL(origin);
        valid = (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin.toLowerCase();
      } catch {
        valid = false;
      }
      if (!valid) problems.push(`${name}: "${origin}" is not an origin such as https://app.example.com (scheme, host and port only; no path, no *)`);
    }
    return origins.map((o) => o.toLowerCase());
  };
}

/**
 * Settings both public edges (the REST gateway and the MCP server) read, under the same names, so
 * a token verifies, is rate-limited and chats the same way through either.
 */
export const edgeConfig = {
  trustProxy: env.bool('TRUST_PROXY', false),
  bodyLimitBytes: env.int('BODY_LIMIT_BYTES', 2 * 1024 * 1024, { min: 1024 }),
  /** JSON bodies nested deeper than this (objects and arrays) are refused before they are parsed. */
  jsonMaxDepth: env.int('JSON_MAX_DEPTH', 32, { min: 2, max: MAX_JSON_DEPTH }),
  /** Time a client has to send the request line and headers, and the whole request with its body. */
  httpHeadersTimeoutMs: env.int('HTTP_HEADERS_TIMEOUT_MS', 10000, { min: 100 }),
  httpRequestTimeoutMs: env.int('HTTP_REQUEST_TIMEOUT_MS', 30000, { min: 100 }),
  /** How often connections are checked against those two timeouts. */
  httpConnectionsCheckIntervalMs: env.int('HTTP_CONNECTIONS_CHECK_INTERVAL_MS', 1000, { min: 50 }),
  /** Open connections one client address may hold (0: no cap). Behind a proxy every client has the proxy's address. */
  httpMaxConnectionsPerAddress: env.int('HTTP_MAX_CONNECTIONS_PER_ADDRESS', 128, { min: 0 }),
  /** Browser origins (exact, comma-separated) granted CORS on /v1 and /mcp; empty: none. */
  corsAllowedOrigins: originList('CORS_ALLOWED_ORIGINS'),
  /** Requests without a valid token (and /mcp without one), per client address. */
  anonymousRateLimitRequests: env.int('ANONYMOUS_RATE_LIMIT_REQUESTS', 600, { min: 1 }),
  anonymousRateLimitWindowSeconds: env.int('ANONYMOUS_RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1, max: 86400 }),
  redisUrl: env.optionalUrl('REDIS_URL', ['redis', 'rediss']),
  rateLimitRequests: env.int('RATE_LIMIT_REQUESTS', 600, { min: 1 }),
  rateLimitWindowSeconds: env.int('RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1, max: 86400 }),
  rateLimitPrefix: env.str('RATE_LIMIT_PREFIX', 'sa:rl:'),
  authCacheTtlMs: env.int('AUTH_CACHE_TTL_MS', 30000, { min: 0 }),
  authNegativeTtlMs: env.int('AUTH_NEGATIVE_CACHE_TTL_MS', 5000, { min: 0 }),
  authCacheMax: env.int('AUTH_CACHE_MAX_ENTRIES', 10000, { min: 1 }),
  tokenLastUsedFlushMs: env.int('TOKEN_LAST_USED_FLUSH_MS', 15000, { min: 100 }),
  /** How long the start of a chat turn (checks, retrieval) may take. */
  chatStartTimeoutMs: env.int('CHAT_START_TIMEOUT_MS', 10000, { min: 100 }),
  /** A chat stream with no new part for this long is ended (the chat service may have died). */
  chatIdleTimeoutMs: env.int('CHAT_IDLE_TIMEOUT_MS', 30000, { min: 100 }),
  planLimits: env.json<Partial<Record<Plan, Partial<PlanLimit>>>>('PLAN_LIMITS', {}),
};

type EdgeSettings = { [K in keyof typeof edgeConfig]: ReturnType<(typeof edgeConfig)[K]> };

/**
 * The token verifier of one edge: the gateway reads schema `identity` (its own) and hears NOTIFY;
 * the MCP server asks the gateway over NATS and hears the changes it relays.
 */
export function createTokenVerifier(source: IdentitySource, feed: IdentityChangeFeed, config: EdgeSettings, logger: Logger): TokenVerifier {
  return new TokenVerifier(
    source,
    feed,
    { cacheTtlMs: config.authCacheTtlMs, negativeTtlMs: config.authNegativeTtlMs, maxEntries: config.authCacheMax, lastUsedFlushMs: config.tokenLastUsedFlushMs },
    logger,
  );
}

/** Redis-backed (shared by every replica of both edges) when REDIS_URL is set, else in-process. */
export function createRateLimiter(config: EdgeSettings, logger: Logger, limit: number, windowSeconds: number): RateLimiter {
  return config.redisUrl
    ? new RedisRateLimiter(config.redisUrl, limit, windowSeconds * 1000, config.rateLimitPrefix, logger)
    : new MemoryRateLimiter(limit, windowSeconds * 1000);
}

/** The REST gateway passes the token verifier alone; the MCP server adds the OAuth ConnectionVerifier. */
export function createAuthenticator(verifier: TokenVerifier, limiter: RateLimiter, config: EdgeSettings, others: BearerVerifier[] = []): EdgeAuthenticator {
  return new EdgeAuthenticator([verifier, ...others], limiter, mergePlanLimits(config.planLimits));
}

/**
 * Starts the token verifier (its feed of revocations) with the app, and on shutdown, after the
 * HTTP server closed and before the database pool and NATS do, records its last batch of token
 * uses and closes the rate limiters. Register with a factory:
 * `{ provide: EdgeAuthLifecycle, inject: [TokenVerifier, LIMITER], useFactory: (v, l) => new EdgeAuthLifecycle(v, [l]) }`.
 */
export class EdgeAuthLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly limiters: RateLimiter[],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.verifier.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.verifier.stop();
    for (const limiter of this.limiters) await limiter.close();
  }
}
