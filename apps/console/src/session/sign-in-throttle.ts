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

  private connected(): Promise<void> {
    return waitReady(this.redis);
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

/** How the sign-in throttle slows guesses down (see SignInThrottle). */
export interface ThrottleLimits {
  /** Failures per account (from addresses it has not signed in from), and per account and address, before the delays begin. */
  maxPerAccount: number;
  /** Failures per client address (for accounts that have not signed in from it) before the delays begin. */
  maxPerAddress: number;
  /** The first delay; each further failure doubles it, up to maxDelayMs. */
  delayMs: number;
  maxDelayMs: number;
  /** Failures are forgotten this long after the delay they last caused has passed. */
  forgetMs: number;
  /** An account and address pair is known this long after its last successful sign-in. */
  knownMs: number;
  prefix: string;
}

/** The keys of one attempt: `counted` were reserved (given back when the password was right). */
export interface Attempt {
  known: string;
  pair: string;
  counted: string[];
}

/** One atomic step of the attempt stores: refuse with the longest wait, or count every key. */
export interface AttemptRules {
  /** Failures each key may have before delays apply (same order as the keys). */
  free: number[];
  delayMs: number;
  maxDelayMs: number;
  forgetMs: number;
}

/**
 * Attempts per key: a count and the time of the last one. A key with `free` or more counted must
 * wait delay * 2^(count - free) (at most maxDelay) after its last attempt; the state of a key
 * ends forgetMs after that delay.
 */
export interface AttemptStore {
  /**
   * Atomically: when `known` exists only the first key applies, else all of them. Refused (waitMs
   * > 0) when any applying key is still waiting; otherwise each applying key counts one attempt
   * (reserved before the password is checked) and `counted` names them.
   */
  reserve(known: string, keys: string[], rules: AttemptRules): Promise<{ waitMs: number; counted: string[] }>;
  /** The attempt failed: its keys' delays run from now (the password check took a while). */
  failed(counted: string[]): Promise<void>;
  /** The attempt was right: forget the pair, give the other keys their attempt back, remember the pair. */
  succeeded(known: string, pair: string, counted: string[], knownMs: number): Promise<void>;
  /** The attempt could not be decided (an error): give every key its attempt back. */
  release(counted: string[]): Promise<void>;
  close(): Promise<void>;
}

export function delayOf(count: number, free: number, rules: Pick<AttemptRules, 'delayMs' | 'maxDelayMs'>): number {
  if (count < free) return 0;
  return Math.min(rules.maxDelayMs, rules.delayMs * 2 ** Math.min(count - free, 40));
}

/** In this process: every step runs without awaiting, so it is atomic within the process. */
export class MemoryAttemptStore implements AttemptStore {
  private readonly states = new Map<string, { count: number; at: number; until: number }>();
  private readonly known = new Map<string, number>();

  private live(key: string, now = Date.now()) {
    const st = this.states.get(key);
    if (st && st.until <= now) {
      this.states.delete(key);
      return undefined;
    }
    return st;
  }

  private prune(now: number) {
    // Bounded under a spray of distinct keys: drop the ended states first.
    if (this.states.size > 100000) for (const k of [...this.states.keys()]) this.live(k, now);
    if (this.known.size > 100000) for (const [k, until] of [...this.known]) if (until <= now) this.known.delete(k);
  }

  async reserve(known: string, keys: string[], rules: AttemptRules) {
    const now = Date.now();
    const knownUntil = this.known.get(known);
    const applying = knownUntil !== undefined && knownUntil > now ? keys.slice(0, 1) : keys;
    let waitMs = 0;
    applying.forEach((k, i) => {
      const st = this.live(k, now);
      if (st) waitMs = Math.max(waitMs, st.at + delayOf(st.count, rules.free[i]!, rules) - now);
    });
    if (waitMs > 0) return { waitMs, counted: [] };
    this.prune(now);
    applying.forEach((k, i) => {
      const count = (this.live(k, now)?.count ?? 0) + 1;
      this.states.set(k, { count, at: now, until: now + delayOf(count, rules.free[i]!, rules) + rules.forgetMs });
    });
    return { waitMs: 0, counted: applying };
  }

  async failed(counted: string[]) {
    const now = Date.now();
    for (const k of counted) {
      const st = this.live(k, now);
      if (st) {
        st.until += now - st.at;
        st.at = now;
      }
    }
  }

  async succeeded(known: string, pair: string, counted: string[], knownMs: number) {
    this.states.delete(pair);
    await this.release(counted.filter((k) => k !== pair));
    if (knownMs > 0) this.known.set(known, Date.now() + knownMs);
  }

  async release(counted: string[]) {
    for (const k of counted) {
      const st = this.live(k);
      if (st && --st.count <= 0) this.states.delete(k);
    }
  }

  async close() {
    this.states.clear();
    this.known.clear();
  }
}

// KEYS: known, then the keys (the pair first). ARGV: delay, max delay, forget (ms), then each key's free count.
// Times are the Redis server's (TIME), the same for every replica.
const RESERVE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local delay, maxDelay, forget = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local n = #KEYS - 1
if redis.call('EXISTS', KEYS[1]) == 1 then n = 1 end
local function delayOf(count, free)
  if count < free then return 0 end
  return math.min(maxDelay, delay * 2 ^ math.min(count - free, 40))
end
local wait = 0
for i = 1, n do
  local st = redis.call('HMGET', KEYS[i + 1], 'c', 't')
  local count = tonumber(st[1]) or 0
  local at = tonumber(st[2]) or 0
  local w = at + delayOf(count, tonumber(ARGV[3 + i])) - now
  if count > 0 and w > wait then wait = w end
end
if wait > 0 then return {math.ceil(wait), 0} end
for i = 1, n do
  local count = redis.call('HINCRBY', KEYS[i + 1], 'c', 1)
  redis.call('HSET', KEYS[i + 1], 't', now)
  redis.call('PEXPIRE', KEYS[i + 1], math.ceil(delayOf(count, tonumber(ARGV[3 + i])) + forget))
end
return {0, n}`;

// KEYS: the counted keys. The delays run from now; each key lives as long past it as before.
const FAILED_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, key in ipairs(KEYS) do
  local at = tonumber(redis.call('HGET', key, 't'))
  local ttl = redis.call('PTTL', key)
  if at and ttl > 0 then
    redis.call('HSET', key, 't', now)
    redis.call('PEXPIRE', key, ttl + math.max(0, now - at))
  end
end
return 1`;

// KEYS: known, pair, then the keys to give their attempt back. ARGV: how long the pair is known (ms).
const SUCCEEDED_SCRIPT = `
if KEYS[2] ~= '' then redis.call('DEL', KEYS[2]) end
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('HINCRBY', KEYS[i], 'c', -1) <= 0 then redis.call('DEL', KEYS[i]) end
end
if KEYS[1] ~= '' and tonumber(ARGV[1]) > 0 then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end
return 1`;

type Scripted = Redis & {
  reserveAttempt(n: number, ...args: (string | number)[]): Promise<[number, number]>;
  attemptFailed(n: number, ...args: (string | number)[]): Promise<number>;
  attemptSucceeded(n: number, ...args: (string | number)[]): Promise<number>;
};

/**
 * Attempts counted in Redis, shared by every console replica; each step is one Lua script, so the
 * check and the count cannot be raced. If Redis is unreachable sign-ins are not throttled (and it
 * is logged), as the public edges' rate limits do: an outage of the counter must not lock
 * everyone out.
 */
export class RedisAttemptStore implements AttemptStore {
  private readonly redis: Scripted;

  constructor(
    url: string,
    private readonly logger: Logger,
  ) {
    const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 500, enableAutoPipelining: true });
    redis.on('error', (err) => this.logger.warn({ err: err.message }, 'sign-in throttle: Redis error'));
    redis.defineCommand('reserveAttempt', { lua: RESERVE_SCRIPT });
    redis.defineCommand('attemptFailed', { lua: FAILED_SCRIPT });
    redis.defineCommand('attemptSucceeded', { lua: SUCCEEDED_SCRIPT });
    this.redis = redis as Scripted;
  }

  private connected(): Promise<void> {
    return waitReady(this.redis);
  }

  async reserve(known: string, keys: string[], rules: AttemptRules) {
    try {
      await this.connected();
      const [waitMs, n] = await this.redis.reserveAttempt(keys.length + 1, known, ...keys, rules.delayMs, rules.maxDelayMs, rules.forgetMs, ...rules.free);
      return { waitMs: Number(waitMs), counted: keys.slice(0, Number(n)) };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'sign-in throttle unavailable; sign-in not throttled');
      return { waitMs: 0, counted: [] };
    }
  }

  async failed(counted: string[]) {
    if (!counted.length) return;
    await this.redis.attemptFailed(counted.length, ...counted).catch((err: Error) => this.logger.warn({ err: err.message }, 'sign-in throttle unavailable; failure time not updated'));
  }

  async succeeded(known: string, pair: string, counted: string[], knownMs: number) {
    const others = counted.filter((k) => k !== pair);
    await this.redis
      .attemptSucceeded(2 + others.length, known, pair, ...others, knownMs)
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'sign-in throttle unavailable; success not recorded'));
  }

  async release(counted: string[]) {
    if (!counted.length) return;
    // No pair to forget and nothing to remember: the same script with empty names.
    await this.redis.attemptSucceeded(2 + counted.length, '', '', ...counted, 1).catch((err: Error) => this.logger.warn({ err: err.message }, 'sign-in throttle unavailable; attempt not given back'));
  }

  async close() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** Commands are not queued while (re)connecting: wait a moment for the connection instead (one wait shared by every caller). */
