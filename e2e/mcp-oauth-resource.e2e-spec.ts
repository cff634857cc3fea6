import { createHash, randomBytes } from 'node:crypto';
import { connect, NatsConnection, Subscription } from 'nats';
import type { VerifyConnectionTokenReply } from '@sa/contracts';
import { admin } from './support/admin';
import { request } from './support/api';
import { spawnApp, SpawnedApp, waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { errorOf, INITIALIZE, mcpConnect, mcpPost, McpSession } from './support/mcp';
import { e2eState } from './support/state';

/**
 * The MCP server as an OAuth protected resource (issue 17), against the running system: RFC 9728
 * metadata at both well-known URLs, the 401 challenge, and OAuth access tokens verified over NATS
 * `console.connection.verify`. The console's handler is stood in for by a real NATS responder of
 * this test (the contract in libs/contracts), so the MCP server, the tools behind it, the identity
 * cache and the rate limiter are all the real ones.
 */
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

interface Connection {
  id: string;
  workspaceId: string;
  scopes: string[];
  botIds: string[] | null;
  audience: string;
  expiresAt: string | null;
  revoked: boolean;
}

describe('MCP server: OAuth protected resource (issue 17)', () => {
  const s = e2eState();
  const wellKnown = new URL('/.well-known/oauth-protected-resource', s.mcpUrl).toString();
  const resourceMetadata = `resource_metadata="${wellKnown}"`;
  const connections = new Map<string, Connection>();
  const asked: string[] = [];
  let nc: NatsConnection;
  let sub: Subscription;
  let a: TestWorkspace;
  let botX: string;
  let botY: string;
  const sessions: McpSession[] = [];
  const replicas: SpawnedApp[] = [];

  /** A connection the stand-in console knows, and the access token that resolves to it. */
  const grant = (over: Partial<Connection> = {}): { secret: string; connection: Connection } => {
    const secret = newSecret();
    const connection: Connection = {
      id: crypto.randomUUID(),
      workspaceId: a.id,
      scopes: ['bots:read', 'kb:read'],
      botIds: null,
      audience: s.mcpUrl,
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
      revoked: false,
      ...over,
    };
    connections.set(sha256(secret), connection);
    return { secret, connection };
  };
  const session = async (secret: string, url?: string) => {
    const x = await mcpConnect(secret, url ? { url } : {});
    sessions.push(x);
    return x;
  };
  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

  beforeAll(async () => {
    a = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    botX = (await a.api.post('/bots', { name: 'OAuth X', language: 'en' })).body.data.id;
    botY = (await a.api.post('/bots', { name: 'OAuth Y', language: 'en' })).body.data.id;
    nc = await connect({ servers: s.natsUrl, name: 'e2e-console-stand-in' });
    sub = nc.subscribe('console.connection.verify', {
      callback: (_err, msg) => {
        const { id, data } = JSON.parse(Buffer.from(msg.data).toString('utf8')) as { id: string; data: { data: { tokenHash: string } } };
        const hash = data.data.tokenHash;
        asked.push(hash);
        const c = connections.get(hash);
        // workspace null: the MCP server takes the workspace's facts from its identity cache (kept current by the gateway's feed).
        const response: VerifyConnectionTokenReply =
          c && !c.revoked
            ? { token: { id: c.id, workspaceId: c.workspaceId, name: 'Test client', scopes: c.scopes as never, botIds: c.botIds, expiresAt: c.expiresAt }, workspace: null, audience: c.audience }
            : { token: null, workspace: null, audience: null };
        msg.respond(Buffer.from(JSON.stringify({ id, response, isDisposed: true })));
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    await Promise.all(sessions.map((x) => x.close().catch(() => undefined)));
    await Promise.all(replicas.map((r) => r.kill()));
    sub?.unsubscribe();
    await nc?.drain();
  });

  describe('protected resource metadata (RFC 9728)', () => {
    it('is served at both well-known URLs, naming the exact resource and the console as authorization server', async () => {
      for (const url of [wellKnown, `${wellKnown}/mcp`]) {
        const res = await fetch(url, { headers: { origin: 'https://claude.ai' } });
        expect([url, res.status]).toEqual([url, 200]);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        const body = (await res.json()) as { scopes_supported: string[] };
        expect(body).toEqual({
          resource: s.mcpUrl,
          authorization_servers: [s.env['CONSOLE_PUBLIC_URL']],
          scopes_supported: expect.arrayContaining(['bots:read', 'kb:read', 'kb:write', 'chat:invoke', 'conversations:read', 'leads:read', 'analytics:read', 'bookings:read', 'bookings:write']),
          bearer_methods_supported: ['header'],
          resource_name: expect.any(String),
        });
        expect(body.scopes_supported).toHaveLength(10);
      }
    });

    it('answers a browser preflight (the SDK sends MCP-Protocol-Version with discovery)', async () => {
      const res = await fetch(wellKnown, { method: 'OPTIONS', headers: { origin: 'https://chatgpt.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' } });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-protocol-version');
    });

    it('every 401 from /mcp says where it is', async () => {
      const none = await mcpPost(INITIALIZE);
      expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, `Bearer ${resourceMetadata}`]);
      const unknown = await mcpPost(INITIALIZE, bearer(newSecret()));
      expect([unknown.status, unknown.headers.get('www-authenticate')]).toEqual([401, `Bearer error="invalid_token", ${resourceMetadata}`]);
      expect(JSON.parse(unknown.text)).toEqual(expect.objectContaining({ code: 'unauthorized' }));
    });
  });

  describe('OAuth access tokens', () => {
    it('lists only the tools of the granted scopes, and a tool call is limited to the granted bot', async () => {
      const { secret } = grant({ scopes: ['bots:read', 'kb:read'], botIds: [botX] });
      const x = await session(secret);
      const { tools } = await x.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['list_bots', 'list_knowledge']);
      expect(errorOf(await x.call('list_knowledge', { chatbotId: botX }))).toBeUndefined();
      expect(errorOf(await x.call('list_knowledge', { chatbotId: botY }))?.code).toBe('bot_access_denied');
      // A tool of a scope not granted stays a tool error (403 insufficient_scope), as for API tokens.
      expect(errorOf(await x.call('add_knowledge', { chatbotId: botX, title: 'x', text: 'y' }))?.code).toBe('insufficient_scope');
      expect(asked).toContain(sha256(secret));
    });

    it('refuses a token issued for another resource (401), tolerating only a trailing slash', async () => {
      const other = grant({ audience: 'http://127.0.0.1:1/mcp' });
      const res = await mcpPost(INITIALIZE, bearer(other.secret));
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, `Bearer error="invalid_token", ${resourceMetadata}`]);
      const slash = grant({ audience: `${s.mcpUrl}/` });
      expect((await mcpPost(INITIALIZE, bearer(slash.secret))).status).toBe(200);
    });

    it('refuses an expired token', async () => {
      const { secret } = grant({ expiresAt: new Date(Date.now() - 1000).toISOString() });
      expect((await mcpPost(INITIALIZE, bearer(secret))).status).toBe(401);
    });

    it('a revoked connection is refused at once (no cache)', async () => {
      const { secret, connection } = grant();
      const x = await session(secret);
      expect(errorOf(await x.call('list_bots'))).toBeUndefined();
      connection.revoked = true;
      const res = await mcpPost({ jsonrpc: '2.0', id: 2, method: 'ping' }, bearer(secret));
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, `Bearer error="invalid_token", ${resourceMetadata}`]);
      await expect(x.call('list_bots')).rejects.toThrow(/401|Unauthorized/i);
    });

    it('402 api_locked while the workspace is not live; restored, the same connection works again', async () => {
      const w = await newWorkspace(['--plan', 'growth']);
      const { secret } = grant({ workspaceId: w.id, scopes: ['bots:read'] });
      expect(errorOf(await (await session(secret)).call('list_bots'))).toBeUndefined();
      await admin(['workspace', 'update', '--id', w.id, '--status', 'past_due']);
      try {
        const locked = await waitFor(() => mcpPost(INITIALIZE, bearer(secret)), (r) => r.status === 402, 10000);
        expect(JSON.parse(locked.text)).toEqual(expect.objectContaining({ code: 'api_locked' }));
      } finally {
        await admin(['workspace', 'update', '--id', w.id, '--status', 'active']);
      }
      await waitFor(() => mcpPost(INITIALIZE, bearer(secret)), (r) => r.status === 200, 10000);
      expect(errorOf(await (await session(secret)).call('list_bots'))).toBeUndefined();
    });

    it('the REST gateway accepts only mgpt_ tokens: an OAuth access token is 401 there, never asked of the console', async () => {
      const { secret } = grant({ scopes: ['bots:read'] });
      const before = asked.length;
      const res = await request('GET', '/v1/bots', undefined, { baseUrl: s.gatewayUrl, token: secret });
      expect(res.status).toBe(401);
      expect(asked.length).toBe(before);
    });
  });

  describe('one rate-limit budget per connection', () => {
    it('is shared by every replica, and apart from the workspace’s API tokens', async () => {
      const prefix = `${s.rateLimitPrefix}oauth-${randomBytes(3).toString('hex')}:`;
      const urls: string[] = [];
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        // The replicas' resource URL is the shared MCP URL, as behind one load balancer.
        replicas.push(spawnApp('mcp', { MCP_PORT: String(port), MCP_RESOURCE_URL: s.mcpUrl, RATE_LIMIT_PREFIX: prefix, RATE_LIMIT_REQUESTS: '4', RATE_LIMIT_WINDOW_SECONDS: '60' }));
        await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 20000);
        urls.push(`http://127.0.0.1:${port}/mcp`);
      }
      const { secret } = grant({ scopes: ['bots:read'] });
      const ping = (i: number, auth = bearer(secret)) => mcpPost({ jsonrpc: '2.0', id: i, method: 'ping' }, auth, urls[i % 2]);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await ping(i)).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      const over = await ping(4);
      expect(over.status).toBe(429);
      expect(JSON.parse(over.text)).toEqual(expect.objectContaining({ code: 'rate_limited' }));
      expect((await ping(5)).status).toBe(429);
      // The workspace's API token has its own budget.
      expect((await ping(6, bearer(a.token))).status).toBe(200);
    });
  });
});
