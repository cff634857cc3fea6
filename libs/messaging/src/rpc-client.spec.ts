import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NatsConnection, headers as natsHeaders } from 'nats';
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { NEVER, TimeoutError, timeout } from 'rxjs';
import { firstValueFrom } from 'rxjs';
import { CallerContext } from '@sa/contracts';
import { BotNameTaken, DomainError, ServiceUnavailable } from '@sa/errors';
import { RpcClient, RpcUnanswered, toDomainError } from './rpc-client';
import { ALIVE_HEADER, LIVENESS_HEADER } from './rpc-liveness';

async function rxjsTimeoutError(): Promise<unknown> {
  try {
    await firstValueFrom(NEVER.pipe(timeout(1)));
  } catch (err) {
    return err;
  }
  throw new Error('no timeout');
}

describe('toDomainError', () => {
  it('returns a DomainError as it is', () => {
    const err = new BotNameTaken('Support', 'Support 2');
    expect(toDomainError(err, 'bots.bot.create')).toBe(err);
  });

  it('rebuilds a DomainError from a payload object', () => {
    const err = toDomainError({ code: 'not_found', message: 'Bot not found', details: { id: 'b1' } }, 'bots.bot.get');
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('not_found');
    expect(err.message).toBe('Bot not found');
    expect(err.details).toEqual({ id: 'b1' });
  });

  it('maps an rxjs TimeoutError to service_unavailable of the subject service', async () => {
    const timeoutErr = await rxjsTimeoutError();
    expect(timeoutErr).toBeInstanceOf(TimeoutError);
    const err = toDomainError(timeoutErr, 'knowledge.doc.search');
    expect(err).toBeInstanceOf(ServiceUnavailable);
    expect(err.code).toBe('service_unavailable');
    expect(err.details).toEqual({ service: 'knowledge' });
    expect(err.message).toBe('The knowledge service is unavailable (no reply in time)');
  });

  it("maps Nest's no-subscriber error to service_unavailable naming the service", () => {
    const err = toDomainError(new Error('Empty response. There are no subscribers listening to that message ("x.y.z")'), 'x.y.z');
    expect(err.code).toBe('service_unavailable');
    expect(err.details).toEqual({ service: 'x' });
    expect(err.message).toBe('The x service is unavailable (no instance is running)');
    // The real exception class Nest's NATS client raises.
    const real = toDomainError(new EmptyResponseException('bots.bot.list'), 'bots.bot.list');
    expect(real.code).toBe('service_unavailable');
    expect(real.details).toEqual({ service: 'bots' });
  });

  it('maps nats.js "no responders" (code 503) to service_unavailable', () => {
    expect(toDomainError(Object.assign(new Error('503'), { code: '503' }), 'leads.lead.list').code).toBe('service_unavailable');
    expect(toDomainError({ code: 503, message: 'x' }, 'leads.lead.list').code).toBe('service_unavailable');
    expect(toDomainError(new Error('no responders available'), 'chat.x.y').details).toEqual({ service: 'chat' });
  });

  it('maps connection loss to service_unavailable (messaging is unavailable)', () => {
    const err = toDomainError(new Error('CONNECTION_CLOSED'), 'bots.bot.list');
    expect(err.code).toBe('service_unavailable');
    expect(err.message).toBe('The bots service is unavailable (messaging is unavailable)');
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a string', 'boom'],
    ['null', null],
    ['undefined', undefined],
    ['an object with an unknown code', { code: 'teapot', message: 'short and stout' }],
    ['a number', 42],
  ])('maps anything else (%s) to internal_error', (_label, value) => {
    const err = toDomainError(value, 'bots.bot.list');
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('internal_error');
    expect(err.message).toBe('Unexpected reply from the bots service');
  });
});

/** An answer, silence, NATS's "no responders", or signs of life every `every` ms and then an answer after `after` ms. */
type FakeReply = { response?: unknown; err?: unknown } | 'timeout' | 'no-responders' | { signs: { every: number; after: number; response: unknown } };

/**
 * A NatsConnection stand-in with one reply subscription and `publish`, answering requests the way
 * a Nest NATS microservice does, or as NATS does when nobody listens (an empty 503 status message).
 */
