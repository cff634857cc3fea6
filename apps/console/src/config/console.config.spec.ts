import 'reflect-metadata';
import { loadConsoleConfig, loopbackAliases, normaliseResource } from './console.config';

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

describe('the gateway\'s public URL (the widget snippet)', () => {
  it('defaults to the gateway on GATEWAY_PORT and keeps a path prefix without its trailing slash', () => {
    expect(loadConsoleConfig({}).gatewayPublicUrl).toBe('http://127.0.0.1:3000');
    expect(loadConsoleConfig({ GATEWAY_PORT: '4000' }).gatewayPublicUrl).toBe('http://127.0.0.1:4000');
    expect(loadConsoleConfig({ GATEWAY_PUBLIC_URL: 'https://API.example.com/' }).gatewayPublicUrl).toBe('https://api.example.com');
    expect(loadConsoleConfig({ GATEWAY_PUBLIC_URL: 'https://example.com/support/' }).gatewayPublicUrl).toBe('https://example.com/support');
  });

  it('refuses a URL with a query, credentials or another scheme', () => {
    for (const bad of ['ftp://example.com', 'https://example.com/?a=1', 'https://u:p@example.com', 'not a url']) {
      expect(() => loadConsoleConfig({ GATEWAY_PUBLIC_URL: bad })).toThrow(/GATEWAY_PUBLIC_URL/);
    }
  });
});

describe('MCP OAuth settings', () => {
  it('defaults the resource to the MCP server on MCP_PORT, without a trailing slash', () => {
    expect(loadConsoleConfig({}).mcpResourceUrl).toBe('http://127.0.0.1:3001/mcp');
    expect(loadConsoleConfig({ MCP_PORT: '4001' }).mcpResourceUrl).toBe('http://127.0.0.1:4001/mcp');
    expect(loadConsoleConfig({ MCP_RESOURCE_URL: 'https://mcp.example.com/mcp/' }).mcpResourceUrl).toBe('https://mcp.example.com/mcp');
    expect(loadConsoleConfig({}).oauthAccessTokenTtlSeconds).toBe(600);
    expect(loadConsoleConfig({}).oauthRefreshGraceSeconds).toBe(30);
  });

  it('normalises a resource: one trailing slash of the path, the fragment, a bare origin', () => {
    expect(normaliseResource('https://mcp.example.com/mcp/')).toBe('https://mcp.example.com/mcp');
    expect(normaliseResource('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/mcp');
    expect(normaliseResource('https://mcp.example.com/')).toBe('https://mcp.example.com');
    expect(normaliseResource('https://MCP.example.com:443/mcp#x')).toBe('https://mcp.example.com/mcp');
    expect(normaliseResource('https://mcp.example.com/mcp/?a=1')).toBe('https://mcp.example.com/mcp?a=1');
  });
});

describe('the handoff e-mail window (issue 30)', () => {
  it('defaults to five minutes and takes 1 s to a day', () => {
    expect(loadConsoleConfig({}).handoffMailWindowSeconds).toBe(300);
    expect(loadConsoleConfig({ CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS: '6' }).handoffMailWindowSeconds).toBe(6);
    expect(() => loadConsoleConfig({ CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS: '0' })).toThrow(/CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS/);
    expect(() => loadConsoleConfig({ CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS: 'soon' })).toThrow(/CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS/);
  });
});

describe('sign-in throttle settings', () => {
  it('defaults: five failures per account (and pair), twenty per address, delays from 1 s doubling up to 5 min, a 15-minute window, known addresses for 30 days', () => {
    const c = loadConsoleConfig({});
    expect([c.signInMaxFailuresPerAccount, c.signInMaxFailuresPerAddress, c.signInDelaySeconds, c.signInMaxDelaySeconds, c.signInFailureWindowSeconds, c.signInKnownAddressDays]).toEqual([5, 20, 1, 300, 900, 30]);
  });

  it('reads the variables and refuses values out of range', () => {
    const c = loadConsoleConfig({ CONSOLE_SIGNIN_DELAY_SECONDS: '2', CONSOLE_SIGNIN_MAX_DELAY_SECONDS: '60', CONSOLE_SIGNIN_KNOWN_ADDRESS_DAYS: '0' });
    expect([c.signInDelaySeconds, c.signInMaxDelaySeconds, c.signInKnownAddressDays]).toEqual([2, 60, 0]);
    expect(() => loadConsoleConfig({ CONSOLE_SIGNIN_DELAY_SECONDS: '0' })).toThrow(/CONSOLE_SIGNIN_DELAY_SECONDS/);
    expect(() => loadConsoleConfig({ CONSOLE_SIGNIN_MAX_DELAY_SECONDS: 'soon' })).toThrow(/CONSOLE_SIGNIN_MAX_DELAY_SECONDS/);
    expect(() => loadConsoleConfig({ CONSOLE_SIGNIN_KNOWN_ADDRESS_DAYS: '400' })).toThrow(/CONSOLE_SIGNIN_KNOWN_ADDRESS_DAYS/);
  });
});
