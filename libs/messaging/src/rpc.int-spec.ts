import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Controller, INestApplicationContext, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { connect } from 'nats';
import pino from 'pino';
import { CallerContext, HealthReply, ListBotsRequest } from '@sa/contracts';
import { BotNameTaken, DomainError, TierCapacityUnavailable } from '@sa/errors';
import { PrivateNats, startPrivateNats } from '@sa/testing';
import { DrainingNatsServer } from './draining-nats-server';
import { MessagingModule } from './messaging.module';
import { RpcClient } from './rpc-client';
import { RpcHandler } from './rpc-handler.decorator';

// A real Nest NATS microservice and a real RpcClient on a private nats-server (so the subjects
// never reach a system running on the machine's NATS). The handler's behaviour is set per test.


type Behaviour = (data: ListBotsRequest, ctx: CallerContext) => unknown;

let behaviour: Behaviour = () => [];
const received: { data: unknown; ctx: unknown }[] = [];

@Controller()
class TestBotsController {
  @RpcHandler('bots.bot.list')
  list(data: ListBotsRequest, ctx: CallerContext) {
    received.push({ data, ctx });
    return behaviour(data, ctx) as never;
  }
}

let nats: PrivateNats;
let server: INestMicroservice;
let strategy: DrainingNatsServer;
let caller: INestApplicationContext;
let rpc: RpcClient;

function ctxOf(overrides: Partial<CallerContext> = {}): CallerContext {
  return {
    tenantId: randomUUID(),
    tokenId: randomUUID(),
    scopes: ['bots:read'],
    botIds: null,
    requestId: `req-${randomUUID().slice(0, 8)}`,
    entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 25000, pagesPerBot: 2000, widgetMessagesPerBotPerMonth: 10000, webhooks: true },
    ...overrides,
  } as CallerContext;
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

beforeAll(async () => {
  nats = await startPrivateNats();

  @Module({
    imports: [MessagingModule.forRoot({ natsUrl: nats.url, rpcTimeoutMs: 5000, service: 'bots', connectionName: 'rpc-int-bots' })],
    controllers: [TestBotsController],
  })
  class BotsServiceModule {}

  server = await NestFactory.createMicroservice<MicroserviceOptions>(BotsServiceModule, {
    strategy: (strategy = new DrainingNatsServer({ servers: [nats.url], queue: 'bots', name: 'rpc-int-server' }, 2000, pino({ level: 'silent' }))),
    logger: false,
  });
  await server.listen();

  caller = await NestFactory.createApplicationContext(
    MessagingModule.forRoot({ natsUrl: nats.url, rpcTimeoutMs: 3000, connectionName: 'rpc-int-caller' }),
    { logger: false },
  );
  rpc = caller.get(RpcClient);
});

afterAll(async () => {
  await caller?.close();
  await server?.close();
  await nats?.stop();
});

beforeEach(() => {
  received.length = 0;
  behaviour = () => [];
});

