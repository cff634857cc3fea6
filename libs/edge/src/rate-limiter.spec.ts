import { MemoryRateLimiter } from './rate-limiter';

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

describe('MemoryRateLimiter', () => {
  const limiters: MemoryRateLimiter[] = [];
  const make = (limit: number, windowMs: number) => {
    const l = new MemoryRateLimiter(limit, windowMs);
    limiters.push(l);
    return l;
  };
  afterEach(async () => {
    for (const l of limiters.splice(0)) await l.close();
  });

  it('allows `limit` hits per window and counts the remaining ones down', async () => {
    const l = make(3, 60_000);
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await l.hit('token:a'));
    expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).toEqual([
      [true, 2, 3],
      [true, 1, 3],
      [true, 0, 3],
      [false, 0, 3],
      [false, 0, 3],
    ]);
  });

  it('reports the whole seconds until the window resets', async () => {
    const l = make(10, 60_000);
    const d = await l.hit('k');
    expect(d.resetSeconds).toBeGreaterThanOrEqual(59);
    expect(d.resetSeconds).toBeLessThanOrEqual(60);
    // Never 0, even for windows shorter than a second.
    expect((await make(1, 50).hit('k')).resetSeconds).toBe(1);
  });

  it('keeps the window fixed: later hits do not extend it', async () => {
    const l = make(100, 3_000);
    const first = await l.hit('k');
    await sleep(1100);
    const later = await l.hit('k');
    expect(first.resetSeconds).toBe(3);
    expect(later.resetSeconds).toBe(2);
  });

  it('starts a new window once the old one is over', async () => {
    const l = make(2, 150);
    await l.hit('k');
    await l.hit('k');
    expect((await l.hit('k')).allowed).toBe(false);
    await sleep(200);
    const fresh = await l.hit('k');
    expect(fresh).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1 });
  });

  it('counts every key on its own', async () => {
    const l = make(1, 60_000);
    expect((await l.hit('token:a')).allowed).toBe(true);
    expect((await l.hit('token:a')).allowed).toBe(false);
    expect((await l.hit('token:b')).allowed).toBe(true);
    expect((await l.hit('token:c')).remaining).toBe(0);
    expect((await l.hit('token:b')).allowed).toBe(false);
  });

  it('does not share counts between instances (one process only)', async () => {
    const a = make(1, 60_000);
    const b = make(1, 60_000);
    expect((await a.hit('k')).allowed).toBe(true);
    expect((await b.hit('k')).allowed).toBe(true);
  });
});
