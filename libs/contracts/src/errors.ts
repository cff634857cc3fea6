import { Equals, IsArray, IsInt, IsOptional, IsString } from 'class-validator';
import { Doc, Nested } from './schema-docs';
import { IsIntegerMap, IsKeyPath } from './validation';

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
  'origin_not_allowed',
  'invalid_user_hash',
  'not_found',
  'bot_name_taken',
  'conflict',
  'rate_limited',
  'service_unavailable',
  'internal_error',
  // The owner console's API only (apps/console, docs/decisions/console.md "Issue 16").
  'not_signed_in',
  'invalid_credentials',
  'invalid_token',
  'csrf_failed',
  'forbidden_role',
  'last_owner',
  'too_many_attempts',
  // First-run setup (issue 31): a wrong setup code, and an installation already set up.
  'invalid_setup_code',
  'setup_done',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes only the visitor widget API (/widget/v1) sends; never sent under /v1. */
export const WIDGET_ERROR_CODES: readonly ErrorCode[] = ['widget_budget_exhausted', 'session_forbidden', 'origin_not_allowed', 'invalid_user_hash'];

/** Codes only the owner console's API (/api of apps/console) sends; never sent under /v1. */
export const CONSOLE_ERROR_CODES: readonly ErrorCode[] = ['not_signed_in', 'invalid_credentials', 'invalid_token', 'csrf_failed', 'forbidden_role', 'last_owner', 'too_many_attempts', 'invalid_setup_code', 'setup_done'];

/** `a`, `b` as the API documents list codes. */
export const codeList = (codes: readonly string[]): string => codes.map((code) => `\`${code}\``).join(', ');

/** One issue of a validation error (400 body `{success:false, error:{name, message, issues}}`). */
@Doc({ name: 'ValidationIssue', description: 'One issue of a validation error. The spec leaves this structure open; this is the one this implementation sends.' })
export class ValidationIssue {
  /** Machine code: invalid_type, too_small, too_big, invalid_format, invalid_value, unrecognized_keys, required. */
  @Doc('Machine code. This implementation sends invalid_type, too_small, too_big, invalid_format, invalid_value, unrecognized_keys or required.')
  @IsString()
  code: string;
  /** Where the issue is: ["body", "name"], ["query", "limit"]. */
  @Doc('Where the issue is, for example `["body", "name"]` or `["query", "limit"]`.') @IsKeyPath() path: (string | number)[];
  @IsString() message: string;
}

/** The `error` of a validation error body. */
@Doc({ name: 'ValidationErrorDetail', description: 'The structured error, carrying the issues.' })
export class ValidationErrorDetail {
  @Doc('`ValidationError` in this implementation.') @IsString() name: string;
  @IsString() message: string;
  @IsArray() @Nested(() => ValidationIssue) issues: ValidationIssue[];
}

/** The validation error body of spec part 7 (400 only), as libs/errors writes it. */
@Doc({ name: 'ValidationError', description: 'A validation error (400 only).' })
export class ValidationErrorBody {
  @Equals(false) success: false;
  @Nested(() => ValidationErrorDetail) error: ValidationErrorDetail;
}

/** The general error object of spec part 7, as libs/errors writes it: all members optional. */
@Doc({ name: 'ErrorObject', description: 'The general error object; all members are optional.' })
export class ErrorObjectBody {
  @Doc('Reason phrase of the status, for example `Conflict` (this implementation).') @IsOptional() @IsString() error?: string;
  @Doc(
    'Machine code. The spec names `api_locked`; the complete list is not shown. This implementation sends: ' +
      `${codeList(ERROR_CODES.filter((code) => code !== 'validation_failed' && !WIDGET_ERROR_CODES.includes(code) && !CONSOLE_ERROR_CODES.includes(code)))}; ` +
      `the visitor widget API also ${codeList(WIDGET_ERROR_CODES)}; the owner console's API also ${codeList(CONSOLE_ERROR_CODES)}.`,
  )
  @IsOptional()
  @IsString()
  code?: string;
  @IsOptional() @IsString() message?: string;
  @Doc('Seconds to wait (429).') @IsOptional() @IsInt() retry_after?: number;
  @Doc('A free bot name (409 on POST /bots).') @IsOptional() @IsString() suggested_name?: string;
  @Doc('Map of string to integer.') @IsOptional() @IsIntegerMap() available_slots?: Record<string, number>;
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
