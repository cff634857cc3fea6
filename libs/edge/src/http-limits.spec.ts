import 'reflect-metadata';
import * as net from 'node:net';
import Fastify, { FastifyInstance } from 'fastify';
import { clientErrorHandler } from './fastify-setup';
import { edgeServerOptions, limitConnectionsPerAddress } from './http-limits';
import { installHttpPolicy } from './http-policy';

/** A Fastify server set up as the edges set theirs: timeouts, the per-address cap, the policy hook. */
async function server(limits: { headersMs: number; requestMs: number; perAddress: number }): Promise<{ app: FastifyInstance; port: number; handled: () => number }> {
  let handled = 0;
  const app = Fastify({
    ...edgeServerOptions({ httpHeadersTimeoutMs: limits.headersMs, httpRequestTimeoutMs: limits.requestMs, httpConnectionsCheckIntervalMs: 50 }),
    clientErrorHandler,
  });
  limitConnectionsPerAddress(app.server, limits.perAddress);
  installHttpPolicy(app, { corsAllowedOrigins: [], corsPaths: [], corsAllowHeaders: [] });
  app.post('/echo', async (req) => {
    handled++;
    return { got: req.body };
  });
  // An SSE answer that lasts three times the request timeout.
  app.get('/stream', (req, reply) => {
    handled++;
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const timer = setInterval(() => {
      reply.raw.write(`data: ${n++}\n\n`);
      if (n === 12) {
        clearInterval(timer);
        reply.raw.end();
      }
    }, (limits.requestMs * 3) / 12);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as net.AddressInfo).port, handled: () => handled };
}

/** Opens a raw connection, writes `first`, then `drip` every 100 ms; resolves when the server closes it. */
function connection(port: number, first: string, drip = '') {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  let received = '';
  socket.on('data', (d) => (received += d.toString()));
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.write(first));
  const timer = drip ? setInterval(() => socket.writable && socket.write(drip), 100) : undefined;
  const closed = new Promise<{ ms: number; received: string }>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ ms: Date.now() - started, received });
    }),
  );
  return { socket, closed };
}

describe('edge HTTP limits', () => {
  let s: Awaited<ReturnType<typeof server>>;
  afterEach(async () => {
    await s?.app.close();
  });

  it('a body sent one byte at a time is cut off after the request timeout with a 400', async () => {
    s = await server({ headersMs: 300, requestMs: 600, perAddress: 0 });
    const slow = connection(s.port, 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":"', 'b');
    const { ms, received } = await slow.closed;
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(ms).toBeLessThan(1500);
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(received).toContain('"code":"bad_request"');
    expect(received).toContain('not received in time');
    expect(s.handled()).toBe(0);
  });

  it('headers that never end, and a connection that sends nothing, are cut off after the headers timeout', async () => {
    s = await server({ headersMs: 300, requestMs: 2000, perAddress: 0 });
    const idle = connection(s.port, '');
    const slowHeaders = connection(s.port, 'GET /stream HTTP/1.1\r\nHost: x\r\n', 'X-A: b\r\n');
    for (const c of [idle, slowHeaders]) expect((await c.closed).ms).toBeLessThan(1200);
  });

  it('does not cut a response that lasts longer than the request timeout (SSE)', async () => {
    s = await server({ headersMs: 200, requestMs: 400, perAddress: 0 });
    const res = await fetch(`http://127.0.0.1:${s.port}/stream`);
    const text = await res.text();
    expect(text.match(/^data: \d+$/gm)).toHaveLength(12);
  });

  it('refuses a connection over the per-address cap with 429 and never handles a request on it', async () => {
    s = await server({ headersMs: 2000, requestMs: 4000, perAddress: 3 });
    const held = [0, 1, 2].map(() => connection(s.port, 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{', ' '));
    await new Promise((r) => setTimeout(r, 200));
    const over = connection(s.port, 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    const refused = await over.closed;
    expect(refused.ms).toBeLessThan(1500);
    expect(refused.received === '' || refused.received.startsWith('HTTP/1.1 429 Too Many Requests\r\n')).toBe(true);
    expect(s.handled()).toBe(0);
    held.forEach((c) => c.socket.destroy());
    await Promise.all(held.map((c) => c.closed));
    // The address has its share back.
    const res = await fetch(`http://127.0.0.1:${s.port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(res.status).toBe(200);
  });
});
