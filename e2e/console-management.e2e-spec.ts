import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { verifyWebhook } from '@sa/webhooks';
import { admin } from './support/admin';
import { ApiResponse, request } from './support/api';
import { waitFor } from './support/apps';
import { TestWorkspace, newWorkspace, uniqueName } from './support/fixtures';
import { e2eState } from './support/state';
import { WebhookReceiver, startWebhookReceiver } from './support/webhook-receiver';

// The console's workspace routes over real HTTP against the running system: tokens made in the
// console answer the gateway and stop within 2 s of their revocation; webhooks deliver signed
// events to a local receiver, their list shows the last delivery, redeliver and test events work;
// members cannot write (403 forbidden_role); another workspace's ids are not found (404).

const s = e2eState();
const PASSWORD = 'correct horse battery staple';

/** `admin user create … --password-stdin`: the person's id. */
function createUser(workspaceId: string, email: string, role: 'owner' | 'admin' | 'member'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(s.root, 'dist', 'tools', 'admin', 'main.js'), 'user', 'create', '--workspace', workspaceId, '--email', email, '--role', role, '--password-stdin'], {
      env: { PATH: process.env['PATH'], DATABASE_URL: s.databaseUrl, NATS_URL: s.natsUrl },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out).id) : reject(new Error(`user create failed (${code}): ${err}`))));
    child.stdin.end(`${PASSWORD}\n`);
  });
}

interface Person {
  get<T = any>(p: string): Promise<ApiResponse<T>>;
  post<T = any>(p: string, body?: unknown): Promise<ApiResponse<T>>;
  delete<T = any>(p: string): Promise<ApiResponse<T>>;
}

/** Signs a person in through the console's API; their requests carry the cookie, the Origin and the CSRF token. */
async function signIn(email: string): Promise<Person> {
  const origin = s.consoleUrl;
  const res = await request('POST', '/api/session', { email, password: PASSWORD }, { baseUrl: s.consoleUrl, headers: { origin } });
  expect(res.status).toBe(200);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  expect(cookie).toMatch(/^sa_console_session=/);
  const csrf = res.body.csrf_token as string;
  const send = (method: string) => (p: string, body?: unknown) =>
    request(method, `/api${p}`, body, { baseUrl: s.consoleUrl, headers: { cookie, ...(method === 'GET' ? {} : { origin, 'x-csrf-token': csrf }) } });
  return { get: send('GET'), post: send('POST'), delete: send('DELETE') };
}

interface Setup {
  ws: TestWorkspace;
  owner: Person;
  member: Person;
}

async function workspaceWithPeople(plan = 'scale'): Promise<Setup> {
  const ws = await newWorkspace(['--plan', plan, '--messages-per-month', '1000']);
  const tag = randomBytes(4).toString('hex');
  await createUser(ws.id, `owner-${tag}@example.com`, 'owner');
  await createUser(ws.id, `member-${tag}@example.com`, 'member');
  return { ws, owner: await signIn(`owner-${tag}@example.com`), member: await signIn(`member-${tag}@example.com`) };
}

const gateway = (token: string) => request('GET', '/bots', undefined, { token });

