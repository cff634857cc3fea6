import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Notification } from 'pg';
import { DataSource } from 'typeorm';
import { WEBHOOK_EVENT_TYPES } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DbIdentitySource, IDENTITY_ENTITIES, IdentityAdmin } from '@sa/identity-db';
import { Resolver, outboundPolicy } from '@sa/net-guard';
// Test-only dependency; the module-boundary rule does not tell tests from library code.
import { createTestDatabase } from '@sa/testing';
import { DELIVERIES_CHANNEL, DeliveryStatus } from './channels';
import { sealPlaintextSecrets } from './seal-plaintext';
import { SecretBox, generateSigningSecret } from '@sa/secret-box';
import { WEBHOOK_TEST_EVENT, WebhookAdmin, WebhookAdminDirectory, WebhookAdminOptions, WebhookInputError, WebhookNotFoundError, WebhookStateError } from './webhook-admin';

// WebhookAdmin against a fresh migrated database: registrations, the delivery log as the
// dispatcher leaves it (rows inserted here directly), and the NOTIFY that wakes the dispatcher.
// Workspaces are read as the admin CLI reads them (schema identity); bots are the bots service's,
// so its answers are a stand-in here (the admin CLI asks it over NATS, see e2e/webhooks).

const SECRET_FORMAT = /^whsec_[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const resolver: Resolver = async (hostname) => {
  const answers: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'crm.example.org': ['93.184.216.35', '2606:2800:220:1:248:1893:25c8:1946'],
    'sneaky.example.com': ['93.184.216.34', '10.0.0.7'],
    'local.example.com': ['127.0.0.1'],
  };
  const list = answers[hostname];
  if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let identity: IdentityAdmin;
let secrets: SecretBox;
let admin: WebhookAdmin;
const clients: Client[] = [];
/** bot id → workspace id: what the bots service would answer. */
const bots = new Map<string, string>();
let directory: WebhookAdminDirectory;

function webhookAdmin(overrides: Partial<WebhookAdminOptions> = {}): WebhookAdmin {
  return new WebhookAdmin(ds, { policy: outboundPolicy({ allowCidrs: ['127.0.0.1/32'] }), secrets, maxPerWorkspace: 3, resolver, ...overrides }, directory);
}

beforeAll(async () => {
  db = await createTestDatabase('sa_webhook_registry');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'webhook-registry-int', entities: IDENTITY_ENTITIES, poolSize: 4 })).initialize();
  identity = new IdentityAdmin(ds);
  const workspaces = new DbIdentitySource(ds);
  directory = { workspace: (id) => workspaces.workspace(id), isBotOf: async (workspaceId, botId) => bots.get(botId) === workspaceId };
  secrets = new SecretBox(randomBytes(32));
  admin = webhookAdmin();
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.end();
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

