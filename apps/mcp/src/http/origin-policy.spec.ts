import { OriginPolicy, hostName, parseList } from './origin-policy';

describe('OriginPolicy (DNS-rebinding defence)', () => {
  const defaults = new OriginPolicy({ allowedOrigins: [], allowedHosts: [] });

  it('lets requests without an Origin through (agents, servers, CLIs)', () => {
    expect(defaults.refusal({ host: 'mcp.example.com' })).toBeNull();
  });

  it.each(['http://localhost:3001', 'http://127.0.0.1', 'http://[::1]:8080', 'https://localhost'])('allows the loopback origin %s by default', (origin) => {
    expect(defaults.refusal({ origin, host: '127.0.0.1:3001' })).toBeNull();
  });

  it.each(['http://evil.example.com', 'https://localhost.evil.example', 'null', 'not a url', 'http://127.0.0.2'])('refuses the origin %s by default', (origin) => {
    expect(defaults.refusal({ origin })).toMatch(/not allowed/);
  });

  it('allows the configured origins, compared as origins (case, default port, no path)', () => {
    const p = new OriginPolicy({ allowedOrigins: ['https://Console.Example.com:443/'], allowedHosts: [] });
    expect(p.refusal({ origin: 'https://console.example.com' })).toBeNull();
    expect(p.refusal({ origin: 'https://console.example.com:8443' })).toMatch(/not allowed/);
    expect(p.refusal({ origin: 'http://console.example.com' })).toMatch(/not allowed/);
  });

  it('allows every origin with *', () => {
    expect(new OriginPolicy({ allowedOrigins: ['*'], allowedHosts: [] }).refusal({ origin: 'https://anything.example' })).toBeNull();
  });

  it('checks Host only when hosts are configured, ignoring the port', () => {
    const p = new OriginPolicy({ allowedOrigins: [], allowedHosts: ['mcp.example.com', '[::1]'] });
    expect(p.refusal({ host: 'mcp.example.com:443' })).toBeNull();
    expect(p.refusal({ host: '[::1]:3001' })).toBeNull();
    expect(p.refusal({ host: 'evil.example.com' })).toMatch(/Host evil.example.com is not allowed/);
    expect(p.refusal({})).toMatch(/not allowed/);
  });

  it('parses comma-separated lists and host names', () => {
    expect(parseList(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
    expect(parseList(undefined)).toEqual([]);
    expect(hostName('Example.COM:80')).toBe('example.com');
    expect(hostName('[::1]:3001')).toBe('[::1]');
  });
});
