import { timingSafeEqual } from 'node:crypto';

export const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const CSRF_HEADER = 'x-csrf-token';

/** The origins the console's own pages are served from: CONSOLE_PUBLIC_URL's and CONSOLE_EXTRA_ORIGINS. */
export function consoleOrigins(config: { publicUrl: string; extraOrigins: readonly string[] }): ReadonlySet<string> {
  return new Set([new URL(config.publicUrl).origin, ...config.extraOrigins].map((o) => o.toLowerCase()));
}

type Headers = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? (v.length === 1 ? v[0] : undefined) : v);

/**
 * Why a write does not come from the console's own pages, or null when it does: an `Origin` that
 * is one of `allowed`, or without Origin a `Sec-Fetch-Site: same-origin`. Neither: refused (a
 * browser always sends one of them with a cross-origin or same-origin POST).
 */
export function originRefusal(headers: Headers, allowed: ReadonlySet<string>): string | null {
  const origin = one(headers['origin']);
  if (origin !== undefined) {
    return allowed.has(origin.toLowerCase()) ? null : 'the Origin is not the console';
  }
  const site = one(headers['sec-fetch-site']);
  if (site !== undefined) return site === 'same-origin' ? null : 'the request is not same-origin';
  return 'no Origin header';
}

/** Whether the X-CSRF-Token sent equals the session's (constant time). */
export function csrfTokenMatches(headers: Headers, expected: string): boolean {
  const sent = one(headers[CSRF_HEADER]);
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
