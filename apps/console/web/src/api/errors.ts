/**
 * Errors of the console API in the spec's shapes (part 7): the general `{error, code, message,
 * retry_after?}` and the validation `{success:false, error:{issues}}`. The browser shows their
 * message; it re-implements no rule.
 */
export interface ValidationIssue {
  path: string[];
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly issues: ValidationIssue[] = [],
    /** Seconds to wait before retrying (429), from `retry_after` or the Retry-After header. */
    readonly retryAfterSeconds: number | null = null,
    /** The error body's other members (`suggested_name`, `available_slots`, …). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function retryAfterFrom(body: Record<string, unknown>, header: string | null): number | null {
  if (typeof body['retry_after'] === 'number' && body['retry_after'] >= 0) return Math.ceil(body['retry_after']);
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const FALLBACK: Record<number, string> = {
  401: 'You are not signed in.',
  403: 'You are not allowed to do this.',
  404: 'Not found.',
  409: 'This conflicts with the current state. Reload and try again.',
  429: 'Too many attempts.',
};

/** Turns a failed response and its parsed body (if any) into an ApiError. */
export function toApiError(response: Response, body: unknown): ApiError {
  const status = response.status;
  const retryHeader = response.headers.get('Retry-After');
  if (isObject(body) && body['success'] === false && isObject(body['error'])) {
    const inner = body['error'];
    const rawIssues = Array.isArray(inner['issues']) ? inner['issues'] : [];
    const issues = rawIssues.filter(isObject).map((i) => ({
      path: Array.isArray(i['path']) ? i['path'].map(String) : [],
      message: typeof i['message'] === 'string' ? i['message'] : 'Invalid value',
    }));
    const message = typeof inner['message'] === 'string' ? inner['message'] : 'The request is not valid.';
    return new ApiError(status, 'validation_failed', message, issues);
  }
  if (isObject(body) && typeof body['message'] === 'string') {
    const code = typeof body['code'] === 'string' ? body['code'] : typeof body['error'] === 'string' ? body['error'] : null;
    return new ApiError(status, code, body['message'], [], retryAfterFrom(body, retryHeader), body);
  }
  const retry = retryAfterFrom({}, retryHeader);
  return new ApiError(status, null, FALLBACK[status] ?? `The console answered ${status} ${response.statusText}`.trim(), [], retry);
}

/** Describes a wait in words: "45 seconds", "3 minutes", "about 2 hours". */
export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return `about ${hours} hour${hours === 1 ? '' : 's'}`;
}

/** What to tell the person about a failure. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 429 && err.retryAfterSeconds !== null) {
      const at = new Date(Date.now() + err.retryAfterSeconds * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
      return `${err.message} Try again in ${describeWait(err.retryAfterSeconds)} (at ${at}).`;
    }
    return err.message;
  }
  if (err instanceof TypeError) return 'The console could not be reached. Check your connection and try again.';
  return err instanceof Error ? err.message : 'Something went wrong.';
}
