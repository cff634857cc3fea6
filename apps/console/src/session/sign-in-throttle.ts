import Redis from 'ioredis';
import type { Logger } from 'pino';
import { TooManyAttempts, normalizeEmail, sha256Hex } from '@sa/people';

/** Counts of failures per key within a fixed window. */
export interface FailureCounter {
  /** Current count and milliseconds until the window of each key ends (0 when no window). */
  read(keys: string[]): Promise<{ count: number; msLeft: number }[]>;
  /** One more failure for each key. */
  add(keys: string[]): Promise<void>;
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryFailureCounter implements FailureCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly windowMs: number) {}

  private live(key: string) {
    const w = this.windows.get(key);
    if (w && w.resetAt <= Date.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  async read(keys: string[]) {
    return keys.map((k) => {
      const w = this.live(k);
      return w ? { count: w.count, msLeft: w.resetAt - Date.now() } : { count: 0, msLeft: 0 };
    });
  }

  async add(keys: string[]) {
    // Keep the map bounded under a spray of distinct keys: drop the ended windows first.
    if (this.windows.size > 100000) for (const k of [...this.windows.keys()]) this.live(k);
    for (const k of keys) {
      const w = this.live(k);
      if (w) w.count++;
      else this.windows.set(k, { count: 1, resetAt: Date.now() + this.windowMs });
    }
  }

  async clear(key: string) {
    this.windows.delete(key);
  }

  async close() {
    this.windows.clear();
  }
}

const ADD_SCRIPT = `
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 1`;

/**
 * Failures counted in Redis, shared by every console replica. If Redis is unreachable the sign-in
 * is not throttled (and it is logged), as the public edges' rate limits do: an outage of the
 * counter must not lock everyone out.
 */
export class RedisFailureCounter implements FailureCounter {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly windowMs: number,
    private readonly logger: Logger,
  ) {
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 500, enableAutoPipelining: true });
    this.redis.on('error', (err) => this.logger.warn({ err: err.message }, 'sign-in throttle: Redis error'));
    this.redis.defineCommand('addFailures', { lua: ADD_SCRIPT });
  }

  /** Commands are not queued while (re)connecting: wait a moment for the connection instead. */
  private async connected(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, 300);
      this.redis.once('ready', done);
    });
  }

  async read(keys: string[]) {
    try {
      await this.connected();
      const pipeline = this.redis.pipeline();
      for (const k of keys) pipeline.get(k).pttl(k);
      const results = (await pipeline.exec()) ?? [];
      return keys.map((_, i) => {
        const count = Number(results[i * 2]?.[1] ?? 0) || 0;
        const ttl = Number(results[i * 2 + 1]?.[1] ?? -2);
        return { count, msLeft: ttl > 0 ? ttl : 0 };
      });
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'sign-in throttle unavailable; sign-in not throttled');
      return keys.map(() => ({ count: 0, msLeft: 0 }));
    }
  }

  async add(keys: string[]) {
    try {
      await this.connected();
      await (this.redis as unknown as { addFailures: (n: number, ...args: (string | number)[]) => Promise<number> }).addFailures(keys.length, ...keys, this.windowMs);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'sign-in throttle unavailable; failure not counted');
    }
  }

  async clear(key: string) {
    await this.connected();
    await this.redis.del(key).catch(() => undefined);
  }

  async close() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export interface ThrottleLimits {
  maxPerAccount: number;
  maxPerAddress: number;
  prefix: string;
}

/**
 * Failed sign-ins per account (the e-mail, hashed: no address in Redis) and per client address.
 * Once either has reached its limit within the window, further attempts are refused with 429
 * too_many_attempts (before the password is even checked) until the window ends. A successful
 * sign-in clears the account's count (not the address's).
 */
export class SignInThrottle {
  constructor(
    private readonly counter: FailureCounter,
    private readonly limits: ThrottleLimits,
  ) {}

  private keys(email: string, address: string): [string, string] {
    return [`${this.limits.prefix}signin:account:${sha256Hex(normalizeEmail(email))}`, `${this.limits.prefix}signin:address:${address}`];
  }

  /** Throws TooManyAttempts when the account or the address is over its limit. */
  async check(email: string, address: string): Promise<void> {
    const [account, addr] = await this.counter.read(this.keys(email, address));
    const waits: number[] = [];
    if (account.count >= this.limits.maxPerAccount) waits.push(account.msLeft);
    if (addr.count >= this.limits.maxPerAddress) waits.push(addr.msLeft);
    if (waits.length) throw new TooManyAttempts(Math.max(1, Math.ceil(Math.max(...waits) / 1000)));
  }

  async failed(email: string, address: string): Promise<void> {
    await this.counter.add(this.keys(email, address));
  }

  async succeeded(email: string, address: string): Promise<void> {
    await this.counter.clear(this.keys(email, address)[0]);
  }

  close(): Promise<void> {
    return this.counter.close();
  }
}

export interface ResetMailLimits {
  maxPerAccount: number;
  maxPerAddress: number;
  prefix: string;
}

/**
 * Password-reset requests: anyone may ask, for any address, so without a cap a stranger could
 * flood a person's inbox (and the mail outbox). Per client address, requests over the limit get
 * 429 too_many_attempts (that tells nothing about any account). Per account, e-mails over the
 * limit are silently not sent: the answer stays 202, whether or not the address has an account.
 */
export class ResetMailLimit {
  constructor(
    private readonly counter: FailureCounter,
    private readonly limits: ResetMailLimits,
  ) {}

  private keys(email: string, address: string): [string, string] {
    return [`${this.limits.prefix}reset:account:${sha256Hex(normalizeEmail(email))}`, `${this.limits.prefix}reset:address:${address}`];
  }

  /** Counts the request; throws TooManyAttempts when the address is over its limit, else tells whether an e-mail may go. */
  async request(email: string, address: string): Promise<{ mayEmail: boolean }> {
    const [accountKey, addressKey] = this.keys(email, address);
    const [account, addr] = await this.counter.read([accountKey, addressKey]);
    if (addr.count >= this.limits.maxPerAddress) throw new TooManyAttempts(Math.max(1, Math.ceil(addr.msLeft / 1000)));
    await this.counter.add(account.count >= this.limits.maxPerAccount ? [addressKey] : [accountKey, addressKey]);
    return { mayEmail: account.count < this.limits.maxPerAccount };
  }

  close(): Promise<void> {
    return this.counter.close();
  }
}
