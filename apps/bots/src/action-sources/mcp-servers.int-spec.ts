import 'reflect-metadata';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, MCP_ENABLED_TOOLS_PER_BOT_MAX } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DEFAULT_OUTBOUND_POLICY, outboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { createTestDatabase, domainErrorCode, type LocalMcpServer, type LocalOAuthServer, startLocalMcpServer, startLocalOAuthServer } from '@sa/testing';
import { McpServersRepository } from './mcp-servers.repository';
import { McpServersService } from './mcp-servers.service';

// bots.mcp-server.* against the real PostgreSQL and a real MCP server on 127.0.0.1 built with the
// official SDK (stateless Streamable HTTP, bearer token checked by the server): a sync lists and
// stores the tools with their defaults, keeps the owner's flags on the next one, and stores a
// refusal (no token, the outbound policy) as the server's error; the token is sealed, in no
// view and no error. http here only because the service is built with allowHttp (the API takes https).
// OAuth as a client against a real authorization server (oidc-provider, DCR + PKCE, introspection)
// protecting a second SDK MCP server: Connect, the consent, the callback, a sync, refresh when the
// access token expires and when the server refuses it, and every way a callback can be wrong.

const TOKEN = `mcp-tok-${randomBytes(8).toString('hex')}`;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let mcp: LocalMcpServer;
const box = new SecretBox(randomBytes(32));

const service = (policy = outboundPolicy({ allowedPorts: [mcp.port], allowCidrs: ['127.0.0.1/32'] })) =>
  new McpServersService(new McpServersRepository(ds), box, policy, { allowHttp: true, timeoutMs: 3000 });

beforeAll(async () => {
  db = await createTestDatabase('sa_bots_mcp');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('bots'), applicationName: 'bots-mcp-int', poolSize: 5 })).initialize();
  mcp = await startLocalMcpServer({ token: TOKEN });
});

afterAll(async () => {
  await mcp?.stop();
  await ds?.destroy();
  await db?.drop();
});

beforeEach(() => {
  mcp.seen.length = 0;
});

function ctxOf(tenantId: string): CallerContext {
  return { tenantId, tokenId: null, scopes: [], botIds: null, requestId: randomUUID(), entitlements: {} } as unknown as CallerContext;
}

async function newBot(tenantId: string = randomUUID()): Promise<{ botId: string; ctx: CallerContext }> {
  const [row]: { id: string }[] = await ds.query(`INSERT INTO bots.bots (tenant_id, name, language, slot_kind) VALUES ($1, $2, 'en', 'plan') RETURNING id`, [tenantId, `b-${randomUUID().slice(0, 8)}`]);
  return { botId: row!.id, ctx: ctxOf(tenantId) };
}

