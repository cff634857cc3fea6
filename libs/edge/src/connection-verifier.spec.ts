import 'reflect-metadata';
import type { VerifyConnectionTokenReply } from '@sa/contracts';
import { hashTokenSecret, workspaceFacts } from '@sa/identity';
import { ConnectionVerifier, sameResource } from './connection-verifier';
import { EdgeAuthenticator } from './edge-auth';
import { MemoryRateLimiter } from './rate-limiter';

const RESOURCE = 'http://127.0.0.1:3001/mcp';
const WS = '7d0c3a43-0a3e-4c56-9c1f-1d2b3c4d5e6f';
const CONN = '0b3f8a4e-6c2d-4e1f-8a9b-1c2d3e4f5a6b';
const SECRET = 'oauth-access-token-0123456789abcdef';

function reply(over: Partial<VerifyConnectionTokenReply> = {}): VerifyConnectionTokenReply {
  return {
    token: { id: CONN, workspaceId: WS, name: 'Claude', scopes: ['bots:read'], botIds: null, expiresAt: new Date(Date.now() + 60000).toISOString() },
    workspace: null,
    audience: RESOURCE,
    ...over,
  };
}

describe('ConnectionVerifier', () => {
  const workspaces = async (id: string) => workspaceFacts({ id });

  it('accepts any well-formed bearer that is not an API token', () => {
    const v = new ConnectionVerifier(async () => reply(), workspaces, RESOURCE);
    expect(v.accepts(SECRET)).toBe(true);
    expect(v.accepts(`mgpt_${'a'.repeat(43)}`)).toBe(false);
    expect(v.accepts('mgpt_short')).toBe(false);
    expect(v.accepts('short')).toBe(false);
    expect(v.accepts('x'.repeat(3000))).toBe(false);
  });

  it('asks by the sha256 hex of the bearer and resolves the connection as a token-shaped grant', async () => {
    const asked: string[] = [];
    const v = new ConnectionVerifier(async (h) => (asked.push(h), reply()), workspaces, RESOURCE);
    const { token, workspace } = await v.verify(SECRET);
    expect(asked).toEqual([hashTokenSecret(SECRET)]);
    expect(token).toMatchObject({ id: CONN, scopes: ['bots:read'], botIds: null });
    expect(workspace.id).toBe(WS);
  });

  it('refuses unknown or revoked tokens, another audience, expired tokens', async () => {
    const verify = (r: VerifyConnectionTokenReply, resource = RESOURCE) => new ConnectionVerifier(async () => r, workspaces, resource).verify(SECRET);
    await expect(verify(reply({ token: null }))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(verify(reply({ audience: 'http://127.0.0.1:3001/other' }))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(verify(reply({ audience: null }))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(verify(reply({ token: { ...reply().token!, expiresAt: new Date(Date.now() - 1).toISOString() } }))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(verify(reply({ audience: `${RESOURCE}/` }))).resolves.toBeDefined();
    await expect(verify(reply(), `${RESOURCE}/`)).resolves.toBeDefined();
  });

  it('shares nothing with API tokens in the rate limit: its budget is keyed by the connection id', async () => {
    const limiter = new MemoryRateLimiter(2, 60000);
    const auth = new EdgeAuthenticator([new ConnectionVerifier(async () => reply(), workspaces, RESOURCE)], limiter, {} as never);
    const keys: string[] = [];
    const hit = limiter.hit.bind(limiter);
    limiter.hit = (key: string) => (keys.push(key), hit(key));
    await auth.authenticate(SECRET, 'r1').catch(() => undefined);
    expect(keys).toEqual([`connection:${CONN}`]);
  });

  it('compares resources with a trailing slash tolerated, nothing else', () => {
    expect(sameResource('https://a.example/mcp/', 'https://a.example/mcp')).toBe(true);
    expect(sameResource('https://a.example/mcp', 'https://a.example/MCP')).toBe(false);
  });
});
