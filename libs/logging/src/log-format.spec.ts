import { defaultAppLogFormat, logFormatFromEnv } from './log-format';

describe('logFormatFromEnv', () => {
  it('takes LOG_FORMAT when it is set, whatever the fallback and LOG_PRETTY say', () => {
    expect(logFormatFromEnv({ LOG_FORMAT: 'json' }, 'pretty')).toBe('json');
    expect(logFormatFromEnv({ LOG_FORMAT: 'pretty' }, 'json')).toBe('pretty');
    expect(logFormatFromEnv({ LOG_FORMAT: 'json', LOG_PRETTY: 'true' }, 'pretty')).toBe('json');
  });

  it('falls back when nothing is set, or set empty (LOG_FORMAT= in an env file)', () => {
    expect(logFormatFromEnv({}, 'pretty')).toBe('pretty');
    expect(logFormatFromEnv({}, 'json')).toBe('json');
    expect(logFormatFromEnv({ LOG_FORMAT: '', LOG_PRETTY: '' }, 'pretty')).toBe('pretty');
  });

  it('reads the older LOG_PRETTY (true|false, as the config reads booleans) when LOG_FORMAT is unset', () => {
    expect(logFormatFromEnv({ LOG_PRETTY: 'true' }, 'json')).toBe('pretty');
    expect(logFormatFromEnv({ LOG_PRETTY: 'false' }, 'pretty')).toBe('json');
    expect(logFormatFromEnv({ LOG_PRETTY: 'ON' }, 'json')).toBe('pretty');
    expect(logFormatFromEnv({ LOG_PRETTY: '0' }, 'pretty')).toBe('json');
  });

  it('refuses an unknown value with a one-line message that names the variable', () => {
    expect(() => logFormatFromEnv({ LOG_FORMAT: 'text' }, 'json')).toThrow(/^LOG_FORMAT must be one of json, pretty \(got "text"\)$/);
    expect(() => logFormatFromEnv({ LOG_FORMAT: 'JSON' }, 'json')).toThrow('LOG_FORMAT must be one of json, pretty (got "JSON")');
    expect(() => logFormatFromEnv({ LOG_PRETTY: 'maybe' }, 'json')).toThrow('LOG_PRETTY must be true or false (got "maybe"); LOG_FORMAT=json|pretty replaces it');
  });
});

describe('defaultAppLogFormat', () => {
  it('is pretty only on a terminal outside production', () => {
    expect(defaultAppLogFormat(true, undefined)).toBe('pretty');
    expect(defaultAppLogFormat(true, 'development')).toBe('pretty');
    expect(defaultAppLogFormat(true, 'production')).toBe('json');
    expect(defaultAppLogFormat(false, undefined)).toBe('json');
    expect(defaultAppLogFormat(false, 'test')).toBe('json');
  });
});
