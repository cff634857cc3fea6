import 'reflect-metadata';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventEnvelope } from '@sa/contracts';
import { dataSourceOptions, queryRows } from '@sa/db';
import { DbIdentitySource, IdentityAdmin, IDENTITY_ENTITIES, PgIdentityFeed } from '@sa/identity-db';
import { outboundPolicy } from '@sa/net-guard';
import { createTestDatabase } from '@sa/testing';
import { SecretBox, parseSecretKey } from '@sa/webhook-registry';
import { verifyWebhook } from '@sa/webhooks';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { DeliveriesRepository, INTERRUPTED_ERROR } from './deliveries.repository';
import { DeliveryEngine } from './delivery-engine';
import { WorkspaceEntitlements } from './workspace-entitlements';

// The delivery log and the engine against the real PostgreSQL and a local HTTP endpoint:
// one delivery per (event, webhook), claims and leases between two dispatchers, interrupted
// requests, the signed request itself, the timeout, and the plan check. The plan is the gateway's
// data, which the dispatcher asks over NATS; here WorkspaceEntitlements reads it as the gateway
// does (its database and NOTIFY), the NATS hop is tested in apps/gateway/src/identity.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let server: http.Server;
let port: number;
const hits: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
/** Requests to /held are answered after 300 ms (long beside a claim, even on a busy machine); how many were open at once. */
const held = { open: 0, max: 0 };
/** Requests to /crowd are answered after 4 s: how many are open now, and how many were when /quick last came. */
const crowd = { open: 0, atQuick: -1 };
/** WEBHOOK_ENDPOINT_CONCURRENCY's default. */
const DEFAULT_ENDPOINT_SLOTS = 32;
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => silent } as never;
const key = parseSecretKey('11'.repeat(32))!;
const box = new SecretBox(key);

const configFor = (instanceId: string, extra: Record<string, string> = {}) =>
  loadWebhookDispatcherConfig({ DATABASE_URL: db.url, WEBHOOK_SECRET_KEY: '11'.repeat(32), WEBHOOK_DISPATCHER_ID: instanceId, WEBHOOK_LEASE_MS: '1000', WEBHOOK_SWEEP_MS: '100000', WEBHOOK_TIMEOUT_MS: '400', ...extra });

let scaleWs: string;
let growthWs: string;

async function webhook(tenant: string, path: string, events: string[], botId: string | null = null, secret = 'whsec_int'): Promise<string> {
  const [row] = await queryRows<{ id: string }>(ds, `INSERT INTO webhooks.webhooks (tenant_id, url, events, bot_id, secret) VALUES ($1, $2, $3, $4, $5) RETURNING id`, [
    tenant,
    `http://127.0.0.1:${port}${path}`,
    events,
    botId,
    box.seal(secret),
  ]);
  return row.id;
}

function event(tenant: string, type: string, data: Record<string, unknown>): EventEnvelope {
  return { id: randomUUID(), type: type as never, tenant_id: tenant, occurred_at: new Date().toISOString(), data: data as never };
}

const repos: DeliveriesRepository[] = [];
function repoFor(config: ReturnType<typeof configFor>): DeliveriesRepository {
  const repo = new DeliveriesRepository(ds, config);
  repos.push(repo);
  return repo;
}

const createFor = (repo: DeliveriesRepository, e: EventEnvelope) => repo.createForEvent(e).then((c) => c.pending);
const deliveryRows = (ids: string[]) => queryRows<any>(ds, `SELECT * FROM webhooks.deliveries WHERE id = ANY($1::uuid[]) ORDER BY created_at`, [ids]);

beforeAll(async () => {
  db = await createTestDatabase('sa_test_webhooks');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'webhooks-int', poolSize: 10, entities: IDENTITY_ENTITIES })).initialize();
  const admin = new IdentityAdmin(ds);
  scaleWs = (await admin.createWorkspace({ name: 'Scale', plan: 'scale' })).id;
  growthWs = (await admin.createWorkspace({ name: 'Growth', plan: 'growth' })).id;
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/slow')) setTimeout(() => res.end('late'), 2000);
      else if (req.url?.startsWith('/crowd')) {
        crowd.open++;
        setTimeout(() => {
          crowd.open--;
          res.writeHead(200).end();
        }, 4000);
      } else if (req.url?.startsWith('/quick')) {
        crowd.atQuick = crowd.open;
        res.writeHead(200).end();
      } else if (req.url?.startsWith('/held')) {
        held.max = Math.max(held.max, ++held.open);
        setTimeout(() => {
          held.open--;
          res.writeHead(200).end();
        }, 300);
      } else if (req.url?.startsWith('/gone')) res.writeHead(410).end();
      else res.writeHead(200).end('x'.repeat(100_000));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const r of repos) await r.onApplicationShutdown();
  server?.closeAllConnections();
  server?.close();
  await ds?.destroy();
  await db?.drop();
});

