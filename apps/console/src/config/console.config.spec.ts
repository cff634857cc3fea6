import 'reflect-metadata';
import { loadConsoleConfig, loopbackAliases } from './console.config';

describe('console origins', () => {
  it('derives the public URL from host and port, and accepts the other loopback spellings', () => {
    const config = loadConsoleConfig({ CONSOLE_PORT: '4002' });
    expect(config.publicUrl).toBe('http://127.0.0.1:4002');
    expect(config.extraOrigins).toEqual(['http://localhost:4002', 'http://[::1]:4002']);
  });

  it('adds no alias to a public origin that is not loopback', () => {
    const config = loadConsoleConfig({ CONSOLE_PUBLIC_URL: 'https://console.example.com', CONSOLE_EXTRA_ORIGINS: 'http://localhost:5173' });
    expect(config.extraOrigins).toEqual(['http://localhost:5173']);
    expect(loopbackAliases('https://127.0.0.1.example.com')).toEqual([]);
  });

  it('keeps the scheme and port of a loopback public URL', () => {
    expect(loopbackAliases('http://localhost:3002')).toEqual(['http://127.0.0.1:3002', 'http://[::1]:3002']);
    expect(loopbackAliases('https://localhost')).toEqual(['https://127.0.0.1', 'https://[::1]']);
  });
});
