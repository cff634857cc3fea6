import { ErrorCode, ErrorPayload, ValidationIssue, isErrorCode } from '@sa/contracts';

/**
 * The only kind of error services throw on purpose. It carries a code; the HTTP status and body
 * are decided at the edge (httpStatusOf / toHttpError), never by the thrower.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  toPayload(): ErrorPayload {
    return { code: this.code, message: this.message, details: this.details };
  }

  static fromPayload(payload: unknown): DomainError | null {
    if (!payload || typeof payload !== 'object') return null;
    const p = payload as Partial<ErrorPayload>;
    if (!isErrorCode(p.code)) return null;
    return new DomainError(p.code, typeof p.message === 'string' ? p.message : p.code, (p.details as Record<string, unknown>) ?? {});
  }
}

export class ValidationFailed extends DomainError {
  constructor(readonly issues: ValidationIssue[], message = 'The request is not valid') {
    super('validation_failed', message, { issues });
  }
}

export class BadRequest extends DomainError {
  constructor(message: string) {
    super('bad_request', message);
  }
}

export class Unauthorized extends DomainError {
  constructor(message = 'Missing, invalid, expired or revoked API token') {
    super('unauthorized', message);
  }
}

export class ApiLocked extends DomainError {
  constructor(message = 'This workspace has no live API access') {
    super('api_locked', message);
  }
}

export class PlanCapacityExhausted extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('plan_capacity_exhausted', message, details);
  }
}

export class QuotaExhausted extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('quota_exhausted', message, details);
  }
}

/** The bot's monthly budget of widget chat messages is used up (the workspace's own quota is separate). */
export class WidgetBudgetExhausted extends DomainError {
  constructor(limit: number) {
    super('widget_budget_exhausted', `This bot's monthly budget of ${limit} widget messages is used up`, { widget_messages_per_bot_per_month: limit });
  }
}

export class InsufficientScope extends DomainError {
  constructor(scope: string) {
    super('insufficient_scope', `This token lacks the ${scope} scope`, { required_scope: scope });
  }
}

export class BotAccessDenied extends DomainError {
  constructor(message = 'This token may not access that bot') {
    super('bot_access_denied', message);
  }
}

/**
 * A widget call named a session that is not a widget session of the bot in the path. The same
 * answer for an unknown session and another bot's, so session ids cannot be probed.
 */
export class SessionForbidden extends DomainError {
  constructor() {
    super('session_forbidden', 'This session is not a widget session of this bot');
  }
}

/** A widget route was called from a page whose Origin is not in the bot's allowed origins. */
export class OriginNotAllowed extends DomainError {
  constructor() {
    super('origin_not_allowed', "This website is not in the bot's allowed origins");
  }
}

/** identify: the userHash does not match (or the bot has no widget identity secret). */
export class InvalidUserHash extends DomainError {
  constructor() {
    super('invalid_user_hash', 'The userHash does not prove this externalUserId');
  }
}

export class TierCapacityUnavailable extends DomainError {
  constructor(message: string, availableSlots: Record<string, number>) {
    super('tier_capacity_unavailable', message, { available_slots: availableSlots });
  }
}

export class NotFound extends DomainError {
  constructor(what = 'Record') {
    super('not_found', `${what} not found`);
  }
}

export class BotNameTaken extends DomainError {
  constructor(name: string, suggestedName: string) {
    super('bot_name_taken', `A bot named "${name}" already exists`, { suggested_name: suggestedName });
  }
}

export class RateLimited extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Rate limit exceeded; retry in ${retryAfterSeconds} s`, { retry_after: retryAfterSeconds });
  }
}

export class ServiceUnavailable extends DomainError {
  /** `retryAfterSeconds`: sent as Retry-After (and `retry_after`) when a retry is expected to succeed soon. */
  constructor(service: string, reason: string, retryAfterSeconds?: number) {
    super('service_unavailable', `The ${service} service is unavailable (${reason})`, retryAfterSeconds === undefined ? { service } : { service, retry_after: retryAfterSeconds });
  }
}
