import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ActionCallResult } from '@sa/actions';
import { ACTIONS_PER_BOT_MAX, BotActionSettingsView, CallerContext, DEFAULT_ACTION_SETTINGS } from '@sa/contracts';
import { DomainError, ValidationFailed } from '@sa/errors';
import { outboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
import { domainErrorCode } from '@sa/testing';
import { originOf, urlPlaceholders } from './action-rules';
import { ActionFields, ActionRow, ActionsRepository } from './actions.repository';
import { ActionCall, ActionsService } from './actions.service';

/** bots.actions in memory: the repository's contract, tenant and bot in every call. */
class MemoryActions {
  rows: (ActionRow & { tenant_id: string })[] = [];
  bots = new Map<string, string>();
  saved = new Map<string, BotActionSettingsView>();

  async botExists(tenantId: string, botId: string) {
    return this.bots.get(botId) === tenantId;
  }
  async list(tenantId: string, botId: string, opts: { enabledOnly?: boolean } = {}) {
    return this.rows.filter((r) => r.tenant_id === tenantId && r.chatbot_id === botId && (!opts.enabledOnly || r.enabled));
  }
  async find(tenantId: string, botId: string, id: string) {
    return this.rows.find((r) => r.tenant_id === tenantId && r.chatbot_id === botId && r.id === id) ?? null;
  }
  private taken(botId: string, name: string, except?: string) {
    if (this.rows.some((r) => r.chatbot_id === botId && r.id !== except && r.name.toLowerCase() === name.toLowerCase())) throw Object.assign(new Error('duplicate key'), { code: '23505' });
  }
  async insert(tenantId: string, botId: string, a: ActionFields, max: number) {
    if (!(await this.botExists(tenantId, botId))) return undefined;
    if ((await this.list(tenantId, botId)).length >= max) return null;
    this.taken(botId, a.name);
    const now = new Date();
    const id = randomUUID();
    this.rows.push({ ...a, id, chatbot_id: botId, tenant_id: tenantId, created_at: now, updated_at: now });
    return id;
  }
  async update(tenantId: string, botId: string, id: string, a: ActionFields) {
    this.taken(botId, a.name, id);
    const row = (await this.find(tenantId, botId, id))!;
    Object.assign(row, a, { updated_at: new Date() });
  }
  async delete(tenantId: string, botId: string, id: string) {
    const before = this.rows.length;
    this.rows = this.rows.filter((r) => !(r.tenant_id === tenantId && r.chatbot_id === botId && r.id === id));
    return this.rows.length < before;
  }
  async settings(_tenantId: string, botId: string) {
    return this.saved.get(botId) ?? { max_calls_per_turn: DEFAULT_ACTION_SETTINGS.max_calls_per_turn, builtins: { ...DEFAULT_ACTION_SETTINGS.builtins } };
  }
  async saveSettings(_tenantId: string, botId: string, s: BotActionSettingsView) {
    this.saved.set(botId, s);
  }
}

const SECRET = 'sk-shop-7d1e93b0c4a25f68';
const box = new SecretBox(randomBytes(32));
const policy = outboundPolicy();
let repo: MemoryActions;
let calls: { spec: Parameters<ActionCall>[0]; input: unknown }[];
let service: ActionsService;
let tenantId: string;
let botId: string;
let ctx: CallerContext;

const ctxOf = (tenant: string): CallerContext => ({ tenantId: tenant, tokenId: null, scopes: [], botIds: null, requestId: randomUUID(), entitlements: {} }) as unknown as CallerContext;
const ORDERS = { type: 'object', properties: { order_id: { type: 'string' }, customer: { type: 'string' } }, required: ['order_id'] };
const order = (over: Record<string, unknown> = {}) => ({
  botId,
  name: 'order_status',
  description: 'Where an order is.',
  method: 'GET' as const,
  url: 'https://shop.example/orders/{order_id}',
  parameters: ORDERS,
  headers: [{ name: 'Authorization', value: `Bearer ${SECRET}` }],
  ...over,
});
async function issuesOf(promise: Promise<unknown>): Promise<{ path: (string | number)[]; message: string }[]> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ValidationFailed) return err.issues;
    throw err;
  }
  throw new Error('expected a ValidationFailed');
}

