import { connect, NatsConnection } from 'nats';
import pino from 'pino';
import { PrivateNats, startPrivateNats } from '@sa/testing';
import { DrainingNatsServer } from './draining-nats-server';

// Two replicas of a service in one queue group on a private nats-server, and a caller that keeps
// asking while one replica stops taking requests (the first step of a graceful stop): every request
// is answered, none waits out its timeout. A request the server routed to the stopping replica just
// before it saw the replica leave is still in transit then; it must be answered, not dropped.

let nats: PrivateNats;
let caller: NatsConnection;
const silent = pino({ level: 'silent' });

async function replica(name: string): Promise<DrainingNatsServer> {
  const server = new DrainingNatsServer({ servers: [nats.url], queue: 'svc', name }, 2000, silent);
  server.addHandler('svc.echo', async (data: unknown) => ({ by: name, data }), false);
  await new Promise<void>((resolve, reject) => server.listen((err) => (err ? reject(err as Error) : resolve())));
  return server;
}

beforeAll(async () => {
  nats = await startPrivateNats();
  caller = await connect({ servers: nats.url });
});

afterAll(async () => {
  await caller?.close();
  await nats?.stop();
});

it('a replica that stops taking requests answers those already routed to it; the other takes the rest', async () => {
  const [a, b] = [await replica('a'), await replica('b')];
  try {
    const ask = async (i: number) => {
      try {
        const msg = await caller.request('svc.echo', JSON.stringify({ pattern: 'svc.echo', data: i, id: String(i) }), { timeout: 1500 });
        return JSON.parse(new TextDecoder().decode(msg.data)).response.by as string;
      } catch (err) {
        return `lost: ${(err as Error).message}`;
      }
    };
    const answers: Promise<string>[] = [];
    // A steady stream of requests; replica a stops taking them in the middle, several times over
    // the run (a new replica a each time), so the moment of leaving falls among requests in transit.
    let current = a;
    const stopped: DrainingNatsServer[] = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 400; i++) answers.push(ask(round * 1000 + i));
      current.stopAccepting();
      stopped.push(current);
      for (let i = 400; i < 800; i++) answers.push(ask(round * 1000 + i));
      current = await replica(`a${round}`);
    }
    const results = await Promise.all(answers);
    expect(results.filter((r) => r.startsWith('lost'))).toEqual([]);
    expect(new Set(results)).toContain('b');
    await Promise.all([...stopped, current].map((s) => s.close()));
  } finally {
    await b.close();
  }
}, 60000);
