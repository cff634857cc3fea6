import 'reflect-metadata';
import { ConfigError, parseConfig } from '@sa/config';
import { edgeConfig } from './edge-config';

const parse = (env: Record<string, string>) => parseConfig(edgeConfig, env);

describe('edgeConfig: the public edges’ hardening settings', () => {
  it('defaults: no CORS origin, bounded timeouts, a per-address cap and depth limit', () => {
    expect(parse({})).toMatchObject({
      corsAllowedOrigins: [],
      jsonMaxDepth: 32,
      httpHeadersTimeoutMs: 10000,
      httpRequestTimeoutMs: 30000,
      httpMaxConnectionsPerAddress: 128,
      anonymousRateLimitRequests: 600,
    });
  });

  it('CORS_ALLOWED_ORIGINS takes exact origins, comma-separated, compared in lower case', () => {
    expect(parse({ CORS_ALLOWED_ORIGINS: 'https://App.Example.com, http://localhost:5173' }).corsAllowedOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it.each(['*', 'https://app.example.com/', 'https://app.example.com/path', 'app.example.com', 'ftp://files.example.com'])('refuses %j as an origin at boot', (value) => {
    expect(() => parse({ CORS_ALLOWED_ORIGINS: value })).toThrow(ConfigError);
  });

  it('JSON_MAX_DEPTH may not exceed what every service accepts (64)', () => {
    expect(() => parse({ JSON_MAX_DEPTH: '65' })).toThrow(/JSON_MAX_DEPTH must be at most 64/);
  });
});
