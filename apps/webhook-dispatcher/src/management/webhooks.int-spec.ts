import 'reflect-metadata';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NatsConnection, connect } from 'nats';
import { DataSource } from 'typeorm';
import { CallerContext, CheckBotsReply, CheckBotsRequest, DeliveryView, WorkspaceFactsReply, WorkspaceFactsRequest } from '@sa/contracts';
import { DatabaseModule, dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { NatsIdentityFeed, NatsIdentitySource, entitlementsOf, mergePlanLimits, workspaceFacts, workspaceFactsView } from '@sa/identity';
import { DbIdentitySource, IDENTITY_ENTITIES, IdentityAdmin } from '@sa/identity-db';
import { createLogger } from '@sa/logging';
import { DrainingNatsServer, MessagingModule, NATS_CONNECTION, RpcClient, RpcHandler } from '@sa/messaging';
import { outboundPolicy } from '@sa/net-guard';
import { PrivateNats, createTestDatabase, startPrivateNats } from '@sa/testing';
import { SecretBox, WEBHOOK_TEST_EVENT, parseSecretKey } from '@sa/webhook-registry';
import { verifyWebhook } from '@sa/webhooks';
import { DISPATCHER_CONFIG, DISPATCHER_LOGGER, DISPATCHER_POLICY, loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { DeliveriesRepository } from '../delivery/deliveries.repository';
import { DeliveryEngine, SECRET_BOX } from '../delivery/delivery-engine';
import { WorkspaceEntitlements } from '../delivery/workspace-entitlements';
import { WebhooksHandler } from './webhooks.handler';

// webhook-dispatcher.webhook.* and .delivery.* as the console asks them, over a private
// nats-server: the handler with the dispatcher's delivery engine (so a test event and a
// redeliver really reach a local receiver, signed), and stand-ins for the gateway
// (identity.workspace.get, from schema identity as the gateway answers it; tested with the real
// gateway in apps/gateway/src/identity) and the bots service (bots.bot.check).

const logger = createLogger('dispatcher-management-int', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });
const KEY = '22'.repeat(32);

const botsOf = new Map<string, string[]>();

@Controller()
class BotsStandIn {
  @RpcHandler('bots.bot.check')
  check(req: CheckBotsRequest, ctx: CallerContext): CheckBotsReply {
    return { found: req.ids.filter((id) => (botsOf.get(ctx.tenantId) ?? []).includes(id)) };
  }
}

@Controller()
class IdentityStandIn {
  @RpcHandler('identity.workspace.get')
  async workspace(req: WorkspaceFactsRequest): Promise<WorkspaceFactsReply> {
    const facts = await new DbIdentitySource(ds).workspace(req.workspaceId);
    return { workspace: facts ? workspaceFactsView(facts) : null };
  }
}

@Module({ controllers: [BotsStandIn] })
class BotsStandInModule {}

@Module({ controllers: [IdentityStandIn] })
class IdentityStandInModule {}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nats: PrivateNats;
const apps: INestMicroservice[] = [];
let nc: NatsConnection;
let rpc: RpcClient;
let identity: IdentityAdmin;
let server: http.Server;
let port: number;
const received: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

async function serve(module: unknown, queue: string): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(module as never, {
    strategy: new DrainingNatsServer({ servers: [nats.url], queue, name: `${queue}-int` }, 1000, logger),
    logger: false,
  });
  await app.listen();
  apps.push(app);
  return app;
}

