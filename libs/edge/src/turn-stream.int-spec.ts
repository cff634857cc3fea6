import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { NatsConnection, connect } from 'nats';
import { CHAT_STREAM_ALIVE, ChatStreamEvent } from '@sa/contracts';
import { PrivateNats, startPrivateNats } from '@sa/testing';
import { StreamIdle, StreamLost, TurnStream } from './turn-stream';

// Issue 36: a chat replica signs that it is alive on the turn's subject while it works on the
// turn. The edge reading the turn ends it within the silence limit when the signs stop (the
// replica died), waits as long as the idle limit while they come (a slow model), and never shows them.

let nats: PrivateNats;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startPrivateNats();
  nc = await connect({ servers: nats.url });
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const sign = (subject: string) => nc.publish(subject, JSON.stringify({ type: CHAT_STREAM_ALIVE }));
const event = (subject: string, e: ChatStreamEvent) => nc.publish(subject, JSON.stringify(e));

async function read(stream: TurnStream): Promise<{ events: ChatStreamEvent[]; err: unknown; ms: number }> {
  const started = Date.now();
  const events: ChatStreamEvent[] = [];
  try {
    for await (const e of stream.events()) events.push(e);
    return { events, err: null, ms: Date.now() - started };
  } catch (err) {
    return { events, err, ms: Date.now() - started };
  } finally {
    stream.close();
  }
}

it('a turn whose replica keeps signing is waited for past the silence limit; the signs are never shown', async () => {
  const stream = new TurnStream(nc, '_SA.chat.slow', 5000, 300);
  const reading = read(stream);
  const timer = setInterval(() => sign('_SA.chat.slow'), 100);
  await new Promise((r) => setTimeout(r, 1000));
  event('_SA.chat.slow', { type: 'delta', text: 'Hello' });
  await new Promise((r) => setTimeout(r, 500));
  clearInterval(timer);
  event('_SA.chat.slow', { type: 'end', assistant_message_id: 'm1', unanswered: false, source_urls: [] });
  const out = await reading;
  expect(out.err).toBeNull();
  expect(out.events.map((e) => e.type)).toEqual(['delta', 'end']);
});

it('a turn whose replica stops signing ends with StreamLost within the silence limit, long before the idle limit', async () => {
  const stream = new TurnStream(nc, '_SA.chat.dies', 30_000, 400);
  const reading = read(stream);
  await new Promise((r) => setTimeout(r, 50));
  sign('_SA.chat.dies');
  event('_SA.chat.dies', { type: 'delta', text: 'Half an ans' });
  // The replica dies here: nothing more.
  const out = await reading;
  expect(out.err).toBeInstanceOf(StreamLost);
  expect(out.events.map((e) => e.type)).toEqual(['delta']);
  expect(out.ms).toBeGreaterThanOrEqual(400);
  expect(out.ms).toBeLessThan(2000);
});

it('a chat service that sends no signs at all is judged by the idle limit alone', async () => {
  const stream = new TurnStream(nc, '_SA.chat.old', 800, 200);
  const reading = read(stream);
  await new Promise((r) => setTimeout(r, 50));
  event('_SA.chat.old', { type: 'delta', text: 'A' });
  const out = await reading;
  expect(out.err).toBeInstanceOf(StreamIdle);
  expect(out.err).not.toBeInstanceOf(StreamLost);
  expect(out.ms).toBeGreaterThanOrEqual(800);
});

/** A replica in another process, signing on `subject` every 100 ms until killed: it goes on while this process is stalled. */
async function signer(subject: string): Promise<ChildProcess> {
  const script = `const { connect } = require('nats');
    connect({ servers: ${JSON.stringify(nats.url)} }).then((c) => {
      setInterval(() => c.publish(${JSON.stringify(subject)}, JSON.stringify({ type: ${JSON.stringify(CHAT_STREAM_ALIVE)} })), 100);
      process.stdout.write('signing\\n');
    });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the signer exited with code ${code}`)));
  });
  return child;
}

it('a reader stalled past the silence limit (a long GC, a starved CPU) reads the signs that arrived meanwhile before judging the replica lost', async () => {
  const child = await signer('_SA.chat.stalled');
  try {
    const stream = new TurnStream(nc, '_SA.chat.stalled', 30_000, 400);
    const reading = read(stream);
    await new Promise((r) => setTimeout(r, 300));
    // This process stops for three times the silence limit while the replica goes on signing.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1200);
    await new Promise((r) => setTimeout(r, 300));
    event('_SA.chat.stalled', { type: 'end', assistant_message_id: 'm1', unanswered: false, source_urls: [] });
    const out = await reading;
    expect(out.err).toBeNull();
    expect(out.events.map((e) => e.type)).toEqual(['end']);
  } finally {
    child.kill();
  }
});