describe('DeliveriesRepository', () => {
  it('creates one delivery per matching webhook (kind and bot scope), once per event', async () => {
    const repo = repoFor(configFor('a'));
    const bot = randomUUID();
    const all = await webhook(scaleWs, '/all', ['ticket.created', 'lead.created']);
    const scoped = await webhook(scaleWs, '/scoped', ['ticket.created'], bot);
    await webhook(scaleWs, '/other-bot', ['ticket.created'], randomUUID());
    await webhook(scaleWs, '/other-kind', ['booking.created']);
    await webhook(growthWs, '/other-workspace', ['ticket.created']);

    const e = event(scaleWs, 'ticket.created', { ticket_id: 't1', chatbot_id: bot, subject: 'Hi' });
    const created = await createFor(repo, e);
    expect(created.map((d) => d.webhook_id).sort()).toEqual([all, scoped].sort());
    expect(await createFor(repo, e)).toEqual([]); // the same event again: nothing new
    const rows = await deliveryRows(created.map((d) => d.id));
    expect(rows.every((r: any) => r.status === 'pending' && r.owner === 'a' && r.event_id === e.id && r.lease_until)).toBe(true);

    const noBot = await createFor(repo, event(scaleWs, 'ticket.created', { ticket_id: 't2', chatbot_id: null }));
    expect(noBot.map((d) => d.webhook_id)).toEqual([all]);
  });

  it('creates the deliveries of events handled at once in shared statements, each once', async () => {
    const repo = repoFor(configFor('a'));
    const bot = randomUUID();
    const tenant = randomUUID(); // a workspace of its own: no other test's webhooks match
    const all = await webhook(tenant, '/batch-all', ['ticket.created']);
    const scoped = await webhook(tenant, '/batch-scoped', ['ticket.created'], bot);
    const events = Array.from({ length: 40 }, (_, i) => event(tenant, 'ticket.created', { ticket_id: `b${i}`, chatbot_id: i % 2 ? bot : 'not-a-uuid' }));
    // Every event twice at once (a JetStream redelivery racing the first delivery), and all together.
    const results = await Promise.all([...events, ...events].map((e) => createFor(repo, e)));
    const ids = results.flat().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    events.forEach((e, i) => {
      const first = results[i].map((d) => d.webhook_id).sort();
      const again = results[i + events.length];
      expect([...first, ...again.map((d) => d.webhook_id)].sort()).toEqual((i % 2 ? [all, scoped] : [all]).sort());
    });
    const rows = await queryRows<any>(ds, `SELECT event_id, webhook_id FROM webhooks.deliveries WHERE event_id = ANY($1::uuid[])`, [events.map((e) => e.id)]);
    expect(rows).toHaveLength(events.length + events.length / 2);
    expect(await Promise.all(events.map((e) => createFor(repo, e)))).toEqual(events.map(() => []));
  });

  it('inserts the deliveries of reserved webhooks already claimed, with all a request needs, and the rest pending', async () => {
    const repo = repoFor(configFor('a'));
    const tenant = randomUUID();
    const claimedHook = await webhook(tenant, '/reserved', ['lead.created'], null, 'whsec_reserved');
    const pendingHook = await webhook(tenant, '/not-reserved', ['lead.created']);
    const e = event(tenant, 'lead.created', { zeta: 1, alpha: 2, lead_id: 'r1', chatbot_id: null });
    // A webhook that is not subscribed (deleted, say) reserved too: no delivery for it.
    const created = await repo.createForEvent(e, [claimedHook, randomUUID()]);
    expect(created.pending).toEqual([{ id: expect.any(String), webhook_id: pendingHook }]);
    expect(created.claimed).toEqual([
      expect.objectContaining({ webhook_id: claimedHook, tenant_id: tenant, event_id: e.id, event_type: 'lead.created', attempt: 1, trigger: 'event', url: `http://127.0.0.1:${port}/reserved`, started_at: expect.any(Date) }),
    ]);
    const [claimed] = created.claimed;
    expect(claimed.data_json).toBe(JSON.stringify(e.data));
    expect(box.open(claimed.secret)).toBe('whsec_reserved');
    const rows = await deliveryRows([claimed.id, created.pending[0].id]);
    const byId = new Map(rows.map((r: any) => [r.id, r]));
    expect(byId.get(claimed.id)).toEqual(expect.objectContaining({ status: 'sending', attempts: 1, owner: 'a', lease_until: expect.any(Date), last_attempt_at: claimed.started_at }));
    expect(byId.get(claimed.id).created_at).toEqual(claimed.started_at); // its attempt starts as it is created
    expect(byId.get(created.pending[0].id)).toEqual(expect.objectContaining({ status: 'pending', attempts: 0, owner: 'a', last_attempt_at: null }));
    // Claimed at the insert, it is not claimable again; its outcome closes it like any other.
    expect(await repo.claim(claimed.id)).toBeNull();
    await repo.finish(claimed, { ok: true, statusCode: 200, error: null, durationMs: 4 });
    expect((await deliveryRows([claimed.id]))[0]).toEqual(expect.objectContaining({ status: 'succeeded', owner: null, attempts: 1, last_status_code: 200 }));
    expect(await queryRows<any>(ds, `SELECT attempt, trigger, owner, status_code FROM webhooks.attempts WHERE delivery_id = $1`, [claimed.id])).toEqual([
      { attempt: 1, trigger: 'event', owner: 'a', status_code: 200 },
    ]);
    // The same event again, reserved or not: nothing new.
    expect(await repo.createForEvent(e, [claimedHook])).toEqual({ pending: [], claimed: [] });
  });

  it('puts back to pending only its own never-sent claimed deliveries of an event, not excluded ones nor finished ones', async () => {
    const repo = repoFor(configFor('lost'));
    const other = repoFor(configFor('other'));
    const tenant = randomUUID();
    const [h1, h2, h3] = [await webhook(tenant, '/u1', ['lead.created']), await webhook(tenant, '/u2', ['lead.created']), await webhook(tenant, '/u3', ['lead.created'])];
    const e = event(tenant, 'lead.created', { lead_id: 'u', chatbot_id: null });
    const created = await repo.createForEvent(e, [h1, h2, h3]);
    const byHook = new Map(created.claimed.map((c) => [c.webhook_id, c]));
    expect(byHook.size).toBe(3);
    await repo.finish(byHook.get(h3)!, { ok: true, statusCode: 200, error: null, durationMs: 3 });
    // Another dispatcher finds nothing of ours; an excluded one (in flight here) and a finished one stay as they are.
    expect(await other.unclaimNeverSent(e.id, [h1, h2, h3], [])).toEqual([]);
    expect(await repo.unclaimNeverSent(e.id, [h1, h2, h3], [byHook.get(h2)!.id])).toEqual([{ id: byHook.get(h1)!.id, webhook_id: h1 }]);
    const rows = new Map((await deliveryRows(created.claimed.map((c) => c.id))).map((r: any) => [r.webhook_id, r]));
    expect(rows.get(h1)).toEqual(expect.objectContaining({ status: 'pending', attempts: 0, owner: 'lost', last_attempt_at: null, lease_until: expect.any(Date) }));
    expect(rows.get(h2)).toEqual(expect.objectContaining({ status: 'sending', attempts: 1, owner: 'lost' }));
    expect(rows.get(h3)).toEqual(expect.objectContaining({ status: 'succeeded', attempts: 1 }));
    // Back to pending, it is claimed and sent as any other; twice is a no-op.
    expect(await repo.unclaimNeverSent(e.id, [h1], [])).toEqual([]);
    expect(await repo.claim(byHook.get(h1)!.id)).toEqual(expect.objectContaining({ attempt: 1, webhook_id: h1 }));
  });

  it('keeps the payload text as the event had it (key order included)', async () => {
    const repo = repoFor(configFor('a'));
    await webhook(scaleWs, '/order', ['message.unanswered']);
    const [d] = await createFor(repo, event(scaleWs, 'message.unanswered', { zeta: 1, alpha: 2, mid: { b: 1, a: 2 } }));
    const claimed = await repo.claim(d.id);
    expect(claimed!.data_json).toBe('{"zeta":1,"alpha":2,"mid":{"b":1,"a":2}}');
  });

  it('claims only its own pending deliveries, once; finish records the outcome and the attempt', async () => {
    const a = repoFor(configFor('a'));
    const b = repoFor(configFor('b'));
    await webhook(scaleWs, '/claims', ['booking.created']);
    const [d] = await createFor(a, event(scaleWs, 'booking.created', { booking_id: 'b1', chatbot_id: null }));
    expect(await b.claim(d.id)).toBeNull();
    const claimed = await a.claim(d.id);
    expect(claimed).toEqual(expect.objectContaining({ id: d.id, attempt: 1, event_type: 'booking.created' }));
    expect(box.open(claimed!.secret)).toBe('whsec_int');
    expect(await a.claim(d.id)).toBeNull();
    await a.finish(claimed!, { ok: false, statusCode: 503, error: 'the endpoint answered 503', durationMs: 12.4 });
    const [row] = await deliveryRows([d.id]);
    expect(row).toEqual(expect.objectContaining({ status: 'failed', owner: null, lease_until: null, attempts: 1, last_status_code: 503, last_error: 'the endpoint answered 503', last_duration_ms: 12 }));
    const attempts = await queryRows<any>(ds, `SELECT * FROM webhooks.attempts WHERE delivery_id = $1`, [d.id]);
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, trigger: 'event', owner: 'a', status_code: 503, duration_ms: 12, finished_at: expect.any(Date) })]);

    // Redelivered and claimed again: the first attempt's outcome, written once more (its first
    // write committed unseen), closes nothing.
    await ds.query(`UPDATE webhooks.deliveries SET status = 'pending', owner = 'a', next_trigger = 'manual' WHERE id = $1`, [d.id]);
    const second = await a.claim(d.id);
    expect(second).toEqual(expect.objectContaining({ attempt: 2, trigger: 'manual' }));
    await a.finish(claimed!, { ok: true, statusCode: 200, error: null, durationMs: 5 });
    expect((await deliveryRows([d.id]))[0]).toEqual(expect.objectContaining({ status: 'sending', owner: 'a', attempts: 2, last_status_code: 503 }));
    await a.finish(second!, { ok: true, statusCode: 200, error: null, durationMs: 5 });
    expect((await deliveryRows([d.id]))[0]).toEqual(expect.objectContaining({ status: 'succeeded', attempts: 2, last_status_code: 200 }));
  });

  it('writes outcomes and claims waiting at the same moment together, each correctly', async () => {
    const repo = repoFor(configFor('a'));
    const tenant = randomUUID();
    await webhook(tenant, '/together', ['lead.created']);
    const created = (await Promise.all([1, 2, 3, 4].map((i) => createFor(repo, event(tenant, 'lead.created', { lead_id: `t${i}`, chatbot_id: null }))))).flat();
    const [first, second] = await Promise.all([repo.claim(created[0].id), repo.claim(created[1].id)]);
    // Calls made in one turn share one statement: outcomes and claims together.
    const [, , third, , again] = await Promise.all([
      repo.claim(created[2].id),
      repo.finish(first!, { ok: true, statusCode: 204, error: null, durationMs: 3 }),
      repo.claim(created[3].id),
      repo.finish(second!, { ok: false, statusCode: null, error: 'timed out after 400 ms', durationMs: 400 }),
      repo.claim(created[0].id), // already finished: not claimable
    ]);
    expect(third).toEqual(expect.objectContaining({ id: created[3].id, attempt: 1 }));
    expect(again).toBeNull();
    const rows = await deliveryRows(created.map((d) => d.id));
    const byId = new Map(rows.map((r: any) => [r.id, r]));
    expect(byId.get(created[0].id)).toEqual(expect.objectContaining({ status: 'succeeded', owner: null, last_status_code: 204 }));
    expect(byId.get(created[1].id)).toEqual(expect.objectContaining({ status: 'failed', owner: null, last_error: 'timed out after 400 ms' }));
    expect(byId.get(created[2].id)).toEqual(expect.objectContaining({ status: 'sending', attempts: 1 }));
    expect(byId.get(created[3].id)).toEqual(expect.objectContaining({ status: 'sending', attempts: 1 }));
    const attempts = await queryRows<any>(ds, `SELECT delivery_id, status_code FROM webhooks.attempts WHERE delivery_id = ANY($1::uuid[])`, [created.map((d) => d.id)]);
    expect(attempts.map((a) => a.delivery_id).sort()).toEqual([created[0].id, created[1].id].sort());
  });

  /** The repository's own pool, and every statement sent through it from now on (to run again by hand). */
  function recordStatements(repo: DeliveriesRepository) {
    const sent: { name: string; text: string; values: unknown[] }[] = [];
    const pool = (repo as any).pool;
    const query = pool.query.bind(pool);
    pool.query = (config: { name: string; text: string; values: unknown[] }) => (sent.push(config), query(config));
    return { pool, sent };
  }

  it('a claim with an outcome reads about as much with thousands of deliveries open as with none, also once its plan is cached while the table was small', async () => {
    const repo = repoFor(configFor('lookup'));
    const tenant = randomUUID();
    const hook = await webhook(tenant, '/lookup', ['lead.created']);
    // The statement the repository sends for a claim with an outcome, to be run again by hand.
    const { pool, sent } = recordStatements(repo);
    const [d1, d2] = (await Promise.all([1, 2].map((i) => createFor(repo, event(tenant, 'lead.created', { lead_id: `k${i}`, chatbot_id: null }))))).flat();
    const first = (await repo.claim(d1!.id))!;
    await Promise.all([repo.finish(first, { ok: true, statusCode: 200, error: null, durationMs: 1 }), repo.claim(d2!.id)]);
    const write = sent.find((q) => /claimed AS/.test(q.text) && (q.values[1] as string[]).includes(d2!.id));
    expect(write).toBeDefined();
    // On a connection of the repository's pool (its session settings), as a named statement run
    // while the table is small (PostgreSQL may then keep a generic plan for the session), rolled
    // back: the blocks of the delivery table and its indexes the statement asked for.
    const client = await pool.connect();
    const blocks = async (): Promise<number> => {
      await client.query('BEGIN');
      try {
        await client.query({ name: 'lookup-probe', text: write!.text, values: write!.values });
        const { rows } = await client.query(
          `SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid))::int AS n FROM pg_class c
            WHERE c.relnamespace = 'webhooks'::regnamespace AND (c.oid = 'webhooks.deliveries'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'webhooks.deliveries'::regclass))`,
        );
        return rows[0].n;
      } finally {
        await client.query('ROLLBACK');
      }
    };
    try {
      let small = 0;
      for (let i = 0; i < 8; i++) small = await blocks();
      // A backlog: 10,000 open deliveries of another dispatcher.
      await ds.query(
        `INSERT INTO webhooks.deliveries (tenant_id, webhook_id, event_id, event_type, occurred_at, data, owner, lease_until)
         SELECT $1, $2, gen_random_uuid(), 'lead.created', now(), '{}'::json, 'backlog', now() + interval '1 hour' FROM generate_series(1, 10000)`,
        [tenant, hook],
      );
      const large = await blocks();
      expect({ small, large: large < small + 60 ? 'about the same' : large }).toEqual({ small, large: 'about the same' });
    } finally {
      await client.query('DEALLOCATE "lookup-probe"').catch(() => undefined);
      client.release();
      await ds.query(`DELETE FROM webhooks.deliveries WHERE webhook_id = $1`, [hook]);
    }
  });

  it('plans its delivery statements once per connection, not at every run', async () => {
    const repo = repoFor(configFor('plans'));
    const tenant = randomUUID();
    await webhook(tenant, '/plans', ['lead.created']);
    const { pool, sent } = recordStatements(repo);
    const [d] = await createFor(repo, event(tenant, 'lead.created', { lead_id: 'p1', chatbot_id: null }));
    await repo.claim(d.id);
    // Run again by hand on one connection of the repository's pool (its session settings), each
    // seven times (PostgreSQL's own choice switches to a cached plan after five), in a transaction
    // rolled back: how often each was planned anew.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const s of sent) for (let i = 0; i < 7; i++) await client.query({ name: `probe-${s.name}`, text: s.text, values: s.values });
      const { rows } = await client.query(`SELECT name, generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE name LIKE 'probe-%' ORDER BY name`);
      await client.query('ROLLBACK');
      expect(rows).toEqual([
        { name: 'probe-webhooks-claim-and-finish', generic_plans: 7, custom_plans: 0 },
        { name: 'probe-webhooks-create-deliveries', generic_plans: 7, custom_plans: 0 },
      ]);
    } finally {
      await client.query('DEALLOCATE ALL').catch(() => undefined);
      client.release();
    }
  });

  it('hands over pending deliveries of an expired lease, records in-flight ones of a dead dispatcher as interrupted', async () => {
    const dead = repoFor(configFor('dead'));
    const alive = repoFor(configFor('alive'));
    const hook = await webhook(scaleWs, '/takeover', ['lead.created']);
    const ours = (ds: { webhook_id: string; id: string }[]) => ds.filter((d) => d.webhook_id === hook);
    const [waiting] = ours(await createFor(dead, event(scaleWs, 'lead.created', { lead_id: 'l1', chatbot_id: null })));
    const [inFlight] = ours(await createFor(dead, event(scaleWs, 'lead.created', { lead_id: 'l2', chatbot_id: null })));
    expect(await dead.claim(inFlight.id)).not.toBeNull();
    // Leases still live: nothing to take over or close.
    expect((await alive.claimOrphans(100, [])).filter((d) => d.webhook_id === hook)).toEqual([]);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await alive.claimOrphans(100, [hook])).filter((d) => d.webhook_id === hook)).toEqual([]); // webhook skipped (queue full)
    expect((await alive.claimOrphans(100, [])).filter((d) => d.webhook_id === hook)).toEqual([{ id: waiting.id, webhook_id: hook }]);
    expect(await alive.failInterrupted()).toBeGreaterThanOrEqual(1);
    const [w, f] = await deliveryRows([waiting.id, inFlight.id]);
    expect(w).toEqual(expect.objectContaining({ status: 'pending', owner: 'alive' }));
    expect(f).toEqual(expect.objectContaining({ status: 'failed', owner: null, last_error: INTERRUPTED_ERROR }));
    const [attempt] = await queryRows<any>(ds, `SELECT * FROM webhooks.attempts WHERE delivery_id = $1`, [inFlight.id]);
    expect(attempt).toEqual(expect.objectContaining({ error: INTERRUPTED_ERROR, finished_at: expect.any(Date), status_code: null }));
    // The dead dispatcher's outcome, written late (its database was away past the lease), changes
    // neither the delivery closed as interrupted nor its attempt.
    const late = await deliveryRows([inFlight.id]);
    await dead.finish({ ...late[0], attempt: late[0].attempts, trigger: late[0].next_trigger, started_at: late[0].last_attempt_at } as never, { ok: true, statusCode: 200, error: null, durationMs: 12 });
    expect((await deliveryRows([inFlight.id]))[0]).toEqual(expect.objectContaining({ status: 'failed', last_error: INTERRUPTED_ERROR, last_status_code: null }));
    expect(await queryRows<any>(ds, `SELECT status_code, error FROM webhooks.attempts WHERE delivery_id = $1`, [inFlight.id])).toEqual([{ status_code: null, error: INTERRUPTED_ERROR }]);
    // Released deliveries are anybody's at once; renewing keeps them from being taken.
    await alive.release([waiting.id]);
    expect((await dead.claimOrphans(100, [])).map((d) => d.id)).toContain(waiting.id);
    await dead.renewLeases([waiting.id]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await alive.claimOrphans(100, [])).map((d) => d.id)).not.toContain(waiting.id);
  });
});

