import 'reflect-metadata';
import { ERROR_CODES, ErrorCode } from '@sa/contracts';
import {
  ApiLocked,
  BadRequest,
  BotAccessDenied,
  BotNameTaken,
  DomainError,
  InsufficientScope,
  NotFound,
  PlanCapacityExhausted,
  QuotaExhausted,
  RateLimited,
  ServiceUnavailable,
  TierCapacityUnavailable,
  Unauthorized,
  ValidationFailed,
} from './domain-error';
import { httpStatusOf, toHttpError } from './http-mapping';

describe('httpStatusOf', () => {
  it('maps every error code, in the order of ERROR_CODES, to its status', () => {
    expect(ERROR_CODES.map((code) => httpStatusOf(code))).toEqual([400, 400, 401, 402, 402, 402, 402, 403, 403, 403, 403, 403, 403, 404, 409, 409, 429, 503, 500, 401, 401, 400, 403, 403, 409, 429, 403, 410]);
  });

  it.each([
    ['validation_failed', 400],
    ['bad_request', 400],
    ['unauthorized', 401],
    ['api_locked', 402],
    ['plan_capacity_exhausted', 402],
    ['quota_exhausted', 402],
    ['widget_budget_exhausted', 402],
    ['insufficient_scope', 403],
    ['bot_access_denied', 403],
    ['tier_capacity_unavailable', 403],
    ['session_forbidden', 403],
    ['origin_not_allowed', 403],
    ['invalid_user_hash', 403],
    ['not_found', 404],
    ['bot_name_taken', 409],
    ['conflict', 409],
    ['rate_limited', 429],
    ['service_unavailable', 503],
    ['internal_error', 500],
  ] as [ErrorCode, number][])('%s → %i', (code, status) => {
    expect(httpStatusOf(code)).toBe(status);
  });
});

describe('toHttpError', () => {
  it('gives validation failures the {success:false, error:{name, message, issues}} body', () => {
    const issues = [{ code: 'required', path: ['body', 'name'], message: 'body.name is required' }];
    expect(toHttpError(new ValidationFailed(issues))).toEqual({
      status: 400,
      headers: {},
      body: { success: false, error: { name: 'ValidationError', message: 'The request is not valid', issues } },
    });
  });

  it('gives a validation_failed error without issues an empty issue list', () => {
    const http = toHttpError(new DomainError('validation_failed', 'bad'));
    expect(http.body).toEqual({ success: false, error: { name: 'ValidationError', message: 'bad', issues: [] } });
  });

  it('sends Retry-After with rate_limited', () => {
    expect(toHttpError(new RateLimited(17))).toEqual({
      status: 429,
      headers: { 'retry-after': '17' },
      body: { error: 'Too Many Requests', code: 'rate_limited', message: 'Rate limit exceeded; retry in 17 s', retry_after: 17 },
    });
  });

  it('sends Retry-After with a service_unavailable that expects a retry to succeed soon, and none otherwise', () => {
    expect(toHttpError(new ServiceUnavailable('bots', 'no instance is running', 1))).toEqual({
      status: 503,
      headers: { 'retry-after': '1' },
      body: { error: 'Service Unavailable', code: 'service_unavailable', message: 'The bots service is unavailable (no instance is running)', service: 'bots', retry_after: 1 },
    });
    expect(toHttpError(new ServiceUnavailable('bots', 'down')).headers).toEqual({});
  });

  it('sends WWW-Authenticate: Bearer with unauthorized', () => {
    expect(toHttpError(new Unauthorized())).toEqual({
      status: 401,
      headers: { 'www-authenticate': 'Bearer' },
      body: { error: 'Unauthorized', code: 'unauthorized', message: 'Missing, invalid, expired or revoked API token' },
    });
  });

  it('spreads the details into the general error object', () => {
    expect(toHttpError(new BotNameTaken('Support', 'Support 2'))).toEqual({
      status: 409,
      headers: {},
      body: { error: 'Conflict', code: 'bot_name_taken', message: 'A bot named "Support" already exists', suggested_name: 'Support 2' },
    });
    expect(toHttpError(new TierCapacityUnavailable('No free slot in the growth tier', { starter: 1, growth: 0, scale: 2 }))).toEqual({
      status: 403,
      headers: {},
      body: {
        error: 'Forbidden',
        code: 'tier_capacity_unavailable',
        message: 'No free slot in the growth tier',
        available_slots: { starter: 1, growth: 0, scale: 2 },
      },
    });
  });

  it.each([
    [new BadRequest('nope'), 400, 'Bad Request', 'bad_request', {}],
    [new ApiLocked(), 402, 'Payment Required', 'api_locked', {}],
    [new PlanCapacityExhausted('full', { bot_slots: 3 }), 402, 'Payment Required', 'plan_capacity_exhausted', { bot_slots: 3 }],
    [new QuotaExhausted('used up'), 402, 'Payment Required', 'quota_exhausted', {}],
    [new InsufficientScope('bots:write'), 403, 'Forbidden', 'insufficient_scope', { required_scope: 'bots:write' }],
    [new BotAccessDenied(), 403, 'Forbidden', 'bot_access_denied', {}],
    [new NotFound('Bot'), 404, 'Not Found', 'not_found', {}],
    [new DomainError('conflict', 'clash'), 409, 'Conflict', 'conflict', {}],
    [new ServiceUnavailable('bots', 'down'), 503, 'Service Unavailable', 'service_unavailable', { service: 'bots' }],
    [new DomainError('internal_error', 'boom'), 500, 'Internal Server Error', 'internal_error', {}],
  ] as [DomainError, number, string, string, Record<string, unknown>][])('%s → %i %s', (err, status, reason, code, details) => {
    const http = toHttpError(err);
    expect(http.status).toBe(status);
    expect(http.headers).toEqual({});
    expect(http.body).toEqual({ error: reason, code, message: err.message, ...details });
  });

  it('maps an error rebuilt from its NATS payload exactly like the original', () => {
    for (const original of [new BotNameTaken('Support', 'Support 2'), new RateLimited(5), new Unauthorized(), new ValidationFailed([{ code: 'required', path: ['x'], message: 'x is required' }])]) {
      const rebuilt = DomainError.fromPayload(JSON.parse(JSON.stringify(original.toPayload())))!;
      expect(toHttpError(rebuilt)).toEqual(toHttpError(original));
    }
  });
});
