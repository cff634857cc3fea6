import { redactQueryError, withoutQueryParameters } from './query-parameters';

describe('withoutQueryParameters', () => {
  it('replaces every string parameter PostgreSQL repeats, nested arrays and objects included', () => {
    const message = 'invalid input syntax for type uuid: "ann@example.com" near {"name":"Ann Lee"} and "Bob"';
    expect(withoutQueryParameters(message, ['ann@example.com', 3, [['Bob']], { name: 'Ann Lee' }])).toBe(
      'invalid input syntax for type uuid: "[redacted]" near [redacted] and "[redacted]"',
    );
  });

  it('leaves very short values and numbers alone, so an ordinary message stays readable', () => {
    expect(withoutQueryParameters('value too long for type character varying(10)', ['a', 'to', 10])).toBe('value too long for type character varying(10)');
  });
});

describe('redactQueryError', () => {
  it('drops the parameters, the driver error and the detail of an error that carries a query', () => {
    const original = { query: 'SELECT $1', parameters: ['secret-value'], message: 'bad "secret-value"' };
    const serialized = { type: 'QueryFailedError', message: 'bad "secret-value"', stack: 'QueryFailedError: bad "secret-value"\n    at x', query: 'SELECT $1', parameters: ['secret-value'], driverError: { detail: 'secret-value' }, detail: 'Key (x)=(secret-value)', where: "parameter $1 = '...'", code: '22P02' };
    expect(redactQueryError(serialized, original)).toEqual({
      type: 'QueryFailedError',
      message: 'bad "[redacted]"',
      stack: 'QueryFailedError: bad "[redacted]"\n    at x',
      query: 'SELECT $1',
      code: '22P02',
    });
  });

  it('returns other errors as they are', () => {
    const serialized = { type: 'Error', message: 'boom', stack: 'Error: boom' };
    expect(redactQueryError(serialized, new Error('boom'))).toBe(serialized);
  });
});
