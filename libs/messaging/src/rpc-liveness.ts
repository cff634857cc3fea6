/**
 * Signs of life between a caller and the replica working on its request (issue 36).
 *
 * NATS tells a caller when nobody listens on a subject (no responders), but not when the replica
 * that took its request dies: the caller only waits out its timeout. So the caller asks, in a
 * request header, for a sign of life every `Sa-Liveness` milliseconds while the request is being
 * worked on; the replica sends an empty message with the header `Sa-Alive` to the reply subject at
 * that pace until it answers. A request answered within the interval costs no extra message. A
 * caller that hears nothing for its "lost after" time knows the replica is gone: a read is asked
 * again of another replica, anything else is a 503 with Retry-After (its outcome is unknown).
 */
export const LIVENESS_HEADER = 'Sa-Liveness';
export const ALIVE_HEADER = 'Sa-Alive';

/** The pace a replica keeps at most and at least, whatever a caller asks. */
export const LIVENESS_MIN_MS = 100;
export const LIVENESS_MAX_MS = 60_000;

export interface RpcLiveness {
  /** How often the replica signs while it works (RPC_LIVENESS_MS). */
  intervalMs: number;
  /** Silence after which the caller takes the replica for dead (RPC_LOST_AFTER_MS); more than the interval. */
  lostAfterMs: number;
}

export const DEFAULT_RPC_LIVENESS: RpcLiveness = { intervalMs: 1000, lostAfterMs: 3500 };

/** The interval a request header asks for, bounded; null when the header is absent or not a number. */
export function requestedInterval(value: string | undefined): number | null {
  if (!value) return null;
  const ms = Number(value);
  if (!Number.isFinite(ms)) return null;
  return Math.min(LIVENESS_MAX_MS, Math.max(LIVENESS_MIN_MS, Math.round(ms)));
}
