import 'reflect-metadata';
import { loadMcpConfig } from './mcp.config';

describe('MCP config: the protected resource (issue 17)', () => {
  it('defaults the resource to http://127.0.0.1:<MCP_PORT>/mcp and the authorization server to the console default', () => {
    const config = loadMcpConfig({ MCP_PORT: '4001', NATS_URL: 'nats://127.0.0.1:4222' });
    expect(config.resourceUrl).toBe('http://127.0.0.1:4001/mcp');
    expect(config.consolePublicUrl).toBe('http://127.0.0.1:3002');
    expect(loadMcpConfig({ CONSOLE_PORT: '4002' }).consolePublicUrl).toBe('http://127.0.0.1:4002');
  });

  it('takes MCP_RESOURCE_URL exactly and CONSOLE_PUBLIC_URL as an origin', () => {
    const config = loadMcpConfig({ MCP_RESOURCE_URL: 'https://mcp.example.com/mcp', CONSOLE_PUBLIC_URL: 'https://console.example.com/' });
    expect(config.resourceUrl).toBe('https://mcp.example.com/mcp');
    expect(config.consolePublicUrl).toBe('https://console.example.com');
    expect(() => loadMcpConfig({ MCP_RESOURCE_URL: 'ftp://x/mcp' })).toThrow(/MCP_RESOURCE_URL/);
  });
});
