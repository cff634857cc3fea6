/** A failure that retrying will not fix (404, blocked address, robots.txt, unsupported content). */
export class PermanentFailure extends Error {}

/** A failure that may pass (timeout, 5xx, network, an embedding provider that is down). */
export class TransientFailure extends Error {}

/** Delay before the next attempt of a document whose processing failed transiently. */
export function retryDelayMs(attempt: number, baseMs = 2000, maxMs = 60_000): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), maxMs);
}