describe('console: workspace management over real HTTP', () => {
  let a: Setup;
  let b: Setup;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver(s.receiverPort);
    [a, b] = [await workspaceWithPeople(), await workspaceWithPeople()];
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  it('a token created in the console answers GET /v1/bots; revoked in the console, it gets 401 within 2 s', async () => {
    const created = await a.owner.post(`/workspaces/${a.ws.id}/tokens`, { name: 'Console token', scopes: ['bots:read'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Console token', scopes: ['bots:read'], bot_ids: null, revoked_at: null, token: expect.stringMatching(/^mgpt_/) });
    expect((await gateway(created.body.token)).status).toBe(200);
    const listed = await a.member.get(`/workspaces/${a.ws.id}/tokens`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(created.body.id);
    expect(listed.text).not.toContain(created.body.token);

    const revokedAt = Date.now();
    const revoked = await a.owner.post(`/workspaces/${a.ws.id}/tokens/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, revoked_at: expect.any(String) });
    const status = await waitFor(async () => (await gateway(created.body.token)).status, (code) => code === 401, 2000, 50);
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(2000);

    const audit = await a.owner.get(`/workspaces/${a.ws.id}/audit`);
    expect(audit.status).toBe(200);
    const actions = audit.body.data.filter((e: { target_id: string }) => e.target_id === created.body.id).map((e: { action: string }) => e.action);
    expect(actions).toEqual(['token.revoked', 'token.created']);
    expect(audit.text).not.toContain(created.body.token);
  });

  it('a webhook to a local receiver gets a signed delivery of a widget booking; the list shows it succeeded with its status code; redeliver, test and rotate work', async () => {
    const bot = (await a.ws.api.post('/bots', { name: uniqueName('Desk'), language: 'en' })).body.data.id as string;
    const bots = await a.member.get(`/workspaces/${a.ws.id}/bots`);
    expect(bots.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: bot, name: expect.any(String) })]));
    const hookPath = `/console/${a.ws.id}`;
    const created = await a.owner.post(`/workspaces/${a.ws.id}/webhooks`, { name: 'Bookings', url: receiver.url(hookPath), events: ['booking.created'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Bookings', events: ['booking.created'], last_delivery: null, deliveries_enabled: true, secret: expect.stringMatching(/^whsec_/) });
    const hook = created.body as { id: string; secret: string };

    const booked = await request('POST', '', { name: 'Lin', email: 'lin@example.com', phone: '+65 6123 4567', requestedSlot: '2027-03-01T10:00:00+08:00', timeZone: 'Asia/Singapore' }, { baseUrl: `${s.gatewayUrl}/widget/v1/bots/${bot}/bookings` });
    expect(booked.status).toBe(201);
    await waitFor(async () => receiver.on(hookPath).length, (n) => n >= 1, 30000);
    const [first] = receiver.on(hookPath);
    expect(first.headers['x-service-event']).toBe('booking.created');
    expect(verifyWebhook({ rawBody: first.rawBody, headers: first.headers, secret: hook.secret })).toMatchObject({ ok: true });

    const listed = await waitFor(
      async () => (await a.member.get(`/workspaces/${a.ws.id}/webhooks`)).body.data.find((w: { id: string }) => w.id === hook.id),
      (w) => w?.last_delivery?.status === 'succeeded',
      10000,
    );
    expect(listed.last_delivery).toMatchObject({ event: 'booking.created', status: 'succeeded', status_code: 200, error: null });
    expect(JSON.stringify(listed)).not.toContain(hook.secret);

    const log = await a.member.get(`/workspaces/${a.ws.id}/webhooks/${hook.id}/deliveries?limit=10`);
    expect(log.status).toBe(200);
    const [delivery] = log.body.data;
    expect(delivery).toMatchObject({ id: listed.last_delivery.delivery_id, event: 'booking.created', status: 'succeeded', status_code: 200, attempts: 1 });
    expect(delivery.attempt_log).toEqual([expect.objectContaining({ attempt: 1, trigger: 'event', status_code: 200 })]);

    const redelivered = await a.owner.post(`/workspaces/${a.ws.id}/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({ id: delivery.id, status: 'pending' });
    await waitFor(async () => receiver.on(hookPath).length, (n) => n >= 2, 15000);
    const again = receiver.on(hookPath)[1];
    expect(again.rawBody.toString()).toMatch(/"event":"booking.created"/);
    expect(verifyWebhook({ rawBody: again.rawBody, headers: again.headers, secret: hook.secret })).toMatchObject({ ok: true });

    const rotated = await a.owner.post(`/workspaces/${a.ws.id}/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ id: hook.id, secret: expect.stringMatching(/^whsec_/) });
    const test = await a.owner.post(`/workspaces/${a.ws.id}/webhooks/${hook.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ webhook_id: hook.id, event: 'webhook.test', status: 'pending' });
    await waitFor(async () => receiver.on(hookPath).length, (n) => n >= 3, 15000);
    const tested = receiver.on(hookPath)[2];
    expect(tested.headers['x-service-event']).toBe('webhook.test');
    expect(verifyWebhook({ rawBody: tested.rawBody, headers: tested.headers, secret: rotated.body.secret })).toMatchObject({ ok: true });
    expect(verifyWebhook({ rawBody: tested.rawBody, headers: tested.headers, secret: hook.secret })).toMatchObject({ ok: false });

    const audit = await a.owner.get(`/workspaces/${a.ws.id}/audit`);
    const actions = audit.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['webhook.created', 'delivery.redelivered', 'webhook.secret_rotated', 'webhook.test_sent']));
    for (const secret of [hook.secret, rotated.body.secret]) expect(audit.text).not.toContain(secret);

    expect((await a.owner.delete(`/workspaces/${a.ws.id}/webhooks/${hook.id}`)).status).toBe(204);
    expect((await a.owner.get(`/workspaces/${a.ws.id}/webhooks`)).body.data.map((w: { id: string }) => w.id)).not.toContain(hook.id);
  });

  it('a member reads but every write is refused with 403 forbidden_role', async () => {
    const token = (await a.owner.post(`/workspaces/${a.ws.id}/tokens`, { name: 'Kept', scopes: ['bots:read'] })).body;
    const hook = (await a.owner.post(`/workspaces/${a.ws.id}/webhooks`, { url: receiver.url(`/member/${a.ws.id}`), events: ['lead.created'] })).body;
    expect((await a.member.get(`/workspaces/${a.ws.id}`)).status).toBe(200);
    for (const res of [
      await a.member.post(`/workspaces/${a.ws.id}/tokens`, { name: 'Mine', scopes: ['bots:read'] }),
      await a.member.post(`/workspaces/${a.ws.id}/tokens/${token.id}/revoke`),
      await a.member.post(`/workspaces/${a.ws.id}/webhooks`, { url: receiver.url('/x'), events: ['lead.created'] }),
      await a.member.delete(`/workspaces/${a.ws.id}/webhooks/${hook.id}`),
      await a.member.post(`/workspaces/${a.ws.id}/webhooks/${hook.id}/rotate-secret`),
      await a.member.post(`/workspaces/${a.ws.id}/webhooks/${hook.id}/test`),
      await a.member.post(`/workspaces/${a.ws.id}/webhooks/${hook.id}/deliveries/${randomUUID()}/redeliver`),
    ]) {
      expect([res.status, res.body?.code]).toEqual([403, 'forbidden_role']);
    }
    expect((await gateway(token.token)).status).toBe(200);
  });

  it('another workspace’s ids are not found (404), and so is a workspace the person is not in', async () => {
    const theirToken = (await b.owner.post(`/workspaces/${b.ws.id}/tokens`, { name: 'Theirs', scopes: ['bots:read'] })).body;
    const theirHook = (await b.owner.post(`/workspaces/${b.ws.id}/webhooks`, { url: receiver.url(`/theirs/${b.ws.id}`), events: ['lead.created'] })).body;
    const ourHook = (await a.owner.post(`/workspaces/${a.ws.id}/webhooks`, { url: receiver.url(`/ours/${a.ws.id}`), events: ['lead.created'] })).body;
    const theirTest = (await b.owner.post(`/workspaces/${b.ws.id}/webhooks/${theirHook.id}/test`)).body;
    const theirBot = (await b.ws.api.post('/bots', { name: uniqueName('Theirs'), language: 'en' })).body.data.id;
    const w = `/workspaces/${a.ws.id}`;
    for (const res of [
      await a.owner.post(`${w}/tokens/${theirToken.id}/revoke`),
      await a.owner.delete(`${w}/webhooks/${theirHook.id}`),
      await a.owner.post(`${w}/webhooks/${theirHook.id}/rotate-secret`),
      await a.owner.post(`${w}/webhooks/${theirHook.id}/test`),
      await a.owner.get(`${w}/webhooks/${theirHook.id}/deliveries`),
      await a.owner.post(`${w}/webhooks/${ourHook.id}/deliveries/${theirTest.id}/redeliver`),
      await a.owner.post(`${w}/tokens`, { name: 'x', scopes: ['bots:read'], bot_ids: [theirBot] }),
      await a.owner.post(`${w}/webhooks`, { url: receiver.url('/y'), events: ['lead.created'], bot_id: theirBot }),
      await a.owner.get(`/workspaces/${b.ws.id}/tokens`),
      await a.owner.get(`/workspaces/${b.ws.id}`),
    ]) {
      expect([res.status, res.body?.code]).toEqual([404, 'not_found']);
    }
    expect((await gateway(theirToken.token)).status).toBe(200);
    expect((await b.owner.get(`/workspaces/${b.ws.id}/webhooks`)).body.data.map((h: { id: string }) => h.id)).toContain(theirHook.id);
    // A workspace id in a body is refused, never used.
    const smuggled = await a.owner.post(`${w}/tokens`, { name: 'x', scopes: ['bots:read'], workspace_id: b.ws.id });
    expect([smuggled.status, smuggled.body?.success]).toEqual([400, false]);
  });

  it('shows the workspace: plan, live access (api_locked explained) and usage against the quotas', async () => {
    const view = await a.member.get(`/workspaces/${a.ws.id}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      id: a.ws.id,
      role: 'member',
      plan: 'scale',
      billing_status: 'active',
      trial_ends_at: null,
      live_access: { ok: true, code: null, reason: null },
      usage: { messages_this_month: { used: 0, limit: 1000 }, bot_slots: { used: expect.any(Number), limit: 10 }, pages_per_bot: { limit: expect.any(Number), bots: expect.any(Array) } },
    });
    expect(view.body.usage.bot_slots.used).toBe(view.body.usage.pages_per_bot.bots.length);

    await admin(['workspace', 'update', '--id', b.ws.id, '--status', 'past_due']);
    const locked = await b.owner.get(`/workspaces/${b.ws.id}`);
    expect(locked.body.live_access).toEqual({ ok: false, code: 'api_locked', reason: expect.stringMatching(/past due.*402 api_locked/) });
    expect((await b.ws.api.get('/bots')).body.code).toBe('api_locked');
  });
});