async function inputError(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  const err = await promise.then(
    () => {
      throw new Error('expected a WebhookInputError');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookInputError);
  expect((err as Error).message).toMatch(message);
}

/** Scale includes webhooks (spec part 1 rule 4); Growth does not. */
async function newWorkspace(plan: 'scale' | 'growth' = 'scale'): Promise<string> {
  return (await identity.createWorkspace({ name: `ws-${randomUUID().slice(0, 8)}`, plan })).id;
}

async function insertBot(tenantId: string): Promise<string> {
  const id = randomUUID();
  bots.set(id, tenantId);
  return id;
}

async function newWebhook(tenantId: string, url = 'https://hooks.example.com/in'): Promise<string> {
  return (await admin.create({ workspaceId: tenantId, url, events: ['all'] })).id;
}

interface DeliveryFixture {
  status?: DeliveryStatus;
  event?: string;
  attempts?: number;
  statusCode?: number | null;
  error?: string | null;
  durationMs?: number | null;
  lastAttemptAt?: string | null;
  createdAt?: string;
  owner?: string | null;
}

/** A delivery row as the dispatcher leaves it. */
async function insertDelivery(webhookId: string, f: DeliveryFixture = {}): Promise<string> {
  const [row] = await ds.query(
    `INSERT INTO webhooks.deliveries (tenant_id, webhook_id, event_id, event_type, occurred_at, data, status, attempts,
                                      last_status_code, last_error, last_duration_ms, last_attempt_at, created_at, owner, lease_until)
     SELECT tenant_id, id, gen_random_uuid(), $2::text, now(), '{"lead_id":"x"}'::jsonb, $3::text, $4::int, $5::int, $6::text, $7::int, $8::timestamptz, COALESCE($9::timestamptz, clock_timestamp()),
            $10::text, CASE WHEN $10::text IS NULL THEN NULL ELSE now() + interval '1 minute' END
       FROM webhooks.webhooks WHERE id = $1
     RETURNING id`,
    [
      webhookId,
      f.event ?? 'lead.created',
      f.status ?? 'succeeded',
      f.attempts ?? 1,
      f.statusCode === undefined ? 200 : f.statusCode,
      f.error ?? null,
      f.durationMs === undefined ? 42 : f.durationMs,
      f.lastAttemptAt === undefined ? new Date().toISOString() : f.lastAttemptAt,
      f.createdAt ?? null,
      f.owner ?? null,
    ],
  );
  return row.id;
}

async function insertAttempt(
  deliveryId: string,
  attempt: number,
  a: { trigger?: 'event' | 'manual'; startedAt: string; finishedAt?: string | null; durationMs?: number | null; statusCode?: number | null; error?: string | null },
): Promise<void> {
  await ds.query(
    `INSERT INTO webhooks.attempts (delivery_id, attempt, trigger, owner, started_at, finished_at, duration_ms, status_code, error)
     VALUES ($1, $2, $3, 'dispatcher-test', $4, $5, $6, $7, $8)`,
    [deliveryId, attempt, a.trigger ?? 'event', a.startedAt, a.finishedAt ?? null, a.durationMs ?? null, a.statusCode ?? null, a.error ?? null],
  );
}

/** A LISTEN connection that collects the notifications of one channel. */
async function listen(channel: string): Promise<Notification[]> {
  const client = new Client({ connectionString: db.url });
  clients.push(client);
  await client.connect();
  const seen: Notification[] = [];
  client.on('notification', (n) => seen.push(n));
  await client.query(`LISTEN ${channel}`);
  return seen;
}

async function waitFor(what: string, cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('create', () => {
  it('registers a webhook, shows the secret once and stores it sealed', async () => {
    const ws = await newWorkspace('scale');
    const created = await admin.create({ workspaceId: ws, url: '  https://Hooks.Example.com/in?src=sa  ', events: ['booking.created', 'lead.created', 'lead.created'] });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workspace_id: ws,
      name: 'hooks.example.com',
      url: 'https://hooks.example.com/in?src=sa',
      events: ['lead.created', 'booking.created'],
      bot_id: null,
      created_at: expect.stringMatching(ISO),
      secret: expect.stringMatching(SECRET_FORMAT),
      deliveries_enabled: true,
    });
    const [row] = await ds.query(`SELECT * FROM webhooks.webhooks WHERE id = $1`, [created.id]);
    expect(row).toMatchObject({ tenant_id: ws, url: created.url, events: created.events, bot_id: null });
    expect(row.secret).toMatch(/^v1:/);
    expect(row.secret).not.toBe(created.secret);
    expect(row.secret).not.toContain(created.secret.slice('whsec_'.length));
    expect(secrets.open(row.secret)).toBe(created.secret);
  });

  it('sealPlaintextSecrets encrypts secrets stored as issued (before encryption at rest) once, keeping their values', async () => {
    const ws = await newWorkspace();
    const legacy = [generateSigningSecret(), generateSigningSecret()];
    const ids: string[] = [];
    for (const secret of legacy) {
      const [row] = await ds.query(`INSERT INTO webhooks.webhooks (tenant_id, url, events, secret) VALUES ($1, 'https://hooks.example.com/old', '{lead.created}', $2) RETURNING id`, [ws, secret]);
      ids.push(row.id);
    }
    const sealedBefore = await admin.create({ workspaceId: ws, url: 'https://hooks.example.com/new', events: ['all'] });
    const [before] = await ds.query(`SELECT secret FROM webhooks.webhooks WHERE id = $1`, [sealedBefore.id]);

    const counts = await Promise.all([sealPlaintextSecrets(ds, secrets), sealPlaintextSecrets(ds, secrets)]);
    expect(counts[0] + counts[1]).toBeGreaterThanOrEqual(2);
    expect(await sealPlaintextSecrets(ds, secrets)).toBe(0);
    const rows: { id: string; secret: string }[] = await ds.query(`SELECT id, secret FROM webhooks.webhooks WHERE id = ANY($1::uuid[])`, [ids]);
    for (const row of rows) {
      expect(row.secret).toMatch(/^v1:/);
      expect(secrets.open(row.secret)).toBe(legacy[ids.indexOf(row.id)]);
    }
    const [after] = await ds.query(`SELECT secret FROM webhooks.webhooks WHERE id = $1`, [sealedBefore.id]);
    expect(after.secret).toBe(before.secret);
    expect((await ds.query(`SELECT count(*)::int AS n FROM webhooks.webhooks WHERE starts_with(secret, 'whsec_')`))[0].n).toBe(0);
  });

  it('issues a different secret for every webhook', async () => {
    const ws = await newWorkspace();
    const [a, b] = [await admin.create({ workspaceId: ws, url: 'https://hooks.example.com/a', events: ['all'] }), await admin.create({ workspaceId: ws, url: 'https://hooks.example.com/a', events: ['all'] })];
    expect(a.secret).not.toBe(b.secret);
    expect(a.events).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('registers on a plan without webhooks too, saying nothing is delivered yet', async () => {
    const ws = await newWorkspace('growth');
    expect((await admin.create({ workspaceId: ws, url: 'https://hooks.example.com/in', events: ['all'] })).deliveries_enabled).toBe(false);
  });

  it('scopes a webhook to a bot of the workspace, and refuses a bot of another workspace', async () => {
    const [ws, other] = [await newWorkspace(), await newWorkspace()];
    const [bot, foreignBot] = [await insertBot(ws), await insertBot(other)];
    const created = await admin.create({ workspaceId: ws, url: 'https://crm.example.org/hook', events: ['lead.created'], botId: bot });
    expect(created.bot_id).toBe(bot);
    await inputError(admin.create({ workspaceId: ws, url: 'https://crm.example.org/hook', events: ['lead.created'], botId: foreignBot }), `no bot with id ${foreignBot} in workspace ${ws}`);
    await inputError(admin.create({ workspaceId: ws, url: 'https://crm.example.org/hook', events: ['lead.created'], botId: randomUUID() }), /^no bot with id/);
    await inputError(admin.create({ workspaceId: ws, url: 'https://crm.example.org/hook', events: ['lead.created'], botId: 'bot-1' }), '--bot must be a UUID (got "bot-1")');
    expect(await admin.list(ws)).toHaveLength(1);
  });

  it('refuses an unknown workspace, a malformed id and bad event kinds', async () => {
    const missing = randomUUID();
    await inputError(admin.create({ workspaceId: missing, url: 'https://hooks.example.com/in', events: ['all'] }), `no workspace with id ${missing}`);
    await inputError(admin.create({ workspaceId: 'acme', url: 'https://hooks.example.com/in', events: ['all'] }), '--workspace must be a UUID (got "acme")');
    const ws = await newWorkspace();
    await inputError(admin.create({ workspaceId: ws, url: 'https://hooks.example.com/in', events: ['lead.updated'] }), /unknown event kind\(s\): lead\.updated/);
    await inputError(admin.create({ workspaceId: ws, url: 'https://hooks.example.com/in', events: [] }), /--events needs at least one/);
    expect(await admin.list(ws)).toEqual([]);
  });

  it('refuses endpoints that are not public https, and stores nothing', async () => {
    const ws = await newWorkspace();
    await inputError(admin.create({ workspaceId: ws, url: 'http://hooks.example.com/in', events: ['all'] }), '--url refused: webhook endpoints must use https');
    await inputError(admin.create({ workspaceId: ws, url: 'https://sneaky.example.com/in', events: ['all'] }), /^--url refused: sneaky\.example\.com resolves to a blocked address: 10\.0\.0\.7/);
    await inputError(admin.create({ workspaceId: ws, url: 'https://169.254.169.254/latest', events: ['all'] }), /^--url refused: .*link-local/);
    await inputError(admin.create({ workspaceId: ws, url: 'https://hooks.example.com:9000/in', events: ['all'] }), /^--url refused: port 9000 is not allowed/);
    await inputError(admin.create({ workspaceId: ws, url: `https://hooks.example.com/${'é'.repeat(400)}`, events: ['all'] }), /^--url refused: the URL is longer than 2048 characters once normalised/);
    expect(await admin.list(ws)).toEqual([]);
  });

  it('accepts plain http to a receiver inside OUTBOUND_ALLOW_CIDRS', async () => {
    const ws = await newWorkspace();
    expect((await admin.create({ workspaceId: ws, url: 'http://local.example.com/hook', events: ['all'] })).url).toBe('http://local.example.com/hook');
    expect((await admin.create({ workspaceId: ws, url: 'http://127.0.0.1/hook', events: ['all'] })).url).toBe('http://127.0.0.1/hook');
  });

  it('keeps to the maximum per workspace, also under concurrent creations', async () => {
    const [ws, other] = [await newWorkspace(), await newWorkspace()];
    for (let i = 0; i < 3; i++) await newWebhook(ws);
    await inputError(admin.create({ workspaceId: ws, url: 'https://hooks.example.com/in', events: ['all'] }), `workspace ${ws} already has 3 webhooks (at most 3)`);
    await newWebhook(other);

    const racing = await newWorkspace();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => admin.create({ workspaceId: racing, url: 'https://hooks.example.com/in', events: ['all'] })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) expect(r.reason).toBeInstanceOf(WebhookInputError);
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM webhooks.webhooks WHERE tenant_id = $1`, [racing]);
    expect(n).toBe(3);
  });
});

describe('list', () => {
  it('lists the workspace’s webhooks oldest first, each with its most recent delivery', async () => {
    const [ws, other] = [await newWorkspace(), await newWorkspace()];
    const quiet = await newWebhook(ws, 'https://hooks.example.com/quiet');
    const busy = await newWebhook(ws, 'https://hooks.example.com/busy');
    await newWebhook(other);

    await insertDelivery(busy, { status: 'succeeded', createdAt: '2030-01-01T00:00:00Z', lastAttemptAt: '2030-01-01T00:00:01Z' });
    const latest = await insertDelivery(busy, {
      status: 'failed',
      event: 'booking.created',
      statusCode: 502,
      error: 'HTTP 502',
      durationMs: 1234,
      createdAt: '2030-01-01T01:00:00Z',
      lastAttemptAt: '2030-01-02T03:04:05.123456Z',
    });
    // Created later, but never attempted: older than the last attempt above.
    await insertDelivery(busy, { status: 'pending', statusCode: null, durationMs: null, lastAttemptAt: null, attempts: 0, createdAt: '2030-01-02T00:00:00Z' });

    const list = await admin.list(ws);
    expect(list.map((w) => w.id)).toEqual([quiet, busy]);
    expect(list[0]).toEqual({
      id: quiet,
      workspace_id: ws,
      name: 'hooks.example.com',
      url: 'https://hooks.example.com/quiet',
      events: [...WEBHOOK_EVENT_TYPES],
      bot_id: null,
      created_at: expect.stringMatching(ISO),
      last_delivery: null,
    });
    const [eventId] = (await ds.query(`SELECT event_id FROM webhooks.deliveries WHERE id = $1`, [latest])).map((r: { event_id: string }) => r.event_id);
    expect(list[1].last_delivery).toEqual({
      delivery_id: latest,
      event: 'booking.created',
      event_id: eventId,
      status: 'failed',
      status_code: 502,
      error: 'HTTP 502',
      duration_ms: 1234,
      at: '2030-01-02T03:04:05.123Z',
    });
    expect(JSON.parse(JSON.stringify(list))).toEqual(list);
    expect(list.some((w) => 'secret' in w)).toBe(false);
  });

  it('shows a delivery never attempted yet, by its creation time', async () => {
    const ws = await newWorkspace();
    const hook = await newWebhook(ws);
    await insertDelivery(hook, { status: 'succeeded', createdAt: '2030-01-01T00:00:00Z', lastAttemptAt: '2030-01-01T00:00:01Z' });
    const fresh = await insertDelivery(hook, { status: 'pending', statusCode: null, durationMs: null, lastAttemptAt: null, attempts: 0, createdAt: '2030-01-01T00:05:00Z' });
    const [w] = await admin.list(ws);
    expect(w.last_delivery).toMatchObject({ delivery_id: fresh, status: 'pending', status_code: null, duration_ms: null, at: null });
  });

  it('is empty for a workspace without webhooks, and refuses an unknown one', async () => {
    expect(await admin.list(await newWorkspace())).toEqual([]);
    const missing = randomUUID();
    await inputError(admin.list(missing), `no workspace with id ${missing}`);
    await inputError(admin.list('nope'), '--workspace must be a UUID');
  });
});

describe('delete', () => {
  it('deletes a webhook with its deliveries and attempts', async () => {
    const ws = await newWorkspace();
    const [hook, kept] = [await newWebhook(ws), await newWebhook(ws)];
    const d = await insertDelivery(hook);
    await insertAttempt(d, 1, { startedAt: '2030-01-01T00:00:00Z', finishedAt: '2030-01-01T00:00:01Z', durationMs: 1000, statusCode: 200 });
    const keptDelivery = await insertDelivery(kept);

    await expect(admin.delete(hook)).resolves.toEqual({ id: hook, deleted: true });
    expect((await admin.list(ws)).map((w) => w.id)).toEqual([kept]);
    expect(await ds.query(`SELECT 1 FROM webhooks.deliveries WHERE webhook_id = $1`, [hook])).toEqual([]);
    expect(await ds.query(`SELECT 1 FROM webhooks.attempts WHERE delivery_id = $1`, [d])).toEqual([]);
    expect(await ds.query(`SELECT 1 FROM webhooks.deliveries WHERE id = $1`, [keptDelivery])).toHaveLength(1);
    await inputError(admin.delete(hook), `no webhook with id ${hook}`);
  });

  it('only within the given workspace', async () => {
    const [ws, other] = [await newWorkspace(), await newWorkspace()];
    const hook = await newWebhook(ws);
    await inputError(admin.delete(hook, other), `no webhook with id ${hook} in workspace ${other}`);
    expect(await admin.list(ws)).toHaveLength(1);
    await expect(admin.delete(hook, ws)).resolves.toEqual({ id: hook, deleted: true });
    expect(await admin.list(ws)).toEqual([]);
  });

  it('refuses malformed ids', async () => {
    await inputError(admin.delete('x'), '--id must be a UUID (got "x")');
    await inputError(admin.delete(randomUUID(), 'y'), '--workspace must be a UUID (got "y")');
  });
});

describe('deliveries', () => {
  it('lists the delivery log newest first, each with its attempts, filtered by status and limited', async () => {
    const ws = await newWorkspace();
    const [hook, other] = [await newWebhook(ws), await newWebhook(ws)];
    const first = await insertDelivery(hook, { status: 'succeeded', createdAt: '2030-01-01T00:00:00Z', lastAttemptAt: '2030-01-01T00:10:00Z' });
    await insertAttempt(first, 1, { startedAt: '2030-01-01T00:00:00Z', finishedAt: '2030-01-01T00:00:10Z', durationMs: 10000, error: 'timed out after 10000 ms' });
    await insertAttempt(first, 2, { trigger: 'manual', startedAt: '2030-01-01T00:10:00Z', finishedAt: '2030-01-01T00:10:00.250Z', durationMs: 250, statusCode: 204 });
    const second = await insertDelivery(hook, { status: 'failed', statusCode: 500, error: 'HTTP 500', createdAt: '2030-01-01T01:00:00Z', lastAttemptAt: '2030-01-01T01:00:01Z' });
    await insertAttempt(second, 1, { startedAt: '2030-01-01T01:00:00Z', finishedAt: '2030-01-01T01:00:01Z', durationMs: 1000, statusCode: 500, error: 'HTTP 500' });
    const third = await insertDelivery(hook, { status: 'pending', attempts: 0, statusCode: null, durationMs: null, lastAttemptAt: null, createdAt: '2030-01-01T02:00:00Z' });
    await insertDelivery(other);

    const all = await admin.deliveries(hook);
    expect(all.map((d) => d.id)).toEqual([third, second, first]);
    expect(all[0]).toMatchObject({ status: 'pending', attempts: 0, status_code: null, last_attempt_at: null, attempt_log: [] });
    const [eventId] = (await ds.query(`SELECT event_id FROM webhooks.deliveries WHERE id = $1`, [first])).map((r: { event_id: string }) => r.event_id);
    expect(all[2]).toEqual({
      id: first,
      webhook_id: hook,
      workspace_id: ws,
      event: 'lead.created',
      event_id: eventId,
      status: 'succeeded',
      attempts: 1,
      status_code: 200,
      error: null,
      duration_ms: 42,
      last_attempt_at: '2030-01-01T00:10:00.000Z',
      created_at: '2030-01-01T00:00:00.000Z',
      attempt_log: [
        { attempt: 1, trigger: 'event', started_at: '2030-01-01T00:00:00.000Z', finished_at: '2030-01-01T00:00:10.000Z', duration_ms: 10000, status_code: null, error: 'timed out after 10000 ms' },
        { attempt: 2, trigger: 'manual', started_at: '2030-01-01T00:10:00.000Z', finished_at: '2030-01-01T00:10:00.250Z', duration_ms: 250, status_code: 204, error: null },
      ],
    });
    expect(JSON.parse(JSON.stringify(all))).toEqual(all);

    expect((await admin.deliveries(hook, { status: 'failed' })).map((d) => d.id)).toEqual([second]);
    expect((await admin.deliveries(hook, { status: 'sending' }))).toEqual([]);
    expect((await admin.deliveries(hook, { limit: 2 })).map((d) => d.id)).toEqual([third, second]);
    expect((await admin.deliveries(hook, { limit: 1, status: 'succeeded' })).map((d) => d.id)).toEqual([first]);
  });

  it('refuses an unknown webhook', async () => {
    const missing = randomUUID();
    await inputError(admin.deliveries(missing), `no webhook with id ${missing}`);
    await inputError(admin.deliveries('w'), '--webhook must be a UUID');
  });

  it('shows one delivery', async () => {
    const hook = await newWebhook(await newWorkspace());
    const d = await insertDelivery(hook, { status: 'failed', statusCode: 404 });
    expect(await admin.delivery(d)).toMatchObject({ id: d, status: 'failed', status_code: 404, attempt_log: [] });
    const missing = randomUUID();
    await inputError(admin.delivery(missing), `no delivery with id ${missing}`);
  });
});

describe('redeliver', () => {
  it('queues a finished delivery again as a manual attempt and wakes the dispatcher', async () => {
    const hook = await newWebhook(await newWorkspace());
    const failed = await insertDelivery(hook, { status: 'failed', statusCode: 500, error: 'HTTP 500', attempts: 1 });
    await insertAttempt(failed, 1, { startedAt: '2030-01-01T00:00:00Z', finishedAt: '2030-01-01T00:00:01Z', durationMs: 1000, statusCode: 500, error: 'HTTP 500' });
    const succeeded = await insertDelivery(hook, { status: 'succeeded' });
    await ds.query(`UPDATE webhooks.deliveries SET owner = 'dispatcher-a', lease_until = now() WHERE id = $1`, [failed]);
    const woken = await listen(DELIVERIES_CHANNEL);

    const queued = await admin.redeliver(failed);
    expect(queued).toMatchObject({ id: failed, status: 'pending', attempts: 1, status_code: 500, error: 'HTTP 500' });
    expect(queued.attempt_log).toHaveLength(1);
    const [row] = await ds.query(`SELECT status, owner, lease_until, next_trigger FROM webhooks.deliveries WHERE id = $1`, [failed]);
    expect(row).toEqual({ status: 'pending', owner: null, lease_until: null, next_trigger: 'manual' });
    await waitFor('the notification', () => woken.some((n) => n.channel === DELIVERIES_CHANNEL && n.payload === failed));

    await expect(admin.redeliver(succeeded)).resolves.toMatchObject({ id: succeeded, status: 'pending' });
    await waitFor('the second notification', () => woken.some((n) => n.payload === succeeded));
    expect(await admin.delivery(succeeded)).toMatchObject({ status: 'pending' });
  });

  it('refuses a delivery that is pending or being sent, without waking anyone', async () => {
    const hook = await newWebhook(await newWorkspace());
    const pending = await insertDelivery(hook, { status: 'pending', attempts: 0, lastAttemptAt: null });
    const sending = await insertDelivery(hook, { status: 'sending', owner: 'dispatcher-b' });
    const woken = await listen(DELIVERIES_CHANNEL);

    await inputError(admin.redeliver(pending), `delivery ${pending} is pending; only a finished delivery (succeeded or failed) can be redelivered`);
    await inputError(admin.redeliver(sending), `delivery ${sending} is sending; only a finished delivery`);
    const [row] = await ds.query(`SELECT status, owner, next_trigger FROM webhooks.deliveries WHERE id = $1`, [sending]);
    expect(row).toEqual({ status: 'sending', owner: 'dispatcher-b', next_trigger: 'event' });
    const missing = randomUUID();
    await inputError(admin.redeliver(missing), `no delivery with id ${missing}`);
    await inputError(admin.redeliver('d'), '--delivery must be a UUID');
    await sleep(200);
    expect(woken).toEqual([]);
  });
});

describe('names', () => {
  it('keeps a given name (trimmed), else names a webhook after its endpoint’s host; rows written without one too', async () => {
    const ws = await newWorkspace();
    const named = await admin.create({ workspaceId: ws, name: '  CRM sync  ', url: 'https://crm.example.org/hook', events: ['lead.created'] });
    expect(named.name).toBe('CRM sync');
    const unnamed = await admin.create({ workspaceId: ws, name: '   ', url: 'https://crm.example.org/hook', events: ['lead.created'] });
    expect(unnamed.name).toBe('crm.example.org');
    const [raw] = await ds.query(`INSERT INTO webhooks.webhooks (tenant_id, url, events, secret) VALUES ($1, 'https://[2001:db8::1]:8443/x', '{lead.created}', 'v1:x') RETURNING name`, [ws]);
    expect(raw.name).toBe('[2001:db8::1]');
    expect((await admin.list(ws)).map((w) => w.name)).toEqual(['CRM sync', 'crm.example.org', '[2001:db8::1]']);
    await inputError(admin.create({ workspaceId: ws, name: 'x'.repeat(101), url: 'https://hooks.example.com/in', events: ['all'] }), '--name must be at most 100 characters');
  });
});

describe('rotateSecret', () => {
  it('replaces the secret (shown once, stored sealed), only within the given workspace', async () => {
    const [ws, other] = [await newWorkspace(), await newWorkspace()];
    const created = await admin.create({ workspaceId: ws, url: 'https://hooks.example.com/in', events: ['all'] });
    await expect(admin.rotateSecret(created.id, other)).rejects.toBeInstanceOf(WebhookNotFoundError);
    const [before] = await ds.query(`SELECT secret FROM webhooks.webhooks WHERE id = $1`, [created.id]);
    expect(secrets.open(before.secret)).toBe(created.secret);
    const rotated = await admin.rotateSecret(created.id, ws);
    expect(rotated).toEqual({ id: created.id, secret: expect.stringMatching(SECRET_FORMAT) });
    expect(rotated.secret).not.toBe(created.secret);
    const [after] = await ds.query(`SELECT secret FROM webhooks.webhooks WHERE id = $1`, [created.id]);
    expect(after.secret).not.toContain(rotated.secret.slice('whsec_'.length));
    expect(secrets.open(after.secret)).toBe(rotated.secret);
    await inputError(admin.rotateSecret(randomUUID()), /^no webhook with id/);
  });
});

describe('sendTest', () => {
  it('queues a signed test delivery nobody holds yet (manual) and wakes the dispatcher; another workspace’s webhook is not found', async () => {
    const [ws, other] = [await newWorkspace(), await newWorkspace()];
    const bot = await insertBot(ws);
    const hook = (await admin.create({ workspaceId: ws, url: 'https://hooks.example.com/in', events: ['booking.created'], botId: bot })).id;
    const woken = await listen(DELIVERIES_CHANNEL);
    await expect(admin.sendTest(hook, other)).rejects.toBeInstanceOf(WebhookNotFoundError);
    const queued = await admin.sendTest(hook, ws);
    expect(queued).toEqual({
      id: expect.any(String),
      webhook_id: hook,
      workspace_id: ws,
      event: WEBHOOK_TEST_EVENT,
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      attempts: 0,
      status_code: null,
      error: null,
      duration_ms: null,
      last_attempt_at: null,
      created_at: expect.stringMatching(ISO),
      attempt_log: [],
    });
    const [row] = await ds.query(`SELECT owner, next_trigger, data::text AS data FROM webhooks.deliveries WHERE id = $1`, [queued.id]);
    expect(row.owner).toBeNull();
    expect(row.next_trigger).toBe('manual');
    expect(JSON.parse(row.data)).toEqual({ test: true, webhook_id: hook, chatbot_id: bot, message: 'A test event sent from the console. No action is needed.' });
    await waitFor('the notification', () => woken.some((n) => n.payload === queued.id));
    // Each test is a delivery of its own.
    const again = await admin.sendTest(hook, ws);
    expect(again.id).not.toBe(queued.id);
    expect((await admin.deliveries(hook, { workspaceId: ws })).map((d) => d.id)).toEqual([again.id, queued.id]);
  });
});

describe('within a workspace', () => {
  it('deliveries, delivery and redeliver of another workspace are not found; an open delivery is a state error', async () => {
    const [ws, other] = [await newWorkspace(), await newWorkspace()];
    const hook = await newWebhook(ws);
    const finished = await insertDelivery(hook, { status: 'failed', statusCode: 500 });
    const open = await insertDelivery(hook, { status: 'pending', attempts: 0, lastAttemptAt: null });
    await expect(admin.deliveries(hook, { workspaceId: other })).rejects.toBeInstanceOf(WebhookNotFoundError);
    await expect(admin.delivery(finished, other)).rejects.toBeInstanceOf(WebhookNotFoundError);
    await expect(admin.redeliver(finished, other)).rejects.toBeInstanceOf(WebhookNotFoundError);
    expect(await admin.delivery(finished)).toMatchObject({ status: 'failed' });
    await expect(admin.redeliver(open, ws)).rejects.toBeInstanceOf(WebhookStateError);
    await expect(admin.redeliver(finished, ws)).resolves.toMatchObject({ id: finished, status: 'pending' });
  });
});