beforeEach(() => {
  repo = new MemoryActions();
  calls = [];
  const call: ActionCall = async (spec, input) => {
    calls.push({ spec, input });
    return { ok: true, status: 200, duration_ms: 5, result: '{"status":"shipped"}', truncated: false, error: null, message: '200 OK in 5 ms' } satisfies ActionCallResult;
  };
  service = new ActionsService(repo as unknown as ActionsRepository, box, policy, call);
  tenantId = randomUUID();
  botId = randomUUID();
  repo.bots.set(botId, tenantId);
  ctx = ctxOf(tenantId);
});

describe('ActionsService: a new action', () => {
  it('asks for confirmation by default for anything but GET, unless the owner says', async () => {
    expect((await service.create(ctx, order())).confirm).toBe(false);
    expect((await service.create(ctx, order({ name: 'cancel', method: 'POST' }))).confirm).toBe(true);
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) expect((await service.create(ctx, order({ name: `m_${method}`, method }))).confirm).toBe(true);
    expect((await service.create(ctx, order({ name: 'quiet_post', method: 'POST', confirm: false }))).confirm).toBe(false);
    expect((await service.create(ctx, order({ name: 'careful_get', confirm: true }))).confirm).toBe(true);
  });

  it('fills the defaults and never shows a header value; the value is stored sealed', async () => {
    const view = await service.create(ctx, { botId, name: 'ping', description: '  Is the shop up?  ', method: 'GET', url: 'https://shop.example/ping' });
    expect(view).toMatchObject({ bot_id: botId, description: 'Is the shop up?', parameters: { type: 'object', properties: {} }, headers: [], verified_only: false, user_id_param: null, enabled: true });
    const withHeader = await service.create(ctx, order());
    expect(withHeader.headers).toEqual([{ name: 'Authorization', has_value: true }]);
    expect(JSON.stringify(withHeader)).not.toContain(SECRET);
    const row = repo.rows.find((r) => r.id === withHeader.id)!;
    expect(row.headers_sealed).toMatch(/^v1:/);
    expect(row.headers_sealed).not.toContain(SECRET);
    expect(JSON.parse(box.open(row.headers_sealed!))).toEqual({ Authorization: `Bearer ${SECRET}` });
  });

  it('refuses a URL placeholder that is not a parameter, a bad schema, an http URL and a placeholder in the host', async () => {
    expect(await issuesOf(service.create(ctx, order({ url: 'https://shop.example/orders/{id}' })))).toEqual([
      expect.objectContaining({ path: ['body', 'url'], message: 'url: the placeholder {id} is not a property of parameters' }),
    ]);
    const bad = await issuesOf(service.create(ctx, order({ parameters: { type: 'array' } })));
    expect(bad.length).toBeGreaterThan(0);
    expect(bad.every((i) => i.path.join('.') === 'body.parameters')).toBe(true);
    expect((await issuesOf(service.create(ctx, order({ url: 'http://shop.example/orders/{order_id}' }))))[0]!.path).toEqual(['body', 'url']);
    expect((await issuesOf(service.create(ctx, order({ url: 'https://{order_id}.shop.example/' }))))[0]!.path).toEqual(['body', 'url']);
  });

  it('takes a user id parameter only for a verified-only action, as a string property', async () => {
    const params = { type: 'object', properties: { order_id: { type: 'string' }, customer: { type: 'string' }, count: { type: 'integer' } }, required: ['order_id'] };
    expect(await issuesOf(service.create(ctx, order({ parameters: params, user_id_param: 'customer' })))).toEqual([expect.objectContaining({ path: ['body', 'user_id_param'], message: expect.stringContaining('verified_only') })]);
    expect((await issuesOf(service.create(ctx, order({ parameters: params, verified_only: true, user_id_param: 'nobody' }))))[0]!.message).toMatch(/not a property/);
    expect((await issuesOf(service.create(ctx, order({ parameters: params, verified_only: true, user_id_param: 'count' }))))[0]!.message).toMatch(/must be of type string/);
    const ok = await service.create(ctx, order({ parameters: params, verified_only: true, user_id_param: 'customer' }));
    expect(ok).toMatchObject({ verified_only: true, user_id_param: 'customer' });
    // Turning verified_only off while the user id parameter stays is refused too.
    expect((await issuesOf(service.update(ctx, { botId, actionId: ok.id, verified_only: false })))[0]!.path).toEqual(['body', 'user_id_param']);
  });

  it('refuses headers the HTTP client sets, and a name given twice (case-insensitive)', async () => {
    const issues = await issuesOf(
      service.create(ctx, order({ headers: [{ name: 'Host', value: 'evil.example' }, { name: 'Proxy-Authorization', value: 'x' }, { name: 'X-Key', value: 'a' }, { name: 'x-key', value: 'b' }] })),
    );
    expect(issues.map((i) => i.path.join('.'))).toEqual(['body.headers.0.name', 'body.headers.1.name', 'body.headers.3.name']);
  });

  it('takes a name once per bot (case-insensitive, 409) and at most 20 actions per bot (409)', async () => {
    await service.create(ctx, order());
    expect(await domainErrorCode(service.create(ctx, order({ name: 'ORDER_STATUS' })))).toBe('conflict');
    for (let i = 1; i < ACTIONS_PER_BOT_MAX; i++) await service.create(ctx, order({ name: `a${i}` }));
    const over = service.create(ctx, order({ name: 'one_too_many' }));
    await expect(over).rejects.toThrow(new DomainError('conflict', `A bot has at most ${ACTIONS_PER_BOT_MAX} actions`));
  });

  it("is 404 for another workspace's bot and action", async () => {
    const created = await service.create(ctx, order());
    const other = ctxOf(randomUUID());
    expect(await domainErrorCode(service.create(other, order()))).toBe('not_found');
    expect(await domainErrorCode(service.list(other, botId))).toBe('not_found');
    expect(await domainErrorCode(service.get(other, botId, created.id))).toBe('not_found');
    expect(await domainErrorCode(service.test(other, { botId, actionId: created.id, input: { order_id: '1' } }))).toBe('not_found');
    expect(await domainErrorCode(service.delete(other, botId, created.id))).toBe('not_found');
  });
});

