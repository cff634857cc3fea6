import { ErrorCode } from '@sa/contracts';
import { DomainError } from './domain-error';

/** The one mapping from error code to HTTP status. Exhaustive: a new code fails to compile here. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'validation_failed':
    case 'bad_request':
    case 'invalid_token':
      return 400;
    case 'unauthorized':
    case 'not_signed_in':
    case 'invalid_credentials':
      return 401;
    case 'api_locked':
    case 'plan_capacity_exhausted':
    case 'quota_exhausted':
    case 'widget_budget_exhausted':
      return 402;
    case 'insufficient_scope':
    case 'bot_access_denied':
    case 'tier_capacity_unavailable':
    case 'session_forbidden':
    case 'origin_not_allowed':
    case 'invalid_user_hash':
    case 'csrf_failed':
    case 'forbidden_role':
    case 'invalid_setup_code':
      return 403;
    case 'not_found':
      return 404;
    case 'setup_done':
      return 410;
    case 'bot_name_taken':
    case 'conflict':
    case 'last_owner':
      return 409;
    case 'rate_limited':
    case 'too_many_attempts':
      return 429;
    case 'service_unavailable':
      return 503;
    case 'internal_error':
      return 500;
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface HttpError {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * Turns an error into the spec's body shapes (part 7): the validation error
 * `{success:false, error:{name, message, issues}}` for validation failures, otherwise the general
 * error object `{error, code, message, ...details}`.
 */
export function toHttpError(err: DomainError): HttpError {
  const status = httpStatusOf(err.code);
  const headers: Record<string, string> = {};
  if (err.code === 'validation_failed') {
    return {
      status,
      headers,
      body: { success: false, error: { name: 'ValidationError', message: err.message, issues: err.details['issues'] ?? [] } },
    };
  }
  if (err.code === 'rate_limited' || err.code === 'too_many_attempts') headers['retry-after'] = String(err.details['retry_after']);
  else if (err.code === 'service_unavailable' && typeof err.details['retry_after'] === 'number') headers['retry-after'] = String(err.details['retry_after']);
  if (err.code === 'unauthorized') headers['www-authenticate'] = 'Bearer';
  return { status, headers, body: { error: REASONS[status] ?? 'Error', code: err.code, message: err.message, ...err.details } };
}
