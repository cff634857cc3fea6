import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { RedisAttemptStore, SignInThrottle, ThrottleLimits } from './sign-in-throttle';

// The sign-in throttle against the real Redis: attempts shared by every console replica, each step atomic.

const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const silent = pino({ level: 'silent' });
const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string; retryAfterSeconds?: number }) => `${e.code}:${e.retryAfterSeconds}`);

describe('RedisAttemptStore', () => {
  const prefix = `sa:test:${randomBytes(4).toString('hex')}:`;
  const stores: RedisAttemptStore[] = [];
  const replica = (limits: Partial<ThrottleLimits> = {}, url = REDIS_URL) => {
    const store = new RedisAttemptStore(url, silent);
    stores.push(store);
    return new SignInThrottle(store, { maxPerAccount: 3, maxPerAddress: 5, delayMs: 1000, maxDelayMs: 4000, forgetMs: 60000, knownMs: 60000, prefix, ...limits });
  };
  const fail = async (t: SignInThrottle, email: string, address: string) => t.failed(await t.reserve(email, address));

  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  it('concurrent attempts on two replicas cannot outrun the budget: of 30, exactly the free three are reserved', async () => {
    const [a, b] = [replica(), replica()];
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => outcome((i % 2 ? a : b).reserve('ada@example.com', '192.0.2.1'))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(3);
    expect(results.filter((r) => r === 'too_many_attempts:1')).toHaveLength(27);
  });

  it('the delay doubles past the free failures and ends; a right password gives its attempt back', async () => {
    const t = replica({ delayMs: 300, maxDelayMs: 600 });
    for (let i = 0; i < 3; i++) await fail(t, 'bob@example.com', `192.0.2.${i}`);
    expect(await outcome(t.reserve('bob@example.com', '192.0.2.9'))).toBe('too_many_attempts:1');
    await new Promise((r) => setTimeout(r, 350));
    await fail(t, 'bob@example.com', '192.0.2.9');
    await new Promise((r) => setTimeout(r, 350));
    expect(await outcome(t.reserve('bob@example.com', '192.0.2.9'))).toBe('too_many_attempts:1'); // 600 ms now
    await new Promise((r) => setTimeout(r, 300));
    await t.succeeded(await t.reserve('bob@example.com', '192.0.2.9'));
    // Given back: four failures still counted for the account, so a new address waits the 600 ms again.
    expect(await outcome(t.reserve('bob@example.com', '192.0.2.10'))).toBe('too_many_attempts:1');
  });

  it('an address the account signed in from (on another replica) is not slowed by failures from elsewhere', async () => {
    const [a, b] = [replica(), replica()];
    await a.succeeded(await a.reserve('cy@example.com', '192.0.2.50'));
    for (let i = 0; i < 3; i++) await fail(b, 'cy@example.com', `198.51.100.${i}`);
    for (let i = 0; i < 5; i++) await fail(b, `other${i}@example.com`, '192.0.2.50');
    expect(await outcome(b.reserve('cy@example.com', '198.51.100.77'))).toBe('too_many_attempts:1');
    expect(await outcome(b.reserve('dee@example.com', '192.0.2.50'))).toBe('too_many_attempts:1');
    expect(await outcome(b.reserve('cy@example.com', '192.0.2.50'))).toBe('ok');
  });

  it('an attempt released counts nothing', async () => {
    const t = replica();
    for (let i = 0; i < 6; i++) await t.release(await t.reserve('eve@example.com', '192.0.2.1'));
    expect(await outcome(t.reserve('eve@example.com', '192.0.2.1'))).toBe('ok');
  });

  it('lets sign-ins through when Redis is unreachable (an outage must not lock everyone out)', async () => {
    const t = replica({ maxPerAccount: 1, maxPerAddress: 1 }, 'redis://127.0.0.1:1');
    await fail(t, 'cy@example.com', '192.0.2.1');
    await fail(t, 'cy@example.com', '192.0.2.1');
    expect(await outcome(t.reserve('cy@example.com', '192.0.2.1'))).toBe('ok');
  });
});
