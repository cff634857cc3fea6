import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, PrivateNats, createTestDatabase, freePort, startPrivateNats } from '@sa/testing';

// The admin CLI reaches each service's data as its owner does: identity with the gateway's
// database URL, webhooks with the dispatcher's, and what other services own (bots, visitor
// e-mails) over NATS. Here each URL is a role limited to its owner's schema, as PostgreSQL
// enforces ownership, and DATABASE_URL points nowhere, so no command can lean on it.

const ROOT = path.resolve(__dirname, '..', '..');
const suffix = randomBytes(3).toString('hex');
const ROLES = { gateway: `sa_cli_gateway_${suffix}`, dispatcher: `sa_cli_dispatcher_${suffix}` };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pg: Client;
let nats: PrivateNats;
let env: Record<string, string>;

function as(role: string): string {
  const url = new URL(db.url);
  url.username = role;
  return url.toString();
}

beforeAll(async () => {
  db = await createTestDatabase('sa_test_admin_cli');
  pg = new Client({ connectionString: db.url });
  await pg.connect();
  for (const [role, schema] of [
    [ROLES.gateway, 'identity'],
    [ROLES.dispatcher, 'webhooks'],
  ]) {
    await pg.query(`CREATE ROLE ${role} LOGIN`);
    await pg.query(`GRANT CONNECT ON DATABASE "${db.name}" TO ${role}`);
    await pg.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await pg.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
  }
  nats = await startPrivateNats();
  env = {
    DATABASE_URL: `postgres://nobody@127.0.0.1:${await freePort()}/nowhere`,
    GATEWAY_DATABASE_URL: as(ROLES.gateway),
    WEBHOOK_DISPATCHER_DATABASE_URL: as(ROLES.dispatcher),
    NATS_URL: nats.url,
    RPC_TIMEOUT_MS: '1000',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
  };
});

afterAll(async () => {
  await nats?.stop();
  await pg?.end();
  await db?.drop();
  // Roles are the cluster's: dropped once their database (and privileges there) is gone.
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  for (const role of Object.values(ROLES)) await admin.query(`DROP ROLE IF EXISTS ${role}`);
  await admin.end();
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/tools/admin/main.js', ...args], { cwd: ROOT, env: { PATH: process.env['PATH'], ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok<T = Record<string, unknown>>(args: string[], extra: Record<string, string> = {}): Promise<T> {
  const r = await cli(args, extra);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited with ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

it('the roles of this test can read only their own schema', async () => {
  const gateway = new Client({ connectionString: as(ROLES.gateway) });
  await gateway.connect();
  try {
    await expect(gateway.query('SELECT 1 FROM identity.workspaces LIMIT 1')).resolves.toBeDefined();
    for (const table of ['webhooks.webhooks', 'bots.bots', 'bookings.emails']) {
      await expect(gateway.query(`SELECT 1 FROM ${table} LIMIT 1`)).rejects.toThrow(/permission denied/);
    }
  } finally {
    await gateway.end();
  }
});

it('manages workspaces and tokens as the gateway, and webhooks as the dispatcher', async () => {
  const ws = await ok<{ id: string }>(['workspace', 'create', '--name', 'Roles', '--plan', 'scale']);
  await ok(['workspace', 'update', '--id', ws.id, '--messages-per-month', '10']);
  expect(await ok(['workspace', 'show', '--id', ws.id])).toMatchObject({ id: ws.id, messages_per_month: 10 });
  const token = await ok<{ id: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all']);
  await ok(['token', 'revoke', '--id', token.id]);
  expect((await ok<{ data: unknown[] }>(['token', 'list', '--workspace', ws.id])).data).toHaveLength(1);

  const hook = await ok<{ id: string; deliveries_enabled: boolean }>(['webhook', 'create', '--workspace', ws.id, '--url', 'http://127.0.0.1/hook', '--events', 'all']);
  expect(hook.deliveries_enabled).toBe(true);
  expect((await ok<{ data: { id: string }[] }>(['webhook', 'list', '--workspace', ws.id])).data.map((h) => h.id)).toEqual([hook.id]);
  expect(await ok(['webhook', 'deliveries', '--webhook', hook.id])).toEqual({ data: [] });
  expect(await ok(['webhook', 'delete', '--id', hook.id, '--workspace', ws.id])).toEqual({ id: hook.id, deleted: true });
  // A workspace unknown to identity has no webhooks to list.
  const unknown = randomUUID();
  expect(await cli(['webhook', 'list', '--workspace', unknown])).toEqual({ code: 1, stdout: '', stderr: `error: no workspace with id ${unknown}\n` });
});

it('asks the bots and bookings services over NATS, and says so when none answers', async () => {
  const ws = await ok<{ id: string }>(['workspace', 'create', '--name', 'Nobody home', '--plan', 'scale']);
  const bot = randomUUID();
  const cases: [string[], string][] = [
    [['token', 'create', '--workspace', ws.id, '--scopes', 'all', '--bots', bot], 'error: The bots service is unavailable (no instance is running)\n'],
    [['webhook', 'create', '--workspace', ws.id, '--url', 'http://127.0.0.1/hook', '--events', 'all', '--bot', bot], 'error: The bots service is unavailable (no instance is running)\n'],
    [['mail', 'list', '--workspace', ws.id], 'error: The bookings service is unavailable (no instance is running)\n'],
  ];
  for (const [args, stderr] of cases) expect([args, await cli(args)]).toEqual([args, { code: 1, stdout: '', stderr }]);
  // Nothing was written by the refused commands.
  expect((await ok<{ data: unknown[] }>(['token', 'list', '--workspace', ws.id])).data).toEqual([]);
  expect((await ok<{ data: unknown[] }>(['webhook', 'list', '--workspace', ws.id])).data).toEqual([]);

  const unreachable = `nats://127.0.0.1:${await freePort()}`;
  const r = await cli(['mail', 'list', '--workspace', ws.id], { NATS_URL: unreachable });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`error: cannot reach NATS at ${unreachable}`);
  // Commands on the CLI's own data need no NATS.
  await expect(ok(['workspace', 'show', '--id', ws.id], { NATS_URL: unreachable })).resolves.toMatchObject({ id: ws.id });
  expect(await cli(['mail', 'list', '--workspace', 'nope'])).toEqual({ code: 1, stdout: '', stderr: 'error: --workspace must be a uuid (got "nope")\n' });
});