describe('ActionsService: changes keep header values write-only', () => {
  const stored = (id: string) => JSON.parse(box.open(repo.rows.find((r) => r.id === id)!.headers_sealed!));

  it('keeps the stored value of a header re-sent by name without a value, and takes new values', async () => {
    const { id } = await service.create(ctx, order({ headers: [{ name: 'Authorization', value: `Bearer ${SECRET}` }, { name: 'X-Shop', value: 'north' }] }));
    const saved = await service.update(ctx, { botId, actionId: id, headers: [{ name: 'authorization' }, { name: 'X-Region', value: 'eu' }] });
    expect(saved.headers).toEqual([{ name: 'authorization', has_value: true }, { name: 'X-Region', has_value: true }]);
    expect(stored(id)).toEqual({ authorization: `Bearer ${SECRET}`, 'X-Region': 'eu' });
    // Other members leave the headers alone.
    await service.update(ctx, { botId, actionId: id, description: 'Order tracking.' });
    expect(stored(id)).toEqual({ authorization: `Bearer ${SECRET}`, 'X-Region': 'eu' });
    expect((await service.update(ctx, { botId, actionId: id, headers: [] })).headers).toEqual([]);
    expect(repo.rows.find((r) => r.id === id)!.headers_sealed).toBeNull();
  });

  it('refuses a header without a value when none is stored under its name', async () => {
    const { id } = await service.create(ctx, order());
    expect(await issuesOf(service.update(ctx, { botId, actionId: id, headers: [{ name: 'Authorization' }, { name: 'X-New' }] }))).toEqual([
      expect.objectContaining({ path: ['body', 'headers', 1, 'value'] }),
    ]);
  });

  it('never sends stored values to another origin: a new scheme, host or port needs every value again', async () => {
    const { id } = await service.create(ctx, order());
    for (const url of ['https://collector.example/orders/{order_id}', 'https://shop.example:8443/orders/{order_id}']) {
      const issues = await issuesOf(service.update(ctx, { botId, actionId: id, url }));
      expect(issues).toEqual([{ code: 'required', path: ['body', 'headers'], message: 'Give the header values again with a new address: stored secrets are never sent to another address' }]);
      expect(await issuesOf(service.update(ctx, { botId, actionId: id, url, headers: [{ name: 'Authorization' }] }))).toHaveLength(1);
    }
    // The same origin keeps them; a new origin with every value given, or without headers, is fine.
    expect((await service.update(ctx, { botId, actionId: id, url: 'https://SHOP.example:443/v2/orders/{order_id}' })).url).toBe('https://SHOP.example:443/v2/orders/{order_id}');
    expect((await service.update(ctx, { botId, actionId: id, url: 'https://api.shop.example/orders/{order_id}', headers: [{ name: 'Authorization', value: 'Bearer new-key-for-the-api' }] })).url).toBe(
      'https://api.shop.example/orders/{order_id}',
    );
    expect(stored(id)).toEqual({ Authorization: 'Bearer new-key-for-the-api' });
    const bare = await service.create(ctx, order({ name: 'bare', headers: [] }));
    expect((await service.update(ctx, { botId, actionId: bare.id, url: 'https://elsewhere.example/orders/{order_id}' })).url).toBe('https://elsewhere.example/orders/{order_id}');
  });
});