const readyWaits = new WeakMap<Redis, Promise<void>>();
function waitReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  let wait = readyWaits.get(redis);
  if (!wait) {
    wait = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        readyWaits.delete(redis);
        resolve();
      };
      const timer = setTimeout(done, 300);
      redis.once('ready', done);
    });
    readyWaits.set(redis, wait);
  }
  return wait;
}

/**
 * Failed sign-ins slow guessing down without locking the person out (issue #30; docs/decisions/console.md):
 *
 * - Three counts: per account and client address (the pair), per account (the e-mail, hashed: no
 *   e-mail in Redis), per client address. Past its free failures, a count makes the next attempt
 *   wait a delay that doubles with each further failure (429 too_many_attempts with Retry-After).
 * - The attempt is reserved (counted) atomically with the check, before the password is verified,
 *   and given back when the password was right: concurrent guesses cannot outrun the budget.
 * - A pair that signed in successfully is known for a while: its attempts count and wait only on
 *   the pair, so failures from other addresses (per account) or of other accounts behind the same
 *   address (per address) never stop the person where she signed in before.
 */
export class SignInThrottle {
  private readonly rules: { unknown: AttemptRules; known: AttemptRules };

  constructor(
    private readonly store: AttemptStore,
    private readonly limits: ThrottleLimits,
  ) {
    const base = { delayMs: limits.delayMs, maxDelayMs: limits.maxDelayMs, forgetMs: limits.forgetMs };
    this.rules = { unknown: { ...base, free: [limits.maxPerAccount, limits.maxPerAccount, limits.maxPerAddress] }, known: { ...base, free: [limits.maxPerAccount] } };
  }

