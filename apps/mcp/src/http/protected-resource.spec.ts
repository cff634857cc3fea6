import 'reflect-metadata';
import { MCP_UNAUTHORIZED_MESSAGE, TOOL_SCOPES, bearerChallenge, mcpUnauthorizedBody, protectedResourceMetadata, resourceMetadataUrl } from './protected-resource';

describe('protected resource (RFC 9728)', () => {
  it('points 401s at the root well-known URL of the resource’s origin', () => {
    expect(resourceMetadataUrl('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl('http://127.0.0.1:3001/mcp')).toBe('http://127.0.0.1:3001/.well-known/oauth-protected-resource');
  });

  it('writes RFC 6750 challenges with quoted, escaped values', () => {
    expect(bearerChallenge({})).toBe('Bearer');
    expect(bearerChallenge({ error: 'invalid_token', resource_metadata: 'https://x/.well-known/oauth-protected-resource' })).toBe(
      'Bearer error="invalid_token", resource_metadata="https://x/.well-known/oauth-protected-resource"',
    );
    expect(bearerChallenge({ error_description: 'a "b" \\c' })).toBe('Bearer error_description="a \\"b\\" \\\\c"');
  });

  it('describes the resource exactly, with the ten scopes', () => {
    const m = protectedResourceMetadata({ resourceUrl: 'https://mcp.example.com/mcp', consolePublicUrl: 'https://console.example.com' });
    expect(m).toMatchObject({ resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://console.example.com'], bearer_methods_supported: ['header'] });
    expect(m.scopes_supported).toHaveLength(10);
  });

  it('hints the scopes of the MCP tools (not bots:write, which no tool uses)', () => {
    expect(TOOL_SCOPES).toEqual(['bots:read', 'kb:read', 'kb:write', 'chat:invoke', 'conversations:read', 'leads:read', 'analytics:read', 'bookings:read', 'bookings:write']);
  });

  it('replaces a 401 message about API tokens only, keeps a specific one and the shape', () => {
    const generic = JSON.stringify({ error: 'Unauthorized', code: 'unauthorized', message: 'Missing, invalid, expired or revoked API token' });
    expect(JSON.parse(mcpUnauthorizedBody(generic) as string)).toEqual({ error: 'Unauthorized', code: 'unauthorized', message: MCP_UNAUTHORIZED_MESSAGE });
    expect(MCP_UNAUTHORIZED_MESSAGE).toMatch(/OAuth access token/);
    const specific = JSON.stringify({ error: 'Unauthorized', code: 'unauthorized', message: 'This access token has expired' });
    expect(mcpUnauthorizedBody(specific)).toBe(specific);
    expect(mcpUnauthorizedBody('not json')).toBe('not json');
  });
});
