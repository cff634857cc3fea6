import type { Plan } from '@sa/contracts';
import { commonConfig, env, parseConfig } from '@sa/config';
import type { PlanLimit } from '@sa/identity';

export const loadGatewayConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      port: env.int('GATEWAY_PORT', 3000, { min: 0, max: 65535 }),
      host: env.str('GATEWAY_HOST', '127.0.0.1'),
      trustProxy: env.bool('TRUST_PROXY', false),
      bodyLimitBytes: env.int('BODY_LIMIT_BYTES', 2 * 1024 * 1024, { min: 1024 }),
      redisUrl: env.optionalUrl('REDIS_URL', ['redis', 'rediss']),
      rateLimitRequests: env.int('RATE_LIMIT_REQUESTS', 600, { min: 1 }),
      rateLimitWindowSeconds: env.int('RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1, max: 86400 }),
      rateLimitPrefix: env.str('RATE_LIMIT_PREFIX', 'sa:rl:'),
      authCacheTtlMs: env.int('AUTH_CACHE_TTL_MS', 30000, { min: 0 }),
      authNegativeTtlMs: env.int('AUTH_NEGATIVE_CACHE_TTL_MS', 5000, { min: 0 }),
      authCacheMax: env.int('AUTH_CACHE_MAX_ENTRIES', 10000, { min: 1 }),
      tokenLastUsedFlushMs: env.int('TOKEN_LAST_USED_FLUSH_MS', 15000, { min: 100 }),
      readyTimeoutMs: env.int('READY_TIMEOUT_MS', 1500, { min: 50 }),
      /** How long the start of a chat turn (checks, retrieval) may take. */
      chatStartTimeoutMs: env.int('CHAT_START_TIMEOUT_MS', 10000, { min: 100 }),
      /** A chat stream with no new part for this long is ended (the chat service may have died). */
      chatIdleTimeoutMs: env.int('CHAT_IDLE_TIMEOUT_MS', 30000, { min: 100 }),
      /** Public widget routes: requests per client IP (and per session) per window. */
      widgetRateLimitRequests: env.int('WIDGET_RATE_LIMIT_REQUESTS', 120, { min: 1 }),
      widgetRateLimitWindowSeconds: env.int('WIDGET_RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1, max: 86400 }),
      planLimits: env.json<Partial<Record<Plan, Partial<PlanLimit>>>>('PLAN_LIMITS', {}),
    },
    source,
  );

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
