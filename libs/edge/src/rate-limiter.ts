import Redis from 'ioredis';
import type { Logger } from 'pino';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (≥ 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

/** Fixed window per key in this process only (single gateway replica, or no Redis configured). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    }, Math.max(windowMs, 1000));
    this.sweeper.unref();
  }

  async hit(key: string): Promise<RateDecision> {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return decide(w.count, this.limit, w.resetAt - now);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

// Adds ARGV[2] hits to the window of KEYS[1] (ARGV[1] ms long, started by the first hit) and
// returns the count after them and the window's milliseconds left.
const HIT_SCRIPT = `
local n = tonumber(ARGV[2])
local count = redis.call('INCRBY', KEYS[1], n)
if count == n then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

type Waiter = (decision: RateDecision) => void;

/**
 * Fixed window per key in Redis, shared by every gateway replica. If Redis is unreachable the
 * request is let through (and logged): an outage of the limiter must not take the API down.
 *
 * Hits on one key that arrive in the same turn of the event loop (many connections of one busy
 * token) are sent as one `INCRBY n`: each request still gets its own count, in arrival order
 * (count - n + 1 ... count), so the decisions are those of n separate hits, for one round trip
 * and one script run in Redis instead of n.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private waiting = new Map<string, Waiter[]>();
  private scheduled = false;

  constructor(
    url: string,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    // Auto-pipelining: concurrent requests share one write to Redis.
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 500, lazyConnect: false, enableAutoPipelining: true });
    this.redis.on('error', (err) => this.logger.warn({ err: err.message }, 'rate limiter: Redis error'));
    this.redis.defineCommand('rateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  hit(key: string): Promise<RateDecision> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push(resolve);
      else this.waiting.set(key, [resolve]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = new Map();
    for (const [key, waiters] of batch) void this.hitMany(key, waiters);
  }

  private async hitMany(key: string, waiters: Waiter[]): Promise<void> {
    const n = waiters.length;
    try {
      const [count, ttl] = (await (this.redis as unknown as { rateHit: (k: string, ms: number, n: number) => Promise<[number, number]> }).rateHit(
        this.prefix + key,
        this.windowMs,
        n,
      )) as [number, number];
      for (let i = 0; i < n; i++) waiters[i](decide(count - n + 1 + i, this.limit, ttl));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'rate limiter unavailable; request allowed');
      const open = { allowed: true, limit: this.limit, remaining: this.limit, resetSeconds: Math.ceil(this.windowMs / 1000) };
      for (const w of waiters) w(open);
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

function decide(count: number, limit: number, msLeft: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
}
