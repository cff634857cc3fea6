import * as net from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { SpawnedApp, spawnApp, waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { INITIALIZE } from './support/mcp';
import { rawHttp } from './support/raw-http';
import { e2eState } from './support/state';

/**
 * Slow clients (issue 14, item 1): a body sent one byte at a time, or headers that never end, must
 * not hold a connection for long, and one client address may hold only so many connections. A
 * gateway and an MCP server are started with small limits so the test takes seconds.
 */
const LIMITS = { headersMs: 1000, requestMs: 3000, checkMs: 250, perAddress: 60 };
const SLACK_MS = 2000;

interface SlowClient {
  /** ms from connecting to the server closing the connection (null while open). */
  closedAfterMs: number | null;
  received: string;
  closed: Promise<void>;
  destroy(): void;
}

/** A client that sends its request slowly: the headers and then one body byte every 500 ms, or header lines forever. */
function slowClient(port: number, path: string, localAddress: string, mode: 'body' | 'headers'): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const client: SlowClient = {
      closedAfterMs: null,
      received: '',
      closed: new Promise((done) => socket.once('close', () => {
        clearInterval(timer);
        client.closedAfterMs = Date.now() - started;
        done();
      })),
      destroy: () => socket.destroy(),
    };
    socket.on('data', (d) => (client.received += d.toString()));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      if (mode === 'body') {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"message":"`);
        timer = setInterval(() => socket.writable && socket.write('a'), 500);
      } else {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
        let n = 0;
        timer = setInterval(() => socket.writable && socket.write(`X-Slow-${n++}: 1\r\n`), 300);
      }
      resolve(client);
    });
    socket.once('error', reject);
  });
}

describe('slow requests and connections per client address (issue 14, item 1)', () => {
  const s = e2eState();
  let gw: { port: number; app: SpawnedApp };
  let mcp: { port: number; app: SpawnedApp };
  let ws: TestWorkspace;

  async function start(app: 'gateway' | 'mcp'): Promise<{ port: number; app: SpawnedApp }> {
    const port = await freePort();
    const spawned = spawnApp(app, {
      [app === 'gateway' ? 'GATEWAY_PORT' : 'MCP_PORT']: String(port),
      HTTP_HEADERS_TIMEOUT_MS: String(LIMITS.headersMs),
      HTTP_REQUEST_TIMEOUT_MS: String(LIMITS.requestMs),
      HTTP_CONNECTIONS_CHECK_INTERVAL_MS: String(LIMITS.checkMs),
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(LIMITS.perAddress),
      RATE_LIMIT_PREFIX: `${s.rateLimitPrefix}slow-${randomBytes(3).toString('hex')}:`,
    });
    await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 20000);
    return { port, app: spawned };
  }

  beforeAll(async () => {
    [gw, mcp, ws] = await Promise.all([start('gateway'), start('mcp'), newWorkspace()]);
  });

  afterAll(async () => {
    await Promise.all([gw?.app.kill(), mcp?.app.kill()]);
  });

  /** Normal requests from an address of their own: the REST API with a token, and an MCP initialize. */
  async function normalRequestsServed(localAddress: string): Promise<void> {
    const started = Date.now();
    const bots = await rawHttp(`http://127.0.0.1:${gw.port}/v1/bots`, { headers: { authorization: `Bearer ${ws.token}` }, localAddress });
    const init = await rawHttp(`http://127.0.0.1:${mcp.port}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INITIALIZE),
      localAddress,
    });
    expect([bots.status, init.status]).toEqual([200, 200]);
    expect(Date.now() - started).toBeLessThan(2000);
  }

  it('300 slow bodies and slow headers on /v1/chat, the widget and /mcp are cut off within the limits; normal requests are still served', async () => {
    const clients: { client: SlowClient; mode: 'body' | 'headers' }[] = [];
    const targets = [
      { port: () => gw.port, path: '/v1/chat', addresses: ['127.0.0.21', '127.0.0.22'] },
      { port: () => gw.port, path: `/widget/v1/bots/${randomUUID()}/chat`, addresses: ['127.0.0.23', '127.0.0.24'] },
      { port: () => mcp.port, path: '/mcp', addresses: ['127.0.0.25', '127.0.0.26'] },
    ];
    for (const t of targets) {
      for (const address of t.addresses) {
        for (let i = 0; i < 50; i++) {
          const mode = i % 5 === 0 ? 'headers' : 'body';
          clients.push({ client: await slowClient(t.port(), t.path, address, mode), mode });
        }
      }
    }
    expect(clients).toHaveLength(300);
    await new Promise((r) => setTimeout(r, 500));
    await normalRequestsServed('127.0.0.30');

    const cutOff = Promise.all(clients.map((c) => c.client.closed));
    const deadline = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), LIMITS.requestMs + SLACK_MS + 2000));
    const outcome = await Promise.race([cutOff.then(() => 'closed' as const), deadline]);
    const open = clients.filter((c) => c.client.closedAfterMs === null).length;
    clients.forEach((c) => c.client.destroy());
    expect({ outcome, open }).toEqual({ outcome: 'closed', open: 0 });

    const worst = (mode: 'body' | 'headers') => Math.max(...clients.filter((c) => c.mode === mode).map((c) => c.client.closedAfterMs ?? Infinity));
    expect(worst('headers')).toBeLessThanOrEqual(LIMITS.headersMs + SLACK_MS);
    expect(worst('body')).toBeLessThanOrEqual(LIMITS.requestMs + SLACK_MS);
    // Told why, in the spec's error body, where the socket was still writable.
    expect(clients.some((c) => /^HTTP\/1\.1 400 /.test(c.client.received) && c.client.received.includes('"code":"bad_request"'))).toBe(true);
    await normalRequestsServed('127.0.0.30');
  });

  it(`one client address holds at most ${LIMITS.perAddress} connections; other addresses still get in`, async () => {
    const clients: SlowClient[] = [];
    for (let i = 0; i < LIMITS.perAddress + 20; i++) clients.push(await slowClient(gw.port, '/v1/chat', '127.0.0.40', 'body'));
    await new Promise((r) => setTimeout(r, 700));
    try {
      const refused = clients.filter((c) => c.closedAfterMs !== null);
      expect(refused).toHaveLength(20);
      expect(refused.every((c) => c.received === '' || c.received.startsWith('HTTP/1.1 429 '))).toBe(true);
      // The same address is refused while it holds its share; another one is served.
      const same = await rawHttp(`http://127.0.0.1:${gw.port}/v1/bots`, { headers: { authorization: `Bearer ${ws.token}` }, localAddress: '127.0.0.40' }).catch(() => ({ status: 0 }));
      expect([0, 429]).toContain(same.status);
      await normalRequestsServed('127.0.0.41');
    } finally {
      clients.forEach((c) => c.destroy());
    }
    // Once its connections are gone, the address is served again.
    await waitFor(
      () => rawHttp(`http://127.0.0.1:${gw.port}/v1/bots`, { headers: { authorization: `Bearer ${ws.token}` }, localAddress: '127.0.0.40' }).then((r) => r.status).catch(() => 0),
      (st) => st === 200,
      5000,
    );
  });
});
