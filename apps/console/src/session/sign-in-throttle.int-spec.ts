import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { RedisFailureCounter, SignInThrottle } from './sign-in-throttle';

// The sign-in throttle against the real Redis: counts shared by every console replica.

const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const silent = pino({ level: 'silent' });

describe('RedisFailureCounter', () => {
  const prefix = `sa:test:${randomBytes(4).toString('hex')}:`;
  const counters: RedisFailureCounter[] = [];
  const counter = (windowMs: number, url = REDIS_URL) => {
    const c = new RedisFailureCounter(url, windowMs, silent);
    counters.push(c);
    return c;
  };

  afterAll(async () => {
    for (const c of counters) await c.close();
  });

  it('two replicas share the counts; a window ends with its key', async () => {
    const a = new SignInThrottle(counter(1000), { maxPerAccount: 2, maxPerAddress: 100, prefix });
    const b = new SignInThrottle(counter(1000), { maxPerAccount: 2, maxPerAddress: 100, prefix });
    await a.failed('ada@example.com', '192.0.2.1');
    await b.failed('ada@example.com', '192.0.2.2');
    const refused = await a.check('ada@example.com', '192.0.2.3').then(() => null, (e: { code: string; retryAfterSeconds: number }) => e);
    expect(refused).toMatchObject({ code: 'too_many_attempts', retryAfterSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    await expect(b.check('ada@example.com', '192.0.2.3')).resolves.toBeUndefined();
  });

  it('clears an account on success', async () => {
    const t = new SignInThrottle(counter(60000), { maxPerAccount: 1, maxPerAddress: 100, prefix });
    await t.failed('bob@example.com', '192.0.2.1');
    await expect(t.check('bob@example.com', '192.0.2.1')).rejects.toMatchObject({ code: 'too_many_attempts' });
    await t.succeeded('bob@example.com', '192.0.2.1');
    await expect(t.check('bob@example.com', '192.0.2.1')).resolves.toBeUndefined();
  });

  it('lets sign-ins through when Redis is unreachable (an outage must not lock everyone out)', async () => {
    const t = new SignInThrottle(counter(60000, 'redis://127.0.0.1:1'), { maxPerAccount: 1, maxPerAddress: 1, prefix });
    await t.failed('cy@example.com', '192.0.2.1');
    await expect(t.check('cy@example.com', '192.0.2.1')).resolves.toBeUndefined();
  });
});
