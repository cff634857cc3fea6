import * as fs from 'node:fs';
import * as net from 'node:net';
import { Client } from 'pg';
import { SecretBox } from '@sa/secret-box';
import { ConsoleSystem, PeopleOfWorkspace, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { e2eState } from './support/state';

/**
 * The console's Actions API (issue 34, first slice: the definitions) against a system of its own
 * (gateway, bots and console) with the installation's default outbound policy: no private address allowed
 * (OUTBOUND_ALLOW_CIDRS empty), the local endpoint's port allowed, so a refusal is for the address
 * alone. Shown: the header secret is in no answer (the raw text of create, list, get, update and
 * test), no column in plain text, no audit entry and no log; members read and are refused every
 * change (403); bodies are checked (400 with the field); a header re-sent by name keeps its value;
 * a new origin needs the values again; a Test of an endpoint on 127.0.0.1 is `blocked` and the
 * endpoint sees nothing; input that does not fit is `invalid_input`; the settings' defaults and
 * bounds; another workspace's bot and action are 404.
 */
const PASSWORD = 'correct horse battery staple';
const SECRET = 'sk-shop-e2e-5b0d7c2e91a84f36';
const ORDERS = { type: 'object', properties: { order_id: { type: 'string' }, customer: { type: 'string' } }, required: ['order_id'] };

describe('console: the Actions API (issue 34, first slice)', () => {
  let sys: ConsoleSystem;
  let db: Client;
  let a: PeopleOfWorkspace;
  let b: PeopleOfWorkspace;
  let bot: string;
  let otherBot: string;
  let actionId: string;
  let endpoint: net.Server;
  let endpointPort: number;
  const connections: string[] = [];
  const actions = (suffix = '', botId = bot, wsId = a.ws.id) => `/api/workspaces/${wsId}/bots/${botId}/actions${suffix}`;
  const settings = (botId = bot, wsId = a.ws.id) => `/api/workspaces/${wsId}/bots/${botId}/action-settings`;
  const box = () => new SecretBox(Buffer.from(e2eState().env['WEBHOOK_SECRET_KEY']!, 'hex'));
  const storedHeaders = async (id: string) => {
    const { rows } = await db.query(`SELECT headers_sealed FROM bots.actions WHERE id = $1`, [id]);
    return JSON.parse(box().open(rows[0].headers_sealed)) as Record<string, string>;
  };

  beforeAll(async () => {
    // The local endpoint: any connection at all is recorded (a Test must not reach it).
    endpoint = net.createServer((socket) => {
      connections.push(`${socket.remoteAddress}:${socket.remotePort}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    endpointPort = (endpoint.address() as net.AddressInfo).port;
    sys = await startConsoleSystem({ OUTBOUND_ALLOW_CIDRS: '' }, { apps: ['gateway', 'bots', 'console'], allowPorts: [endpointPort] });
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    a = await workspaceWithPeople(sys, 'Acme Actions', { owner: 'olga.owner@actions.example', member: 'mia.member@actions.example', password: PASSWORD });
    b = await workspaceWithPeople(sys, 'Other Actions', { owner: 'oscar.owner@actions.example', member: 'milo.member@actions.example', password: PASSWORD });
    const created = await a.owner.post(`/api/workspaces/${a.ws.id}/bots`, { name: 'Shop desk', language: 'en' });
    expect(created.status).toBe(201);
    bot = created.body.data.id;
    otherBot = (await b.owner.post(`/api/workspaces/${b.ws.id}/bots`, { name: 'Their desk', language: 'en' })).body.data.id;
  }, 180000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
    await new Promise((resolve) => endpoint?.close(resolve));
  });

  it('an owner adds an action with a secret header: the value is in no answer and sealed in the database', async () => {
    const created = await a.owner.post(actions(), {
      name: 'order_status',
      description: 'Looks up where an order is. Use it when the visitor gives an order number.',
      method: 'GET',
      url: 'https://shop.example/orders/{order_id}',
      parameters: ORDERS,
      headers: [
        { name: 'Authorization', value: `Bearer ${SECRET}` },
        { name: 'X-Shop', value: 'north-store' },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      bot_id: bot,
      name: 'order_status',
      description: 'Looks up where an order is. Use it when the visitor gives an order number.',
      method: 'GET',
      url: 'https://shop.example/orders/{order_id}',
      parameters: ORDERS,
      headers: [
        { name: 'Authorization', has_value: true },
        { name: 'X-Shop', has_value: true },
      ],
      confirm: false,
      verified_only: false,
      user_id_param: null,
      status_text: null,
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    actionId = created.body.data.id;
    expect(created.text).not.toContain(SECRET);
    // A write action asks for confirmation unless told otherwise.
    const cancel = await a.owner.post(actions(), { name: 'cancel_order', description: 'Cancels an order.', method: 'POST', url: 'https://shop.example/orders/{order_id}/cancel', parameters: ORDERS });
    expect([cancel.status, cancel.body.data.confirm, cancel.body.data.headers]).toEqual([201, true, []]);
    expect((await a.owner.post(actions(), { name: 'Order_Status', description: 'Again.', method: 'GET', url: 'https://shop.example/x' })).status).toBe(409);

    for (const res of [await a.owner.get(actions()), await a.owner.get(actions(`/${actionId}`)), await a.member.get(actions()), await a.member.get(actions(`/${actionId}`))]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(SECRET);
      expect(res.text).not.toContain('north-store');
    }
    expect((await a.owner.get(actions())).body.data.map((x: { name: string }) => x.name)).toEqual(['order_status', 'cancel_order']);

    const { rows } = await db.query(`SELECT row_to_json(a)::text AS row, a.headers_sealed FROM bots.actions a WHERE a.id = $1`, [actionId]);
    expect(rows[0].row).not.toContain(SECRET);
    expect(rows[0].headers_sealed).toMatch(/^v1:/);
    expect(await storedHeaders(actionId)).toEqual({ Authorization: `Bearer ${SECRET}`, 'X-Shop': 'north-store' });
  });

  it('refuses bad definitions with 400 and the field', async () => {
    const base = { name: 'lookup', description: 'Looks something up.', method: 'GET', url: 'https://shop.example/orders/{order_id}', parameters: ORDERS };
    const bad: [Record<string, unknown>, string][] = [
      [{ name: '9lives' }, 'body.name'],
      [{ name: 'has space' }, 'body.name'],
      [{ url: 'http://shop.example/orders/{order_id}' }, 'body.url'],
      [{ url: 'https://{order_id}.shop.example/' }, 'body.url'],
      [{ url: 'https://shop.example/orders/{id}' }, 'body.url'],
      [{ parameters: { type: 'array', items: { type: 'string' } } }, 'body.parameters'],
      [{ parameters: { type: 'object', properties: { order_id: { type: 'no-such-type' } } } }, 'body.parameters'],
      [{ user_id_param: 'customer' }, 'body.user_id_param'],
      [{ verified_only: true, user_id_param: 'nobody' }, 'body.user_id_param'],
      [{ headers: [{ name: 'Host', value: 'evil.example' }] }, 'body.headers.0.name'],
      [{ headers: [{ name: 'X-Key', value: 'a' }, { name: 'x-key', value: 'b' }] }, 'body.headers.1.name'],
      [{ headers: [{ name: 'X-Key', value: 'line\r\nX-Injected: 1' }] }, 'body.headers.0.value'],
      [{ secret: 'x' }, 'body.secret'],
    ];
    for (const [over, path] of bad) {
      const res = await a.owner.post(actions(), { ...base, ...over });
      expect([JSON.stringify(over), res.status]).toEqual([JSON.stringify(over), 400]);
      expect([JSON.stringify(over), res.body.error.issues.map((i: { path: (string | number)[] }) => i.path.join('.'))]).toEqual([JSON.stringify(over), expect.arrayContaining([path])]);
    }
    const ok = await a.owner.post(actions(), { ...base, name: 'my_orders', verified_only: true, user_id_param: 'customer' });
    expect([ok.status, ok.body.data.verified_only, ok.body.data.user_id_param]).toEqual([201, true, 'customer']);
    expect((await a.owner.delete(actions(`/${ok.body.data.id}`))).status).toBe(204);
  });

  it('a change re-sends header names without values and keeps them; a new origin needs the values again', async () => {
    const kept = await a.owner.patch(actions(`/${actionId}`), { description: 'Where an order is.', headers: [{ name: 'Authorization' }, { name: 'X-Region', value: 'eu-west' }] });
    expect(kept.status).toBe(200);
    expect(kept.body.data.headers).toEqual([
      { name: 'Authorization', has_value: true },
      { name: 'X-Region', has_value: true },
    ]);
    expect(kept.text).not.toContain(SECRET);
    expect(await storedHeaders(actionId)).toEqual({ Authorization: `Bearer ${SECRET}`, 'X-Region': 'eu-west' });

    const noValue = await a.owner.patch(actions(`/${actionId}`), { headers: [{ name: 'Authorization' }, { name: 'X-Unknown' }] });
    expect([noValue.status, noValue.body.error.issues.map((i: { path: (string | number)[] }) => i.path.join('.'))]).toEqual([400, ['body.headers.1.value']]);

    const moved = await a.owner.patch(actions(`/${actionId}`), { url: 'https://collector.example/orders/{order_id}' });
    expect(moved.status).toBe(400);
    expect(moved.body.error.issues).toEqual([
      { code: 'required', path: ['body', 'headers'], message: 'Give the header values again with a new address: stored secrets are never sent to another address' },
    ]);
    const movedByName = await a.owner.patch(actions(`/${actionId}`), { url: 'https://collector.example/orders/{order_id}', headers: [{ name: 'Authorization' }, { name: 'X-Region' }] });
    expect(movedByName.status).toBe(400);
    expect((await a.owner.get(actions(`/${actionId}`))).body.data.url).toBe('https://shop.example/orders/{order_id}');
    // The same origin keeps the values; so does changing anything else.
    expect((await a.owner.patch(actions(`/${actionId}`), { url: 'https://shop.example/v2/orders/{order_id}' })).status).toBe(200);
    expect(await storedHeaders(actionId)).toEqual({ Authorization: `Bearer ${SECRET}`, 'X-Region': 'eu-west' });
  });

  it('a Test of an endpoint on 127.0.0.1 is blocked by the default outbound policy: nothing reaches it, nothing is stored', async () => {
    const local = await a.owner.post(actions(), {
      name: 'local_stock',
      description: 'Whether an item is in stock.',
      method: 'GET',
      url: `https://127.0.0.1:${endpointPort}/stock/{sku}`,
      parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      headers: [{ name: 'Authorization', value: `Bearer ${SECRET}` }],
    });
    expect(local.status).toBe(201);
    const res = await a.owner.post(actions(`/${local.body.data.id}/test`), { input: { sku: 'LAMP-1' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ok: false, status: null, error: 'blocked', result: '', truncated: false });
    // Refused for the address (the port is allowed): 127.0.0.1 is a loopback address.
    expect(res.body.data.message).toMatch(/^Blocked by the outbound policy: .*127\.0\.0\.1 is a loopback address/);
    expect(res.text).not.toContain(SECRET);
    expect(connections).toEqual([]);

    const invalid = await a.owner.post(actions(`/${actionId}/test`), { input: { order_id: 42 } });
    expect(invalid.status).toBe(200);
    expect(invalid.body.data).toMatchObject({ ok: false, status: null, error: 'invalid_input', message: expect.stringContaining('order_id') });
    const missing = await a.owner.post(actions(`/${actionId}/test`), {});
    expect(missing.body.data).toMatchObject({ ok: false, error: 'invalid_input' });
    expect((await a.owner.post(actions(`/${actionId}/test`), { input: 'A-1' })).status).toBe(400);
    expect((await a.owner.post(actions(`/${actionId}/test`), { input: { order_id: 'x'.repeat(17 * 1024) } })).status).toBe(400);
    expect(connections).toEqual([]);
    expect((await a.owner.delete(actions(`/${local.body.data.id}`))).status).toBe(204);
  });

  it('settings: the defaults, a change, and the bounds', async () => {
    expect((await a.member.get(settings())).body).toEqual({ data: { max_calls_per_turn: 3, builtins: { booking: false, lead: false, handoff: false } } });
    const saved = await a.owner.patch(settings(), { max_calls_per_turn: 5, builtins: { lead: true } });
    expect([saved.status, saved.body.data]).toEqual([200, { max_calls_per_turn: 5, builtins: { booking: false, lead: true, handoff: false } }]);
    for (const n of [0, 11, 2.5, '3']) {
      const res = await a.owner.patch(settings(), { max_calls_per_turn: n });
      expect([n, res.status, res.body.error?.issues?.[0]?.path]).toEqual([n, 400, ['body', 'max_calls_per_turn']]);
    }
    expect((await a.owner.patch(settings(), { builtins: { crm: true } })).status).toBe(400);
    expect((await a.owner.get(settings())).body.data.max_calls_per_turn).toBe(5);
  });

  it('members read and are refused every change and the Test (403); another workspace gets 404', async () => {
    const refused = [
      await a.member.post(actions(), { name: 'mine', description: 'Mine.', method: 'GET', url: 'https://shop.example/mine' }),
      await a.member.patch(actions(`/${actionId}`), { enabled: false }),
      await a.member.delete(actions(`/${actionId}`)),
      await a.member.post(actions(`/${actionId}/test`), { input: { order_id: 'A-1' } }),
      await a.member.patch(settings(), { max_calls_per_turn: 2 }),
    ];
    expect(refused.map((r) => [r.status, r.body.code])).toEqual(refused.map(() => [403, 'forbidden_role']));
    expect((await a.member.get(actions(`/${actionId}`))).body.data.enabled).toBe(true);

    // Their own workspace with our bot's id, or our action under their bot: not found.
    const theirs = [
      await b.owner.get(actions('', bot, b.ws.id)),
      await b.owner.get(actions(`/${actionId}`, bot, b.ws.id)),
      await b.owner.get(actions(`/${actionId}`, otherBot, b.ws.id)),
      await b.owner.patch(actions(`/${actionId}`, otherBot, b.ws.id), { enabled: false }),
      await b.owner.post(actions(`/${actionId}/test`, otherBot, b.ws.id), { input: { order_id: 'A-1' } }),
      await b.owner.delete(actions(`/${actionId}`, bot, b.ws.id)),
      await b.owner.get(settings(bot, b.ws.id)),
      await b.owner.post(actions('', bot, b.ws.id), { name: 'sneaky', description: 'x', method: 'GET', url: 'https://shop.example/' }),
    ];
    expect(theirs.map((r) => r.status)).toEqual(theirs.map(() => 404));
    // Our workspace's path as the other owner: not a member.
    expect((await b.owner.get(actions())).status).toBe(404);
    expect((await b.owner.get(actions('', otherBot, b.ws.id))).body.data).toEqual([]);
  });

  it('deleting an action is audit-logged like every change; the secret is in no audit entry, column or log', async () => {
    const cancel = (await a.owner.get(actions())).body.data.find((x: { name: string }) => x.name === 'cancel_order');
    expect((await a.owner.delete(actions(`/${cancel.id}`))).status).toBe(204);
    expect((await a.owner.delete(actions(`/${cancel.id}`))).status).toBe(404);

    const audit = await a.owner.get(`/api/workspaces/${a.ws.id}/audit?limit=100`);
    expect(audit.status).toBe(200);
    const ours = (audit.body.data as { action: string; target_id: string; details: Record<string, unknown> }[]).filter((e) => e.action.startsWith('action.'));
    expect(new Set(ours.map((e) => e.action))).toEqual(new Set(['action.created', 'action.updated', 'action.deleted', 'action.tested', 'action.settings_updated']));
    expect(ours.find((e) => e.action === 'action.created' && e.target_id === actionId)!.details).toEqual({ bot_id: bot, name: 'order_status', method: 'GET', host: 'shop.example' });
    expect(ours.find((e) => e.action === 'action.deleted' && e.target_id === cancel.id)!.details).toEqual({ bot_id: bot, name: 'cancel_order', method: 'POST', host: 'shop.example' });
    expect(ours.find((e) => e.action === 'action.tested' && e.details['name'] === 'local_stock')!.details).toMatchObject({ name: 'local_stock', method: 'GET', host: `127.0.0.1:${endpointPort}`, ok: false, error: 'blocked' });
    expect(audit.text).not.toContain(SECRET);
    expect(audit.text).not.toContain('eu-west');
    expect(audit.text).not.toContain('LAMP-1');

    // Every text column of every table of the database.
    const columns = await db.query(`SELECT table_schema, table_name, column_name FROM information_schema.columns
      WHERE data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY') AND table_schema NOT IN ('pg_catalog', 'information_schema')`);
    for (const c of columns.rows) {
      const hit = await db.query(`SELECT 1 FROM "${c.table_schema}"."${c.table_name}" WHERE "${c.column_name}"::text LIKE $1 LIMIT 1`, [`%${SECRET}%`]);
      expect([`${c.table_schema}.${c.table_name}.${c.column_name}`, hit.rowCount]).toEqual([`${c.table_schema}.${c.table_name}.${c.column_name}`, 0]);
    }
    for (const [name, app] of sys.mini.apps) {
      const log = app.logFile ? fs.readFileSync(app.logFile, 'utf8') : app.stderrTail();
      expect([name, log.includes(SECRET)]).toEqual([name, false]);
    }
  });
});
