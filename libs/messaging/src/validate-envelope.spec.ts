import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { CallerContext, CreateBookingRequest, CreateBotRequest, HealthPing, ListBotsRequest, MAX_JSON_DEPTH, ValidationIssue } from '@sa/contracts';
import { ValidationFailed } from '@sa/errors';
import { validateDto, validateEnvelope } from './validate-envelope';

function validCtx(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tenantId: randomUUID(),
    tokenId: randomUUID(),
    scopes: ['bots:read', 'bots:write'],
    botIds: null,
    requestId: 'req-1',
    entitlements: { plan: 'growth', botSlots: 3, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5000, pagesPerBot: 500, widgetMessagesPerBotPerMonth: 2000, webhooks: false },
    ...overrides,
  };
}

/** The issues of the ValidationFailed `fn` throws (fails the test if it throws nothing or something else). */
function issuesOf(fn: () => unknown): ValidationIssue[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).code).toBe('validation_failed');
    return (err as ValidationFailed).issues;
  }
  throw new Error('expected a ValidationFailed');
}

describe('validateDto', () => {
  it('returns an instance of the class with the validated members', () => {
    const dto = validateDto(CreateBotRequest, { name: 'Support', language: 'ja-JP', enterprise_plan_tier: 'growth' });
    expect(dto).toBeInstanceOf(CreateBotRequest);
    expect(dto).toEqual({ name: 'Support', language: 'ja-JP', enterprise_plan_tier: 'growth' });
  });

  it('rejects unknown members', () => {
    expect(issuesOf(() => validateDto(CreateBotRequest, { name: 'Support', admin: true }, ['body']))).toEqual([
      { code: 'unrecognized_keys', path: ['body', 'admin'], message: 'body.admin is not an accepted field' },
    ]);
    expect(issuesOf(() => validateDto(ListBotsRequest, { limit: 10 }, ['query']))).toEqual([
      { code: 'unrecognized_keys', path: ['query', 'limit'], message: 'query.limit is not an accepted field' },
    ]);
  });

  it('does not convert types implicitly', () => {
    expect(issuesOf(() => validateDto(CreateBotRequest, { name: 123 }))).toEqual([{ code: 'invalid_type', path: ['name'], message: 'name must be a string' }]);
  });

  it.each([
    ['null', null],
    ['an array', [{ name: 'x' }]],
    ['a string', 'Support'],
    ['a number', 1],
    ['undefined', undefined],
  ])('rejects %s as the payload', (_label, value) => {
    expect(issuesOf(() => validateDto(CreateBotRequest, value))).toEqual([{ code: 'invalid_type', path: [], message: 'payload must be a JSON object' }]);
    expect(issuesOf(() => validateDto(CreateBotRequest, value, ['body']))).toEqual([{ code: 'invalid_type', path: ['body'], message: 'body must be a JSON object' }]);
  });

  it('reports every broken field at once', () => {
    const issues = issuesOf(() => validateDto(CreateBotRequest, { name: '', language: 'english!', enterprise_plan_tier: 'gold' }, ['body']));
    expect(issues.map((i) => `${i.code}@${i.path.join('.')}`)).toEqual(['too_small@body.name', 'invalid_format@body.language', 'invalid_value@body.enterprise_plan_tier']);
  });
});

