import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SCOPES } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError, httpStatusOf } from '@sa/errors';
import { createLogger } from '@sa/logging';
// Test-only dependency; the module-boundary rule does not tell tests from library code.
import { createTestDatabase } from '@sa/testing';
import { IDENTITY_ENTITIES } from './index';
import { AdminInputError, BotDirectory, IdentityAdmin } from './identity-admin';
import { IDENTITY_CHANNEL, TokenVerifier, TokenVerifierOptions, generateTokenSecret } from '@sa/identity';
import { DbIdentitySource } from './db-identity-source';
import { PgIdentityFeed } from './pg-identity-feed';

// IdentityAdmin and TokenVerifier against the real PostgreSQL: a fresh migrated database for
// this file, real LISTEN/NOTIFY on identity_changed, real batched last_used_at writes. The gateway's
// verifier (DbIdentitySource, PgIdentityFeed); the NATS side is apps/gateway/src/identity.
// Bots are the bots service's: IdentityAdmin asks a BotDirectory, here a stand-in the tests fill.

const logger = createLogger('identity-int-spec', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });
const LISTENER_APP = 'gateway-identity-listener';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let admin: IdentityAdmin;
/** bot id → workspace id: what the bots service would answer. */
const bots = new Map<string, string>();
const botDirectory: BotDirectory = async (ws, ids) => ids.filter((id) => bots.get(id) === ws.id);
const verifiers: TokenVerifier[] = [];

beforeAll(async () => {
  db = await createTestDatabase('sa_identity');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'identity-int', entities: IDENTITY_ENTITIES })).initialize();
  admin = new IdentityAdmin(ds, botDirectory);
});

