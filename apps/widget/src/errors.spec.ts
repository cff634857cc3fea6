import { WidgetApiError, errorKey, originState, readApiError } from './errors';

describe('readApiError', () => {
  it('maps validation issues to fields by path[1], first message per field', () => {
    const err = readApiError(400, {
      success: false,
      error: {
        name: 'ValidationError',
        message: 'Validation failed',
        issues: [
          { code: 'invalid', path: ['body', 'email'], message: 'email must be an email' },
          { code: 'invalid', path: ['body', 'email'], message: 'second' },
          { code: 'invalid', path: ['body', 'requestedSlot'], message: 'bad time' },
          { code: 'invalid', path: ['body'], message: 'no field' },
        ],
      },
    });
    expect(err).toBeInstanceOf(WidgetApiError);
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation_failed');
    expect(err.fields).toEqual({ email: 'email must be an email', requestedSlot: 'bad time' });
  });

  it('reads the general body {error, code, message}', () => {
    const err = readApiError(403, { error: 'Forbidden', code: 'origin_not_allowed', message: 'no' });
    expect([err.code, err.message, err.fields]).toEqual(['origin_not_allowed', 'no', {}]);
  });

  it('survives a body that is not JSON', () => {
    expect(readApiError(502, undefined).code).toBe('http_502');
  });
});

describe('errorKey', () => {
  it.each([
    [new WidgetApiError(403, 'origin_not_allowed', ''), 'error_origin'],
    [new WidgetApiError(403, 'invalid_user_hash', ''), 'error_identity'],
    [new WidgetApiError(429, 'rate_limited', ''), 'error_rate_limited'],
    [new WidgetApiError(402, 'widget_budget_exhausted', ''), 'error_unavailable'],
    [new WidgetApiError(503, 'service_unavailable', ''), 'error_unavailable'],
    [new WidgetApiError(500, 'internal_error', ''), 'error_unavailable'],
    [new WidgetApiError(0, 'network_error', ''), 'error_unavailable'],
    [new WidgetApiError(200, 'internal_error', ''), 'error_interrupted'],
    [new WidgetApiError(200, 'stream_interrupted', ''), 'error_interrupted'],
    [new WidgetApiError(400, 'validation_failed', ''), 'error_generic'],
    [new Error('x'), 'error_generic'],
  ])('%s → %s', (err, key) => {
    expect(errorKey(err)).toBe(key);
  });
});

describe('errorKey after the gateway refused the page origin', () => {
  afterEach(() => {
    originState.refused = false;
  });

  it('reads a network error (a refused preflight) as the origin refusal, and only then', () => {
    const network = new WidgetApiError(0, 'network_error', 'Failed to fetch');
    expect(errorKey(network)).toBe('error_unavailable');
    originState.refused = true;
    expect(errorKey(network)).toBe('error_origin');
    expect(errorKey(new WidgetApiError(429, 'rate_limited', ''))).toBe('error_rate_limited');
  });
});