describe('bots.mcp-server.* with a real MCP server', () => {
  it('syncs: lists the tools through the guard with the bearer token, stores them with their defaults, token sealed and in no answer', async () => {
    const { botId, ctx } = await newBot();
    const s = service();
    const created = await s.create(ctx, { botId, name: 'shop', url: mcp.url, token: TOKEN });
    expect(created).toMatchObject({ name: 'shop', auth: 'bearer', has_token: true, tools: [], last_synced_at: null, error: null });
    expect(JSON.stringify(created)).not.toContain(TOKEN);
    const [raw] = await ds.query(`SELECT row_to_json(s)::text AS row, s.auth_sealed FROM bots.mcp_servers s WHERE id = $1`, [created.id]);
    expect(raw.row).not.toContain(TOKEN);
    expect(JSON.parse(box.open(raw.auth_sealed))).toEqual({ type: 'bearer', token: TOKEN });

    const synced = await s.sync(ctx, botId, created.id);
    expect(synced.error).toBeNull();
    expect(synced.last_synced_at).not.toBeNull();
    expect(JSON.stringify(synced)).not.toContain(TOKEN);
    const order = synced.tools.find((t) => t.name === 'order_status');
    expect(order).toEqual({
      name: 'order_status',
      model_name: 'shop_order_status',
      description: 'Where an order is: its status and carrier.',
      input_schema: expect.objectContaining({ type: 'object', properties: { order_id: expect.objectContaining({ type: 'string' }) }, required: ['order_id'] }),
      // The server marks it read-only: no confirmation by default.
      confirm: false,
      verified_only: false,
      enabled: true,
    });
    expect(order!.input_schema).not.toHaveProperty('$schema');
    // A write: confirmation by default.
    expect(synced.tools.find((t) => t.name === 'cancel_order')).toMatchObject({ confirm: true, verified_only: false, enabled: true });
    expect(synced.tools.map((t) => t.name)).toEqual(['order_status', 'cancel_order', 'echo_auth', 'fail', 'slow']);
    // Every request carried the token (the server checks it: it answered).
    expect(mcp.seen.length).toBeGreaterThan(0);
    expect(mcp.seen.every((r) => r.headers['authorization'] === `Bearer ${TOKEN}`)).toBe(true);

    // The owner's flags survive the next sync.
    const changed = await s.update(ctx, { botId, serverId: created.id, tools: [{ name: 'order_status', verified_only: true }, { name: 'slow', enabled: false }] });
    expect(changed.tools.find((t) => t.name === 'order_status')).toMatchObject({ verified_only: true, confirm: false });
    const again = await s.sync(ctx, botId, created.id);
    expect(again.tools.find((t) => t.name === 'order_status')).toMatchObject({ verified_only: true });
    expect(again.tools.find((t) => t.name === 'slow')).toMatchObject({ enabled: false });

    // For chat: the enabled tools only, the token still sealed.
    const [spec] = await s.specs(ctx, botId);
    expect(spec!.tools.map((t) => t.model_name)).toEqual(['shop_order_status', 'shop_cancel_order', 'shop_echo_auth', 'shop_fail']);
    expect(spec!.auth_sealed).toMatch(/^v1:/);
    expect(JSON.stringify(spec)).not.toContain(TOKEN);
  });

  it('stores a refusal as the error, keeping the tools: a wrong token (the server says 401), then 127.0.0.1 without an allowed range (nothing sent)', async () => {
    const { botId, ctx } = await newBot();
    const s = service();
    const created = await s.create(ctx, { botId, name: 'shop', url: mcp.url, token: TOKEN });
    expect((await s.sync(ctx, botId, created.id)).tools).toHaveLength(5);

    const wrong = `wrong-${TOKEN}`;
    const refused = await s.update(ctx, { botId, serverId: created.id, token: wrong });
    const failed = await s.sync(ctx, botId, refused.id);
    expect(failed.error).toMatch(/refused the credentials|401/);
    expect(failed.tools).toHaveLength(5);
    expect(JSON.stringify(failed)).not.toContain(wrong);

    mcp.seen.length = 0;
    const strict = service(outboundPolicy({ allowedPorts: [mcp.port] }));
    const blocked = await strict.sync(ctx, botId, created.id);
    expect(blocked.error).toMatch(/127\.0\.0\.1|not allowed|private|loopback/i);
    expect(mcp.seen).toHaveLength(0);
    const defaultPolicy = await service(DEFAULT_OUTBOUND_POLICY).sync(ctx, botId, created.id);
    expect(defaultPolicy.error).not.toBeNull();
    expect(mcp.seen).toHaveLength(0);
  });

  it('never follows a redirect (the token stays home), and a server that does not answer in time is a timeout', async () => {
    const { botId, ctx } = await newBot();
    const s = new McpServersService(new McpServersRepository(ds), box, outboundPolicy({ allowedPorts: [mcp.port], allowCidrs: ['127.0.0.1/32'] }), { allowHttp: true, timeoutMs: 500 });
    const created = await s.create(ctx, { botId, name: 'shop', url: mcp.url, token: TOKEN });
    mcp.override = (req, res) => {
      if (req.url === '/mcp') {
        res.writeHead(307, { location: '/elsewhere' }).end();
        return true;
      }
      return false;
    };
    try {
      const redirected = await s.sync(ctx, botId, created.id);
      expect(redirected.error).toMatch(/redirect/);
      expect(mcp.seen.map((r) => r.path)).not.toContain('/elsewhere');

      mcp.override = (req) => req.url === '/mcp'; // never answers
      const late = await s.sync(ctx, botId, created.id);
      expect(late.error).toMatch(/no answer within|timed out/);
    } finally {
      mcp.override = null;
    }
  });

  it('checks the rules: https, token with bearer, a new origin needs the token again, unique names, the cap of enabled tools', async () => {
    const { botId, ctx } = await newBot();
    const strictHttps = new McpServersService(new McpServersRepository(ds), box, DEFAULT_OUTBOUND_POLICY);
    expect(await domainErrorCode(strictHttps.create(ctx, { botId, name: 'plain', url: 'http://mcp.example/mcp' }))).toBe('validation_failed');
    expect(await domainErrorCode(strictHttps.create(ctx, { botId, name: 'creds', url: 'https://u:p@mcp.example/mcp' }))).toBe('validation_failed');
    expect(await domainErrorCode(strictHttps.create(ctx, { botId, name: 'notoken', url: 'https://mcp.example/mcp', auth: 'bearer' }))).toBe('validation_failed');
    expect(await domainErrorCode(strictHttps.create(ctx, { botId, name: 'both', url: 'https://mcp.example/mcp', auth: 'none', token: 'x' }))).toBe('validation_failed');
    const a = await strictHttps.create(ctx, { botId, name: 'Shop', url: 'https://mcp.example/mcp', token: TOKEN });
    expect(await domainErrorCode(strictHttps.create(ctx, { botId, name: 'shop', url: 'https://other.example/mcp' }))).toBe('conflict');
    expect(await domainErrorCode(strictHttps.update(ctx, { botId, serverId: a.id, url: 'https://evil.example/mcp' }))).toBe('validation_failed');
    // Same origin: the token stays; another with the token given again: allowed, tools forgotten.
    expect((await strictHttps.update(ctx, { botId, serverId: a.id, url: 'https://mcp.example/v2/mcp' })).has_token).toBe(true);
    const moved = await strictHttps.update(ctx, { botId, serverId: a.id, url: 'https://new.example/mcp', token: 'another-token' });
    expect([moved.url, moved.has_token, moved.tools]).toEqual(['https://new.example/mcp', true, []]);
    const none = await strictHttps.update(ctx, { botId, serverId: a.id, auth: 'none' });
    expect([none.auth, none.has_token]).toEqual(['none', false]);
    expect(await domainErrorCode(strictHttps.update(ctx, { botId, serverId: a.id, tools: [{ name: 'nope', enabled: true }] }))).toBe('validation_failed');

    // The cap: four servers of five tools each fill it; a fifth server's tools arrive off and cannot be turned on.
    const s = service();
    const { botId: full, ctx: fullCtx } = await newBot();
    for (let i = 0; i < MCP_ENABLED_TOOLS_PER_BOT_MAX / 5; i++) {
      const srv = await s.create(fullCtx, { botId: full, name: `s${i}`, url: mcp.url, token: TOKEN });
      expect((await s.sync(fullCtx, full, srv.id)).tools.every((t) => t.enabled)).toBe(true);
    }
    const extra = await s.create(fullCtx, { botId: full, name: 'extra', url: mcp.url, token: TOKEN });
    const off = await s.sync(fullCtx, full, extra.id);
    expect(off.tools.map((t) => t.enabled)).toEqual([false, false, false, false, false]);
    expect(await domainErrorCode(s.update(fullCtx, { botId: full, serverId: extra.id, tools: [{ name: 'order_status', enabled: true }] }))).toBe('conflict');
    expect(await domainErrorCode(s.create(fullCtx, { botId: full, name: 'sixth', url: mcp.url }))).toBe('conflict');

    // Another workspace sees nothing.
    const stranger = ctxOf(randomUUID());
    expect(await domainErrorCode(s.list(stranger, full))).toBe('not_found');
    expect(await domainErrorCode(s.sync(stranger, full, extra.id))).toBe('not_found');
    expect(await domainErrorCode(s.delete(stranger, full, extra.id))).toBe('not_found');
    expect((await s.delete(fullCtx, full, extra.id)).name).toBe('extra');
  });
});