describe('ActionsService: Test and specs', () => {
  it('checks the input first (invalid_input is a result), then calls with the header values opened in memory', async () => {
    const { id } = await service.create(ctx, order());
    const invalid = await service.test(ctx, { botId, actionId: id, input: { order_id: 42 } });
    expect(invalid).toEqual({ ok: false, status: null, duration_ms: 0, result: '', truncated: false, error: 'invalid_input', message: expect.stringContaining('order_id') });
    expect(calls).toHaveLength(0);
    const ok = await service.test(ctx, { botId, actionId: id, input: { order_id: 'A-1' } });
    expect(ok).toMatchObject({ ok: true, status: 200, error: null, result: '{"status":"shipped"}' });
    expect(calls).toEqual([{ spec: { method: 'GET', url: 'https://shop.example/orders/{order_id}', headers: { Authorization: `Bearer ${SECRET}` } }, input: { order_id: 'A-1' } }]);
  });

  it('refuses a sample input over 16 KiB (400)', async () => {
    const { id } = await service.create(ctx, order());
    expect((await issuesOf(service.test(ctx, { botId, actionId: id, input: { order_id: 'x'.repeat(17 * 1024) } })))[0]!.path).toEqual(['body', 'input']);
  });

  it('gives chat the settings and the enabled actions, header values sealed', async () => {
    const on = await service.create(ctx, order());
    await service.create(ctx, order({ name: 'off', enabled: false }));
    await service.updateSettings(ctx, { botId, max_calls_per_turn: 5, builtins: { lead: true } });
    const specs = await service.specs(ctx, botId);
    expect(specs.settings).toEqual({ max_calls_per_turn: 5, builtins: { booking: false, lead: true, handoff: false } });
    expect(specs.actions.map((a) => a.id)).toEqual([on.id]);
    expect(specs.actions[0]).toMatchObject({ name: 'order_status', header_names: ['Authorization'], headers_sealed: expect.stringMatching(/^v1:/) });
    expect(JSON.stringify(specs)).not.toContain(SECRET);
    expect(JSON.parse(box.open(specs.actions[0]!.headers_sealed!))).toEqual({ Authorization: `Bearer ${SECRET}` });
  });

  it('has settings defaults and merges changes', async () => {
    expect(await service.settings(ctx, botId)).toEqual({ max_calls_per_turn: 3, builtins: { booking: false, lead: false, handoff: false } });
    await service.updateSettings(ctx, { botId, builtins: { booking: true } });
    expect(await service.updateSettings(ctx, { botId, max_calls_per_turn: 10 })).toEqual({ max_calls_per_turn: 10, builtins: { booking: true, lead: false, handoff: false } });
    expect(await domainErrorCode(service.settings(ctxOf(randomUUID()), botId))).toBe('not_found');
  });
});

describe('action rules', () => {
  it('reads the placeholders and the origin of a URL', () => {
    expect(urlPlaceholders('https://shop.example/a/{x}/b/{y_2}?q={x}')).toEqual(['x', 'y_2']);
    expect(originOf('https://Shop.example:443/a/{x}')).toBe('https://shop.example');
    expect(originOf('https://shop.example:8443/a')).toBe('https://shop.example:8443');
  });
});
