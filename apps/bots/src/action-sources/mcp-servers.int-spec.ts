import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, MCP_ENABLED_TOOLS_PER_BOT_MAX } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DEFAULT_OUTBOUND_POLICY, outboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { createTestDatabase, domainErrorCode, type LocalMcpServer, startLocalMcpServer } from '@sa/testing';
import { McpServersRepository } from './mcp-servers.repository';
import { McpServersService } from './mcp-servers.service';

// bots.mcp-server.* against the real PostgreSQL and a real MCP server on 127.0.0.1 built with the
// official SDK (stateless Streamable HTTP, bearer token checked by the server): a sync lists and
// stores the tools with their defaults, keeps the owner's flags on the next one, and stores a
// refusal (no token, the outbound policy) as the server's error; the token is sealed, in no
// view and no error. http here only because the service is built with allowHttp (the API takes https).

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
