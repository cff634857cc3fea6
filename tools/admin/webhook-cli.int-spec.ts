import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase } from '@sa/testing';
import { SecretBox } from '@sa/webhook-registry';

// The admin CLI's webhook commands, run as operators run them: the built CLI
// (dist/tools/admin/main.js, built by the integration global setup) against a migrated database.

const ROOT = path.resolve(__dirname, '..', '..');
const KEY = randomBytes(32);

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pg: Client;
const listeners: Client[] = [];

beforeAll(async () => {
  db = await createTestDatabase('sa_test_webhook_cli');
  pg = new Client({ connectionString: db.url });
  await pg.connect();
});

afterEach(async () => {
  for (const c of listeners.splice(0)) await c.end();
});

afterAll(async () => {
  await pg?.end();
  await db?.drop();
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/tools/admin/main.js', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        WEBHOOK_SECRET_KEY: KEY.toString('hex'),
        WEBHOOK_MAX_PER_WORKSPACE: '2',
        OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        OUTBOUND_ALLOWED_PORTS: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the CLI, expects success and returns the parsed JSON. */
async function ok<T = Record<string, unknown>>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const r = await cli(args, env);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited with ${r.code}: ${r.stderr}`);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as T;
}

async function newWorkspace(plan = 'scale'): Promise<string> {
  return (await ok<{ id: string }>(['workspace', 'create', '--name', `ws-${randomUUID().slice(0, 8)}`, '--plan', plan])).id;
}

async function newWebhook(ws: string): Promise<string> {
  return (await ok<{ id: string }>(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/hook', '--events', 'all'])).id;
}

async function insertDelivery(webhookId: string, status: string): Promise<string> {
  const { rows } = await pg.query(
    `INSERT INTO webhooks.deliveries (tenant_id, webhook_id, event_id, event_type, occurred_at, data, status, attempts, last_status_code, last_error, last_attempt_at)
     SELECT tenant_id, id, gen_random_uuid(), 'lead.created', now(), '{}'::jsonb, $2::text, 1, 500, 'HTTP 500', now() FROM webhooks.webhooks WHERE id = $1
     RETURNING id`,
    [webhookId, status],
  );
  return rows[0].id;
}

it('creates, lists and deletes a webhook; the secret is printed once and stored sealed', async () => {
  const ws = await newWorkspace('scale');
  const created = await ok<Record<string, unknown> & { id: string; secret: string }>([
    'webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/hook', '--events', 'booking.created, lead.created', '--name', 'Bookings to CRM',
  ]);
  expect(created).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    workspace_id: ws,
    name: 'Bookings to CRM',
    url: 'http://127.0.0.1/hook',
    events: ['lead.created', 'booking.created'],
    bot_id: null,
    created_at: expect.any(String),
    secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    deliveries_enabled: true,
  });
  const { rows } = await pg.query(`SELECT secret FROM webhooks.webhooks WHERE id = $1`, [created.id]);
  expect(rows[0].secret).toMatch(/^v1:/);
  expect(new SecretBox(KEY).open(rows[0].secret)).toBe(created.secret);

  const listed = await cli(['webhook', 'list', '--workspace', ws]);
  expect(listed.code).toBe(0);
  expect(listed.stdout).not.toContain(created.secret);
  const { secret: _secret, deliveries_enabled: _enabled, ...view } = created;
  expect(JSON.parse(listed.stdout)).toEqual({ data: [{ ...view, last_delivery: null }] });

  await expect(ok(['webhook', 'delete', '--id', created.id, '--workspace', ws])).resolves.toEqual({ id: created.id, deleted: true });
  await expect(ok(['webhook', 'list', '--workspace', ws])).resolves.toEqual({ data: [] });
  const again = await cli(['webhook', 'delete', '--id', created.id]);
  expect(again).toEqual({ code: 1, stdout: '', stderr: `error: no webhook with id ${created.id}\n` });
});

it('without WEBHOOK_SECRET_KEY, stores the secret encrypted with the local key file, created once (0600) and reused', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-webhook-key-'));
  const keyFile = path.join(dir, 'data', 'webhook-secret-key');
  try {
    const env = { WEBHOOK_SECRET_KEY: '', WEBHOOK_SECRET_KEY_FILE: keyFile };
    const ws = await newWorkspace('scale');
    const first = await ok<{ id: string; secret: string; name: string }>(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/one', '--events', 'all'], env);
    expect(first.secret).toMatch(/^whsec_/);
    expect(first.name).toBe('127.0.0.1'); // no --name: the endpoint's host
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'hex');
    expect(key).toHaveLength(32);
    const second = await ok<{ id: string; secret: string }>(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/two', '--events', 'all'], env);
    expect(Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'hex')).toEqual(key);
    const { rows } = await pg.query<{ id: string; secret: string }>(`SELECT id, secret FROM webhooks.webhooks WHERE tenant_id = $1 ORDER BY created_at`, [ws]);
    for (const [row, created] of [
      [rows[0], first],
      [rows[1], second],
    ] as const) {
      expect(row.secret).toMatch(/^v1:/);
      expect(row.secret).not.toContain(created.secret.slice('whsec_'.length));
      expect(new SecretBox(key).open(row.secret)).toBe(created.secret);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('with NODE_ENV=production, refuses webhook commands without WEBHOOK_SECRET_KEY and creates no key file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-webhook-key-'));
  const keyFile = path.join(dir, 'webhook-secret-key');
  try {
    const ws = await newWorkspace('scale');
    const r = await cli(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/prod', '--events', 'all'], { NODE_ENV: 'production', WEBHOOK_SECRET_KEY: '', WEBHOOK_SECRET_KEY_FILE: keyFile });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/WEBHOOK_SECRET_KEY is required when NODE_ENV=production/);
    expect(fs.existsSync(keyFile)).toBe(false);
    expect((await pg.query(`SELECT 1 FROM webhooks.webhooks WHERE tenant_id = $1`, [ws])).rowCount).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('refuses a bad URL, an unknown workspace and one webhook too many with exit code 1', async () => {
  const ws = await newWorkspace('growth');
  const bad = await cli(['webhook', 'create', '--workspace', ws, '--url', 'http://10.0.0.1/hook', '--events', 'all']);
  expect(bad).toEqual({ code: 1, stdout: '', stderr: 'error: --url refused: 10.0.0.1 is a private address (10.0.0.0/8)\n' });
  const plain = await cli(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1:8080/hook', '--events', 'all']);
  expect(plain).toMatchObject({ code: 1, stdout: '', stderr: 'error: --url refused: port 8080 is not allowed (allowed: 80, 443)\n' });
  const missing = randomUUID();
  expect(await cli(['webhook', 'create', '--workspace', missing, '--url', 'http://127.0.0.1/hook', '--events', 'all'])).toEqual({
    code: 1,
    stdout: '',
    stderr: `error: no workspace with id ${missing}\n`,
  });
  const events = await cli(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/hook', '--events', 'lead.updated']);
  expect(events).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: unknown event kind\(s\): lead\.updated/) });

  const first = await ok<{ deliveries_enabled: boolean }>(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/a', '--events', 'all']);
  expect(first.deliveries_enabled).toBe(false);
  await newWebhook(ws);
  const third = await cli(['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/c', '--events', 'all']);
  expect(third).toEqual({ code: 1, stdout: '', stderr: `error: workspace ${ws} already has 2 webhooks (at most 2)\n` });
});

it('gives usage errors (exit code 2) for missing or malformed options', async () => {
  const ws = randomUUID();
  const cases: [string[], RegExp][] = [
    [['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/hook'], /^error: --events is required\n\nUsage:/],
    [['webhook', 'create', '--workspace', ws, '--url', 'http://127.0.0.1/hook', '--events', 'all', '--secret', 'x'], /^error: unknown option\(s\): --secret\n/],
    [['webhook', 'deliveries', '--webhook', ws, '--limit', '0'], /^error: --limit must be between 1 and 500 \(got 0\)\n/],
    [['webhook', 'deliveries', '--webhook', ws, '--limit', '501'], /^error: --limit must be between 1 and 500 \(got 501\)\n/],
    [['webhook', 'deliveries', '--webhook', ws, '--status', 'done'], /^error: --status must be one of pending, sending, succeeded, failed \(got "done"\)\n/],
    [['webhook', 'redeliver', '--delivery', ws, '--wait', '-1'], /^error: --wait must be a whole number ≥ 0 \(got "-1"\)\n/],
    [['webhook', 'redeliver', '--delivery', ws, '--wait', 'soon'], /^error: --wait must be a whole number/],
    [['webhook', 'rename', '--id', ws], /^error: unknown command "webhook rename"\n/],
  ];
  const results = await Promise.all(cases.map(([args]) => cli(args)));
  cases.forEach(([args, stderr], i) => {
    expect({ args, code: results[i].code, stdout: results[i].stdout }).toEqual({ args, code: 2, stdout: '' });
    expect(results[i].stderr).toMatch(stderr);
  });
});

it('refuses to start with a bad WEBHOOK_SECRET_KEY or WEBHOOK_MAX_PER_WORKSPACE, without echoing the key', async () => {
  const r = await cli(['webhook', 'list', '--workspace', randomUUID()], { WEBHOOK_SECRET_KEY: 'my-password', WEBHOOK_MAX_PER_WORKSPACE: '1001' });
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(
    'error: Invalid configuration:\n  - WEBHOOK_SECRET_KEY must be 32 bytes, as 64 hexadecimal characters or as base64\n  - WEBHOOK_MAX_PER_WORKSPACE must be at most 1000 (got 1001)\n',
  );
  expect(r.stderr).not.toContain('my-password');
  // Other commands do not need the webhook settings.
  await expect(ok(['token', 'list', '--workspace', await newWorkspace()], { WEBHOOK_SECRET_KEY: 'my-password' })).resolves.toEqual({ data: [] });
});

it('lists deliveries and redelivers one, waiting for the dispatcher or saying it is queued', async () => {
  const ws = await newWorkspace('scale');
  const hook = await newWebhook(ws);
  const failed = await insertDelivery(hook, 'failed');
  const pending = await insertDelivery(hook, 'pending');

  const all = await ok<{ data: { id: string; status: string; attempt_log: unknown[] }[] }>(['webhook', 'deliveries', '--webhook', hook]);
  expect(all.data.map((d) => d.id)).toEqual([pending, failed]);
  const onlyFailed = await ok<{ data: { id: string }[] }>(['webhook', 'deliveries', '--webhook', hook, '--status', 'failed', '--limit', '5']);
  expect(onlyFailed.data).toEqual([expect.objectContaining({ id: failed, status: 'failed', status_code: 500, error: 'HTTP 500', attempt_log: [] })]);

  // Not finished yet: refused.
  expect(await cli(['webhook', 'redeliver', '--delivery', pending])).toEqual({
    code: 1,
    stdout: '',
    stderr: `error: delivery ${pending} is pending; only a finished delivery (succeeded or failed) can be redelivered\n`,
  });

  // --wait 0: queued, printed at once with a note.
  const queued = await ok<{ status: string; note?: string }>(['webhook', 'redeliver', '--delivery', failed, '--wait', '0']);
  expect(queued).toMatchObject({ id: failed, status: 'pending', note: 'queued; the webhook-dispatcher sends it when it runs' });
  const { rows } = await pg.query(`SELECT next_trigger FROM webhooks.deliveries WHERE id = $1`, [failed]);
  expect(rows[0].next_trigger).toBe('manual');

  // No dispatcher running: still pending after the wait.
  await pg.query(`UPDATE webhooks.deliveries SET status = 'failed', next_trigger = 'event' WHERE id = $1`, [failed]);
  const started = Date.now();
  const waited = await ok<{ status: string; note?: string }>(['webhook', 'redeliver', '--delivery', failed, '--wait', '1']);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  expect(waited).toMatchObject({ status: 'pending', note: 'queued; the webhook-dispatcher sends it when it runs' });

  // A stand-in dispatcher woken by the NOTIFY sends it: the CLI prints the result, without a note.
  await pg.query(`UPDATE webhooks.deliveries SET status = 'failed', next_trigger = 'event' WHERE id = $1`, [failed]);
  const dispatcher = new Client({ connectionString: db.url });
  listeners.push(dispatcher);
  await dispatcher.connect();
  dispatcher.on('notification', (n) => {
    void (async () => {
      await new Promise((r) => setTimeout(r, 300));
      await dispatcher.query(
        `INSERT INTO webhooks.attempts (delivery_id, attempt, trigger, owner, finished_at, duration_ms, status_code) VALUES ($1, 2, 'manual', 'stand-in', clock_timestamp(), 12, 204)`,
        [n.payload],
      );
      await dispatcher.query(
        `UPDATE webhooks.deliveries SET status = 'succeeded', attempts = 2, last_status_code = 204, last_error = NULL, last_duration_ms = 12, last_attempt_at = now() WHERE id = $1`,
        [n.payload],
      );
    })();
  });
  await dispatcher.query('LISTEN webhooks_deliveries');
  const sent = await ok<Record<string, unknown>>(['webhook', 'redeliver', '--delivery', failed]);
  expect(sent).toMatchObject({ id: failed, status: 'succeeded', attempts: 2, status_code: 204, error: null, duration_ms: 12 });
  expect(sent).not.toHaveProperty('note');
  expect(sent['attempt_log']).toEqual([expect.objectContaining({ attempt: 2, trigger: 'manual', status_code: 204 })]);
});
