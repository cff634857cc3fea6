import { backoffMs } from './backoff';

describe('backoffMs', () => {
  it('doubles from the base with each attempt', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, { baseMs: 100, maxMs: 60_000 }))).toEqual([100, 200, 400, 800]);
    expect([1, 2, 3].map((a) => backoffMs(a, { baseMs: 5000, maxMs: 600_000 }))).toEqual([5000, 10_000, 20_000]);
  });

  it('never waits more than the cap, however many attempts (no overflow to Infinity or NaN)', () => {
    expect(backoffMs(30, { baseMs: 1000, maxMs: 60_000 })).toBe(60_000);
    expect(backoffMs(7, { baseMs: 1000, maxMs: 60_000 })).toBe(60_000);
    expect(backoffMs(6, { baseMs: 1000, maxMs: 60_000 })).toBe(32_000);
    expect(backoffMs(5000, { baseMs: 1000, maxMs: 60_000 })).toBe(60_000);
    expect(backoffMs(Number.MAX_SAFE_INTEGER, { baseMs: 500, maxMs: 30_000 })).toBe(30_000);
    expect(backoffMs(Number.POSITIVE_INFINITY, { baseMs: 500, maxMs: 30_000 })).toBe(30_000);
  });

  it('waits the base for attempt 0, a negative count or NaN', () => {
    for (const attempt of [0, -3, Number.NaN, Number.NEGATIVE_INFINITY]) expect(backoffMs(attempt, { baseMs: 1000, maxMs: 60_000 })).toBe(1000);
  });
});
