import createClient, { type Middleware } from 'openapi-fetch';
import { ApiError, toApiError } from './errors';
import type { paths } from './schema';

/**
 * The one client of the console API (typed by ./schema, in openapi-typescript's shape). Cookies
 * are same-origin; every unsafe request carries the session's CSRF token (synchronizer token from
 * GET /api/session).
 */
let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const csrf: Middleware = {
  onRequest({ request }) {
    if (!SAFE_METHODS.has(request.method.toUpperCase()) && csrfToken !== null) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: `${window.location.origin}/api`, credentials: 'same-origin', headers: { Accept: 'application/json' } });
api.use(csrf);

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a successful answer, or an ApiError in the spec's error shape. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw toApiError(response, error);
  return data as T;
}

export function isUnauthenticated(err: unknown): boolean {
  return err instanceof ApiError && err.status === 401;
}