function dispatcherModule() {
  const config = loadWebhookDispatcherConfig({ DATABASE_URL: db.url, NATS_URL: nats.url, WEBHOOK_SECRET_KEY: KEY, WEBHOOK_MAX_PER_WORKSPACE: '3', WEBHOOK_SWEEP_MS: '200', WEBHOOK_TIMEOUT_MS: '2000' });
  @Module({
    imports: [
      DatabaseModule.forRoot({ url: db.url, poolSize: 4, applicationName: 'dispatcher-management-int' }),
      MessagingModule.forRoot({ natsUrl: nats.url, rpcTimeoutMs: 3000, service: 'webhook-dispatcher', connectionName: 'dispatcher-management-int' }),
    ],
    controllers: [WebhooksHandler],
    providers: [
      { provide: DISPATCHER_CONFIG, useValue: config },
      { provide: DISPATCHER_LOGGER, useValue: logger },
      { provide: DISPATCHER_POLICY, useValue: outboundPolicy({ allowCidrs: ['127.0.0.1/32'], allowedPorts: [port], timeoutMs: 2000, maxRedirects: 0 }) },
      { provide: SECRET_BOX, useValue: new SecretBox(parseSecretKey(KEY)!) },
      {
        provide: WorkspaceEntitlements,
        inject: [RpcClient, NATS_CONNECTION],
        useFactory: (client: RpcClient, conn: NatsConnection) => new WorkspaceEntitlements(new NatsIdentitySource(client), new NatsIdentityFeed(conn, logger), logger),
      },
      DeliveriesRepository,
      DeliveryEngine,
    ],
  })
  class DispatcherManagementModule {}
  return DispatcherManagementModule;
}

