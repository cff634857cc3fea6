/** The two numbers of an exponential backoff. */
export interface BackoffOptions {
  /** The wait before the first retry (attempt 1). */
  baseMs: number;
  /** No wait is longer than this. */
  maxMs: number;
}

/**
 * The wait before retrying after failed attempt `attempt` (1-based): `baseMs` doubled with each
 * further attempt, never more than `maxMs`. Attempt 0 or less waits `baseMs`; so does NaN, rather
 * than no wait at all.
 */
export function backoffMs(attempt: number, { baseMs, maxMs }: BackoffOptions): number {
  const doublings = Number.isNaN(attempt) ? 0 : Math.max(0, attempt - 1);
  return Math.min(baseMs * 2 ** doublings, maxMs);
}
