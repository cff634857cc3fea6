import type { MessageKey } from './i18n';

/** An API refusal as the widget shows it: the code, the HTTP status and per-field messages. */
export class WidgetApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'SupportAgentError';
  }
}

/**
 * Reads an error answer: validation (`{success:false, error:{name, message, issues:[{path:["body","email"], message}]}}`)
 * gives field messages keyed by `path[1]`; the general body is `{error, code, message}`.
 */
export function readApiError(status: number, body: unknown): WidgetApiError {
  const o = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const inner = o['error'] && typeof o['error'] === 'object' ? (o['error'] as Record<string, unknown>) : undefined;
  if (inner && Array.isArray(inner['issues'])) {
    const fields: Record<string, string> = {};
    for (const issue of inner['issues'] as { path?: unknown; message?: unknown }[]) {
      const path = Array.isArray(issue?.path) ? issue.path : [];
      const field = typeof path[1] === 'string' ? path[1] : undefined;
      if (field && !(field in fields)) fields[field] = typeof issue.message === 'string' ? issue.message : 'invalid';
    }
    return new WidgetApiError(status, 'validation_failed', typeof inner['message'] === 'string' ? inner['message'] : 'Validation failed', fields);
  }
  const code = typeof o['code'] === 'string' ? o['code'] : inner && typeof inner['code'] === 'string' ? inner['code'] : `http_${status}`;
  const message = typeof o['message'] === 'string' ? o['message'] : inner && typeof inner['message'] === 'string' ? inner['message'] : `HTTP ${status}`;
  return new WidgetApiError(status, code, message);
}

/**
 * Set when the gateway said this page's origin is not allowed in an answer the script could read.
 * A browser page at a refused origin never can (the gateway grants it no CORS, not even for the
 * 403: issue 30), so there the visitor sees `error_unavailable` and the page's console shows the
 * CORS refusal; the flag serves hosts that can read the refusal (a same-origin page).
 */
export const originState = { refused: false };

/** The text a visitor sees for a refusal that is not about one field. */
export function errorKey(err: unknown): MessageKey {
  if (!(err instanceof WidgetApiError)) return 'error_generic';
  if (err.code === 'origin_not_allowed' || (err.status === 0 && originState.refused)) return 'error_origin';
  if (err.code === 'invalid_user_hash') return 'error_identity';
  // A stream that ended with an error frame, or without its last frame.
  if (err.status === 200 || err.code === 'stream_interrupted') return 'error_interrupted';
  if (err.status === 429) return 'error_rate_limited';
  if (err.status === 402 || err.status >= 500 || err.status === 0) return 'error_unavailable';
  return 'error_generic';
}
