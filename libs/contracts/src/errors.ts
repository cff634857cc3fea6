/**
 * Every error code a service may return. The HTTP status of each is decided in one place
 * (libs/errors, httpStatusOf); this list has no runtime dependencies so every lib can name them.
 */
export const ERROR_CODES = [
  'validation_failed',
  'bad_request',
  'unauthorized',
  'api_locked',
  'plan_capacity_exhausted',
  'quota_exhausted',
  'widget_budget_exhausted',
  'insufficient_scope',
  'bot_access_denied',
  'tier_capacity_unavailable',
  'session_forbidden',
  'not_found',
  'bot_name_taken',
  'conflict',
  'rate_limited',
  'service_unavailable',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One issue of a validation error (400 body `{success:false, error:{name, message, issues}}`). */
export interface ValidationIssue {
  /** Machine code: invalid_type, too_small, too_big, invalid_format, invalid_value, unrecognized_keys, required. */
  code: string;
  /** Where the issue is: ["body", "name"], ["query", "limit"]. */
  path: (string | number)[];
  message: string;
}

/** What an error looks like on the wire between services (NATS replies). */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  /** Extra members of the general error object (suggested_name, available_slots, retry_after) or validation issues. */
  details?: Record<string, unknown>;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
