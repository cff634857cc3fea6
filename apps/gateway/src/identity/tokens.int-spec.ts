import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NatsConnection, connect } from 'nats';
import { DataSource } from 'typeorm';
import { CallerContext, CheckBotsReply, CheckBotsRequest } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { TokenVerifier, entitlementsOf, hashTokenSecret, mergePlanLimits, tokenHint, workspaceFacts } from '@sa/identity';
import { IDENTITY_ENTITIES, IdentityAdmin } from '@sa/identity-db';
import { createLogger } from '@sa/logging';
import { DrainingNatsServer, RpcClient, RpcHandler } from '@sa/messaging';
import { PrivateNats, createTestDatabase, startPrivateNats } from '@sa/testing';
import { AppModule } from '../app.module';
import { loadGatewayConfig } from '../config/gateway.config';

// identity.token.create | list | revoke, as the console asks them: the real gateway module on a
// private nats-server, a stand-in bots service answering bots.bot.check from a fixed list, and
// the gateway's own TokenVerifier (its cache) to see a revocation take effect at the edge.

const logger = createLogger('gateway-tokens-int', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });

/** Bots of each workspace, as the stand-in bots service knows them. */
const botsOf = new Map<string, string[]>();

@Controller()
class BotsStandIn {
  @RpcHandler('bots.bot.check')
  check(req: CheckBotsRequest, ctx: CallerContext): CheckBotsReply {
    const mine = botsOf.get(ctx.tenantId) ?? [];
    return { found: req.ids.filter((id) => mine.includes(id)) };
  }
}

@Module({ controllers: [BotsStandIn] })
class BotsStandInModule {}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nats: PrivateNats;
let gateway: INestMicroservice;
let bots: INestMicroservice;
let nc: NatsConnection;
let rpc: RpcClient;
let admin: IdentityAdmin;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  db = await createTestDatabase('sa_gateway_tokens');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'gateway-tokens-int', entities: IDENTITY_ENTITIES })).initialize();
  admin = new IdentityAdmin(ds);
  nats = await startPrivateNats();
  const config = loadGatewayConfig({ DATABASE_URL: db.url, NATS_URL: nats.url, OPS_PORT: '0', LOG_LEVEL: 'silent' });
  gateway = await NestFactory.createMicroservice(AppModule.forRoot(config, logger), {
    strategy: new DrainingNatsServer({ servers: [nats.url], queue: 'gateway', name: 'gateway-tokens-int' }, 1000, logger),
    logger: false,
  });
  await gateway.listen();
  bots = await NestFactory.createMicroservice(BotsStandInModule, {
    strategy: new DrainingNatsServer({ servers: [nats.url], queue: 'bots', name: 'bots-stand-in' }, 1000, logger),
    logger: false,
  });
  await bots.listen();
  nc = await connect({ servers: nats.url, name: 'tokens-int-client' });
  rpc = new RpcClient(nc, 3000);
});

afterAll(async () => {
  await nc?.close();
  await bots?.close();
  await gateway?.close();
  await nats?.stop();
  await ds?.destroy();
  await db?.drop();
});

/** A workspace and the context the console builds for one of its owners. */
async function workspace(): Promise<{ id: string; ctx: CallerContext }> {
  const w = await admin.createWorkspace({ name: `ws-${randomUUID().slice(0, 8)}`, plan: 'scale' });
  const ctx: CallerContext = {
    tenantId: w.id,
    tokenId: null,
    scopes: ['bots:read', 'bots:write'],
    botIds: null,
    requestId: `console-${randomUUID()}`,
    entitlements: entitlementsOf(workspaceFacts({ id: w.id, plan: 'scale' }), mergePlanLimits(undefined)),
  };
  return { id: w.id, ctx };
}