describe('DeliveryEngine', () => {
  async function engineFor(instanceId: string, extra: Record<string, string> = {}) {
    const config = configFor(instanceId, extra);
    const repo = repoFor(config);
    const entitlements = new WorkspaceEntitlements(new DbIdentitySource(ds), new PgIdentityFeed(db.url, silent), silent);
    const engine = new DeliveryEngine(repo, entitlements, box, outboundPolicy({ allowCidrs: ['127.0.0.1/32'], allowedPorts: [port], timeoutMs: config.timeoutMs, maxRedirects: 0 }), config, silent);
    await engine.onApplicationBootstrap();
    return { engine, repo };
  }
  const settled = (ids: string[]) =>
    new Promise<any[]>((resolve, reject) => {
      const deadline = Date.now() + 8000;
      const poll = async () => {
        const rows = await deliveryRows(ids);
        if (rows.every((r: any) => r.status === 'succeeded' || r.status === 'failed')) return resolve(rows);
        if (Date.now() > deadline) return reject(new Error(`not settled: ${JSON.stringify(rows.map((r: any) => r.status))}`));
        setTimeout(poll, 50);
      };
      void poll();
    });
  /** Delivers a first ticket.created of the workspace, so the engine learns where the kind goes (its next events' slots are reserved). */
  const deliverFirst = async (engine: DeliveryEngine, ws: string, ticketId: string) => {
    const first = await engine.create(event(ws, 'ticket.created', { ticket_id: ticketId, chatbot_id: null }));
    engine.accept(first);
    await settled(first.map((d) => d.id));
  };

  it('sends a signed request, records 2xx as succeeded and other statuses, timeouts and lapsed plans as failed', async () => {
    const { engine, repo } = await engineFor('engine-1');
    try {
      await webhook(scaleWs, '/engine-ok', ['conversation.handoff'], null, 'whsec_engine');
      await webhook(scaleWs, '/gone', ['conversation.handoff']);
      await webhook(scaleWs, '/slow', ['conversation.handoff']);
      const e = event(scaleWs, 'conversation.handoff', { session_id: 's1', chatbot_id: null, kind: 'explicit' });
      const created = await createFor(repo, e);
      expect(created).toHaveLength(3);
      engine.accept(created);
      const rows = await settled(created.map((d) => d.id));
      const byUrl = (p: string) => rows.find((r: any) => hits.some((h) => h.path === p && h.headers['x-service-delivery-id'] === r.id));
      expect(byUrl('/engine-ok')).toEqual(expect.objectContaining({ status: 'succeeded', last_status_code: 200, last_error: null }));
      expect(byUrl('/gone')).toEqual(expect.objectContaining({ status: 'failed', last_status_code: 410, last_error: 'the endpoint answered 410' }));
      expect(byUrl('/slow')).toEqual(expect.objectContaining({ status: 'failed', last_status_code: null, last_error: 'timed out after 400 ms' }));
      expect(byUrl('/slow').last_duration_ms).toBeGreaterThanOrEqual(390);

      const hit = hits.find((h) => h.path === '/engine-ok')!;
      expect(JSON.parse(hit.body)).toEqual({ event: 'conversation.handoff', timestamp: expect.any(Number), data: e.data });
      expect(hit.headers['x-service-event-id']).toBe(e.id);
      expect(verifyWebhook({ rawBody: hit.body, headers: hit.headers, secret: 'whsec_engine' })).toEqual(expect.objectContaining({ ok: true }));

      // A workspace that lost webhooks gets nothing sent; the attempt says why.
      await ds.query(`UPDATE identity.workspaces SET plan = 'growth' WHERE id = $1`, [scaleWs]);
      const before = hits.length;
      const lapsed = await createFor(repoFor(configFor('engine-1')), event(scaleWs, 'conversation.handoff', { session_id: 's2', chatbot_id: null }));
      const fresh = new WorkspaceEntitlements(new DbIdentitySource(ds), new PgIdentityFeed(db.url, silent), silent); // bypass the first engine's cache
      expect(await fresh.webhooksEnabled(scaleWs)).toBe(false);
      (engine as any).entitlements = fresh;
      engine.accept(lapsed);
      const lapsedRows = await settled(lapsed.map((d) => d.id));
      expect(lapsedRows.every((r: any) => r.status === 'failed' && /plan does not include webhooks/.test(r.last_error))).toBe(true);
      expect(hits.length).toBe(before);
    } finally {
      await ds.query(`UPDATE identity.workspaces SET plan = 'scale' WHERE id = $1`, [scaleWs]);
      await engine.beforeApplicationShutdown();
    }
  });

  it('writes an outcome once the database is back, when it was away for longer than a few quick tries', async () => {
    const { engine, repo } = await engineFor('engine-5');
    try {
      const hook = await webhook(scaleWs, '/db-away', ['lead.created']);
      const created = (await createFor(repo, event(scaleWs, 'lead.created', { lead_id: 'away', chatbot_id: null }))).filter((d) => d.webhook_id === hook);
      // The database goes away just as the request ends, for 2.5 s (a restart): every write of the
      // outcome fails the way a dropped connection does, then they go through again.
      const finish = repo.finish.bind(repo);
      let failures = 0;
      let awayUntil = 0;
      repo.finish = async (claimed, outcome) => {
        awayUntil ||= Date.now() + 2500;
        if (Date.now() < awayUntil) {
          failures++;
          throw new Error('Connection terminated unexpectedly');
        }
        return finish(claimed, outcome);
      };
      engine.accept(created);
      const [row] = await settled(created.map((d) => d.id));
      expect(failures).toBeGreaterThan(3);
      expect(row).toEqual(expect.objectContaining({ status: 'succeeded', last_status_code: 200, last_error: null }));
      expect(await queryRows<any>(ds, `SELECT status_code, error FROM webhooks.attempts WHERE delivery_id = $1`, [row.id])).toEqual([{ status_code: 200, error: null }]);
      expect(hits.filter((h) => h.path === '/db-away')).toHaveLength(1);
    } finally {
      await engine.beforeApplicationShutdown();
    }
  });

  it('sends once a delivery whose claim committed as the database went away (its answer lost), and one whose claim never got there', async () => {
    // Sweeps run (lease renewal, interrupted ones closed) as they do in production.
    const { engine, repo } = await engineFor('engine-6', { WEBHOOK_SWEEP_MS: '100' });
    try {
      const hook = await webhook(scaleWs, '/claim-lost', ['lead.created']);
      const lost = (await createFor(repo, event(scaleWs, 'lead.created', { lead_id: 'lost', chatbot_id: null }))).filter((d) => d.webhook_id === hook);
      const missed = (await createFor(repo, event(scaleWs, 'lead.created', { lead_id: 'missed', chatbot_id: null }))).filter((d) => d.webhook_id === hook);
      // The database goes away for 1.5 s (longer than the 1 s lease): the first claim commits but
      // its answer never arrives (a connection dropped mid-statement: PostgreSQL finishes and
      // commits it); every other write of this dispatcher fails until it is back.
      let awayUntil = 0;
      const away = () => Date.now() < awayUntil;
      const dropped = () => new Error('Connection terminated unexpectedly');
      const claim = repo.claim.bind(repo);
      repo.claim = async (id) => {
        if (!awayUntil) {
          awayUntil = Date.now() + 1500;
          await claim(id);
          throw dropped();
        }
        if (away()) throw dropped();
        return claim(id);
      };
      for (const name of ['claimAgain', 'finish', 'renewLeases', 'failInterrupted', 'claimOrphans'] as const) {
        const real = (repo as any)[name].bind(repo);
        (repo as any)[name] = async (...args: unknown[]) => {
          if (away()) throw dropped();
          return real(...args);
        };
      }
      engine.accept(lost);
      await new Promise((r) => setTimeout(r, 50));
      engine.accept(missed);
      const rows = await settled([...lost, ...missed].map((d) => d.id));
      expect(rows.map((r: any) => [r.status, r.last_status_code, r.last_error, r.attempts])).toEqual([
        ['succeeded', 200, null, 1],
        ['succeeded', 200, null, 1],
      ]);
      for (const r of rows) expect(hits.filter((h) => h.headers['x-service-delivery-id'] === r.id)).toHaveLength(1);
    } finally {
      await engine.beforeApplicationShutdown();
    }
  });

  it('refuses at delivery an endpoint whose address is not allowed, whatever was registered', async () => {
    const { engine, repo } = await engineFor('engine-3');
    try {
      // Written straight into the table, past the registration check: loopback outside the allowlist.
      const [row] = await queryRows<{ id: string }>(ds, `INSERT INTO webhooks.webhooks (tenant_id, url, events, secret) VALUES ($1, $2, $3, $4) RETURNING id`, [
        scaleWs,
        `http://127.0.0.2:${port}/private`,
        ['booking.created'],
        box.seal('whsec_private'),
      ]);
      const created = (await createFor(repo, event(scaleWs, 'booking.created', { booking_id: 'p1', chatbot_id: null }))).filter((d) => d.webhook_id === row.id);
      expect(created).toHaveLength(1);
      const before = hits.filter((h) => h.path === '/private').length;
      engine.accept(created);
      const [settledRow] = await settled(created.map((d) => d.id));
      expect(settledRow).toEqual(expect.objectContaining({ status: 'failed', last_status_code: null, last_error: expect.stringMatching(/127\.0\.0\.2/) }));
      expect(hits.filter((h) => h.path === '/private').length).toBe(before);
    } finally {
      await engine.beforeApplicationShutdown();
    }
  });

  it('keeps 32 requests in flight to one endpoint by default, never more', async () => {
    // The 300 ms answers must not run into the suite's short 400 ms timeout on a loaded machine:
    // this test is about how many are open at once, not about timeouts.
    const { engine, repo } = await engineFor('engine-4', { WEBHOOK_TIMEOUT_MS: '5000' });
    try {
      expect(configFor('engine-4').endpointConcurrency).toBe(DEFAULT_ENDPOINT_SLOTS);
      const ws = (await new IdentityAdmin(ds).createWorkspace({ name: 'Held', plan: 'scale' })).id;
      await webhook(ws, '/held', ['ticket.created']);
      const created: { id: string; webhook_id: string }[] = [];
      for (let i = 0; i < 2.5 * DEFAULT_ENDPOINT_SLOTS; i++) created.push(...(await createFor(repo, event(ws, 'ticket.created', { ticket_id: `h${i}`, chatbot_id: null }))));
      expect(created).toHaveLength(2.5 * DEFAULT_ENDPOINT_SLOTS);
      engine.accept(created);
      const rows = await settled(created.map((d) => d.id));
      expect(rows.filter((r: any) => r.status !== 'succeeded').map((r: any) => ({ status: r.status, error: r.last_error }))).toEqual([]);
      expect(held.max).toBe(DEFAULT_ENDPOINT_SLOTS);
    } finally {
      await engine.beforeApplicationShutdown();
    }
  });

  it('sends the deliveries of an event at once, claimed by their insert, once it knows where the event kind goes', async () => {
    const { engine } = await engineFor('engine-7');
    try {
      const ws = (await new IdentityAdmin(ds).createWorkspace({ name: 'Fast', plan: 'scale' })).id;
      const hook = await webhook(ws, '/fast', ['ticket.created'], null, 'whsec_fast');
      // The first event of a kind: where it goes is not known before its insert, so it is pending.
      const first = await engine.create(event(ws, 'ticket.created', { ticket_id: 'f0', chatbot_id: null }));
      expect(first).toEqual([{ id: expect.any(String), webhook_id: hook }]);
      engine.accept(first);
      await settled(first.map((d) => d.id));
      // The next one is inserted claimed and sent: nothing is left pending to hand over.
      const e = event(ws, 'ticket.created', { ticket_id: 'f1', chatbot_id: null });
      expect(await engine.create(e)).toEqual([]);
      const ids = (await queryRows<{ id: string }>(ds, `SELECT id FROM webhooks.deliveries WHERE event_id = $1`, [e.id])).map((r) => r.id);
      const [row] = await settled(ids);
      expect(row).toEqual(expect.objectContaining({ status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null }));
      const sent = hits.filter((h) => h.headers['x-service-event-id'] === e.id);
      expect(sent).toHaveLength(1);
      expect(verifyWebhook({ rawBody: sent[0].body, headers: sent[0].headers, secret: 'whsec_fast' })).toEqual(expect.objectContaining({ ok: true }));
      expect(await queryRows<any>(ds, `SELECT attempt, trigger, status_code FROM webhooks.attempts WHERE delivery_id = $1`, [row.id])).toEqual([
        { attempt: 1, trigger: 'event', status_code: 200 },
      ]);
    } finally {
      await engine.beforeApplicationShutdown();
    }
  });

  it('sends, once, a delivery its insert committed claimed when the answer to that insert was lost', async () => {
    // The sweep runs often here: a delivery left `sending` would be closed as interrupted once its 1 s lease ends.
    const { engine, repo } = await engineFor('engine-10', { WEBHOOK_SWEEP_MS: '100' });
    try {
      const ws = (await new IdentityAdmin(ds).createWorkspace({ name: 'Lost answer', plan: 'scale' })).id;
      const hook = await webhook(ws, '/lost-answer', ['ticket.created']);
      await deliverFirst(engine, ws, 'la0');
      // The next insert commits (its delivery claimed in a reserved slot), but its answer never comes back.
      const real = repo.createForEvent.bind(repo);
      repo.createForEvent = async (e, reserved) => {
        await real(e, reserved);
        throw new Error('Connection terminated unexpectedly');
      };
      const e = event(ws, 'ticket.created', { ticket_id: 'la1', chatbot_id: null });
      await expect(engine.create(e)).rejects.toThrow(/terminated/);
      repo.createForEvent = real;
      const [committed] = await queryRows<any>(ds, `SELECT id, status, attempts FROM webhooks.deliveries WHERE event_id = $1 AND webhook_id = $2`, [e.id, hook]);
      expect(committed).toEqual(expect.objectContaining({ status: 'sending', attempts: 1 }));
      // JetStream redelivers the event: its insert finds the delivery there and creates nothing.
      expect(await engine.create(e)).toEqual([]);
      const [row] = await settled([committed.id]);
      expect(row).toEqual(expect.objectContaining({ status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null }));
      expect(hits.filter((h) => h.headers['x-service-event-id'] === e.id)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 1500)); // past the lease and a few sweeps: still sent once
      expect(hits.filter((h) => h.headers['x-service-event-id'] === e.id)).toHaveLength(1);
    } finally {
      await engine.beforeApplicationShutdown();
    }
  });

  it('never has more than 32 deliveries of an endpoint in flight or sending when events come faster than it answers', async () => {
    const { engine } = await engineFor('engine-8', { WEBHOOK_TIMEOUT_MS: '5000' });
    const sampling = { on: true, maxSending: 0 };
    try {
      const ws = (await new IdentityAdmin(ds).createWorkspace({ name: 'Held fast', plan: 'scale' })).id;
      const hook = await webhook(ws, '/held-fast', ['ticket.created']);
      await deliverFirst(engine, ws, 'l0');
      held.max = 0;
      // What is committed as sending, sampled while the events come and go.
      const sampler = (async () => {
        while (sampling.on) {
          const [row] = await queryRows<{ n: number }>(ds, `SELECT count(*)::int AS n FROM webhooks.deliveries WHERE webhook_id = $1 AND status = 'sending'`, [hook]);
          sampling.maxSending = Math.max(sampling.maxSending, row.n);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const events = Array.from({ length: 2.5 * DEFAULT_ENDPOINT_SLOTS }, (_, i) => event(ws, 'ticket.created', { ticket_id: `hf${i}`, chatbot_id: null }));
      const pending = (await Promise.all(events.map((e) => engine.create(e)))).flat();
      // As many inserted claimed as the endpoint has slots, the rest pending behind them.
      expect(pending).toHaveLength(1.5 * DEFAULT_ENDPOINT_SLOTS);
      engine.accept(pending);
      const ids = (await queryRows<{ id: string }>(ds, `SELECT id FROM webhooks.deliveries WHERE event_id = ANY($1::uuid[])`, [events.map((e) => e.id)])).map((r) => r.id);
      const rows = await settled(ids);
      sampling.on = false;
      await sampler;
      expect(rows.filter((r: any) => r.status !== 'succeeded')).toEqual([]);
      expect(held.max).toBe(DEFAULT_ENDPOINT_SLOTS);
      expect(sampling.maxSending).toBeGreaterThan(0);
      expect(sampling.maxSending).toBeLessThanOrEqual(DEFAULT_ENDPOINT_SLOTS);
      for (const e of events) expect(hits.filter((h) => h.headers['x-service-event-id'] === e.id)).toHaveLength(1);
    } finally {
      sampling.on = false;
      await engine.beforeApplicationShutdown();
    }
  });

  it('lets three webhooks hold all their slots on slow endpoints and still sends another at once', async () => {
    const { engine } = await engineFor('engine-9', { WEBHOOK_TIMEOUT_MS: '10000' });
    try {
      const ws = (await new IdentityAdmin(ds).createWorkspace({ name: 'Crowded', plan: 'scale' })).id;
      const crowdHooks = [await webhook(ws, '/crowd-a', ['ticket.created']), await webhook(ws, '/crowd-b', ['ticket.created']), await webhook(ws, '/crowd-c', ['ticket.created'])];
      const quickHook = await webhook(ws, '/quick', ['booking.created']);
      const events = Array.from({ length: DEFAULT_ENDPOINT_SLOTS }, (_, i) => event(ws, 'ticket.created', { ticket_id: `c${i}`, chatbot_id: null }));
      engine.accept((await Promise.all(events.map((e) => engine.create(e)))).flat());
      // Every slot of the three webhooks taken (each request lasts 4 s), then another webhook's event.
      for (const until = Date.now() + 3500; crowd.open < 3 * DEFAULT_ENDPOINT_SLOTS && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
      expect(crowd.open).toBe(3 * DEFAULT_ENDPOINT_SLOTS);
      const booking = event(ws, 'booking.created', { booking_id: 'b1', chatbot_id: null });
      const quick = await engine.create(booking);
      expect(quick.map((d) => d.webhook_id)).toEqual([quickHook]);
      engine.accept(quick);
      const [row] = await settled(quick.map((d) => d.id));
      expect(row).toEqual(expect.objectContaining({ status: 'succeeded', last_status_code: 200 }));
      // Sent while the slow ones were all still open: they held no slot but their own webhooks'.
      expect(crowd.atQuick).toBe(3 * DEFAULT_ENDPOINT_SLOTS);
      const ids = (await queryRows<{ id: string }>(ds, `SELECT id FROM webhooks.deliveries WHERE webhook_id = ANY($1::uuid[])`, [crowdHooks])).map((r) => r.id);
      expect(ids).toHaveLength(3 * DEFAULT_ENDPOINT_SLOTS);
      expect((await settled(ids)).filter((r: any) => r.status !== 'succeeded')).toEqual([]);
    } finally {
      await engine.beforeApplicationShutdown();
    }
  });

  it('gives back deliveries it had not started when it stops', async () => {
    const { engine, repo } = await engineFor('engine-2', { WEBHOOK_ENDPOINT_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '1500' });
    await webhook(scaleWs, '/slow-stop', ['ticket.created']);
    const created: { id: string; webhook_id: string }[] = [];
    for (let i = 0; i < 3; i++) created.push(...(await createFor(repo, event(scaleWs, 'ticket.created', { ticket_id: `s${i}`, chatbot_id: null }))));
    engine.accept(created.filter((d) => d.webhook_id));
    await new Promise((r) => setTimeout(r, 200));
    await engine.beforeApplicationShutdown();
    const rows = await deliveryRows(created.map((d) => d.id));
    const statuses = rows.map((r: any) => [r.status, r.owner]);
    expect(statuses.filter(([st]) => st === 'failed')).toHaveLength(1); // the one in flight finished (timed out)
    expect(statuses.filter(([st, owner]) => st === 'pending' && owner === null)).toHaveLength(2);
  });
});