beforeAll(async () => {
  db = await createTestDatabase('sa_dispatcher_management');
  ds = await new DataSource(dataSourceOptions({ url: db.url, applicationName: 'dispatcher-management-int-admin', entities: IDENTITY_ENTITIES })).initialize();
  identity = new IdentityAdmin(ds);
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(req.url?.startsWith('/fail') ? 503 : 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  nats = await startPrivateNats();
  await serve(IdentityStandInModule, 'gateway');
  await serve(BotsStandInModule, 'bots');
  await serve(dispatcherModule(), 'webhook-dispatcher');
  nc = await connect({ servers: nats.url, name: 'dispatcher-management-int-client' });
  rpc = new RpcClient(nc, 5000);
});

afterAll(async () => {
  await nc?.close();
  for (const app of apps.reverse()) await app.close();
  await nats?.stop();
  server?.closeAllConnections();
  server?.close();
  await ds?.destroy();
  await db?.drop();
});

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

async function workspace(plan: 'scale' | 'growth' = 'scale'): Promise<{ id: string; ctx: CallerContext }> {
  const w = await identity.createWorkspace({ name: `ws-${randomUUID().slice(0, 8)}`, plan });
  const ctx: CallerContext = {
    tenantId: w.id,
    tokenId: null,
    scopes: ['bots:read'],
    botIds: null,
    requestId: `console-${randomUUID()}`,
    entitlements: entitlementsOf(workspaceFacts({ id: w.id, plan }), mergePlanLimits(undefined)),
  };
  return { id: w.id, ctx };
}

/** Waits until the delivery is finished (succeeded or failed), as the console's log shows it. */
async function finished(ctx: CallerContext, webhookId: string, deliveryId: string, attempts = 1): Promise<DeliveryView> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const d = (await rpc.send('webhook-dispatcher.delivery.list', { webhook_id: webhookId }, ctx)).find((x) => x.id === deliveryId);
    if (d && d.attempts >= attempts && (d.status === 'succeeded' || d.status === 'failed')) return d;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} did not finish: ${JSON.stringify(d)}`);
    await sleep(50);
  }
}

describe('webhook management over NATS, answered by the dispatcher', () => {
  it('creates (named, or after its host), lists without secrets, in the caller’s workspace only', async () => {
    const a = await workspace();
    const b = await workspace('growth');
    const created = await rpc.send('webhook-dispatcher.webhook.create', { name: 'CRM', url: `http://127.0.0.1:${port}/crm`, events: ['lead.created', 'booking.created'] }, a.ctx);
    expect(created).toEqual({
      id: expect.any(String),
      name: 'CRM',
      url: `http://127.0.0.1:${port}/crm`,
      events: ['lead.created', 'booking.created'],
      bot_id: null,
      created_at: expect.stringMatching(/Z$/),
      last_delivery: null,
      secret: expect.stringMatching(/^whsec_/),
      deliveries_enabled: true,
    });
    const unnamed = await rpc.send('webhook-dispatcher.webhook.create', { url: `http://127.0.0.1:${port}/other`, events: ['ticket.created'] }, b.ctx);
    expect([unnamed.name, unnamed.deliveries_enabled]).toEqual(['127.0.0.1', false]);
    const listed = await rpc.send('webhook-dispatcher.webhook.list', {}, a.ctx);
    expect(listed).toEqual([{ ...Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'secret' && k !== 'deliveries_enabled')) }]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect((await rpc.send('webhook-dispatcher.webhook.list', {}, b.ctx)).map((w) => w.id)).toEqual([unnamed.id]);
  });

  it('refuses bad endpoints (400), another workspace’s bot (404), more than the maximum (400) and malformed requests', async () => {
    const a = await workspace();
    const b = await workspace();
    const [mine, theirs] = [randomUUID(), randomUUID()];
    botsOf.set(a.id, [mine]);
    botsOf.set(b.id, [theirs]);
    const url = `http://127.0.0.1:${port}/scoped`;
    expect((await rpc.send('webhook-dispatcher.webhook.create', { url, events: ['lead.created'], bot_id: mine }, a.ctx)).bot_id).toBe(mine);
    const foreign = await failure(rpc.send('webhook-dispatcher.webhook.create', { url, events: ['lead.created'], bot_id: theirs }, a.ctx));
    expect([foreign.code, foreign.message]).toEqual(['not_found', 'Bot not found']);
    const privateUrl = await failure(rpc.send('webhook-dispatcher.webhook.create', { url: 'https://10.0.0.7/hook', events: ['lead.created'] }, a.ctx));
    expect(privateUrl.code).toBe('bad_request');
    expect(privateUrl.message).toMatch(/^url refused: /);
    await rpc.send('webhook-dispatcher.webhook.create', { url, events: ['lead.created'] }, a.ctx);
    await rpc.send('webhook-dispatcher.webhook.create', { url, events: ['lead.created'] }, a.ctx);
    const tooMany = await failure(rpc.send('webhook-dispatcher.webhook.create', { url, events: ['lead.created'] }, a.ctx));
    expect([tooMany.code, tooMany.message]).toEqual(['bad_request', `workspace ${a.id} already has 3 webhooks (at most 3)`]);
    for (const [subject, data] of [
      ['webhook-dispatcher.webhook.create', { url, events: ['lead.created'], workspace_id: b.id }],
      ['webhook-dispatcher.webhook.create', { url, events: ['nope'] }],
      ['webhook-dispatcher.webhook.create', { url, events: [] }],
      ['webhook-dispatcher.webhook.create', { url: 'ftp://x', events: ['lead.created'] }],
      ['webhook-dispatcher.webhook.create', { url, events: ['lead.created'], name: ' ' }],
      ['webhook-dispatcher.webhook.delete', { webhook_id: 'nope' }],
      ['webhook-dispatcher.delivery.list', { webhook_id: randomUUID(), limit: 0 }],
      ['webhook-dispatcher.delivery.redeliver', { delivery_id: 'x' }],
    ] as const) {
      const err = await failure(rpc.send(subject as never, data as never, b.ctx));
      expect([subject, err.code]).toEqual([subject, 'validation_failed']);
    }
  });

  it('sends a signed test event, rotates the secret (the next delivery is signed with the new one), redelivers; another workspace’s ids are not found', async () => {
    const a = await workspace();
    const b = await workspace();
    const path = `/test/${a.id}`;
    const hook = await rpc.send('webhook-dispatcher.webhook.create', { name: 'Test me', url: `http://127.0.0.1:${port}${path}`, events: ['booking.created'] }, a.ctx);

    for (const [subject, data] of [
      ['webhook-dispatcher.webhook.test', { webhook_id: hook.id }],
      ['webhook-dispatcher.webhook.rotate', { webhook_id: hook.id }],
      ['webhook-dispatcher.webhook.delete', { webhook_id: hook.id }],
      ['webhook-dispatcher.delivery.list', { webhook_id: hook.id }],
    ] as const) {
      const err = await failure(rpc.send(subject as never, data as never, b.ctx));
      expect([subject, err.code, err.message]).toEqual([subject, 'not_found', 'Webhook not found']);
    }

    const queued = await rpc.send('webhook-dispatcher.webhook.test', { webhook_id: hook.id }, a.ctx);
    expect(queued).toMatchObject({ webhook_id: hook.id, event: WEBHOOK_TEST_EVENT, status: 'pending', attempts: 0, attempt_log: [] });
    expect(queued).not.toHaveProperty('workspace_id');
    const sent = await finished(a.ctx, hook.id, queued.id);
    expect(sent).toMatchObject({ status: 'succeeded', status_code: 204, error: null, attempts: 1 });
    expect(sent.attempt_log).toEqual([expect.objectContaining({ attempt: 1, trigger: 'manual', status_code: 204 })]);
    const [first] = received.filter((r) => r.path === path);
    expect(first.headers['x-service-event']).toBe(WEBHOOK_TEST_EVENT);
    expect(verifyWebhook({ rawBody: first.body, headers: first.headers, secret: hook.secret })).toMatchObject({ ok: true });
    expect(JSON.parse(first.body)).toEqual({ event: WEBHOOK_TEST_EVENT, timestamp: expect.any(Number), data: { test: true, webhook_id: hook.id, chatbot_id: null, message: expect.any(String) } });
    const [listed] = await rpc.send('webhook-dispatcher.webhook.list', {}, a.ctx);
    expect(listed.last_delivery).toMatchObject({ delivery_id: queued.id, event: WEBHOOK_TEST_EVENT, status: 'succeeded', status_code: 204 });

    const rotated = await rpc.send('webhook-dispatcher.webhook.rotate', { webhook_id: hook.id }, a.ctx);
    expect(rotated).toEqual({ id: hook.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.secret).not.toBe(hook.secret);

    const foreignRedeliver = await failure(rpc.send('webhook-dispatcher.delivery.redeliver', { delivery_id: queued.id }, b.ctx));
    expect([foreignRedeliver.code, foreignRedeliver.message]).toEqual(['not_found', 'Delivery not found']);
    const otherHook = await rpc.send('webhook-dispatcher.webhook.create', { url: `http://127.0.0.1:${port}/x`, events: ['lead.created'] }, a.ctx);
    const wrongHook = await failure(rpc.send('webhook-dispatcher.delivery.redeliver', { delivery_id: queued.id, webhook_id: otherHook.id }, a.ctx));
    expect([wrongHook.code, wrongHook.message]).toEqual(['not_found', 'Delivery not found']);
    const again = await rpc.send('webhook-dispatcher.delivery.redeliver', { delivery_id: queued.id, webhook_id: hook.id }, a.ctx);
    expect(again).toMatchObject({ id: queued.id, status: 'pending' });
    const resent = await finished(a.ctx, hook.id, queued.id, 2);
    expect(resent.attempt_log.map((x) => [x.attempt, x.trigger, x.status_code])).toEqual([
      [1, 'manual', 204],
      [2, 'manual', 204],
    ]);
    const second = received.filter((r) => r.path === path)[1];
    expect(verifyWebhook({ rawBody: second.body, headers: second.headers, secret: rotated.secret })).toMatchObject({ ok: true });
    expect(verifyWebhook({ rawBody: second.body, headers: second.headers, secret: hook.secret })).toMatchObject({ ok: false });

    await expect(rpc.send('webhook-dispatcher.webhook.delete', { webhook_id: hook.id }, a.ctx)).resolves.toEqual({ id: hook.id, deleted: true });
    expect((await rpc.send('webhook-dispatcher.webhook.list', {}, a.ctx)).map((w) => w.id)).toEqual([otherHook.id]);
    expect((await failure(rpc.send('webhook-dispatcher.webhook.delete', { webhook_id: hook.id }, a.ctx))).code).toBe('not_found');
  });

  it('answers 409 conflict to a redeliver of a delivery still open, and records a failed test with its status', async () => {
    const a = await workspace();
    const hook = await rpc.send('webhook-dispatcher.webhook.create', { url: `http://127.0.0.1:${port}/fail/${a.id}`, events: ['lead.created'] }, a.ctx);
    const queued = await rpc.send('webhook-dispatcher.webhook.test', { webhook_id: hook.id }, a.ctx);
    // Still pending (at most a sweep away from being sent): not redeliverable yet, unless already finished.
    const early = await rpc.send('webhook-dispatcher.delivery.redeliver', { delivery_id: queued.id }, a.ctx).then(
      () => 'accepted',
      (e: DomainError) => e.code,
    );
    expect(['conflict', 'accepted']).toContain(early);
    const done = await finished(a.ctx, hook.id, queued.id);
    expect(done).toMatchObject({ status: 'failed', status_code: 503, error: 'the endpoint answered 503' });
  });
});