describe('identity.token.* answered by the gateway', () => {
  it('creates a token in the caller’s workspace (never the body’s), shows its secret once, lists it without it', async () => {
    const a = await workspace();
    const b = await workspace();
    const created = await rpc.send('identity.token.create', { name: 'Zapier', scopes: ['bots:read', 'kb:read'], expires_in_seconds: 3600 }, a.ctx);
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Zapier',
      hint: tokenHint(created.token),
      scopes: ['bots:read', 'kb:read'],
      bot_ids: null,
      created_at: expect.stringMatching(/Z$/),
      last_used_at: null,
      expires_at: expect.stringMatching(/Z$/),
      revoked_at: null,
      token: expect.stringMatching(/^mgpt_/),
    });
    expect(Date.parse(created.expires_at!) - Date.now()).toBeGreaterThan(3500_000);
    const stored = await ds.query(`SELECT workspace_id, token_hash FROM identity.api_tokens WHERE id = $1`, [created.id]);
    expect(stored).toEqual([{ workspace_id: a.id, token_hash: hashTokenSecret(created.token) }]);
    const listed = await rpc.send('identity.token.list', {}, a.ctx);
    expect(listed).toEqual([Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'token'))]);
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(await rpc.send('identity.token.list', {}, b.ctx)).toEqual([]);
    // A workspace id in the body is refused, not used.
    const smuggled = await failure(rpc.send('identity.token.create', { name: 'x', scopes: ['bots:read'], workspace_id: b.id } as never, a.ctx));
    expect(smuggled.code).toBe('validation_failed');
  });

  it('limits a token to bots of the workspace; another workspace’s bot is not found', async () => {
    const a = await workspace();
    const b = await workspace();
    const [mine, theirs] = [randomUUID(), randomUUID()];
    botsOf.set(a.id, [mine]);
    botsOf.set(b.id, [theirs]);
    const created = await rpc.send('identity.token.create', { name: 'one bot', scopes: ['chat:invoke'], bot_ids: [mine] }, a.ctx);
    expect(created.bot_ids).toEqual([mine]);
    const foreign = await failure(rpc.send('identity.token.create', { name: 'x', scopes: ['chat:invoke'], bot_ids: [mine, theirs] }, a.ctx));
    expect([foreign.code, foreign.message]).toEqual(['not_found', 'Bot not found']);
    expect((await rpc.send('identity.token.list', {}, a.ctx)).map((t) => t.name)).toEqual(['one bot']);
  });

  it('revokes: the gateway’s cache drops the token within 2 s; another workspace’s token is not found', async () => {
    const a = await workspace();
    const b = await workspace();
    const created = await rpc.send('identity.token.create', { name: 'to revoke', scopes: ['bots:read'] }, a.ctx);
    const verifier = gateway.get(TokenVerifier);
    expect((await verifier.verify(created.token)).token.id).toBe(created.id); // now cached

    const foreign = await failure(rpc.send('identity.token.revoke', { token_id: created.id }, b.ctx));
    expect([foreign.code, foreign.message]).toEqual(['not_found', 'API token not found']);
    expect((await verifier.verify(created.token)).token.id).toBe(created.id);

    const revokedAt = Date.now();
    const revoked = await rpc.send('identity.token.revoke', { token_id: created.id }, a.ctx);
    expect(revoked).toMatchObject({ id: created.id, revoked_at: expect.stringMatching(/Z$/) });
    expect(revoked).not.toHaveProperty('token');
    for (;;) {
      const outcome = await verifier.verify(created.token).then(
        () => 'valid',
        (e: DomainError) => e.code,
      );
      if (outcome === 'unauthorized') break;
      expect(Date.now() - revokedAt).toBeLessThan(2000);
      await sleep(20);
    }
    // Again: idempotent, the first revocation time kept.
    expect(await rpc.send('identity.token.revoke', { token_id: created.id }, a.ctx)).toEqual(revoked);
    expect((await failure(rpc.send('identity.token.revoke', { token_id: randomUUID() }, a.ctx))).code).toBe('not_found');
  });

  it('refuses malformed requests with validation_failed', async () => {
    const a = await workspace();
    for (const [subject, data] of [
      ['identity.token.create', { name: '', scopes: ['bots:read'] }],
      ['identity.token.create', { name: 'x', scopes: [] }],
      ['identity.token.create', { name: 'x', scopes: ['root'] }],
      ['identity.token.create', { name: 'x', scopes: ['bots:read'], bot_ids: ['nope'] }],
      ['identity.token.create', { name: 'x', scopes: ['bots:read'], expires_in_seconds: 5 }],
      ['identity.token.revoke', { token_id: 'nope' }],
      ['identity.token.list', { workspace_id: randomUUID() }],
    ] as const) {
      const err = await failure(rpc.send(subject as never, data as never, a.ctx));
      expect([subject, err.code]).toEqual([subject, 'validation_failed']);
    }
    // Without a caller context: refused too.
    expect((await failure(rpc.send('identity.token.list', {}))).code).toBe('validation_failed');
  });
});
