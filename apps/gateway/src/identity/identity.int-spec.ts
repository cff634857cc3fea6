import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NatsConnection, connect } from 'nats';
import { DataSource } from 'typeorm';
import { TOKEN_USES_MAX } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { NatsIdentityFeed, NatsIdentitySource, TokenVerifier, generateTokenSecret, workspaceFacts } from '@sa/identity';
import { IDENTITY_ENTITIES, IdentityAdmin } from '@sa/identity-db';
import { createLogger } from '@sa/logging';
import { DrainingNatsServer, RpcClient } from '@sa/messaging';
import { PrivateNats, createTestDatabase, startPrivateNats } from '@sa/testing';
import { AppModule } from '../app.module';
import { loadGatewayConfig } from '../config/gateway.config';

// The gateway as the owner of schema `identity`, seen from a process that does not own it (the
// MCP server, the webhook dispatcher): the real gateway module served on a private nats-server
// (without its HTTP side), and a TokenVerifier that asks it over NATS and hears the changes it
// relays, as the MCP server builds it.

const logger = createLogger('gateway-identity-int', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nats: PrivateNats;
let gateway: INestMicroservice | null = null;
let nc: NatsConnection;
let rpc: RpcClient;
let admin: IdentityAdmin;
let remote: TokenVerifier;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, cond: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

beforeAll(async () => {
  db = await createTestDatabase('sa_gateway_identity');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'gateway-identity-int', entities: IDENTITY_ENTITIES })).initialize();
  admin = new IdentityAdmin(ds);
  nats = await startPrivateNats();
  const config = loadGatewayConfig({ DATABASE_URL: db.url, NATS_URL: nats.url, OPS_PORT: '0', LOG_LEVEL: 'silent', TOKEN_LAST_USED_FLUSH_MS: '100' });
  gateway = await NestFactory.createMicroservice(AppModule.forRoot(config, logger), {
    strategy: new DrainingNatsServer({ servers: [nats.url], queue: 'gateway', name: 'gateway-identity-int' }, 1000, logger),
    logger: false,
  });
  await gateway.listen();
  nc = await connect({ servers: nats.url, name: 'identity-int-client', reconnectTimeWait: 100, maxReconnectAttempts: -1 });
  rpc = new RpcClient(nc, 2000);
  remote = new TokenVerifier(new NatsIdentitySource(rpc), new NatsIdentityFeed(nc, logger), { cacheTtlMs: 60_000, negativeTtlMs: 60_000, maxEntries: 100, lastUsedFlushMs: 100 }, logger);
  await remote.start();
});

afterAll(async () => {
  await remote?.stop();
  await nc?.close();
  await gateway?.close();
  await nats?.stop();
  await ds?.destroy();
  await db?.drop();
});

const newWorkspace = (plan: 'scale' | 'growth' = 'scale') => admin.createWorkspace({ name: `ws-${randomUUID().slice(0, 8)}`, plan });