  private keys(email: string, address: string) {
    const account = sha256Hex(normalizeEmail(email));
    const p = `${this.limits.prefix}signin:`;
    return { known: `${p}known:${account}:${address}`, pair: `${p}pair:${account}:${address}`, account: `${p}account:${account}`, address: `${p}address:${address}` };
  }

  /** Reserves one attempt; throws TooManyAttempts (nothing counted) while a delay is running. */
  async reserve(email: string, address: string): Promise<Attempt> {
    const k = this.keys(email, address);
    const { waitMs, counted } = await this.store.reserve(k.known, [k.pair, k.account, k.address], this.rules.unknown);
    if (waitMs > 0) throw new TooManyAttempts(Math.max(1, Math.ceil(waitMs / 1000)));
    return { known: k.known, pair: k.pair, counted };
  }

  /** The password was wrong: the reserved attempt stays counted. */
  async failed(attempt: Attempt): Promise<void> {
    await this.store.failed(attempt.counted);
  }

  /** The password was right: the pair is forgotten and known from now on, the others get their attempt back. */
  async succeeded(attempt: Attempt): Promise<void> {
    await this.store.succeeded(attempt.known, attempt.pair, attempt.counted, this.limits.knownMs);
  }

  /** Nothing was decided (an error before the password was checked): every key gets its attempt back. */
  async release(attempt: Attempt): Promise<void> {
    await this.store.release(attempt.counted);
  }

  close(): Promise<void> {
    return this.store.close();
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
