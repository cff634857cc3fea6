import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import pino from 'pino';
import { RedisRateLimiter } from './rate-limiter';

// RedisRateLimiter against the real Redis. Every test uses keys under a prefix of its own.

const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

let redis: Redis;
let prefix: string;
const limiters: RedisRateLimiter[] = [];
const silent = pino({ level: 'silent' });

function limiter(limit: number, windowMs: number, url = REDIS_URL, logger: pino.Logger = silent): RedisRateLimiter {
  const l = new RedisRateLimiter(url, limit, windowMs, prefix, logger);
  limiters.push(l);
  return l;
}

/** The limiter's own connection (private): it has no offline queue, so hits fail open until it is ready. */
function clientOf(l: RedisRateLimiter): Redis {
  return (l as unknown as { redis: Redis }).redis;
}

async function readyLimiter(limit: number, windowMs: number): Promise<RedisRateLimiter> {
  const l = limiter(limit, windowMs);
  if (clientOf(l).status !== 'ready') await once(clientOf(l), 'ready');
  return l;
}

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
});

beforeEach(() => {
  prefix = `sa:rl:test:${randomUUID()}:`;
});

afterEach(async () => {
  for (const l of limiters.splice(0)) await l.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
});

afterAll(async () => {
  await redis?.quit();
});

describe('RedisRateLimiter', () => {
  it('allows `limit` hits per window and stores the count under the prefix', async () => {
    const l = await readyLimiter(3, 10_000);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await l.hit('token:a'));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(await redis.get(`${prefix}token:a`)).toBe('4');
  });

  it('shares one count between two replicas', async () => {
    const a = await readyLimiter(5, 10_000);
    const b = await readyLimiter(5, 10_000);
    const seq = [a, b, a, b, a, b, b];
    const decisions = [];
    for (const l of seq) decisions.push(await l.hit('token:shared'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    expect(await redis.get(`${prefix}token:shared`)).toBe('7');
  });

  it('gives a Retry-After between 1 and the window in seconds', async () => {
    const l = await readyLimiter(1, 3_000);
    await l.hit('k');
    const denied = await l.hit('k');
    expect(denied.allowed).toBe(false);
    expect(denied.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(denied.resetSeconds).toBeLessThanOrEqual(3);
    const pttl = await redis.pttl(`${prefix}k`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(3_000);
    expect(denied.resetSeconds).toBe(Math.ceil(pttl / 1000) || 1);
  });

  it('concurrent hits from many replicas are counted exactly', async () => {
    const replicas = [await readyLimiter(50, 10_000), await readyLimiter(50, 10_000), await readyLimiter(50, 10_000)];
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => replicas[i % 3].hit('burst')));
    expect(results.filter((r) => r.allowed)).toHaveLength(50);
    expect(await redis.get(`${prefix}burst`)).toBe('60');
  });

  it('counts hits of one turn as one INCRBY, each request with its own count in arrival order', async () => {
    const l = await readyLimiter(5, 10_000);
    const sent: string[][] = [];
    const monitor = await redis.duplicate().monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (String(args[0]).toLowerCase().startsWith('eval')) sent.push(args);
    });
    const results = await Promise.all(Array.from({ length: 8 }, () => l.hit('turn')));
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(await redis.get(`${prefix}turn`)).toBe('8');
    // The next turn continues the count.
    expect((await l.hit('turn')).allowed).toBe(false);
    expect(await redis.get(`${prefix}turn`)).toBe('9');
    await sleep(50);
    monitor.disconnect();
    expect(sent.filter((a) => a.includes(`${prefix}turn`))).toHaveLength(2);
  });

  it('lets the key expire after the window and starts counting again', async () => {
    const l = await readyLimiter(1, 400);
    await l.hit('k');
    expect((await l.hit('k')).allowed).toBe(false);
    expect(await redis.exists(`${prefix}k`)).toBe(1);
    await sleep(500);
    expect(await redis.exists(`${prefix}k`)).toBe(0);
    expect(await l.hit('k')).toEqual({ allowed: true, limit: 1, remaining: 0, resetSeconds: 1 });
  });

  it('gives a key left without an expiry one, so it cannot block forever', async () => {
    await redis.set(`${prefix}stuck`, '100');
    const d = await (await readyLimiter(5, 2_000)).hit('stuck');
    expect(d.allowed).toBe(false);
    const pttl = await redis.pttl(`${prefix}stuck`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(2_000);
  });

  it('counts keys independently', async () => {
    const l = await readyLimiter(1, 10_000);
    expect((await l.hit('a')).allowed).toBe(true);
    expect((await l.hit('b')).allowed).toBe(true);
    expect((await l.hit('a')).allowed).toBe(false);
  });

  it('fails open while its connection is not ready yet', async () => {
    const l = limiter(1, 10_000);
    expect(clientOf(l).status).not.toBe('ready');
    expect((await l.hit('early')).allowed).toBe(true);
    expect(await redis.exists(`${prefix}early`)).toBe(0);
  });

  it('lets requests through, and says so in the log, when Redis is unreachable', async () => {
    const { logger, lines } = capturingLogger();
    const l = limiter(2, 60_000, 'redis://127.0.0.1:1', logger);
    const started = Date.now();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await l.hit('k'));
    expect(Date.now() - started).toBeLessThan(3000);
    for (const d of decisions) expect(d).toEqual({ allowed: true, limit: 2, remaining: 2, resetSeconds: 60 });
    expect(lines.some((line) => line['msg'] === 'rate limiter unavailable; request allowed')).toBe(true);
  });
});
