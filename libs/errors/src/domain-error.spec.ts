import 'reflect-metadata';
import { ERROR_CODES } from '@sa/contracts';
import { BotNameTaken, DomainError, NotFound, RateLimited, ServiceUnavailable, ValidationFailed } from './domain-error';

describe('DomainError', () => {
  it('is an Error with the name of its class', () => {
    const err = new NotFound('Bot');
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.name).toBe('NotFound');
    expect(err.message).toBe('Bot not found');
    expect(err.code).toBe('not_found');
    expect(err.details).toEqual({});
  });

  it('carries the typed details of its subclasses', () => {
    expect(new BotNameTaken('Support', 'Support 2').details).toEqual({ suggested_name: 'Support 2' });
    expect(new RateLimited(3).details).toEqual({ retry_after: 3 });
    expect(new RateLimited(3).retryAfterSeconds).toBe(3);
    expect(new ServiceUnavailable('bots', 'no reply in time').message).toBe('The bots service is unavailable (no reply in time)');
    const issues = [{ code: 'required', path: ['name'], message: 'name is required' }];
    const v = new ValidationFailed(issues);
    expect(v.issues).toBe(issues);
    expect(v.details).toEqual({ issues });
  });

  describe('payload round trip', () => {
    it.each(ERROR_CODES.map((c) => [c]))('keeps code, message and details of %s', (code) => {
      const original = new DomainError(code, `message of ${code}`, { n: 1, nested: { a: ['x'] } });
      const payload = JSON.parse(JSON.stringify(original.toPayload()));
      const back = DomainError.fromPayload(payload);
      expect(back).toBeInstanceOf(DomainError);
      expect(back!.code).toBe(code);
      expect(back!.message).toBe(`message of ${code}`);
      expect(back!.details).toEqual({ n: 1, nested: { a: ['x'] } });
    });

    it('survives for subclasses (the code and details, not the subclass)', () => {
      const back = DomainError.fromPayload(JSON.parse(JSON.stringify(new BotNameTaken('A', 'A 2').toPayload())))!;
      expect(back.code).toBe('bot_name_taken');
      expect(back.message).toBe('A bot named "A" already exists');
      expect(back.details).toEqual({ suggested_name: 'A 2' });
    });

    it('uses the code as the message when there is none, and {} when there are no details', () => {
      const back = DomainError.fromPayload({ code: 'conflict' })!;
      expect(back.message).toBe('conflict');
      expect(back.details).toEqual({});
      expect(DomainError.fromPayload({ code: 'conflict', message: 42 })!.message).toBe('conflict');
    });
  });

  describe('fromPayload rejects what is not an error payload', () => {
    it.each([
      ['null', null],
      ['undefined', undefined],
      ['a string', 'not_found'],
      ['a number', 404],
      ['an empty object', {}],
      ['an unknown code', { code: 'teapot', message: 'short and stout' }],
      ['a code of another case', { code: 'NOT_FOUND', message: 'x' }],
      ['a numeric code', { code: 503, message: 'x' }],
      ['an Error', new Error('boom')],
    ])('%s', (_label, value) => {
      expect(DomainError.fromPayload(value)).toBeNull();
    });
  });
});