describe('identity over NATS, answered by the gateway', () => {
  it('verifies a token to the same grant and workspace as the gateway’s database holds', async () => {
    expect(remote.isListening).toBe(true);
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read', 'kb:read'], name: 'remote', expiresInSeconds: 3600 });
    const { token, workspace } = await remote.verify(t.token);
    expect(token).toEqual({ id: t.id, workspaceId: w.id, name: 'remote', scopes: ['bots:read', 'kb:read'], botIds: null, expiresAt: new Date(t.summary.expires_at!) });
    const row = await admin.getWorkspace(w.id);
    expect(workspace).toEqual(workspaceFacts({ id: w.id, name: row!.name, plan: 'scale' }));
  });

  it('answers 401 exactly as the gateway does: unknown, revoked, expired (by the clock, also when cached)', async () => {
    const unknown = await failure(remote.verify(generateTokenSecret()));
    expect([unknown.code, unknown.message]).toEqual(['unauthorized', 'Missing, invalid, expired or revoked API token']);
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'], expiresInSeconds: 60 });
    await remote.verify(t.token);
    const expired = await failure(remote.verify(t.token, new Date(Date.now() + 61_000)));
    expect([expired.code, expired.message]).toEqual(['unauthorized', 'This API token has expired']);
    const revoked = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    await admin.revokeToken(revoked.id);
    expect((await failure(remote.verify(revoked.token))).code).toBe('unauthorized');
  });

  it('hears a revocation and a workspace change at once, relayed by the gateway from NOTIFY', async () => {
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    expect((await remote.verify(t.token)).workspace.billingStatus).toBe('active');
    await admin.updateWorkspace(w.id, { billingStatus: 'past_due' });
    await waitFor('the new billing status', async () => (await remote.verify(t.token)).workspace.billingStatus === 'past_due', 3000);
    await admin.revokeToken(t.id);
    await waitFor('the revocation', () => remote.verify(t.token).then(() => false, (e: DomainError) => e.code === 'unauthorized'), 3000);
  });

  it('drops its whole cache when the gateway re-establishes LISTEN (changes may have been missed)', async () => {
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    await remote.verify(t.token);
    // Changed without NOTIFY: the cache still answers.
    await ds.query(`UPDATE identity.api_tokens SET scopes = ARRAY['leads:read'] WHERE id = $1`, [t.id]);
    await sleep(200);
    expect((await remote.verify(t.token)).token.scopes).toEqual(['bots:read']);
    await ds.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'gateway-identity-listener'`, [db.name]);
    await waitFor('the reset', async () => (await remote.verify(t.token)).token.scopes.includes('leads:read'), 10000);
  });

  it('records last use through the gateway, never moving it back', async () => {
    const w = await newWorkspace();
    const t = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    const at = new Date(Date.now() + 5000);
    await remote.verify(t.token, at);
    const lastUsed = async () => (await admin.listTokens(w.id))[0].last_used_at;
    await waitFor('last_used_at', async () => (await lastUsed()) !== null, 3000);
    expect(await lastUsed()).toBe(at.toISOString());
    await expect(rpc.send('identity.token.touch', { uses: [{ id: t.id, at: new Date(0).toISOString() }, { id: randomUUID(), at: at.toISOString() }] })).resolves.toEqual({ recorded: 1 });
    expect(await lastUsed()).toBe(at.toISOString());
  });

  it('gives a workspace’s facts, null for an unknown one', async () => {
    const w = await admin.createWorkspace({ name: 'facts', plan: 'enterprise', enterpriseWebhooks: true, tierSlots: { growth: 2 }, pagesPerBot: 7 });
    const { workspace } = await rpc.send('identity.workspace.get', { workspaceId: w.id });
    expect(workspace).toMatchObject({ id: w.id, plan: 'enterprise', enterpriseWebhooks: true, tierSlots: { starter: 0, growth: 2, scale: 0 }, pagesPerBot: 7, trialEndsAt: null });
    await expect(rpc.send('identity.workspace.get', { workspaceId: randomUUID() })).resolves.toEqual({ workspace: null });
  });

  it('refuses malformed requests with validation_failed, as every handler does', async () => {
    for (const [subject, data] of [
      ['identity.token.verify', { tokenHash: 'ABC' }],
      ['identity.token.verify', { tokenHash: 'a'.repeat(64), extra: 1 }],
      ['identity.workspace.get', { workspaceId: 'nope' }],
      ['identity.token.touch', { uses: [{ id: randomUUID(), at: 'yesterday' }] }],
      ['identity.token.touch', { uses: Array.from({ length: TOKEN_USES_MAX + 1 }, () => ({ id: randomUUID(), at: new Date().toISOString() })) }],
    ] as const) {
      const err = await failure(rpc.send(subject as never, data as never));
      expect([subject, err.code]).toEqual([subject, 'validation_failed']);
    }
  });

  it('without a gateway: cached tokens are served, others get 503 service_unavailable', async () => {
    const w = await newWorkspace();
    const cached = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    const other = await admin.createToken({ workspaceId: w.id, scopes: ['bots:read'] });
    await remote.verify(cached.token);
    await gateway!.close();
    gateway = null;
    expect((await remote.verify(cached.token)).token.id).toBe(cached.id);
    const err = await failure(remote.verify(other.token));
    expect([err.code, err.message]).toEqual(['service_unavailable', 'The identity service is unavailable (no instance is running)']);
  });
});