describe('RpcClient ↔ @RpcHandler over NATS', () => {
  it('runs on a private nats-server, not the shared one', () => {
    expect(nats.process?.exitCode).toBeNull();
    expect(nats.url).not.toBe('nats://127.0.0.1:4222');
  });

  it('delivers validated data and ctx to the handler and returns its reply', async () => {
    const ctx = ctxOf({ botIds: [randomUUID()] });
    const bots = [{ id: randomUUID(), name: 'Support', slot_kind: 'plan' as const, language: 'en', created_at: new Date(0).toISOString() }];
    behaviour = async () => bots;

    await expect(rpc.send('bots.bot.list', {}, ctx)).resolves.toEqual(bots);

    expect(received).toHaveLength(1);
    expect(received[0].data).toBeInstanceOf(ListBotsRequest);
    expect(received[0].ctx).toBeInstanceOf(CallerContext);
    expect(received[0].ctx).toEqual(ctx);
  });

  it('accepts a synchronous reply', async () => {
    behaviour = () => [{ id: 'sync' }];
    await expect(rpc.send('bots.bot.list', {}, ctxOf())).resolves.toEqual([{ id: 'sync' }]);
  });

  it('brings a DomainError thrown in the handler back as the same DomainError', async () => {
    behaviour = async () => {
      throw new BotNameTaken('Support', 'Support 2');
    };
    const err = await failure(rpc.send('bots.bot.list', {}, ctxOf()));
    expect(err.code).toBe('bot_name_taken');
    expect(err.message).toBe('A bot named "Support" already exists');
    expect(err.details).toEqual({ suggested_name: 'Support 2' });
  });

  it('brings nested details back intact, also from a synchronous throw', async () => {
    behaviour = () => {
      throw new TierCapacityUnavailable('No free slot in the growth tier', { starter: 1, growth: 0, scale: 3 });
    };
    const err = await failure(rpc.send('bots.bot.list', {}, ctxOf()));
    expect(err.toPayload()).toEqual({
      code: 'tier_capacity_unavailable',
      message: 'No free slot in the growth tier',
      details: { available_slots: { starter: 1, growth: 0, scale: 3 } },
    });
  });

  it('turns a plain Error in the handler into internal_error naming the request id, without leaking its message', async () => {
    behaviour = async () => {
      throw new Error('secret database password in a stack trace');
    };
    const ctx = ctxOf();
    const err = await failure(rpc.send('bots.bot.list', {}, ctx));
    expect(err.code).toBe('internal_error');
    expect(err.message).toBe(`Internal error (request id ${ctx.requestId})`);
    expect(err.message).not.toContain('secret');
  });

  it('rejects an invalid ctx as validation_failed before the handler runs', async () => {
    const err = await failure(rpc.send('bots.bot.list', {}, ctxOf({ tenantId: 'not-a-uuid', scopes: ['root' as never] })));
    expect(err.code).toBe('validation_failed');
    const issues = err.details['issues'] as { code: string; path: string[] }[];
    expect(issues.map((i) => `${i.code}@${i.path.join('.')}`)).toEqual(['invalid_format@ctx.tenantId', 'invalid_value@ctx.scopes']);
    expect(received).toHaveLength(0);
  });

  it('rejects a missing ctx as validation_failed', async () => {
    const err = await failure(rpc.send('bots.bot.list', {}, undefined));
    expect(err.code).toBe('validation_failed');
    expect(err.details['issues']).toEqual([{ code: 'required', path: ['ctx'], message: 'caller context is required' }]);
    expect(received).toHaveLength(0);
  });

  it('rejects unknown members of the data as validation_failed', async () => {
    const err = await failure(rpc.send('bots.bot.list', { limit: 5 } as never, ctxOf()));
    expect(err.code).toBe('validation_failed');
    expect(err.details['issues']).toEqual([{ code: 'unrecognized_keys', path: ['limit'], message: 'limit is not an accepted field' }]);
  });

  it('answers the health ping of the service without a ctx', async () => {
    const reply: HealthReply = await rpc.send('bots.health.ping', {});
    expect(reply).toEqual({ service: 'bots', status: 'ok', instance: expect.any(String), uptime_s: expect.any(Number) });
    expect(reply.instance).toMatch(new RegExp(`^${process.pid}-[0-9a-f]{8}$`));
  });

  it('gives service_unavailable when the handler never answers within timeoutMs', async () => {
    behaviour = () => new Promise(() => undefined);
    const started = Date.now();
    const err = await failure(rpc.send('bots.bot.list', {}, ctxOf(), { timeoutMs: 200 }));
    const elapsed = Date.now() - started;
    expect(err.code).toBe('service_unavailable');
    expect(err.details).toEqual({ service: 'bots', retry_after: 1 });
    expect(err.message).toBe('The bots service is unavailable (no reply in time)');
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2000);
  });

  it('gives service_unavailable at once when no instance of the service listens', async () => {
    const started = Date.now();
    const err = await failure(rpc.send('knowledge.health.ping', {}, undefined, { timeoutMs: 5000 }));
    expect(err.code).toBe('service_unavailable');
    expect(err.details).toEqual({ service: 'knowledge', retry_after: 1 });
    expect(err.message).toBe('The knowledge service is unavailable (no instance is running)');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('answers a packet that is not JSON with validation_failed instead of dropping it', async () => {
    const nc = await connect({ servers: nats.url });
    try {
      const msg = await nc.request('bots.bot.list', Buffer.from('{not json'), { timeout: 2000 });
      expect(JSON.parse(Buffer.from(msg.data).toString('utf8'))).toEqual({ err: { code: 'validation_failed', message: 'The request is not a JSON RPC packet' }, isDisposed: true });
      const again = await nc.request('bots.bot.list', Buffer.from('42'), { timeout: 2000 });
      expect(JSON.parse(Buffer.from(again.data).toString('utf8')).err.code).toBe('validation_failed');
    } finally {
      await nc.close();
    }
    expect(received).toHaveLength(0);
  });

  it('runs a packet without an id (an event) and answers nothing', async () => {
    const nc = await connect({ servers: nats.url });
    try {
      nc.publish('bots.bot.list', Buffer.from(JSON.stringify({ pattern: 'bots.bot.list', data: { ctx: ctxOf(), data: {} } })));
      await nc.flush();
      for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await nc.close();
    }
    expect(received).toHaveLength(1);
  });

  // Last: it stops the server.
  it('on close, stops taking requests but answers the ones already taken', async () => {
    let release: () => void = () => undefined;
    behaviour = () => new Promise((resolve) => (release = () => resolve([{ id: 'late' }])));
    const inFlight = rpc.send('bots.bot.list', {}, ctxOf(), { timeoutMs: 5000 });
    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(strategy.handling).toBeGreaterThanOrEqual(1);
    const closing = server.close();
    // New requests find nobody once the server has left the queue group (a drain: requests that
    // reached it before the server saw it leave are still answered, so leaving takes a round trip).
    let refused: DomainError | null = null;
    for (let i = 0; i < 40 && !refused; i++) {
      refused = await rpc.send('bots.health.ping', {}, undefined, { timeoutMs: 2000 }).then(
        () => null,
        (err: unknown) => err as DomainError,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 25));
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused!.code).toBe('service_unavailable');
    expect(refused!.message).toMatch(/no instance is running/);
    release();
    await expect(inFlight).resolves.toEqual([{ id: 'late' }]);
    await closing;
  });
});