afterEach(async () => {
  for (const v of verifiers.splice(0)) await v.stop();
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function adminError(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  const err = await promise.then(
    () => {
      throw new Error('expected an AdminInputError');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdminInputError);
  expect((err as Error).message).toMatch(message);
}

async function unauthorized(promise: Promise<unknown>, message?: string): Promise<DomainError> {
  const err = await promise.then(
    () => {
      throw new Error('expected Unauthorized');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('unauthorized');
  expect(httpStatusOf((err as DomainError).code)).toBe(401);
  if (message) expect((err as DomainError).message).toBe(message);
  return err as DomainError;
}

async function insertBot(tenantId: string): Promise<string> {
  const id = randomUUID();
  bots.set(id, tenantId);
  return id;
}

const options = (opts: Partial<TokenVerifierOptions> = {}): TokenVerifierOptions => ({ cacheTtlMs: 60_000, negativeTtlMs: 60_000, maxEntries: 1000, lastUsedFlushMs: 100, ...opts });
const gatewayVerifier = (opts: Partial<TokenVerifierOptions> = {}) => new TokenVerifier(new DbIdentitySource(ds), new PgIdentityFeed(db.url, logger), options(opts), logger);

async function newWorkspace(plan: 'growth' | 'scale' | 'growth_trial' | 'enterprise' = 'growth') {
  return admin.createWorkspace({ name: `ws-${randomUUID().slice(0, 8)}`, plan });
}

async function startVerifier(opts: Partial<TokenVerifierOptions> = {}): Promise<TokenVerifier> {
  const v = gatewayVerifier(opts);
  await v.start();
  verifiers.push(v);
  return v;
}

async function listenerConnections(): Promise<number> {
  const [row] = await ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`, [db.name, LISTENER_APP]);
  return row.n;
}

/** Collects the identity_changed notifications of this database while `fn` runs. */
async function notificationsDuring(fn: () => Promise<unknown>): Promise<unknown[]> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  const seen: unknown[] = [];
  client.on('notification', (m) => seen.push(JSON.parse(m.payload ?? 'null')));
  try {
    await client.query(`LISTEN ${IDENTITY_CHANNEL}`);
    await fn();
    await sleep(200);
    return seen;
  } finally {
    await client.end();
  }
}

describe('IdentityAdmin workspaces', () => {
  it('creates a growth_trial workspace with a 14-day trial and the defaults', async () => {
    const before = Date.now();
    const w = await admin.createWorkspace({ name: 'Acme', plan: 'growth_trial' });
    expect(w.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.trialEndsAt!.getTime()).toBeGreaterThanOrEqual(before + 14 * 86400_000);
    expect(w.trialEndsAt!.getTime()).toBeLessThanOrEqual(Date.now() + 14 * 86400_000);
    const [row] = await ds.query(`SELECT * FROM identity.workspaces WHERE id = $1`, [w.id]);
    expect(row).toMatchObject({
      name: 'Acme',
      plan: 'growth_trial',
      billing_status: 'active',
      enterprise_api: false,
      enterprise_webhooks: false,
      tier_slots: { starter: 0, growth: 0, scale: 0 },
      messages_per_month: null,
      pages_per_bot: null,
      bot_slots: null,
    });
    expect(new Date(row.trial_ends_at).getTime()).toBe(w.trialEndsAt!.getTime());
  });

  it('honours trialDays, an explicit trial end (also null), and gives paid plans no trial', async () => {
    const w3 = await admin.createWorkspace({ name: 'Short', plan: 'growth_trial' }, 3);
    expect(Math.round((w3.trialEndsAt!.getTime() - Date.now()) / 86400_000)).toBe(3);
    const end = new Date('2031-02-03T04:05:06.000Z');
    expect((await admin.createWorkspace({ name: 'Fixed', plan: 'growth_trial', trialEndsAt: end })).trialEndsAt).toEqual(end);
    expect((await admin.createWorkspace({ name: 'None', plan: 'growth_trial', trialEndsAt: null })).trialEndsAt).toBeNull();
    expect((await admin.createWorkspace({ name: 'Paid', plan: 'scale' })).trialEndsAt).toBeNull();
  });

  it('stores enterprise settings, partial tier slots and quotas', async () => {
    const w = await admin.createWorkspace({
      name: 'Big Co',
      plan: 'enterprise',
      enterpriseApi: true,
      enterpriseWebhooks: true,
      tierSlots: { growth: 4 },
      messagesPerMonth: 0,
      pagesPerBot: 12,
      botSlots: 5,
      billingStatus: 'past_due',
    });
    const fresh = await admin.getWorkspace(w.id);
    expect(fresh).toMatchObject({
      plan: 'enterprise',
      enterpriseApi: true,
      enterpriseWebhooks: true,
      tierSlots: { starter: 0, growth: 4, scale: 0 },
      messagesPerMonth: 0,
      pagesPerBot: 12,
      botSlots: 5,
      billingStatus: 'past_due',
    });
  });

  it.each([
    ['an empty name', { name: '   ', plan: 'growth' }, '--name must not be empty'],
    ['an unknown plan', { name: 'x', plan: 'platinum' }, /^--plan must be one of growth_trial, growth, scale, enterprise$/],
    ['an unknown billing status', { name: 'x', plan: 'growth', billingStatus: 'frozen' }, /^--status must be one of active, past_due, canceled$/],
    ['an invalid trial end', { name: 'x', plan: 'growth_trial', trialEndsAt: new Date('not a date') }, '--trial-ends must be an ISO 8601 date-time'],
    ['an unknown tier', { name: 'x', plan: 'enterprise', tierSlots: { platinum: 1 } }, /^unknown tier "platinum" \(known: starter, growth, scale\)$/],
    ['negative tier slots', { name: 'x', plan: 'enterprise', tierSlots: { starter: -1 } }, 'tier slots for starter must be a whole number ≥ 0'],
    ['fractional tier slots', { name: 'x', plan: 'enterprise', tierSlots: { scale: 1.5 } }, 'tier slots for scale must be a whole number ≥ 0'],
    ['negative messages per month', { name: 'x', plan: 'growth', messagesPerMonth: -1 }, '--messages-per-month must be a whole number ≥ 0'],
    ['negative pages per bot', { name: 'x', plan: 'growth', pagesPerBot: -5 }, '--pages-per-bot must be a whole number ≥ 0'],
    ['negative bot slots', { name: 'x', plan: 'growth', botSlots: -1 }, '--bot-slots must be a whole number ≥ 0'],
    ['fractional bot slots', { name: 'x', plan: 'growth', botSlots: 2.5 }, '--bot-slots must be a whole number ≥ 0'],
  ])('refuses %s and writes nothing', async (_label, input, message) => {
    const [{ n: before }] = await ds.query(`SELECT count(*)::int AS n FROM identity.workspaces`);
    await adminError(admin.createWorkspace(input as never), message);
    const [{ n: after }] = await ds.query(`SELECT count(*)::int AS n FROM identity.workspaces`);
    expect(after).toBe(before);
  });

  it('updates only the given fields, merges tier slots, and announces the change', async () => {
    const w = await admin.createWorkspace({ name: 'Upd', plan: 'enterprise', tierSlots: { starter: 2 }, pagesPerBot: 7 });
    const notes = await notificationsDuring(() => admin.updateWorkspace(w.id, { enterpriseApi: true, tierSlots: { scale: 1 }, name: undefined, messagesPerMonth: 99 }));
    expect(notes).toEqual([{ kind: 'workspace', id: w.id }]);
    expect(await admin.getWorkspace(w.id)).toMatchObject({ name: 'Upd', enterpriseApi: true, tierSlots: { starter: 2, growth: 0, scale: 1 }, pagesPerBot: 7, messagesPerMonth: 99 });
    // null resets a quota to the plan default.
    await admin.updateWorkspace(w.id, { pagesPerBot: null });
    expect((await admin.getWorkspace(w.id))!.pagesPerBot).toBeNull();
  });

  it('starts a trial when a workspace moves to growth_trial without one', async () => {
    const w = await newWorkspace('growth');
    const moved = await admin.updateWorkspace(w.id, { plan: 'growth_trial' });
    expect(moved.trialEndsAt!.getTime()).toBeGreaterThan(Date.now() + 13 * 86400_000);
    const end = new Date('2032-01-01T00:00:00.000Z');
    const w2 = await newWorkspace('scale');
    expect((await admin.updateWorkspace(w2.id, { plan: 'growth_trial', trialEndsAt: end })).trialEndsAt).toEqual(end);
  });

  it.each([
    ['a bad uuid', 'nope', {}, '--id must be a uuid (got "nope")'],
    ['an unknown workspace', '00000000-0000-4000-8000-000000000000', {}, 'no workspace with id 00000000-0000-4000-8000-000000000000'],
    ['negative quotas', null, { messagesPerMonth: -3 }, '--messages-per-month must be a whole number ≥ 0'],
    ['an unknown tier', null, { tierSlots: { gold: 1 } }, /^unknown tier "gold"/],
  ])('refuses to update with %s', async (_label, id, changes, message) => {
    const target = id ?? (await newWorkspace()).id;
    await adminError(admin.updateWorkspace(target, changes as never), message);
  });

  it('getWorkspace checks the id and returns null for unknown workspaces', async () => {
    await adminError(admin.getWorkspace('123'), '--id must be a uuid (got "123")');
    expect(await admin.getWorkspace(randomUUID())).toBeNull();
  });
});

describe('IdentityAdmin tokens', () => {
  it('creates a token whose secret is shown once and stored only as its SHA-256', async () => {
    const w = await newWorkspace();
    const created = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read', 'bots:write', 'bots:read'], name: '  CI token  ' });
    expect(created.token).toMatch(/^mgpt_[A-Za-z0-9_-]{43}$/);
    expect(created.summary).toEqual({
      id: created.id,
      name: 'CI token',
      hint: `${created.token.slice(0, 9)}…`,
      scopes: ['bots:read', 'bots:write'],
      bot_ids: null,
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      created_at: expect.any(String),
    });

    const [row] = await ds.query(`SELECT token_hash, token_hint, workspace_id FROM identity.api_tokens WHERE id = $1`, [created.id]);
    expect(row.token_hash).toBe(sha256(created.token));
    expect(row.token_hint).toBe(created.summary.hint);
    expect(row.workspace_id).toBe(w.id);

    // The secret is nowhere in the identity tables, nor its random part.
    const random = created.token.slice(5);
    const texts: { t: string }[] = await ds.query(`SELECT t::text AS t FROM identity.api_tokens t UNION ALL SELECT w::text FROM identity.workspaces w`);
    expect(texts.length).toBeGreaterThan(1);
    for (const { t } of texts) {
      expect(t).not.toContain(created.token);
      expect(t).not.toContain(random);
      expect(t).not.toContain(random.slice(4, 20));
    }
  });

  it('gives a default name, every scope for "all", and an expiry', async () => {
    const w = await newWorkspace();
    const before = Date.now();
    const t = await admin.createToken({ workspaceId: w.id, scopes: 'all', expiresInSeconds: 3600 });
    expect(t.summary.name).toBe('API token');
    expect(t.summary.scopes).toEqual([...SCOPES]);
    const expires = new Date(t.summary.expires_at!).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000);
  });

  it('limits a token to bots of its workspace (deduplicated)', async () => {
    const w = await newWorkspace();
    const b1 = await insertBot(w.id);
    const b2 = await insertBot(w.id);
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['kb:read'], botIds: [b1, b2, b1] });
    expect(t.summary.bot_ids).toEqual([b1, b2]);
    const [row] = await ds.query(`SELECT bot_ids FROM identity.api_tokens WHERE id = $1`, [t.id]);
    expect(row.bot_ids).toEqual([b1, b2]);
  });

  it('refuses bots of another workspace, and unknown bots, naming them', async () => {
    const w = await newWorkspace();
    const other = await newWorkspace();
    const mine = await insertBot(w.id);
    const theirs = await insertBot(other.id);
    const ghost = randomUUID();
    await adminError(admin.createToken({ workspaceId: w.id, scopes: ['kb:read'], botIds: [mine, theirs, ghost] }), `not bots of workspace ${w.id}: ${theirs}, ${ghost}`);
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM identity.api_tokens WHERE workspace_id = $1`, [w.id]);
    expect(n).toBe(0);
  });

  it('cannot limit a token to bots with no bots service to ask, and writes nothing', async () => {
    const w = await newWorkspace();
    const bot = await insertBot(w.id);
    await adminError(new IdentityAdmin(ds).createToken({ workspaceId: w.id, scopes: ['kb:read'], botIds: [bot] }), '--bots cannot be checked here (no bots service to ask)');
    expect((await new IdentityAdmin(ds).createToken({ workspaceId: w.id, scopes: ['kb:read'] })).summary.bot_ids).toBeNull();
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM identity.api_tokens WHERE workspace_id = $1`, [w.id]);
    expect(n).toBe(1);
  });

  it.each([
    ['a bad workspace uuid', { workspaceId: 'ws-1', scopes: ['bots:read'] }, '--workspace must be a uuid (got "ws-1")'],
    ['an unknown workspace', { workspaceId: '00000000-0000-4000-8000-00000000000f', scopes: ['bots:read'] }, 'no workspace with id 00000000-0000-4000-8000-00000000000f'],
    ['no scopes', { scopes: [] }, '--scopes must name at least one scope'],
    ['unknown scopes', { scopes: ['bots:read', 'admin', 'root'] }, /^unknown scope\(s\): admin, root \(known: bots:read, /],
    ['a zero expiry', { scopes: ['bots:read'], expiresInSeconds: 0 }, '--expires-in must be a positive whole number of seconds'],
    ['a negative expiry', { scopes: ['bots:read'], expiresInSeconds: -60 }, '--expires-in must be a positive whole number of seconds'],
    ['a fractional expiry', { scopes: ['bots:read'], expiresInSeconds: 1.5 }, '--expires-in must be a positive whole number of seconds'],
    ['an empty bot list', { scopes: ['bots:read'], botIds: [] }, '--bots must name at least one bot id'],
    ['a bad bot uuid', { scopes: ['bots:read'], botIds: ['bot-1'] }, '--bots must be a uuid (got "bot-1")'],
  ])('refuses %s', async (_label, input, message) => {
    const w = await newWorkspace();
    await adminError(admin.createToken({ workspaceId: w.id, ...input } as never), message);
  });

  it('revokes a token once, announces it, and keeps the first revocation time', async () => {
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    let first: Awaited<ReturnType<IdentityAdmin['revokeToken']>> | undefined;
    const notes = await notificationsDuring(async () => {
      first = await admin.revokeToken(t.id);
    });
    expect(notes).toEqual([{ kind: 'token', id: t.id }]);
    expect(first!.revoked_at).not.toBeNull();
    const second = await admin.revokeToken(t.id);
    expect(second.revoked_at).toBe(first!.revoked_at);
    const [row] = await ds.query(`SELECT revoked_at FROM identity.api_tokens WHERE id = $1`, [t.id]);
    expect(new Date(row.revoked_at).toISOString()).toBe(first!.revoked_at);
  });

  it('refuses to revoke with a bad or unknown id', async () => {
    await adminError(admin.revokeToken('abc'), '--id must be a uuid (got "abc")');
    const id = randomUUID();
    await adminError(admin.revokeToken(id), `no token with id ${id}`);
  });

  it('lists the tokens of one workspace, oldest first, without secrets or hashes', async () => {
    const w = await newWorkspace();
    const other = await newWorkspace();
    const a = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'], name: 'a' });
    const b = await admin.createToken({ workspaceId: w.id, scopes: ['kb:read'], name: 'b' });
    await admin.createToken({ workspaceId: other.id, scopes: ['kb:read'], name: 'c' });
    await admin.revokeToken(a.id);
    const list = await admin.listTokens(w.id);
    expect(list.map((t) => t.name)).toEqual(['a', 'b']);
    expect(list[0].revoked_at).not.toBeNull();
    expect(list[1].revoked_at).toBeNull();
    const text = JSON.stringify(list);
    expect(text).not.toContain(a.token);
    expect(text).not.toContain(b.token);
    expect(text).not.toContain(sha256(a.token));
    expect(Object.keys(list[0]).sort()).toEqual(['bot_ids', 'created_at', 'expires_at', 'hint', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes']);
    expect(await admin.listTokens((await newWorkspace()).id)).toEqual([]);
  });

  it('refuses to list with a bad or unknown workspace id', async () => {
    await adminError(admin.listTokens('x'), '--workspace must be a uuid (got "x")');
    const id = randomUUID();
    await adminError(admin.listTokens(id), `no workspace with id ${id}`);
  });
});

describe('TokenVerifier', () => {
  it('verifies a token to its token and workspace', async () => {
    const v = await startVerifier();
    expect(v.isListening).toBe(true);
    const w = await newWorkspace('scale');
    const bot = await insertBot(w.id);
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read', 'kb:read'], botIds: [bot], name: 'verify me' });
    const { token, workspace } = await v.verify(t.token);
    expect(token).toEqual({ id: t.id, workspaceId: w.id, name: 'verify me', scopes: ['bots:read', 'kb:read'], botIds: [bot], expiresAt: null });
    expect(workspace).toMatchObject({ id: w.id, plan: 'scale', billingStatus: 'active' });
  });

  it('rejects malformed and unknown secrets as 401', async () => {
    const v = await startVerifier();
    for (const bad of ['', 'abc', 'Bearer x', 'mgpt_short', `${generateTokenSecret()}x`]) await unauthorized(v.verify(bad), 'Missing, invalid, expired or revoked API token');
    await unauthorized(v.verify(generateTokenSecret()), 'Missing, invalid, expired or revoked API token');
  });

  it('rejects a revoked token, and a token whose workspace is gone', async () => {
    const v = await startVerifier();
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    await admin.revokeToken(t.id);
    await unauthorized(v.verify(t.token));

    const w2 = await newWorkspace();
    const t2 = await admin.createToken({ workspaceId: w2.id, scopes: ['bots:read'] });
    await ds.query(`DELETE FROM identity.workspaces WHERE id = $1`, [w2.id]);
    await unauthorized(v.verify(t2.token));
  });

  it('rejects an expired token as 401 with its own message', async () => {
    const v = await startVerifier();
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'], expiresInSeconds: 60 });
    await expect(v.verify(t.token)).resolves.toBeDefined();
    // The cached token expires by the clock, without any change in the database.
    await unauthorized(v.verify(t.token, new Date(Date.now() + 61_000)), 'This API token has expired');

    const t2 = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    await ds.query(`UPDATE identity.api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [t2.id]);
    await unauthorized(v.verify(t2.token), 'This API token has expired');
  });

  it('serves a cached token until identity_changed names it', async () => {
    const v = await startVerifier();
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    expect((await v.verify(t.token)).token.scopes).toEqual(['bots:read']);

    // Changed behind the verifier's back, without NOTIFY: the cache still answers.
    await ds.query(`UPDATE identity.api_tokens SET scopes = ARRAY['bots:read','bots:write'] WHERE id = $1`, [t.id]);
    await sleep(150);
    expect((await v.verify(t.token)).token.scopes).toEqual(['bots:read']);

    await ds.query(`SELECT pg_notify('identity_changed', $1)`, [JSON.stringify({ kind: 'token', id: t.id })]);
    await waitFor('the new scopes', async () => (await v.verify(t.token)).token.scopes.includes('bots:write'), 3000);

    // A revocation written directly is seen once announced.
    await ds.query(`UPDATE identity.api_tokens SET revoked_at = now() WHERE id = $1`, [t.id]);
    await expect(v.verify(t.token)).resolves.toBeDefined();
    await ds.query(`SELECT pg_notify('identity_changed', $1)`, [JSON.stringify({ kind: 'token', id: t.id })]);
    await waitFor('the revocation', () => v.verify(t.token).then(() => false, (e: unknown) => (e as DomainError).code === 'unauthorized'), 3000);
  });

  it('sees a revocation by IdentityAdmin at once', async () => {
    const v = await startVerifier();
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    await v.verify(t.token);
    await admin.revokeToken(t.id);
    await waitFor('the revocation', () => v.verify(t.token).then(() => false, () => true), 3000);
    await unauthorized(v.verify(t.token));
  });

  it('ignores notifications that name other tokens or are malformed', async () => {
    const v = await startVerifier();
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    await v.verify(t.token);
    await ds.query(`UPDATE identity.api_tokens SET scopes = ARRAY['leads:read'] WHERE id = $1`, [t.id]);
    for (const payload of [JSON.stringify({ kind: 'token', id: randomUUID() }), 'not json', JSON.stringify({ kind: 'bot', id: t.id })]) {
      await ds.query(`SELECT pg_notify('identity_changed', $1)`, [payload]);
    }
    await sleep(300);
    expect((await v.verify(t.token)).token.scopes).toEqual(['bots:read']);
  });

  it('refreshes the workspace when identity_changed names it', async () => {
    const v = await startVerifier();
    const w = await newWorkspace('scale');
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    expect((await v.verify(t.token)).workspace.billingStatus).toBe('active');

    await ds.query(`UPDATE identity.workspaces SET billing_status = 'past_due' WHERE id = $1`, [w.id]);
    await sleep(150);
    expect((await v.verify(t.token)).workspace.billingStatus).toBe('active');

    await ds.query(`SELECT pg_notify('identity_changed', $1)`, [JSON.stringify({ kind: 'workspace', id: w.id })]);
    await waitFor('the new billing status', async () => (await v.verify(t.token)).workspace.billingStatus === 'past_due', 3000);

    // IdentityAdmin announces its own updates.
    await admin.updateWorkspace(w.id, { plan: 'enterprise', enterpriseApi: true });
    await waitFor('the new plan', async () => (await v.verify(t.token)).workspace.plan === 'enterprise', 3000);
    expect((await v.verify(t.token)).workspace.enterpriseApi).toBe(true);
  });

  it('remembers an unknown secret for negativeTtlMs only', async () => {
    const v = await startVerifier({ negativeTtlMs: 400 });
    const w = await newWorkspace();
    const secret = generateTokenSecret();
    await unauthorized(v.verify(secret));
    const [row] = await ds.query(
      `INSERT INTO identity.api_tokens (workspace_id, name, token_hash, token_hint, scopes) VALUES ($1, 'late', $2, 'mgpt_…', ARRAY['bots:read']) RETURNING id`,
      [w.id, sha256(secret)],
    );
    await unauthorized(v.verify(secret));
    await sleep(500);
    expect((await v.verify(secret)).token.id).toBe(row.id);
  });

  it('writes last_used_at in batches, never backwards', async () => {
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    const unused = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    const lastUsed = async (id: string): Promise<Date | null> => {
      const [row] = await ds.query(`SELECT last_used_at FROM identity.api_tokens WHERE id = $1`, [id]);
      return row.last_used_at;
    };
    // The first flush is a second after start: the verifies below are recorded, not yet written.
    const v = await startVerifier({ lastUsedFlushMs: 1000 });
    const started = Date.now();
    const at = new Date(Date.now() + 5_000);
    await v.verify(t.token, new Date(at.getTime() - 1000));
    await v.verify(t.token, at);
    expect(await lastUsed(t.id)).toBeNull();
    expect(Date.now() - started).toBeLessThan(1000);
    await waitFor('last_used_at', async () => (await lastUsed(t.id)) !== null, 3000);
    expect((await lastUsed(t.id))!.toISOString()).toBe(at.toISOString());

    // An older use flushed later does not move it back.
    await v.verify(t.token, new Date(at.getTime() - 60_000));
    await sleep(1300);
    expect((await lastUsed(t.id))!.toISOString()).toBe(at.toISOString());
    expect(await lastUsed(unused.id)).toBeNull();
  });

  it('flushes pending last use on stop and releases the LISTEN connection', async () => {
    const v = gatewayVerifier({ maxEntries: 100, lastUsedFlushMs: 60_000 });
    await waitFor('listeners of earlier tests to close', async () => (await listenerConnections()) === 0, 3000);
    const before = 0;
    await v.start();
    expect(v.isListening).toBe(true);
    expect(await listenerConnections()).toBe(before + 1);

    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    const at = new Date(Date.now() + 1000);
    await v.verify(t.token, at);

    await v.stop();
    expect(v.isListening).toBe(false);
    await waitFor('the LISTEN connection to close', async () => (await listenerConnections()) === before, 3000);
    const [row] = await ds.query(`SELECT last_used_at FROM identity.api_tokens WHERE id = $1`, [t.id]);
    expect(new Date(row.last_used_at).toISOString()).toBe(at.toISOString());

    // Nothing reconnects after stop.
    await sleep(1300);
    expect(await listenerConnections()).toBe(before);
  });
});
