import { request } from './support/api';
import { newToken, newWorkspace, uniqueName } from './support/fixtures';

const validationError = (res: { status: number; body: any }, field: string) => {
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['body', field], code: expect.any(String), message: expect.any(String) })]));
};

describe('POST /v1/bots and GET /v1/bots (spec part 4)', () => {
  it('creates a bot: 201 {data: CreatedBot} with exactly the four fields, then lists it', async () => {
    const ws = await newWorkspace();
    const name = uniqueName('Support');
    const res = await ws.api.post('/bots', { name, language: 'ja-JP' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(res.body.data).sort()).toEqual(['created_at', 'id', 'language', 'name']);
    expect(res.body.data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name, language: 'ja-JP', created_at: expect.any(String) });
    expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);

    const list = await ws.api.get('/bots');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [{ id: res.body.data.id, name, slot_kind: 'plan', language: 'ja-JP', created_at: res.body.data.created_at }] });
  });

  it('defaults the language to en and canonicalises language tags', async () => {
    const ws = await newWorkspace();
    expect((await ws.api.post('/bots', { name: 'Default language' })).body.data.language).toBe('en');
    expect((await ws.api.post('/bots', { name: 'Lower case', language: 'fil-ph' })).body.data.language).toBe('fil-PH');
  });

  it('validates the body to the spec limits: 400 {success:false, error:{issues}}', async () => {
    const ws = await newWorkspace(['--plan', 'scale', '--bot-slots', '50']);
    validationError(await ws.api.post('/bots', {}), 'name');
    validationError(await ws.api.post('/bots', { name: '' }), 'name');
    validationError(await ws.api.post('/bots', { name: '   ' }), 'name');
    validationError(await ws.api.post('/bots', { name: 'x'.repeat(31) }), 'name');
    validationError(await ws.api.post('/bots', { name: 42 }), 'name');
    validationError(await ws.api.post('/bots', { name: null }), 'name');
    validationError(await ws.api.post('/bots', { name: 'Fine', language: 'not a language!' }), 'language');
    validationError(await ws.api.post('/bots', { name: 'Fine', language: 7 }), 'language');
    validationError(await ws.api.post('/bots', { name: 'Fine', enterprise_plan_tier: 'platinum' }), 'enterprise_plan_tier');
    validationError(await ws.api.post('/bots', { name: 'Fine', chatbot_id: 'x' }), 'chatbot_id');
    // 30 characters is the maximum, counted as characters, not bytes or UTF-16 units.
    expect((await ws.api.post('/bots', { name: 'y'.repeat(30) })).status).toBe(201);
    expect((await ws.api.post('/bots', { name: '😀'.repeat(30) })).status).toBe(201);
    expect((await ws.api.post('/bots', { name: 'サポート窓口ボット' })).status).toBe(201);
    validationError(await ws.api.post('/bots', { name: '😀'.repeat(31) }), 'name');
  });

  it('rejects query parameters on GET /bots (there are none; no paging)', async () => {
    const ws = await newWorkspace();
    const res = await ws.api.get('/bots?page=2');
    expect(res.status).toBe(400);
    expect(res.body.error.issues[0]).toEqual(expect.objectContaining({ code: 'unrecognized_keys', path: ['query', 'page'] }));
  });

  it('409 with a free suggested_name when the name is used (case-insensitively)', async () => {
    const ws = await newWorkspace();
    // A fresh workspace: no need for a random name, and a random one ending in digits would read
    // as a counter ("Helpdesk 914005" suggests "Helpdesk 2").
    const name = 'Helpdesk';
    expect((await ws.api.post('/bots', { name })).status).toBe(201);
    const dup = await ws.api.post('/bots', { name });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual(expect.objectContaining({ code: 'bot_name_taken', error: 'Conflict', suggested_name: `${name} 2` }));
    const caseDup = await ws.api.post('/bots', { name: name.toUpperCase() });
    expect(caseDup.status).toBe(409);
    const suggested = (await ws.api.post('/bots', { name: dup.body.suggested_name })).body;
    expect(suggested.data.name).toBe(`${name} 2`);
    expect((await ws.api.post('/bots', { name })).body.suggested_name).toBe(`${name} 3`);
  });

  it('the suggestion still fits 30 characters', async () => {
    const ws = await newWorkspace();
    const name = 'L'.repeat(30);
    await ws.api.post('/bots', { name });
    const dup = await ws.api.post('/bots', { name });
    expect(dup.status).toBe(409);
    expect([...dup.body.suggested_name].length).toBeLessThanOrEqual(30);
    expect(dup.body.suggested_name).not.toBe(name);
    expect((await ws.api.post('/bots', { name: dup.body.suggested_name })).status).toBe(201);
  });

  it('name uniqueness holds under concurrent creates: one 201, the rest 409', async () => {
    const ws = await newWorkspace(['--plan', 'scale', '--bot-slots', '50']);
    const name = uniqueName('Race');
    const results = await Promise.all(Array.from({ length: 8 }, () => ws.api.post('/bots', { name })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect((await ws.api.get('/bots')).body.data.filter((b: { name: string }) => b.name === name)).toHaveLength(1);
  });

  it('402 plan_capacity_exhausted when the plan has no free bot slot, even under concurrency', async () => {
    const ws = await newWorkspace(['--plan', 'growth', '--bot-slots', '2']);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => ws.api.post('/bots', { name: `Capacity ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = results.filter((r) => r.status === 402);
    expect(refused).toHaveLength(3);
    expect(refused[0].body).toEqual(expect.objectContaining({ code: 'plan_capacity_exhausted', error: 'Payment Required' }));
    expect((await ws.api.get('/bots')).body.data).toHaveLength(2);
  });

  it('enterprise workspaces must send enterprise_plan_tier with a free slot in that tier (403 with available_slots)', async () => {
    const ws = await newWorkspace(['--plan', 'enterprise', '--enterprise-api', '--tier-slots', 'starter=1,growth=0,scale=2']);
    const noTier = await ws.api.post('/bots', { name: 'No tier' });
    expect(noTier.status).toBe(403);
    expect(noTier.body).toEqual(expect.objectContaining({ code: 'tier_capacity_unavailable', available_slots: { starter: 1, growth: 0, scale: 2 } }));
    const growth = await ws.api.post('/bots', { name: 'Growth tier', enterprise_plan_tier: 'growth' });
    expect(growth.status).toBe(403);
    expect(growth.body.available_slots).toEqual({ starter: 1, growth: 0, scale: 2 });
    expect((await ws.api.post('/bots', { name: 'Starter one', enterprise_plan_tier: 'starter' })).status).toBe(201);
    const full = await ws.api.post('/bots', { name: 'Starter two', enterprise_plan_tier: 'starter' });
    expect(full.status).toBe(403);
    expect(full.body.available_slots).toEqual({ starter: 0, growth: 0, scale: 2 });
    expect((await ws.api.post('/bots', { name: 'Scale one', enterprise_plan_tier: 'scale' })).status).toBe(201);
  });

  it('a token restricted to bots cannot create bots (403) and lists only its bots', async () => {
    const ws = await newWorkspace();
    const a = (await ws.api.post('/bots', { name: 'Allowed' })).body.data;
    await ws.api.post('/bots', { name: 'Hidden' });
    const restricted = await newToken(ws.id, ['--scopes', 'all', '--bots', a.id]);
    const create = await restricted.api.post('/bots', { name: 'Sneaky' });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('bot_access_denied');
    const list = await restricted.api.get('/bots');
    expect(list.status).toBe(200);
    expect(list.body.data.map((b: { id: string }) => b.id)).toEqual([a.id]);
  });

  it('two workspaces never see each other’s bots, and may use the same names', async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const aBot = (await a.api.post('/bots', { name: 'Shared name' })).body.data;
    const bBot = (await b.api.post('/bots', { name: 'Shared name' })).body.data;
    expect(aBot.id).not.toBe(bBot.id);
    expect((await a.api.get('/bots')).body.data.map((x: { id: string }) => x.id)).toEqual([aBot.id]);
    expect((await b.api.get('/bots')).body.data.map((x: { id: string }) => x.id)).toEqual([bBot.id]);
    // A token scoped to a foreign bot cannot exist (the CLI refuses), so cross-workspace reads are impossible by construction.
  });

  it('responds in the general error shape (never a 5xx) for POST without a body', async () => {
    const ws = await newWorkspace();
    const res = await request('POST', '/bots', undefined, { token: ws.token, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
  });
});
