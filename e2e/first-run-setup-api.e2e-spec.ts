import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { Client } from 'pg';
import { waitFor } from './support/apps';
import { freePort } from './support/infra';
import { MiniSystem, startMiniSystem } from './support/mini-system';

/**
 * First-run setup's edges (issue 31), on a system of its own (fresh database, gateway and console
 * run alone as in a container): the console logs a generated code once; bad bodies are 400 and
 * make nothing; wrong codes are 403 and slowed down like failed sign-ins; two setups at the same
 * moment with the live code make exactly one owner (the other is 410); the workspace is on
 * CONSOLE_SETUP_PLAN; a CONSOLE_SETUP_CODE too short stops the console at start with a reason.
 */
describe('first-run setup: the API under attack and in a race', () => {
  let mini: MiniSystem;
  let consoleUrl = '';
  let secondUrl = '';
  let logged = '';
  const run = randomBytes(4).toString('hex');

  const post = (body: Record<string, unknown>) =>
    fetch(`${consoleUrl}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json', origin: consoleUrl }, body: JSON.stringify(body) }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
      retryAfter: r.headers.get('retry-after'),
    }));
  const body = (code: string, email = 'owner@example.com') => ({ code, workspace_name: 'Acme', display_name: 'Owner', email, password: 'a long enough password' });

  beforeAll(async () => {
    mini = await startMiniSystem(['gateway'], { CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS: '3', CONSOLE_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', CONSOLE_SETUP_PLAN: 'growth' }, { logs: true });
    // Two console replicas on one database, each with throttle counters of its own (Redis is
    // shared with the other tests' system: these failures must not slow its sign-ins down).
    const start = async (key: string) => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const app = mini.start('console', { CONSOLE_PORT: String(port), CONSOLE_PUBLIC_URL: url, OPS_PORT: String(await freePort()), CONSOLE_THROTTLE_PREFIX: `e2e-setup-${run}-${key}:` }, key);
      await waitFor(() => fetch(`${url}/api/setup`).then((r) => r.status).catch(() => 0), (st) => st === 200, 60000);
      return { url, app };
    };
    const [a, b] = [await start('console'), await start('console-2')];
    consoleUrl = a.url;
    secondUrl = b.url;
    // The log file may hold earlier runs' lines: only this replica's (its address is in the line).
    logged = fs
      .readFileSync(a.app.logFile!, 'utf8')
      .split('\n')
      .filter((l) => l.includes(`${consoleUrl}/`))
      .join('\n');
  }, 120000);

  afterAll(async () => {
    await mini?.stop();
  });

  it('the console run alone logs a generated setup code once, as a warning with the setup address', () => {
    const lines = logged.split('\n').filter((l) => l.includes('First-run setup'));
    expect(lines).toHaveLength(1);
    const line = lines[0];
    const entry = JSON.parse(line!);
    expect(entry).toEqual(expect.objectContaining({ level: 40, url: `${consoleUrl}/setup`, setup_code: expect.stringMatching(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){7}$/) }));
    expect(entry.msg).toContain(entry.setup_code);
  });

  it('refuses bad bodies (400) and wrong codes (403, then 429 with Retry-After), making nothing', async () => {
    for (const bad of [{}, { ...body('x'), email: 'not an e-mail' }, { ...body('x'), password: 'short' }, { ...body('x'), workspace_name: '   ' }, { ...body('x'), extra: 1 }, { ...body('x'), code: 'x'.repeat(201) }]) {
      const r = await post(bad);
      expect([JSON.stringify(bad).slice(0, 60), r.status, r.body]).toEqual([JSON.stringify(bad).slice(0, 60), 400, expect.anything()]);
    }
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await post(body(`WRONG-${i}-AAAA-BBBB-CCCC-DDDD`));
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 3)).toEqual([403, 403, 403]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(last!.body.code).toBe('too_many_attempts');
    expect(Number(last!.retryAfter)).toBeGreaterThan(0);
    const db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
    try {
      expect((await db.query('SELECT count(*)::int AS n FROM people.persons')).rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('two setups at the same moment with the live code make exactly one owner; the other is 410', async () => {
    const code = JSON.parse(logged.split('\n').find((l) => l.includes('First-run setup'))!).setup_code as string;
    const db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
    try {
      // On the second replica (its own throttle counters): the code the first one made works there too.
      const forwarded = (n: number) =>
        fetch(`${secondUrl}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json', origin: secondUrl }, body: JSON.stringify(body(code, `owner${n}@example.com`)) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const results = await Promise.all([forwarded(1), forwarded(2), forwarded(3)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 410, 410]);
      expect((await db.query('SELECT count(*)::int AS n FROM people.persons')).rows[0].n).toBe(1);
      expect((await db.query('SELECT count(*)::int AS n FROM people.setup_codes')).rows[0].n).toBe(0);
      const winner = results.find((r) => r.status === 201)!.body;
      // The workspace is on CONSOLE_SETUP_PLAN, made by the gateway in schema identity.
      expect((await db.query('SELECT plan, name FROM identity.workspaces WHERE id = $1', [winner.workspaces[0].id])).rows).toEqual([{ plan: 'growth', name: 'Acme' }]);
      expect((await db.query('SELECT count(*)::int AS n FROM identity.workspaces')).rows[0].n).toBe(1);
    } finally {
      await db.end();
    }
  }, 60000);

  it('a CONSOLE_SETUP_CODE shorter than 16 letters or digits stops the console at start, saying why', async () => {
    const app = mini.start('console', { CONSOLE_PORT: String(await freePort()), OPS_PORT: String(await freePort()), CONSOLE_SETUP_CODE: 'short-code' }, 'console-short');
    const code = await Promise.race([app.exited, new Promise((r) => setTimeout(() => r('running'), 30000))]);
    expect(code).not.toBe('running');
    expect(code).not.toBe(0);
    expect(app.stderrTail()).toContain('CONSOLE_SETUP_CODE must have at least 16 letters or digits');
  }, 60000);
});
