import { e2eState } from './state';

/** An id as the API writes it (a v4 uuid, lower or upper case). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** Sent as is (no JSON encoding) when a string. */
  rawBody?: string;
  baseUrl?: string;
}

/** A small HTTP client for the public API: real requests to the running gateway. */
export async function request<T = any>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  let payload: string | undefined;
  if (opts.rawBody !== undefined) payload = opts.rawBody;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${opts.baseUrl ?? e2eState().baseUrl}${path}`, { method, headers, body: payload });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON; tests assert on text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function client(token: string, baseUrl?: string) {
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => request<T>('GET', path, undefined, { token, headers, baseUrl }),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => request<T>('POST', path, body, { token, headers, baseUrl }),
    patch: <T = any>(path: string, body?: unknown) => request<T>('PATCH', path, body, { token, baseUrl }),
  };
}
