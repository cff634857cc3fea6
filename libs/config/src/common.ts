import { env } from './env';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/support_agent';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** Variables every service reads. */
export const commonConfig = {
  databaseUrl: env.url('DATABASE_URL', DEFAULT_DATABASE_URL, ['postgres', 'postgresql']),
  dbPoolSize: env.int('DB_POOL_SIZE', 10, { min: 1, max: 200 }),
  natsUrl: env.str('NATS_URL', DEFAULT_NATS_URL),
  rpcTimeoutMs: env.int('RPC_TIMEOUT_MS', 5000, { min: 50, max: 120000 }),
  /** Issue 36: how often the replica working on a request signs that it is alive, and after how much silence its caller takes it for dead. */
  rpcLivenessMs: env.int('RPC_LIVENESS_MS', 1000, { min: 100, max: 60000 }),
  rpcLostAfterMs: env.int('RPC_LOST_AFTER_MS', 3500, { min: 200, max: 120000 }),
  logLevel: env.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  /**
   * json or pretty; unset: pretty on a terminal outside production, JSON otherwise (the older
   * LOG_PRETTY=true|false is read when this is unset). libs/logging applies it (logFormatFromEnv).
   */
  logFormat: env.optionalOneOf('LOG_FORMAT', ['json', 'pretty'] as const),
  eventsStream: env.str('EVENTS_STREAM', 'SA_EVENTS'),
  eventsSubjectPrefix: env.str('EVENTS_SUBJECT_PREFIX', 'events'),
  shutdownGraceMs: env.int('SHUTDOWN_GRACE_MS', 10000, { min: 0, max: 600000 }),
  /** The ops endpoint (/healthz, /readyz, /metrics) of every app; 0 picks a free port. */
  opsPort: env.int('OPS_PORT', 9464, { min: 0, max: 65535 }),
  opsHost: env.str('OPS_HOST', '127.0.0.1'),
  /** How long each readiness check (NATS, PostgreSQL) may take. */
  readyCheckTimeoutMs: env.int('READY_CHECK_TIMEOUT_MS', 1500, { min: 50 }),
};

/**
 * A base URL setting (where browsers or providers reach a public edge, a provider API's base): an
 * http(s) URL, perhaps with a path prefix, no query, fragment or credentials; kept without a
 * trailing slash. Unset or empty: `fallback`.
 */
export function baseUrlSetting(name: string, fallback: string) {
  return (src: Record<string, string | undefined>, problems: string[]): string => {
    const raw = src[name];
    if (raw === undefined || raw === '') return fallback;
    try {
      const url = new URL(raw);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash && !url.username && !url.password) return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      // reported below
    }
    problems.push(`${name}: "${raw}" is not a URL such as https://api.example.com (scheme, host, port and perhaps a path; no query, no credentials)`);
    return fallback;
  };
}