function fakeConnection(reply: (subject: string) => FakeReply | Promise<FakeReply>) {
  const sent: { subject: string; body: any; reply: string | undefined; liveness: string | undefined }[] = [];
  const subscriptions: { subject: string; callback: (err: unknown, msg: unknown) => void }[] = [];
  let drained = false;
  const nc = {
    subscribe: (subject: string, opts: { callback: (err: unknown, msg: unknown) => void }) => {
      subscriptions.push({ subject, callback: opts.callback });
      return { closed: new Promise(() => undefined), unsubscribe: () => undefined };
    },
    publish: (subject: string, data: Uint8Array, opts: { reply?: string; headers?: { get(k: string): string } }) => {
      const body = JSON.parse(Buffer.from(data).toString('utf8'));
      sent.push({ subject, body, reply: opts?.reply, liveness: opts?.headers?.get(LIVENESS_HEADER) });
      void Promise.resolve(reply(subject)).then((r) => {
        if (r === 'timeout') return;
        const sub = subscriptions.find((s) => opts.reply?.startsWith(s.subject.slice(0, -1)));
        if (r === 'no-responders') sub?.callback(null, { subject: opts.reply, data: new Uint8Array(0), headers: natsHeaders(503, 'No Responders') });
        else if ('signs' in r) {
          const alive = natsHeaders();
          alive.set(ALIVE_HEADER, '1');
          const timer = setInterval(() => sub?.callback(null, { subject: opts.reply, data: new Uint8Array(0), headers: alive }), r.signs.every);
          setTimeout(() => {
            clearInterval(timer);
            sub?.callback(null, { subject: opts.reply, data: Buffer.from(JSON.stringify({ id: body.id, isDisposed: true, response: r.signs.response })) });
          }, r.signs.after);
        } else sub?.callback(null, { subject: opts.reply, data: Buffer.from(JSON.stringify({ id: body.id, isDisposed: true, ...r })) });
      });
    },
    isClosed: () => drained,
    drain: async () => {
      drained = true;
    },
  } as unknown as NatsConnection;
  return { nc, sent, subscriptions, drained: () => drained };
}

