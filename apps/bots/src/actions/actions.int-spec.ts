import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { executeAction } from '@sa/actions';
import { ACTIONS_PER_BOT_MAX, CallerContext } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { outboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { createTestDatabase, domainErrorCode } from '@sa/testing';
import { ActionsRepository } from './actions.repository';
import { ActionsService } from './actions.service';

// bots.action.* and bots.action-settings.* against the real PostgreSQL, as the bots role: the
// statements, the constraints of the migration, the limit under concurrent creates, the sealed
// column, and bots.action.specs as chat will call it.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let service: ActionsService;
const box = new SecretBox(randomBytes(32));
const SECRET = 'sk-int-3f9a0c27d6b54e18';

beforeAll(async () => {
  db = await createTestDatabase('sa_bots_actions');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('bots'), applicationName: 'bots-actions-int', poolSize: 5 })).initialize();
  service = new ActionsService(new ActionsRepository(ds), box, outboundPolicy(), executeAction);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

function ctxOf(tenantId: string): CallerContext {
  return { tenantId, tokenId: null, scopes: [], botIds: null, requestId: randomUUID(), entitlements: {} } as unknown as CallerContext;
}

async function newBot(tenantId: string = randomUUID()): Promise<{ botId: string; ctx: CallerContext }> {
  const [row]: { id: string }[] = await ds.query(`INSERT INTO bots.bots (tenant_id, name, language, slot_kind) VALUES ($1, $2, 'en', 'plan') RETURNING id`, [tenantId, `b-${randomUUID().slice(0, 8)}`]);
  return { botId: row!.id, ctx: ctxOf(tenantId) };
}

const order = (botId: string, over: Record<string, unknown> = {}) => ({
  botId,
  name: 'order_status',
  description: 'Where an order is.',
  method: 'GET' as const,
  url: 'https://shop.example/orders/{order_id}',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  headers: [{ name: 'Authorization', value: `Bearer ${SECRET}` }],
  ...over,
});

