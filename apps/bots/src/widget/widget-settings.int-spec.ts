import 'reflect-metadata';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { NatsConnection, connect } from 'nats';
import { DataSource } from 'typeorm';
import { CallerContext, WIDGET_CHANGED_SUBJECT, WIDGET_SECRET_PATTERN } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { PrivateNats, createTestDatabase, startPrivateNats, domainErrorCode } from '@sa/testing';
import { WidgetSettingsRepository } from './widget-settings.repository';
import { WidgetSettingsService } from './widget-settings.service';

// bots.widget.*: against the real PostgreSQL (as the bots role) and a private nats-server, which
// carries bots.widget.changed.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nats: PrivateNats;
let nc: NatsConnection;
let service: WidgetSettingsService;
const box = new SecretBox(randomBytes(32));

beforeAll(async () => {
  db = await createTestDatabase('sa_bots_widget');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('bots'), applicationName: 'bots-widget-int', poolSize: 3 })).initialize();
  nats = await startPrivateNats();
  nc = await connect({ servers: nats.url, name: 'bots-widget-int' });
  service = new WidgetSettingsService(new WidgetSettingsRepository(ds), box, nc);
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
  await ds?.destroy();
  await db?.drop();
});

function ctxOf(tenantId: string, botIds: string[] | null = null): CallerContext {
  return { tenantId, tokenId: null, scopes: [], botIds, requestId: randomUUID(), entitlements: {} } as unknown as CallerContext;
}

async function newBot(tenantId = randomUUID()): Promise<{ tenantId: string; botId: string; ctx: CallerContext }> {
  const [row]: { id: string }[] = await ds.query(`INSERT INTO bots.bots (tenant_id, name, language, slot_kind) VALUES ($1, $2, 'en', 'plan') RETURNING id`, [tenantId, `b-${randomUUID().slice(0, 8)}`]);
  return { tenantId, botId: row!.id, ctx: ctxOf(tenantId) };
}

describe('bots.widget.get | update', () => {
  it('gives the defaults for a bot without settings', async () => {
    const { botId, ctx } = await newBot();
    expect(await service.get(ctx, botId)).toEqual({
      chatbot_id: botId,
      allowed_origins: [],
      theme: { color: '#1a5fcc', position: 'right', greeting: null, launcher_text: null },
      identity_secret: { set: false, created_at: null },
      updated_at: null,
    });
  });

  it('stores canonical origins without duplicates, merges the theme, and publishes bots.widget.changed', async () => {
    const { botId, ctx } = await newBot();
    const sub = nc.subscribe(WIDGET_CHANGED_SUBJECT, { max: 1 });
    await nc.flush();
    const view = await service.update(ctx, { botId, allowed_origins: ['https://Shop.Example.com', 'https://shop.example.com:443', 'http://localhost:8080'], theme: { color: '#ABCDEF', greeting: 'Hello!' } });
    expect(view.allowed_origins).toEqual(['https://shop.example.com', 'http://localhost:8080']);
    expect(view.theme).toEqual({ color: '#abcdef', position: 'right', greeting: 'Hello!', launcher_text: null });
    expect(view.updated_at).not.toBeNull();
    for await (const msg of sub) expect(JSON.parse(Buffer.from(msg.data).toString('utf8'))).toEqual({ botId });

    const again = await service.update(ctx, { botId, theme: { position: 'left', greeting: null, launcher_text: 'Ask us' } });
    expect(again.allowed_origins).toEqual(['https://shop.example.com', 'http://localhost:8080']);
    expect(again.theme).toEqual({ color: '#abcdef', position: 'left', greeting: null, launcher_text: 'Ask us' });
    expect((await service.update(ctx, { botId, allowed_origins: [] })).allowed_origins).toEqual([]);
    const pub = await service.publicBot(botId);
    expect(pub).toMatchObject({ id: botId, allowed_origins: [], widget: { position: 'left', launcher_text: 'Ask us' }, identity: false });
  });

  it("refuses another workspace's bot (404) and a bot outside a restricted caller's (403)", async () => {
    const { botId } = await newBot();
    expect(await domainErrorCode(service.get(ctxOf(randomUUID()), botId))).toBe('not_found');
    expect(await domainErrorCode(service.update(ctxOf(randomUUID()), { botId, allowed_origins: [] }))).toBe('not_found');
    const { tenantId, botId: other } = await newBot();
    expect(await domainErrorCode(service.get(ctxOf(tenantId, [randomUUID()]), other))).toBe('bot_access_denied');
    expect(await service.publicBot(randomUUID())).toBeNull();
  });
});

describe('bots.widget.secret.rotate | identity.verify', () => {
  it('makes a wsk_ secret, stores it sealed, and verifies userHash in either case', async () => {
    const { botId, ctx } = await newBot();
    expect(await service.verify(ctx, { chatbotId: botId, externalUserId: 'u-1', userHash: 'a'.repeat(64) })).toEqual({ valid: false });

    const { secret, created_at } = await service.rotateSecret(ctx, botId);
    expect(secret).toMatch(WIDGET_SECRET_PATTERN);
    const [row]: { identity_secret: string }[] = await ds.query(`SELECT identity_secret FROM bots.widget_settings WHERE chatbot_id = $1`, [botId]);
    expect(row!.identity_secret).not.toContain(secret.slice(4));
    expect(box.open(row!.identity_secret)).toBe(secret);
    expect((await service.get(ctx, botId)).identity_secret).toEqual({ set: true, created_at });
    expect((await service.publicBot(botId))?.identity).toBe(true);

    const hash = createHmac('sha256', secret).update('user-ü-42').digest('hex');
    expect(await service.verify(ctx, { chatbotId: botId, externalUserId: 'user-ü-42', userHash: hash })).toEqual({ valid: true });
    expect(await service.verify(ctx, { chatbotId: botId, externalUserId: 'user-ü-42', userHash: hash.toUpperCase() })).toEqual({ valid: true });
    expect(await service.verify(ctx, { chatbotId: botId, externalUserId: 'user-ü-43', userHash: hash })).toEqual({ valid: false });

    // A new secret: hashes made with the old one stop working.
    const next = await service.rotateSecret(ctx, botId);
    expect(next.secret).not.toBe(secret);
    expect(await service.verify(ctx, { chatbotId: botId, externalUserId: 'user-ü-42', userHash: hash })).toEqual({ valid: false });
    // Settings changes keep the secret.
    await service.update(ctx, { botId, theme: { color: '#000000' } });
    expect((await service.get(ctx, botId)).identity_secret.set).toBe(true);
  });

  it("cannot rotate or verify another workspace's bot", async () => {
    const { botId } = await newBot();
    expect(await domainErrorCode(service.rotateSecret(ctxOf(randomUUID()), botId))).toBe('not_found');
    expect(await domainErrorCode(service.verify(ctxOf(randomUUID()), { chatbotId: botId, externalUserId: 'u', userHash: 'a'.repeat(64) }))).toBe('not_found');
  });
});