describe('validateEnvelope', () => {
  it('returns validated data and ctx of an authenticated subject', () => {
    const ctx = validCtx();
    const out = validateEnvelope('bots.bot.create', { ctx, data: { name: 'Support' } });
    expect(out.data).toBeInstanceOf(CreateBotRequest);
    expect(out.data).toEqual({ name: 'Support' });
    expect(out.ctx).toBeInstanceOf(CallerContext);
    expect(out.ctx).toEqual(ctx);
  });

  it('validates the data against the request class of the subject', () => {
    expect(issuesOf(() => validateEnvelope('bots.bot.create', { ctx: validCtx(), data: { name: 'x'.repeat(31) } }))).toEqual([
      { code: 'too_big', path: ['name'], message: 'name must be between 1 and 30 characters' },
    ]);
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx: validCtx(), data: { sneaky: 1 } }))[0].code).toBe('unrecognized_keys');
  });

  it('treats missing data as an empty request', () => {
    expect(validateEnvelope('bots.bot.list', { ctx: validCtx() }).data).toBeInstanceOf(ListBotsRequest);
    expect(issuesOf(() => validateEnvelope('bots.bot.create', { ctx: validCtx() }))).toEqual([{ code: 'required', path: ['name'], message: 'name is required' }]);
  });

  it.each([
    ['missing', { data: {} }],
    ['null', { ctx: null, data: {} }],
    ['no envelope at all', undefined],
  ])('requires ctx for authenticated subjects (%s)', (_label, payload) => {
    expect(issuesOf(() => validateEnvelope('bots.bot.list', payload))).toEqual([{ code: 'required', path: ['ctx'], message: 'caller context is required' }]);
  });

  it('validates the ctx under the path "ctx"', () => {
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx: validCtx({ tenantId: 'tenant-1' }), data: {} }))).toEqual([
      { code: 'invalid_format', path: ['ctx', 'tenantId'], message: 'tenantId must be a UUID' },
    ]);
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx: validCtx({ scopes: ['root'] }), data: {} }))[0]).toMatchObject({
      code: 'invalid_value',
      path: ['ctx', 'scopes'],
    });
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx: validCtx({ botIds: ['not-a-uuid'] }), data: {} }))[0]).toMatchObject({
      code: 'invalid_format',
      path: ['ctx', 'botIds'],
    });
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx: validCtx({ requestId: 'r'.repeat(129) }), data: {} }))[0]).toMatchObject({
      code: 'too_big',
      path: ['ctx', 'requestId'],
    });
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx: validCtx({ impersonate: 'admin' }), data: {} }))).toEqual([
      { code: 'unrecognized_keys', path: ['ctx', 'impersonate'], message: 'ctx.impersonate is not an accepted field' },
    ]);
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx: 'tenant', data: {} }))).toEqual([
      { code: 'invalid_type', path: ['ctx'], message: 'ctx must be a JSON object' },
    ]);
  });

  it('validates the nested entitlements of the ctx', () => {
    const ctx = validCtx();
    (ctx['entitlements'] as Record<string, unknown>)['plan'] = 'platinum';
    (ctx['entitlements'] as Record<string, unknown>)['botSlots'] = -1;
    const issues = issuesOf(() => validateEnvelope('bots.bot.list', { ctx, data: {} }));
    expect(issues.map((i) => `${i.code}@${i.path.join('.')}`)).toEqual(['invalid_value@ctx.entitlements.plan', 'too_small@ctx.entitlements.botSlots']);
  });

  it('requires every member of the ctx that is not optional', () => {
    const issues = issuesOf(() => validateEnvelope('bots.bot.list', { ctx: { tenantId: randomUUID(), entitlements: null }, data: {} }));
    expect(issues).toEqual([
      { code: 'required', path: ['ctx', 'scopes'], message: 'ctx.scopes is required' },
      { code: 'required', path: ['ctx', 'requestId'], message: 'ctx.requestId is required' },
      { code: 'required', path: ['ctx', 'entitlements'], message: 'ctx.entitlements is required' },
    ]);
    // tokenId and botIds are optional (public widget callers, unrestricted tokens).
    const { tokenId: _t, botIds: _b, ...rest } = validCtx();
    expect(validateEnvelope('bots.bot.list', { ctx: rest, data: {} }).ctx).toEqual(rest);
  });

  it('requires ctx.entitlements when the member is absent', () => {
    const { entitlements: _e, ...ctx } = validCtx();
    expect(issuesOf(() => validateEnvelope('bots.bot.list', { ctx, data: {} }))).toEqual([
      { code: 'required', path: ['ctx', 'entitlements'], message: 'ctx.entitlements is required' },
    ]);
  });

  it('answers the health ping without a ctx, and ignores one that is sent', () => {
    expect(validateEnvelope('bots.health.ping', undefined)).toEqual({ data: new HealthPing() });
    expect(validateEnvelope('knowledge.health.ping', { data: {} }).ctx).toBeUndefined();
    expect(validateEnvelope('chat.health.ping', { ctx: { garbage: true }, data: {} }).ctx).toBeUndefined();
  });

  it('still rejects unknown members in the data of a health ping', () => {
    expect(issuesOf(() => validateEnvelope('bots.health.ping', { data: { verbose: true } }))[0]).toMatchObject({ code: 'unrecognized_keys', path: ['verbose'] });
  });
});