describe('RpcClient (unit)', () => {
  const ctx = { tenantId: randomUUID(), tokenId: null, scopes: [], botIds: null, requestId: 'r', entitlements: {} } as unknown as CallerContext;

  it('sends the Nest wire format {pattern, data: {ctx, data}, id} on the subject and returns the reply', async () => {
    const fake = fakeConnection(() => ({ response: [{ id: 'b1' }] }));
    const rpc = new RpcClient(fake.nc, 1000);
    await expect(rpc.send('bots.bot.list', {}, ctx)).resolves.toEqual([{ id: 'b1' }]);
    expect(fake.sent).toEqual([{ subject: 'bots.bot.list', body: { pattern: 'bots.bot.list', data: { ctx, data: {} }, id: expect.any(String) }, reply: expect.any(String), liveness: '1000' }]);
  });

  it('shares one reply subscription between requests and matches each reply to its request', async () => {
    const fake = fakeConnection(async (subject) => {
      // The first request is answered last.
      if (subject === 'bots.bot.list') await new Promise((r) => setTimeout(r, 20));
      return { response: subject };
    });
    const rpc = new RpcClient(fake.nc, 1000);
    const [a, b, c] = await Promise.all([rpc.send('bots.bot.list', {}, ctx), rpc.send('chat.health.ping', {}), rpc.send('leads.health.ping', {})]);
    expect([a, b, c]).toEqual(['bots.bot.list', 'chat.health.ping', 'leads.health.ping']);
    expect(fake.subscriptions).toHaveLength(1);
    expect(fake.subscriptions[0].subject).toMatch(/^_INBOX\.\S+\.\*$/);
    expect(new Set(fake.sent.map((s) => s.reply)).size).toBe(3);
    expect(new Set(fake.sent.map((s) => s.body.id)).size).toBe(3);
  });

  it('uses the default timeout unless timeoutMs overrides it, and a timeout is service_unavailable', async () => {
    const fake = fakeConnection(() => 'timeout');
    const rpc = new RpcClient(fake.nc, 50);
    await expect(rpc.send('bots.bot.list', {}, ctx)).rejects.toMatchObject({ code: 'service_unavailable', details: { service: 'bots' } });
    const slow = new RpcClient(fake.nc, 60_000);
    const started = Date.now();
    await expect(slow.send('bots.bot.list', {}, ctx, { timeoutMs: 20 })).rejects.toMatchObject({ code: 'service_unavailable', message: 'The bots service is unavailable (no reply in time)' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports no running instance as service_unavailable with Retry-After, after asking once more', async () => {
    const fake = fakeConnection(() => 'no-responders');
    const rpc = new RpcClient(fake.nc, 1000);
    await expect(rpc.send('chat.health.ping', {})).rejects.toMatchObject({ code: 'service_unavailable', details: { service: 'chat', retry_after: 1 } });
    expect(fake.sent).toHaveLength(2);
  });

  it('asks again, after a pause, a request nobody listened to, also a write (it never ran)', async () => {
    let calls = 0;
    const fake = fakeConnection(() => (++calls === 1 ? 'no-responders' : { response: { id: 'b1' } }));
    const rpc = new RpcClient(fake.nc, 1000);
    const started = Date.now();
    await expect(rpc.send('bots.bot.create', { name: 'A' }, ctx)).resolves.toEqual({ id: 'b1' });
    expect(fake.sent).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('keeps waiting while the replica signs that it is at work, past the silence that means lost', async () => {
    const fake = fakeConnection(() => ({ signs: { every: 40, after: 600, response: 'done' } }));
    const rpc = new RpcClient(fake.nc, 5000, { intervalMs: 40, lostAfterMs: 150 });
    await expect(rpc.send('bots.bot.create', { name: 'A' }, ctx)).resolves.toBe('done');
    expect(fake.sent).toHaveLength(1);
    expect(fake.sent[0].liveness).toBe('40');
  });

  it('takes a silent replica for lost: a read is asked once more, a write fails with Retry-After and is never sent twice', async () => {
    let calls = 0;
    const reads = fakeConnection(() => (++calls === 1 ? 'timeout' : { response: ['again'] }));
    const started = Date.now();
    await expect(new RpcClient(reads.nc, 5000, { intervalMs: 40, lostAfterMs: 150 }).send('bots.bot.list', {}, ctx)).resolves.toEqual(['again']);
    expect(reads.sent).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2000);

    const writes = fakeConnection(() => 'timeout');
    const err = await new RpcClient(writes.nc, 5000, { intervalMs: 40, lostAfterMs: 150 }).send('bots.bot.create', { name: 'A' }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnanswered);
    expect(err).toMatchObject({ kind: 'lost', code: 'service_unavailable', message: 'The bots service is unavailable (the instance working on the request stopped)', details: { service: 'bots', retry_after: 1 } });
    expect(writes.sent).toHaveLength(1);
    // A caller may say a write is safe to repeat (it carries its own idempotency key).
    let n = 0;
    const keyed = fakeConnection(() => (++n === 1 ? 'timeout' : { response: 'ok' }));
    await expect(new RpcClient(keyed.nc, 5000, { intervalMs: 40, lostAfterMs: 150 }).send('bots.bot.create', { name: 'A' }, ctx, { idempotent: true })).resolves.toBe('ok');
  });

  it('at a timeout shorter than the silence limit, a replica that missed its sign is lost (a read is asked again), one that signed is slow', async () => {
    let calls = 0;
    const silent = fakeConnection(() => (++calls === 1 ? 'timeout' : { response: ['again'] }));
    await expect(new RpcClient(silent.nc, 300, { intervalMs: 100, lostAfterMs: 1000 }).send('bots.bot.list', {}, ctx)).resolves.toEqual(['again']);
    expect(silent.sent).toHaveLength(2);
    const signing = fakeConnection(() => ({ signs: { every: 50, after: 5000, response: 'late' } }));
    const err = await new RpcClient(signing.nc, 300, { intervalMs: 100, lostAfterMs: 1000 }).send('bots.bot.list', {}, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'timeout', message: 'The bots service is unavailable (no reply in time)' });
    expect(signing.sent).toHaveLength(1);
  });

  it('refuses a silence limit that is not longer than the pace of the signs', () => {
    expect(() => new RpcClient(fakeConnection(() => 'timeout').nc, 1000, { intervalMs: 500, lostAfterMs: 500 })).toThrow(/RPC_LOST_AFTER_MS/);
  });

  it('turns remote error payloads into DomainErrors', async () => {
    const rpc = new RpcClient(fakeConnection(() => ({ err: { code: 'bot_name_taken', message: 'taken', details: { suggested_name: 'A 2' } } })).nc, 1000);
    const err = await rpc.send('bots.bot.create', { name: 'A' }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'bot_name_taken', message: 'taken', details: { suggested_name: 'A 2' } });
  });

  it('refuses a request larger than the server accepts with a clear bad_request, without sending it', async () => {
    const fake = fakeConnection(() => ({ response: null }));
    (fake.nc as unknown as { info: { max_payload: number } }).info = { max_payload: 64 * 1024 };
    const rpc = new RpcClient(fake.nc, 1000);
    await expect(rpc.send('bots.bot.create', { name: 'x'.repeat(70 * 1024) }, ctx)).rejects.toMatchObject({ code: 'bad_request' });
    expect(fake.sent).toHaveLength(0);
    await expect(rpc.send('bots.bot.create', { name: 'small' }, ctx)).resolves.toBeNull();
  });

  it('drains the connection on shutdown', async () => {
    const fake = fakeConnection(() => ({ response: null }));
    await new RpcClient(fake.nc, 1000).onApplicationShutdown();
    expect(fake.drained()).toBe(true);
  });
});
