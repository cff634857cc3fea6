import { randomBytes } from 'node:crypto';
import { admin, createUser } from './support/admin';
import { request } from './support/api';
import { spawnApp, SpawnedApp, waitFor } from './support/apps';
import { ConsoleClient } from './support/console';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { errorOf, INITIALIZE, mcpConnect, mcpPost, McpSession } from './support/mcp';
import { artifactsOf, seedConnection, SeedOptions } from './support/oauth-seed';
import { e2eState } from './support/state';

/**
 * The MCP server as an OAuth protected resource (issue 17), and the console's Connections, against
 * the running system: RFC 9728 metadata at both well-known URLs, the 401 challenge, OAuth access
 * tokens verified by the console over NATS (console.connection.verify, the real handler), the
 * same rules as API tokens, and revocation in the console. Connections are seeded in schema
 * `people` as the authorization server leaves them (support/oauth-seed.ts); the browser flow that
 * creates them is tested with the authorization server.
 */
const PASSWORD = 'correct horse battery staple';

describe('MCP server: OAuth protected resource (issue 17)', () => {
  const s = e2eState();
  const wellKnown = new URL('/.well-known/oauth-protected-resource', s.mcpUrl).toString();
  const metadataParam = `resource_metadata="${wellKnown}"`;
  // Every 401: where the metadata is, and the scopes to ask for (those of the tools, issue 30).
  const resourceMetadata = `${metadataParam}, scope="bots:read kb:read kb:write chat:invoke conversations:read leads:read analytics:read bookings:read bookings:write"`;
  let a: TestWorkspace;
  let owner: ConsoleClient;
  let member: ConsoleClient;
  let ownerId: string;
  let botX: string;
  let botY: string;
  const sessions: McpSession[] = [];
  const replicas: SpawnedApp[] = [];

  const grant = (over: Partial<SeedOptions> = {}) => seedConnection({ workspaceId: a.id, personId: ownerId, scopes: ['bots:read', 'kb:read'], ...over });
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
    const tag = randomBytes(4).toString('hex');
    ownerId = (await createUser(a.id, `owner-${tag}@example.com`, 'owner', PASSWORD, 'Olive Owner')).id;
    await createUser(a.id, `member-${tag}@example.com`, 'member', PASSWORD);
    owner = new ConsoleClient();
    member = new ConsoleClient();
    expect((await owner.signIn(`owner-${tag}@example.com`, PASSWORD)).status).toBe(200);
    expect((await member.signIn(`member-${tag}@example.com`, PASSWORD)).status).toBe(200);
  });

  afterAll(async () => {
    await Promise.all(sessions.map((x) => x.close().catch(() => undefined)));
    await Promise.all(replicas.map((r) => r.kill()));
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
      const unknown = await mcpPost(INITIALIZE, bearer(randomBytes(32).toString('base64url')));
      expect([unknown.status, unknown.headers.get('www-authenticate')]).toEqual([401, `Bearer error="invalid_token", ${resourceMetadata}`]);
      expect(JSON.parse(unknown.text)).toEqual(expect.objectContaining({ code: 'unauthorized' }));
    });
  });

  describe('OAuth access tokens', () => {
    it('lists only the tools of the granted scopes, and a tool call is limited to the granted bot', async () => {
      const { secret } = await grant({ scopes: ['bots:read', 'kb:read'], botIds: [botX] });
      const x = await session(secret);
      const { tools } = await x.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['list_bots', 'list_knowledge']);
      expect(errorOf(await x.call('list_knowledge', { chatbotId: botX }))).toBeUndefined();
      expect(errorOf(await x.call('list_knowledge', { chatbotId: botY }))?.code).toBe('bot_access_denied');
      // A tool of a scope not granted: the step-up challenge (MCP authorization), 403 with
      // WWW-Authenticate naming the scopes to ask for, so the client can ask the person for more.
      const res = await fetch(s.mcpUrl, {
        method: 'POST',
        headers: { ...bearer(secret), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add_knowledge', arguments: { chatbotId: botX, title: 'x', text: 'y' } } }),
      });
      expect(res.status).toBe(403);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain('scope="bots:read kb:read kb:write"');
      expect(challenge).toContain(metadataParam);
      expect(await res.json()).toEqual(expect.objectContaining({ code: 'insufficient_scope', required_scope: 'kb:write' }));
    });

    it('refuses a token issued for another resource (401), tolerating only a trailing slash', async () => {
      const other = await grant({ audience: 'http://127.0.0.1:1/mcp' });
      const res = await mcpPost(INITIALIZE, bearer(other.secret));
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, `Bearer error="invalid_token", ${resourceMetadata}`]);
      const slash = await grant({ audience: `${s.mcpUrl}/` });
      expect((await mcpPost(INITIALIZE, bearer(slash.secret))).status).toBe(200);
    });

    it('refuses an expired token', async () => {
      const { secret } = await grant({ expiresIn: -1 });
      expect((await mcpPost(INITIALIZE, bearer(secret))).status).toBe(401);
    });

    it('a connection revoked in the console is refused at once (no cache), its grant gone so it cannot refresh; audited', async () => {
      const { secret, connectionId, grantId } = await grant();
      const x = await session(secret);
      expect(errorOf(await x.call('list_bots'))).toBeUndefined();
      const revoked = await owner.post(`/api/workspaces/${a.id}/connections/${connectionId}/revoke`);
      expect([revoked.status, revoked.body.id, typeof revoked.body.revoked_at]).toEqual([200, connectionId, 'string']);
      expect(await artifactsOf(grantId)).toBe(0);
      const res = await mcpPost({ jsonrpc: '2.0', id: 2, method: 'ping' }, bearer(secret));
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, `Bearer error="invalid_token", ${resourceMetadata}`]);
      await expect(x.call('list_bots')).rejects.toThrow(/401|Unauthorized/i);
      const audit = await owner.get(`/api/workspaces/${a.id}/audit`);
      expect(audit.body.data.filter((e: { target_id: string }) => e.target_id === connectionId).map((e: { action: string }) => e.action)).toEqual(['connection.revoked']);
      // Again: nothing changes, no second audit entry.
      const again = await owner.post(`/api/workspaces/${a.id}/connections/${connectionId}/revoke`);
      expect([again.status, again.body.revoked_at]).toEqual([200, revoked.body.revoked_at]);
    });

    it('402 api_locked while the workspace is not live; restored, the same connection works again', async () => {
      const w = await newWorkspace(['--plan', 'growth']);
      const { secret } = await grant({ workspaceId: w.id, personId: null, scopes: ['bots:read'] });
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

    it('the REST gateway accepts only mgpt_ tokens: an OAuth access token is 401 there', async () => {
      const { secret } = await grant({ scopes: ['bots:read'] });
      expect((await mcpPost(INITIALIZE, bearer(secret))).status).toBe(200);
      const res = await request('GET', '/v1/bots', undefined, { baseUrl: s.gatewayUrl, token: secret });
      expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
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
      const { secret } = await grant({ scopes: ['bots:read'] });
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

  describe('console: Connections', () => {
    it('lists the workspace’s connections for every member, newest first, with who approved them', async () => {
      const first = await grant({ scopes: ['bots:read'], botIds: [botX], clientName: 'Claude' });
      const second = await grant({ scopes: ['kb:read', 'bots:read'], personId: null, clientName: 'ChatGPT' });
      for (const who of [owner, member]) {
        const res = await who.get(`/api/workspaces/${a.id}/connections`);
        expect(res.status).toBe(200);
        const ids = res.body.data.map((c: { id: string }) => c.id);
        expect(ids.indexOf(second.connectionId)).toBeLessThan(ids.indexOf(first.connectionId));
        const c = res.body.data.find((x: { id: string }) => x.id === first.connectionId);
        expect(c).toEqual({
          id: first.connectionId,
          client_id: expect.stringMatching(/^https:\/\/client-/),
          client_name: 'Claude',
          approved_by: { person_id: ownerId, email: expect.stringMatching(/^owner-/), display_name: 'Olive Owner' },
          scopes: ['bots:read'],
          bot_ids: [botX],
          created_at: expect.any(String),
          last_used_at: null,
          revoked_at: null,
        });
        expect(res.body.data.find((x: { id: string }) => x.id === second.connectionId)).toMatchObject({ approved_by: null, bot_ids: null });
      }
    });

    it('a member cannot revoke (403 forbidden_role); revoking needs the CSRF token', async () => {
      const { connectionId, secret } = await grant();
      const res = await member.post(`/api/workspaces/${a.id}/connections/${connectionId}/revoke`);
      expect([res.status, res.body.code]).toEqual([403, 'forbidden_role']);
      const noCsrf = await owner.request('POST', `/api/workspaces/${a.id}/connections/${connectionId}/revoke`, undefined, { csrf: null });
      expect([noCsrf.status, noCsrf.body.code]).toEqual([403, 'csrf_failed']);
      expect((await mcpPost(INITIALIZE, bearer(secret))).status).toBe(200);
    });

    it('another workspace’s connections are not found (404), and so is a workspace the person is not in', async () => {
      const other = await newWorkspace(['--plan', 'growth']);
      const theirs = await grant({ workspaceId: other.id, personId: null });
      const cases = [
        await owner.post(`/api/workspaces/${a.id}/connections/${theirs.connectionId}/revoke`),
        await owner.post(`/api/workspaces/${a.id}/connections/00000000-0000-4000-8000-000000000000/revoke`),
        await owner.get(`/api/workspaces/${other.id}/connections`),
        await owner.post(`/api/workspaces/${other.id}/connections/${theirs.connectionId}/revoke`),
      ];
      for (const res of cases) expect([res.status, res.body.code]).toEqual([404, 'not_found']);
      const list = await owner.get(`/api/workspaces/${a.id}/connections`);
      expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(theirs.connectionId);
      expect((await mcpPost(INITIALIZE, bearer(theirs.secret))).status).toBe(200);
    });
  });
});
