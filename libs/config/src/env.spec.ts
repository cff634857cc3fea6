import { commonConfig, DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from './common';
import { ConfigError, env, parseConfig } from './env';

/** The ConfigError parseConfig throws for this shape and source (fails the test if it does not throw). */
function problemsOf(shape: Parameters<typeof parseConfig>[0], source: Record<string, string | undefined>): string[] {
  try {
    parseConfig(shape, source);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('parseConfig did not throw');
}

describe('parseConfig', () => {
  it('collects every problem into one ConfigError with a readable message', () => {
    const shape = {
      a: env.str('A'),
      port: env.int('PORT', 3000, { min: 1, max: 65535 }),
      pretty: env.bool('PRETTY', false),
      db: env.url('DB', undefined, ['postgres']),
      level: env.oneOf('LEVEL', ['info', 'debug'] as const, 'info'),
      limits: env.json('LIMITS', {}),
      fine: env.str('FINE', 'x'),
    };
    let error: ConfigError | undefined;
    try {
      parseConfig(shape, { PORT: '70000', PRETTY: 'maybe', DB: 'mysql://h/db', LEVEL: 'loud', LIMITS: '{oops' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.name).toBe('ConfigError');
    expect(error!.problems).toEqual([
      'A is required',
      'PORT must be at most 65535 (got 70000)',
      'PRETTY must be true or false (got "maybe")',
      'DB must use postgres (got "mysql:")',
      'LEVEL must be one of info, debug (got "loud")',
      'LIMITS must be JSON',
    ]);
    expect(error!.message).toBe(`Invalid configuration:\n  - ${error!.problems.join('\n  - ')}`);
  });

  it('returns a frozen object with one member per key of the shape', () => {
    const config = parseConfig({ name: env.str('NAME'), n: env.int('N', 1) }, { NAME: 'svc', N: '7', UNRELATED: 'x' });
    expect(config).toEqual({ name: 'svc', n: 7 });
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { n: number }).n = 8;
    }).toThrow(TypeError);
    expect(config.n).toBe(7);
  });

  it('reads process.env when no source is given', () => {
    const key = `SA_CONFIG_SPEC_${process.pid}`;
    process.env[key] = 'from-process-env';
    try {
      expect(parseConfig({ v: env.str(key) }).v).toBe('from-process-env');
    } finally {
      delete process.env[key];
    }
  });

  it('applies every default of the common config to an empty environment', () => {
    expect(parseConfig(commonConfig, {})).toEqual({
      databaseUrl: DEFAULT_DATABASE_URL,
      dbPoolSize: 10,
      natsUrl: DEFAULT_NATS_URL,
      rpcTimeoutMs: 5000,
      rpcLivenessMs: 1000,
      rpcLostAfterMs: 3500,
      logLevel: 'info',
      logFormat: undefined,
      eventsStream: 'SA_EVENTS',
      eventsSubjectPrefix: 'events',
      shutdownGraceMs: 10000,
      opsPort: 9464,
      opsHost: '127.0.0.1',
      readyCheckTimeoutMs: 1500,
    });
  });
});

describe('env.str / env.optionalStr', () => {
  it('treats an empty value as unset', () => {
    expect(parseConfig({ v: env.str('V', 'dflt') }, { V: '' }).v).toBe('dflt');
    expect(problemsOf({ v: env.str('V') }, { V: '' })).toEqual(['V is required']);
    expect(parseConfig({ v: env.optionalStr('V') }, { V: '' }).v).toBeUndefined();
    expect(parseConfig({ v: env.optionalStr('V') }, {}).v).toBeUndefined();
  });

  it('keeps a given value as is', () => {
    expect(parseConfig({ v: env.str('V', 'dflt') }, { V: ' spaced ' }).v).toBe(' spaced ');
    expect(parseConfig({ v: env.optionalStr('V') }, { V: 'x' }).v).toBe('x');
  });
});

describe('env.int', () => {
  const shape = { n: env.int('N', 5, { min: 1, max: 10 }) };

  it.each([
    [undefined, 5],
    ['', 5],
    ['1', 1],
    ['10', 10],
    ['7', 7],
  ])('%j → %i', (raw, expected) => {
    expect(parseConfig(shape, { N: raw }).n).toBe(expected);
  });

  it.each([
    ['0', 'N must be at least 1 (got 0)'],
    ['-3', 'N must be at least 1 (got -3)'],
    ['11', 'N must be at most 10 (got 11)'],
    ['2.5', 'N must be an integer (got "2.5")'],
    ['abc', 'N must be an integer (got "abc")'],
    ['12abc', 'N must be an integer (got "12abc")'],
    ['Infinity', 'N must be an integer (got "Infinity")'],
  ])('%j is refused: %s', (raw, problem) => {
    expect(problemsOf(shape, { N: raw })).toEqual([problem]);
  });

  it('has no bounds unless given', () => {
    expect(parseConfig({ n: env.int('N', 0) }, { N: '-99999' }).n).toBe(-99999);
  });

  it('accepts the bounds of the range exactly', () => {
    expect(parseConfig({ n: env.int('N', 0, { min: 0 }) }, { N: '0' }).n).toBe(0);
    expect(problemsOf({ n: env.int('N', 0, { max: 0 }) }, { N: '1' })).toEqual(['N must be at most 0 (got 1)']);
  });
});

describe('env.bool', () => {
  const shape = { b: env.bool('B', false) };

  it.each(['1', 'true', 'TRUE', 'True', 'yes', 'YES', 'on', 'On'])('%j is true', (raw) => {
    expect(parseConfig(shape, { B: raw }).b).toBe(true);
  });

  it.each(['0', 'false', 'FALSE', 'no', 'No', 'off', 'OFF'])('%j is false', (raw) => {
    expect(parseConfig({ b: env.bool('B', true) }, { B: raw }).b).toBe(false);
  });

  it('falls back when unset or empty', () => {
    expect(parseConfig({ b: env.bool('B', true) }, {}).b).toBe(true);
    expect(parseConfig({ b: env.bool('B', true) }, { B: '' }).b).toBe(true);
  });

  it.each(['2', 'y', 'enabled', 'truthy'])('%j is refused', (raw) => {
    expect(problemsOf(shape, { B: raw })).toEqual([`B must be true or false (got "${raw}")`]);
  });
});

describe('env.url / env.optionalUrl', () => {
  const shape = { u: env.url('U', 'redis://127.0.0.1:6379', ['redis', 'rediss']) };

  it('accepts each of the allowed protocols', () => {
    expect(parseConfig(shape, { U: 'redis://cache:6379/0' }).u).toBe('redis://cache:6379/0');
    expect(parseConfig(shape, { U: 'rediss://user:pw@cache:6380' }).u).toBe('rediss://user:pw@cache:6380');
  });

  it('uses the fallback when unset', () => {
    expect(parseConfig(shape, {}).u).toBe('redis://127.0.0.1:6379');
    expect(parseConfig(shape, { U: '' }).u).toBe('redis://127.0.0.1:6379');
  });

  it('refuses other protocols and text that is no URL', () => {
    expect(problemsOf(shape, { U: 'http://cache:6379' })).toEqual(['U must use redis or rediss (got "http:")']);
    expect(problemsOf(shape, { U: 'cache:6379' })).toEqual(['U must use redis or rediss (got "cache:")']);
    expect(problemsOf(shape, { U: 'not a url' })).toEqual(['U must be a URL (got "not a url")']);
  });

  it('requires a value when there is no fallback', () => {
    expect(problemsOf({ u: env.url('U', undefined, ['postgres']) }, {})).toEqual(['U is required']);
  });

  it('optionalUrl is undefined when unset and checked when set', () => {
    const opt = { u: env.optionalUrl('U', ['redis']) };
    expect(parseConfig(opt, {}).u).toBeUndefined();
    expect(parseConfig(opt, { U: '' }).u).toBeUndefined();
    expect(parseConfig(opt, { U: 'redis://h' }).u).toBe('redis://h');
    expect(problemsOf(opt, { U: 'postgres://h/db' })).toEqual(['U must use redis (got "postgres:")']);
  });

  it('checks DATABASE_URL of the common config for postgres or postgresql', () => {
    expect(parseConfig(commonConfig, { DATABASE_URL: 'postgresql://u@db/x' }).databaseUrl).toBe('postgresql://u@db/x');
    expect(problemsOf(commonConfig, { DATABASE_URL: 'mysql://u@db/x' })).toEqual(['DATABASE_URL must use postgres or postgresql (got "mysql:")']);
  });
});

describe('env.oneOf', () => {
  const shape = { level: env.oneOf('LEVEL', ['info', 'debug', 'silent'] as const, 'info') };

  it('accepts the listed values and falls back when unset', () => {
    expect(parseConfig(shape, { LEVEL: 'debug' }).level).toBe('debug');
    expect(parseConfig(shape, {}).level).toBe('info');
    expect(parseConfig(shape, { LEVEL: '' }).level).toBe('info');
  });

  it('is case-sensitive and refuses anything else', () => {
    expect(problemsOf(shape, { LEVEL: 'DEBUG' })).toEqual(['LEVEL must be one of info, debug, silent (got "DEBUG")']);
    expect(problemsOf(shape, { LEVEL: 'verbose' })).toEqual(['LEVEL must be one of info, debug, silent (got "verbose")']);
  });
});

describe('env.optionalOneOf', () => {
  it('is undefined when unset or empty, a listed value as it is, and refuses anything else (LOG_FORMAT)', () => {
    expect(parseConfig(commonConfig, {}).logFormat).toBeUndefined();
    expect(parseConfig(commonConfig, { LOG_FORMAT: '' }).logFormat).toBeUndefined();
    expect(parseConfig(commonConfig, { LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(parseConfig(commonConfig, { LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(problemsOf(commonConfig, { LOG_FORMAT: 'text' })).toEqual(['LOG_FORMAT must be one of json, pretty (got "text")']);
  });
});

describe('env.json', () => {
  it('parses JSON and falls back when unset', () => {
    const shape = { limits: env.json<Record<string, unknown>>('LIMITS', { d: 1 }) };
    expect(parseConfig(shape, { LIMITS: '{"scale":{"botSlots":20}}' }).limits).toEqual({ scale: { botSlots: 20 } });
    expect(parseConfig(shape, {}).limits).toEqual({ d: 1 });
    expect(parseConfig(shape, { LIMITS: '' }).limits).toEqual({ d: 1 });
  });

  it('refuses text that is not JSON', () => {
    expect(problemsOf({ j: env.json('J', null) }, { J: "{scale: 1}" })).toEqual(['J must be JSON']);
    expect(problemsOf({ j: env.json('J', null) }, { J: 'undefined' })).toEqual(['J must be JSON']);
  });
});
