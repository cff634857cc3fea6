import { admin, runAdmin } from './support/admin';
import { client, request } from './support/api';
import { newToken, newWorkspace } from './support/fixtures';

const isGeneralError = (body: any, code: string) => {
  expect(body).toEqual(expect.objectContaining({ code, error: expect.any(String), message: expect.any(String) }));
};

describe('authentication and access (spec part 5)', () => {
  it('401 for a missing, malformed, unknown, expired or revoked token, with WWW-Authenticate', async () => {
    const ws = await newWorkspace();
    const missing = await request('GET', '/bots');
    expect(missing.status).toBe(401);
    isGeneralError(missing.body, 'unauthorized');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');

    expect((await request('GET', '/bots', undefined, { headers: { authorization: `Token ${ws.token}` } })).status).toBe(401);
    expect((await request('GET', '/bots', undefined, { headers: { authorization: 'Bearer' } })).status).toBe(401);
    expect((await request('GET', '/bots', undefined, { token: 'mgpt_' + 'A'.repeat(43) })).status).toBe(401);
    expect((await request('GET', '/bots', undefined, { token: 'not-a-token' })).status).toBe(401);
    expect((await request('GET', '/bots', undefined, { token: ws.token.slice(0, -1) + (ws.token.endsWith('A') ? 'B' : 'A') })).status).toBe(401);

    const expiring = await newToken(ws.id, ['--scopes', 'bots:read', '--expires-in', '1']);
    expect((await expiring.api.get('/bots')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const expired = await expiring.api.get('/bots');
    expect(expired.status).toBe(401);
    isGeneralError(expired.body, 'unauthorized');

    const revocable = await newToken(ws.id, ['--scopes', 'bots:read']);
    expect((await revocable.api.get('/bots')).status).toBe(200);
    await admin(['token', 'revoke', '--id', revocable.id]);
    // Revocation is pushed to the gateway's cache (NOTIFY); allow a moment for delivery.
    let status = 0;
    for (let i = 0; i < 20 && status !== 401; i++) {
      status = (await revocable.api.get('/bots')).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);
  });

  it('403 insufficient_scope when the token lacks the route scope', async () => {
    const ws = await newWorkspace();
    const readOnly = await newToken(ws.id, ['--scopes', 'bots:read']);
    expect((await readOnly.api.get('/bots')).status).toBe(200);
    const res = await readOnly.api.post('/bots', { name: 'Nope' });
    expect(res.status).toBe(403);
    isGeneralError(res.body, 'insufficient_scope');
    const kbOnly = await newToken(ws.id, ['--scopes', 'kb:read']);
    expect((await kbOnly.api.get('/bots')).status).toBe(403);
  });

  it.each([
    ['a past-due paid plan', ['--plan', 'growth'], ['--status', 'past_due'], ['--status', 'active']],
    ['a canceled scale plan', ['--plan', 'scale'], ['--status', 'canceled'], ['--status', 'active']],
    ['an ended trial', ['--plan', 'growth_trial'], ['--trial-ends', '2020-01-01T00:00:00Z'], ['--trial-ends', '2099-01-01T00:00:00Z']],
    ['an enterprise contract without API access', ['--plan', 'enterprise', '--enterprise-api'], ['--no-enterprise-api'], ['--enterprise-api']],
  ])('402 api_locked for %s, and the same token works again when access returns', async (_label, createFlags, lockFlags, unlockFlags) => {
    const ws = await newWorkspace(createFlags);
    expect((await ws.api.get('/bots')).status).toBe(200);
    await admin(['workspace', 'update', '--id', ws.id, ...lockFlags]);
    const locked = await eventually(() => ws.api.get('/bots'), (r) => r.status === 402);
    isGeneralError(locked.body, 'api_locked');
    // Locked dominates: even a route the token has no scope for answers 402.
    expect((await ws.api.post('/bots', { name: 'x' })).status).toBe(402);
    await admin(['workspace', 'update', '--id', ws.id, ...unlockFlags]);
    const back = await eventually(() => ws.api.get('/bots'), (r) => r.status === 200);
    expect(back.status).toBe(200);
  });

  it('an active trial and an enterprise contract with API access are live', async () => {
    const trial = await newWorkspace(['--plan', 'growth_trial', '--trial-ends', '2099-01-01T00:00:00Z']);
    expect((await trial.api.get('/bots')).status).toBe(200);
    const defaultTrial = await newWorkspace(['--plan', 'growth_trial']);
    expect((await defaultTrial.api.get('/bots')).status).toBe(200);
    const ent = await newWorkspace(['--plan', 'enterprise', '--enterprise-api']);
    expect((await ent.api.get('/bots')).status).toBe(200);
    const entNoApi = await newWorkspace(['--plan', 'enterprise']);
    expect((await entNoApi.api.get('/bots')).status).toBe(402);
  });

  it('token list never shows secrets or hashes, and last use is recorded', async () => {
    const ws = await newWorkspace();
    const list = await admin<{ data: Record<string, unknown>[] }>(['token', 'list', '--workspace', ws.id]);
    expect(list.data).toHaveLength(1);
    const text = JSON.stringify(list);
    expect(text).not.toContain(ws.token);
    expect(text).not.toMatch(/token_hash|"token"/);
    expect(list.data[0]['hint']).toBe(ws.token.slice(0, 9) + '…');
  });
});

describe('admin CLI', () => {
  it('rejects bad arguments with a message and a non-zero exit', async () => {
    const cases: string[][] = [
      [],
      ['workspace', 'create', '--name', 'X'],
      ['workspace', 'create', '--name', 'X', '--plan', 'gold'],
      ['workspace', 'create', '--name', 'X', '--plan', 'growth', '--bot-slots', '-1'],
      ['workspace', 'create', '--name', 'X', '--plan', 'growth', '--tier-slots', 'platinum=2'],
      ['workspace', 'create', '--name', 'X', '--plan', 'growth', '--trial-ends', 'tomorrow'],
      ['workspace', 'create', '--name', 'X', '--plan', 'growth', '--bogus', '1'],
      ['workspace', 'update', '--id', 'not-a-uuid', '--status', 'active'],
      ['workspace', 'update', '--id', '00000000-0000-4000-8000-000000000000', '--status', 'active'],
      ['token', 'create', '--workspace', '00000000-0000-4000-8000-000000000000', '--scopes', 'all'],
      ['token', 'create', '--scopes', 'all'],
      ['token', 'revoke', '--id', '00000000-0000-4000-8000-000000000000'],
      ['frobnicate'],
    ];
    for (const args of cases) {
      const r = await runAdmin(args);
      expect({ args, code: r.code === 0 ? 0 : 'non-zero' }).toEqual({ args, code: 'non-zero' });
      expect(r.stderr).toMatch(/error|Usage/);
      expect(r.stdout).toBe('');
    }
    const ws = await newWorkspace();
    const badScope = await runAdmin(['token', 'create', '--workspace', ws.id, '--scopes', 'bots:read,bots:delete']);
    expect(badScope.code).not.toBe(0);
    expect(badScope.stderr).toContain('bots:delete');
  });

  it('a token may be limited only to bots of its own workspace', async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const bBot = (await b.api.post('/bots', { name: 'B bot' })).body.data;
    const r = await runAdmin(['token', 'create', '--workspace', a.id, '--scopes', 'all', '--bots', bBot.id]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(bBot.id);
  });
});

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!ok(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    last = await fn();
  }
  return last;
}

export { client };