describe('validateDto: text PostgreSQL cannot store, nesting and reserved member names (issue 14)', () => {
  const booking = (extra: Record<string, unknown>) => ({ name: 'Ann', email: 'ann@example.com', phone: '+44 20 7946 0000', chatbotId: randomUUID(), ...extra });

  it.each([
    ['a lone high surrogate', 'hi \ud800 there'],
    ['a lone low surrogate', '\udc00'],
    ['a high surrogate at the end', 'end \ud83d'],
    ['two high surrogates', '\ud83d\ud83d'],
    ['a NUL character', 'a\u0000b'],
  ])('refuses %s in any string, as every NATS handler validates', (_label, text) => {
    expect(issuesOf(() => validateEnvelope('bots.bot.create', { ctx: validCtx(), data: { name: text } }))).toEqual([
      { code: 'invalid_string', path: ['name'], message: expect.stringMatching(/^name must not contain /) },
    ]);
  });

  it('accepts proper surrogate pairs (emoji, characters outside the BMP)', () => {
    expect(validateDto(CreateBotRequest, { name: 'Bot 😀 𠮷' }).name).toBe('Bot 😀 𠮷');
  });

  it('refuses a lone surrogate or NUL in a member name of a map', () => {
    expect(issuesOf(() => validateEnvelope('bookings.booking.create', { ctx: validCtx(), data: booking({ customFields: { 'k\ud800': 'v' } }) }))).toEqual([
      { code: 'invalid_string', path: ['customFields', 'k\ud800'], message: expect.stringContaining('must not contain') },
    ]);
  });

  it.each(['constructor', 'prototype', '__proto__', 'toString', 'hasOwnProperty'])('refuses %s as a member name (400, never a TypeError or a dropped field)', (key) => {
    const customFields = JSON.parse(`{"${key}":"x"}`);
    expect(issuesOf(() => validateDto(CreateBookingRequest, booking({ customFields }), ['body']))).toEqual([
      { code: 'invalid_value', path: ['body', 'customFields', key], message: expect.stringContaining(key) },
    ]);
  });

  it('refuses maps whose values are not strings', () => {
    for (const customFields of [{ a: 1 }, { a: { b: 'c' } }, { a: ['x'] }, ['x']]) {
      expect(issuesOf(() => validateDto(CreateBookingRequest, booking({ customFields }), ['body']))[0]).toMatchObject({ path: ['body', 'customFields'] });
    }
    expect(validateDto(CreateBookingRequest, booking({ customFields: { plan: 'pro' } })).customFields).toEqual({ plan: 'pro' });
  });

  it(`refuses payloads nested deeper than ${MAX_JSON_DEPTH} levels without recursing over them`, () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const [issue] = issuesOf(() => validateDto(CreateBookingRequest, booking({ customFields: deep }), ['body']));
    expect(issue).toMatchObject({ code: 'too_big', message: expect.stringContaining('nested') });
    expect(issue.path.length).toBeLessThanOrEqual(MAX_JSON_DEPTH + 1);
  });
});