describe('bots.mcp-server.* with OAuth as a client (a real authorization server)', () => {
  const REDIRECT = 'http://127.0.0.1:9/api/oauth/mcp-callback';
  const OWNER_SECRET = `owner-secret-${randomBytes(8).toString('hex')}`;
  const person = randomUUID();
  let rs: LocalMcpServer;
  let as: LocalOAuthServer;
  const sha = (t: string) => createHash('sha256').update(t).digest('hex');
  const oauthService = (policy = outboundPolicy({ allowedPorts: [rs.port, as.port], allowCidrs: ['127.0.0.1/32'] })) =>
    new McpServersService(new McpServersRepository(ds), box, policy, { allowHttp: true, timeoutMs: 5000, refreshMarginSeconds: 0 });
  const stored = async (id: string) => (await ds.query(`SELECT row_to_json(s)::text AS row, s.* FROM bots.mcp_servers s WHERE id = $1`, [id]))[0];

  beforeAll(async () => {
    rs = await startLocalMcpServer();
    as = await startLocalOAuthServer({
      resource: rs.url,
      accessTokenTtlSeconds: 2,
      staticClients: [{ client_id: 'owner-client', client_secret: OWNER_SECRET, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }],
    });
    rs.oauth = { authorizationServer: as.issuer, active: (t) => as.active(t) };
  });
  afterAll(async () => {
    await as?.stop();
    await rs?.stop();
  });

  async function connect(s: McpServersService, ctx: CallerContext, botId: string, serverId: string) {
    const started = await s.oauthStart(ctx, { botId, serverId, redirectUri: REDIRECT, personId: person });
    const back = await as.consent(started.authorization_url);
    return { started, back, state: back.searchParams.get('state')!, code: back.searchParams.get('code')!, iss: back.searchParams.get('iss') ?? undefined };
  }

  it('Connect: discovery, registration and PKCE; the consent; the callback exchanges the code once, stores the tokens sealed and syncs', async () => {
    const { botId, ctx } = await newBot();
    const s = oauthService();
    const created = await s.create(ctx, { botId, name: 'orders', url: rs.url, auth: 'oauth' });
    expect(created).toMatchObject({ auth: 'oauth', has_token: false, oauth: { client_id: null, has_client_secret: false, scope: null, authorization_server: null, token_expires_at: null } });
    expect((await s.sync(ctx, botId, created.id)).error).toMatch(/Not connected/);

    const before = await as.stats();
    const started = await s.oauthStart(ctx, { botId, serverId: created.id, redirectUri: REDIRECT, personId: person });
    const auth = new URL(started.authorization_url);
    expect(auth.origin).toBe(as.issuer);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(auth.searchParams.get('resource')).toBe(rs.url);
    const state = auth.searchParams.get('state')!;
    expect(state.length).toBeGreaterThanOrEqual(43);
    expect((await as.stats()).registrations).toBe(before.registrations + 1);
    const row = await stored(created.id);
    expect(row.oauth_state_hash).toBe(sha(state));
    expect(row.row).not.toContain(state);
    expect(row.row).not.toContain(auth.searchParams.get('code_challenge'));

    const back = await as.consent(started.authorization_url);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    const code = back.searchParams.get('code')!;
    const iss = back.searchParams.get('iss')!;
    expect(iss).toBe(as.issuer);

    // The flow is the person's who started it; a forged or unknown state says nothing.
    expect(await s.oauthFlow({ state, personId: person })).toEqual({ tenant_id: ctx.tenantId, bot_id: botId, server_id: created.id });
    expect(await domainErrorCode(s.oauthFlow({ state, personId: randomUUID() }))).toBe('invalid_token');
    expect(await domainErrorCode(s.oauthFlow({ state: `${state}x`, personId: person }))).toBe('invalid_token');
    expect(await domainErrorCode(s.oauthFinish(ctx, { botId, serverId: created.id, state: randomBytes(32).toString('base64url'), code, iss, personId: person }))).toBe('invalid_token');
    expect((await stored(created.id)).oauth_state_hash).toBe(sha(state));

    const finished = await s.oauthFinish(ctx, { botId, serverId: created.id, state, code, iss, personId: person });
    expect(finished.message).toBeNull();
    expect(finished.connected).toBe(true);
    expect(finished.server).toMatchObject({ has_token: true, error: null, oauth: { authorization_server: as.issuer, client_id: null } });
    expect(finished.server.oauth!.token_expires_at).not.toBeNull();
    expect(finished.server.tools.map((t) => t.name)).toEqual(['order_status', 'cancel_order', 'echo_auth', 'fail', 'slow']);
    expect((await as.stats()).grants['authorization_code']).toBe((before.grants['authorization_code'] ?? 0) + 1);

    // Sealed: the access token for chat, the refresh token for this service only; neither in the clear.
    const after = await stored(created.id);
    const access = JSON.parse(box.open(after.auth_sealed));
    expect(access).toMatchObject({ type: 'oauth', token: expect.any(String), expires_at: expect.any(String) });
    const secrets = JSON.parse(box.open(after.oauth_sealed));
    expect(secrets.tokens.refresh_token).toEqual(expect.any(String));
    expect(after.row).not.toContain(access.token);
    expect(after.row).not.toContain(secrets.tokens.refresh_token);
    expect(after.oauth_state_hash).toBeNull();
    expect(JSON.stringify(finished)).not.toContain(access.token);
    expect(rs.seen.filter((r) => r.path === '/mcp').every((r) => r.headers['authorization'] === `Bearer ${access.token}`)).toBe(true);

    // Single use: the same callback again is refused, and stores nothing.
    expect(await domainErrorCode(s.oauthFinish(ctx, { botId, serverId: created.id, state, code, iss, personId: person }))).toBe('invalid_token');
    expect((await stored(created.id)).auth_sealed).toBe(after.auth_sealed);

    // For chat: the access token, sealed as a bearer's.
    const [spec] = await s.specs(ctx, botId);
    expect(JSON.parse(box.open(spec!.auth_sealed!))).toEqual(access);
  });

  it('refreshes: when the access token expired (a sync, chat asking), and when the server refuses it (401, then one more try)', async () => {
    const { botId, ctx } = await newBot();
    const s = oauthService();
    const created = await s.create(ctx, { botId, name: 'orders', url: rs.url, auth: 'oauth' });
    const c = await connect(s, ctx, botId, created.id);
    expect((await s.oauthFinish(ctx, { botId, serverId: created.id, state: c.state, code: c.code, iss: c.iss, personId: person })).connected).toBe(true);
    const first = JSON.parse(box.open((await stored(created.id)).auth_sealed)).token;
    const refreshes = async () => (await as.stats()).grants['refresh_token'] ?? 0;
    const r0 = await refreshes();

    await new Promise((r) => setTimeout(r, 2500));
    expect(await as.active(first)).toBe(false);
    const synced = await s.sync(ctx, botId, created.id);
    expect(synced.error).toBeNull();
    expect(await refreshes()).toBe(r0 + 1);
    const second = JSON.parse(box.open((await stored(created.id)).auth_sealed)).token;
    expect(second).not.toBe(first);

    // Chat's RPC: the stored token while fresh; a refresh when chat says the server refused it.
    expect(JSON.parse(box.open((await s.token(ctx, { botId, serverId: created.id })).auth_sealed!)).token).toBe(second);
    const fresh = await s.token(ctx, { botId, serverId: created.id, stale_hash: sha(second) });
    const third = JSON.parse(box.open(fresh.auth_sealed!)).token;
    expect(third).not.toBe(second);
    expect(await refreshes()).toBe(r0 + 2);
    // A stale hash of an older token: another caller refreshed already, no refresh.
    expect(JSON.parse(box.open((await s.token(ctx, { botId, serverId: created.id, stale_hash: sha(second) })).auth_sealed!)).token).toBe(third);
    expect(await refreshes()).toBe(r0 + 2);

    // The server refuses a token it still considers active: the sync refreshes once and tries again.
    rs.refuse.add(third);
    const retried = await s.sync(ctx, botId, created.id);
    expect(retried.error).toBeNull();
    expect(await refreshes()).toBe(r0 + 3);

    // A refresh token the server refuses ends the connection: Connect again.
    const row = await stored(created.id);
    const secrets = JSON.parse(box.open(row.oauth_sealed));
    secrets.tokens.refresh_token = 'not-a-refresh-token';
    await ds.query(`UPDATE bots.mcp_servers SET oauth_sealed = $2 WHERE id = $1`, [created.id, box.seal(JSON.stringify(secrets))]);
    const ended = await s.token(ctx, { botId, serverId: created.id, stale_hash: sha(JSON.parse(box.open(row.auth_sealed)).token) });
    expect(ended.auth_sealed).toBeNull();
    const view = await s.get(ctx, botId, created.id);
    expect([view.has_token, view.error]).toEqual([false, expect.stringMatching(/Connect/)]);
    expect(await s.specs(ctx, botId)).toEqual([]);
  });

  it('an owner-given client id and secret: no registration, the secret at the token endpoint, write-only', async () => {
    const { botId, ctx } = await newBot();
    const s = oauthService();
    expect(await domainErrorCode(s.create(ctx, { botId, name: 'x', url: rs.url, auth: 'oauth', oauth_client_secret: 'lonely' }))).toBe('validation_failed');
    expect(await domainErrorCode(s.create(ctx, { botId, name: 'x', url: rs.url, auth: 'bearer', token: 't', oauth_client_id: 'c' }))).toBe('validation_failed');
    const created = await s.create(ctx, { botId, name: 'orders', url: rs.url, auth: 'oauth', oauth_client_id: 'owner-client', oauth_client_secret: OWNER_SECRET, oauth_scope: 'orders:read' });
    expect(created.oauth).toEqual({ client_id: 'owner-client', has_client_secret: true, scope: 'orders:read', authorization_server: null, token_expires_at: null });
    expect(JSON.stringify(created)).not.toContain(OWNER_SECRET);
    expect((await stored(created.id)).row).not.toContain(OWNER_SECRET);
    const registrations = (await as.stats()).registrations;
    const c = await connect(s, ctx, botId, created.id);
    expect(new URL(c.started.authorization_url).searchParams.get('client_id')).toBe('owner-client');
    expect(new URL(c.started.authorization_url).searchParams.get('scope')).toBe('orders:read');
    const done = await s.oauthFinish(ctx, { botId, serverId: created.id, state: c.state, code: c.code, iss: c.iss, personId: person });
    expect(done).toMatchObject({ connected: true, server: { has_token: true } });
    expect((await as.stats()).registrations).toBe(registrations);
    // Another client id disconnects; the secret goes with it.
    const changed = await s.update(ctx, { botId, serverId: created.id, oauth_client_id: null });
    expect(changed).toMatchObject({ has_token: false, oauth: { client_id: null, has_client_secret: false, scope: 'orders:read' } });
  });

  it('the owner says no, a code is used twice, a flow expires, the person differs, a policy refuses: clear refusals, nothing stored', async () => {
    const { botId, ctx } = await newBot();
    const s = oauthService();
    const created = await s.create(ctx, { botId, name: 'orders', url: rs.url, auth: 'oauth' });

    const denied = await s.oauthStart(ctx, { botId, serverId: created.id, redirectUri: REDIRECT, personId: person });
    const no = await as.consent(denied.authorization_url, 'deny');
    expect(no.searchParams.get('error')).toBe('access_denied');
    const refused = await s.oauthFinish(ctx, { botId, serverId: created.id, state: no.searchParams.get('state')!, error: 'access_denied', personId: person });
    expect(refused).toMatchObject({ connected: false, message: expect.stringMatching(/access_denied/), server: { has_token: false } });

    // A code already spent, under a new flow's state: the authorization server refuses it; nothing stored.
    const good = await connect(s, ctx, botId, created.id);
    expect((await s.oauthFinish(ctx, { botId, serverId: created.id, state: good.state, code: good.code, iss: good.iss, personId: person })).connected).toBe(true);
    const kept = (await stored(created.id)).auth_sealed;
    const again = await s.oauthStart(ctx, { botId, serverId: created.id, redirectUri: REDIRECT, personId: person });
    const reused = await s.oauthFinish(ctx, { botId, serverId: created.id, state: new URL(again.authorization_url).searchParams.get('state')!, code: good.code, iss: good.iss, personId: person });
    expect(reused).toMatchObject({ connected: false, message: expect.stringMatching(/could not be exchanged/) });
    expect((await stored(created.id)).auth_sealed).toBe(kept);

    // Another issuer in the answer (a mix-up) is refused.
    const mixed = await connect(s, ctx, botId, created.id);
    expect(await s.oauthFinish(ctx, { botId, serverId: created.id, state: mixed.state, code: mixed.code, iss: 'https://evil.example', personId: person })).toMatchObject({ connected: false });

    // Expired, or finished by someone else: invalid_token, and spent all the same.
    const late = await connect(s, ctx, botId, created.id);
    await ds.query(`UPDATE bots.mcp_servers SET oauth_flow_expires_at = now() - interval '1 second' WHERE id = $1`, [created.id]);
    expect(await domainErrorCode(s.oauthFlow({ state: late.state, personId: person }))).toBe('invalid_token');
    expect(await domainErrorCode(s.oauthFinish(ctx, { botId, serverId: created.id, state: late.state, code: late.code, iss: late.iss, personId: person }))).toBe('invalid_token');
    const other = await connect(s, ctx, botId, created.id);
    expect(await domainErrorCode(s.oauthFinish(ctx, { botId, serverId: created.id, state: other.state, code: other.code, iss: other.iss, personId: randomUUID() }))).toBe('invalid_token');
    expect(await domainErrorCode(s.oauthFinish(ctx, { botId, serverId: created.id, state: other.state, code: other.code, iss: other.iss, personId: person }))).toBe('invalid_token');
    expect((await stored(created.id)).auth_sealed).toBe(kept);
    // Another workspace cannot finish it.
    const third = await connect(s, ctx, botId, created.id);
    expect(await domainErrorCode(s.oauthFinish(ctxOf(randomUUID()), { botId, serverId: created.id, state: third.state, code: third.code, personId: person }))).toBe('invalid_token');

    // The authorization server's port is not allowed: Connect is a 400 with the reason, nothing is sent there.
    const before = await as.stats();
    const strict = oauthService(outboundPolicy({ allowedPorts: [rs.port], allowCidrs: ['127.0.0.1/32'] }));
    const { botId: b2, ctx: c2 } = await newBot();
    const fresh = await strict.create(c2, { botId: b2, name: 'orders', url: rs.url, auth: 'oauth' });
    expect(await domainErrorCode(strict.oauthStart(c2, { botId: b2, serverId: fresh.id, redirectUri: REDIRECT, personId: person }))).toBe('bad_request');
    expect((await as.stats()).registrations).toBe(before.registrations);
    // Not an OAuth server: 400.
    const bearer = await s.create(ctx, { botId, name: 'plain', url: rs.url, token: 'x-token' });
    expect(await domainErrorCode(s.oauthStart(ctx, { botId, serverId: bearer.id, redirectUri: REDIRECT, personId: person }))).toBe('bad_request');
  });
});