describe('bots.action.* in PostgreSQL', () => {
  it('stores the header values sealed only, reads back what was written, and keeps names unique per bot', async () => {
    const { botId, ctx } = await newBot();
    const created = await service.create(ctx, order(botId));
    expect(created).toMatchObject({ bot_id: botId, name: 'order_status', method: 'GET', confirm: false, enabled: true, headers: [{ name: 'Authorization', has_value: true }] });
    expect(await service.get(ctx, botId, created.id)).toEqual(created);
    const [raw] = await ds.query(`SELECT row_to_json(a)::text AS row, a.headers_sealed FROM bots.actions a WHERE id = $1`, [created.id]);
    expect(raw.row).not.toContain(SECRET);
    expect(raw.headers_sealed).toMatch(/^v1:/);
    expect(await domainErrorCode(service.create(ctx, order(botId, { name: 'Order_Status' })))).toBe('conflict');
    // Another bot may use the name.
    const other = await newBot(ctx.tenantId);
    expect((await service.create(other.ctx, order(other.botId))).name).toBe('order_status');

    const changed = await service.update(ctx, { botId, actionId: created.id, enabled: false, headers: [{ name: 'Authorization' }, { name: 'X-Shop', value: 'north-store' }] });
    expect(changed.headers.map((h) => h.name)).toEqual(['Authorization', 'X-Shop']);
    expect(new Date(changed.updated_at).getTime()).toBeGreaterThan(new Date(created.updated_at).getTime());
    const [{ headers_sealed }] = await ds.query(`SELECT headers_sealed FROM bots.actions WHERE id = $1`, [created.id]);
    expect(JSON.parse(box.open(headers_sealed))).toEqual({ Authorization: `Bearer ${SECRET}`, 'X-Shop': 'north-store' });
    expect(await service.delete(ctx, botId, created.id)).toEqual({ deleted: true });
    expect(await domainErrorCode(service.get(ctx, botId, created.id))).toBe('not_found');
  });

  it(`takes at most ${ACTIONS_PER_BOT_MAX} actions per bot, also when they arrive at once`, async () => {
    const { botId, ctx } = await newBot();
    const results = await Promise.allSettled(Array.from({ length: ACTIONS_PER_BOT_MAX + 5 }, (_, i) => service.create(ctx, order(botId, { name: `a${i}`, headers: [] }))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(ACTIONS_PER_BOT_MAX);
    expect((await service.list(ctx, botId)).length).toBe(ACTIONS_PER_BOT_MAX);
  });

  it("scopes everything to the workspace: another workspace's bot and action are not found", async () => {
    const { botId, ctx } = await newBot();
    const created = await service.create(ctx, order(botId));
    const stranger = ctxOf(randomUUID());
    expect(await domainErrorCode(service.list(stranger, botId))).toBe('not_found');
    expect(await domainErrorCode(service.get(stranger, botId, created.id))).toBe('not_found');
    expect(await domainErrorCode(service.update(stranger, { botId, actionId: created.id, enabled: false }))).toBe('not_found');
    expect(await domainErrorCode(service.delete(stranger, botId, created.id))).toBe('not_found');
    expect(await domainErrorCode(service.updateSettings(stranger, { botId, max_calls_per_turn: 2 }))).toBe('not_found');
    expect(await domainErrorCode(service.specs(stranger, botId))).toBe('not_found');
    expect((await service.get(ctx, botId, created.id)).enabled).toBe(true);
  });

  it('bots.action.specs: the settings (defaults, then saved) and the enabled actions, header values sealed', async () => {
    const { botId, ctx } = await newBot();
    expect(await service.specs(ctx, botId)).toEqual({ settings: { max_calls_per_turn: 3, builtins: { booking: false, lead: false, handoff: false } }, actions: [] });
    const on = await service.create(ctx, order(botId, { status_text: 'Checking your order…' }));
    await service.create(ctx, order(botId, { name: 'cancel_order', method: 'POST', url: 'https://shop.example/orders/{order_id}/cancel', enabled: false }));
    await service.updateSettings(ctx, { botId, max_calls_per_turn: 4, builtins: { handoff: true } });
    const specs = await service.specs(ctx, botId);
    expect(specs.settings).toEqual({ max_calls_per_turn: 4, builtins: { booking: false, lead: false, handoff: true } });
    expect(specs.actions).toEqual([
      {
        id: on.id,
        name: 'order_status',
        description: 'Where an order is.',
        method: 'GET',
        url: 'https://shop.example/orders/{order_id}',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
        header_names: ['Authorization'],
        headers_sealed: expect.stringMatching(/^v1:/),
        confirm: false,
        verified_only: false,
        user_id_param: null,
        status_text: 'Checking your order…',
        updated_at: on.updated_at,
      },
    ]);
    expect(JSON.stringify(specs)).not.toContain(SECRET);
    expect(JSON.parse(box.open(specs.actions[0]!.headers_sealed!))).toEqual({ Authorization: `Bearer ${SECRET}` });
  });

  it('the status text: trimmed, kept when a change leaves it out, removed with null; the table refuses what the API would', async () => {
    const { botId, ctx } = await newBot();
    const created = await service.create(ctx, order(botId, { headers: [] }));
    expect(created.status_text).toBeNull();
    const set = await service.update(ctx, { botId, actionId: created.id, status_text: '  Checking your order…  ' });
    expect(set.status_text).toBe('Checking your order…');
    expect((await service.update(ctx, { botId, actionId: created.id, enabled: false })).status_text).toBe('Checking your order…');
    expect((await service.update(ctx, { botId, actionId: created.id, status_text: null })).status_text).toBeNull();
    for (const bad of ['x'.repeat(81), 'two\nlines', '']) {
      await expect(ds.query(`UPDATE bots.actions SET status_text = $2 WHERE id = $1`, [created.id, bad])).rejects.toMatchObject({ code: '23514' });
    }
    await ds.query(`UPDATE bots.actions SET status_text = $2 WHERE id = $1`, [created.id, 'é'.repeat(80)]);
  });

  it('deleting a bot deletes its actions and settings', async () => {
    const { botId, ctx } = await newBot();
    await service.create(ctx, order(botId));
    await service.updateSettings(ctx, { botId, max_calls_per_turn: 7 });
    await ds.query(`DELETE FROM bots.bots WHERE id = $1`, [botId]);
    const [{ n }] = await ds.query(`SELECT (SELECT count(*) FROM bots.actions WHERE chatbot_id = $1) + (SELECT count(*) FROM bots.action_settings WHERE chatbot_id = $1) AS n`, [botId]);
    expect(Number(n)).toBe(0);
  });

  it('a Test of an endpoint on a private address is refused by the default outbound policy before anything is sent', async () => {
    const { botId, ctx } = await newBot();
    const created = await service.create(ctx, order(botId, { url: 'https://127.0.0.1:9/orders/{order_id}' }));
    const result = await service.test(ctx, { botId, actionId: created.id, input: { order_id: 'A-1' } });
    expect(result).toMatchObject({ ok: false, status: null, error: 'blocked' });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });
});
