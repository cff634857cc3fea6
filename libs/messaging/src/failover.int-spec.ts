import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { NatsConnection, connect } from 'nats';
import pino from 'pino';
import { PrivateNats, startPrivateNats } from '@sa/testing';
import { DrainingNatsServer } from './draining-nats-server';
import { RpcClient, RpcUnanswered } from './rpc-client';
import { ALIVE_HEADER } from './rpc-liveness';

// Issue 36: two replicas of a service in one queue group on a private nats-server. The replica
// that took a request dies with it (its NATS connection closed at once, the handler never
// answering): a read is asked again of the other replica and answered; a write is never run twice
// and fails with Retry-After. A replica that works long on a request keeps it alive with signs.

let nats: PrivateNats;
let callerNc: NatsConnection;
let rpc: RpcClient;
const silent = pino({ level: 'silent' });
// Five missed signs: a loaded machine (CI) can delay a sign by a few hundred ms without it being taken for death.
const LIVENESS = { intervalMs: 200, lostAfterMs: 1000 };

interface Replica {
  server: DrainingNatsServer;
  /** Requests this replica took, by subject. */
  taken: string[];
}

/** Every replica a test started: closed after it, so that one failing test leaves none behind to answer the next. */
const started: DrainingNatsServer[] = [];

afterEach(async () => {
  for (const server of started.splice(0)) await server.close().catch(() => undefined);
});

/** A replica answering bots.bot.list and bots.bot.create with its name, after `work` resolves. */
async function replica(name: string, work: () => Promise<void> = async () => undefined): Promise<Replica> {
  const taken: string[] = [];
  const server = new DrainingNatsServer({ servers: [nats.url], queue: 'bots', name }, 2000, silent);
  for (const subject of ['bots.bot.list', 'bots.bot.create']) {
    server.addHandler(
      subject,
      async () => {
        taken.push(subject);
        await work();
        return { by: name };
      },
      false,
    );
  }
  await new Promise<void>((resolve, reject) => server.listen((err) => (err ? reject(err as Error) : resolve())));
  started.push(server);
  return { server, taken };
}

/** Dies as kill -9 would: the connection goes at once; nothing is drained or answered. */
async function die(r: Replica): Promise<void> {
  await r.server.unwrap<NatsConnection>().close();
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  nats = await startPrivateNats();
  callerNc = await connect({ servers: nats.url });
  rpc = new RpcClient(callerNc, 10_000, LIVENESS);
});

afterAll(async () => {
  await callerNc?.close();
  await nats?.stop();
});

const ctx = { tenantId: '6f1c1c9e-6a43-4a59-9d0e-5b3f1b3e2a11', tokenId: null, scopes: ['bots:read', 'bots:write'], botIds: null, requestId: 'failover', entitlements: {} } as never;

it('a read whose replica dies is answered by the other replica, within the silence limit', async () => {
  // A caller patient for 3 s: the doomed replica signs from this very process, so a stall of this
  // process longer than the silence limit (CI's other jobs) could make the first ask look lost
  // before the survivor listens; the ask again would then go to the doomed replica, as it should.
  const patience = { intervalMs: LIVENESS.intervalMs, lostAfterMs: 3000 };
  const patient = new RpcClient(callerNc, 10_000, patience);
  const doomed = await replica('doomed', () => new Promise(() => undefined));
  const begun = Date.now();
  const answer = patient.send('bots.bot.list', {}, ctx);
  await until(() => doomed.taken.length === 1);
  const survivor = await replica('survivor');
  await die(doomed);
  await expect(answer).resolves.toEqual({ by: 'survivor' });
  expect(survivor.taken).toEqual(['bots.bot.list']);
  // Far inside the 10 s timeout (with room for a loaded machine): the silence limit, then one more ask.
  expect(Date.now() - begun).toBeLessThan(patience.lostAfterMs + 3000);
});

it('a write whose replica dies is never run twice: 503 with Retry-After', async () => {
  const doomed = await replica('doomed', () => new Promise(() => undefined));
  const answer = rpc.send('bots.bot.create', { name: 'A' } as never, ctx).catch((e: unknown) => e);
  await until(() => doomed.taken.length === 1);
  const survivor = await replica('survivor');
  await die(doomed);
  const err = await answer;
  expect(err).toBeInstanceOf(RpcUnanswered);
  expect(err).toMatchObject({ kind: 'lost', code: 'service_unavailable', details: { service: 'bots', retry_after: 1 } });
  // The other replica never saw it.
  await new Promise((r) => setTimeout(r, 300));
  expect(survivor.taken).toEqual([]);
});

it('a request worked on for several silence limits is kept alive by its replica and answered once', async () => {
  const slow = await replica('slow', () => new Promise((r) => setTimeout(r, LIVENESS.lostAfterMs * 4)));
  await expect(rpc.send('bots.bot.create', { name: 'B' } as never, ctx)).resolves.toEqual({ by: 'slow' });
  expect(slow.taken).toEqual(['bots.bot.create']);
});

it('a request that is answered within the pace costs no sign of life', async () => {
  await replica('quick');
  const seen: string[] = [];
  const inbox = callerNc.subscribe('_INBOX.>', { callback: (_e, m) => seen.push(m.headers?.has('Sa-Alive') ? 'sign' : 'answer') });
  // At the default pace (1 s): an answer within it costs nothing, whatever the machine's load.
  const paced = new RpcClient(callerNc, 10_000, { intervalMs: 1000, lostAfterMs: 3500 });
  for (let i = 0; i < 20; i++) await paced.send('bots.bot.list', {}, ctx);
  await new Promise((r) => setTimeout(r, 50));
  inbox.unsubscribe();
  expect(seen.filter((s) => s === 'sign')).toEqual([]);
  expect(seen.filter((s) => s === 'answer').length).toBeGreaterThanOrEqual(20);
});

/** A replica in another process (so it goes on while this one is stalled): answers bots.bot.create after `answerMs`, signing every 100 ms. */
async function replicaElsewhere(answerMs: number): Promise<ChildProcess> {
  const script = `const { connect, headers } = require('nats');
    connect({ servers: ${JSON.stringify(nats.url)} }).then((c) => {
      c.subscribe('bots.bot.create', { queue: 'bots', callback: (_e, m) => {
        const { id } = JSON.parse(Buffer.from(m.data).toString('utf8'));
        const h = headers();
        h.set(${JSON.stringify(ALIVE_HEADER)}, '1');
        const signs = setInterval(() => m.respond(new Uint8Array(0), { headers: h }), 100);
        setTimeout(() => { clearInterval(signs); m.respond(JSON.stringify({ id, response: { by: 'elsewhere' }, isDisposed: true })); }, ${answerMs});
      } });
      c.flush().then(() => process.stdout.write('listening\\n'));
    });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the replica exited with code ${code}`)));
  });
  return child;
}

it('a caller stalled past the silence limit (a long GC, a starved CPU) reads the signs that came meanwhile before judging its replica lost', async () => {
  const child = await replicaElsewhere(LIVENESS.lostAfterMs * 4);
  try {
    const answer = rpc.send('bots.bot.create', { name: 'C' } as never, ctx).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    // This process stops for three times the silence limit while the replica goes on signing; from
    // a setImmediate, so that the event loop runs its (overdue) timers next, before it reads its sockets.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, LIVENESS.lostAfterMs * 3);
        resolve();
      }),
    );
    await expect(answer).resolves.toEqual({ by: 'elsewhere' });
  } finally {
    child.kill('SIGKILL');
  }
});
