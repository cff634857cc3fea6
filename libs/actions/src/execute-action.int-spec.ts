import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULT_OUTBOUND_POLICY, OutboundPolicy, outboundPolicy } from '@sa/net-guard';
import { ActionRequestSpec } from './action-request';
import { ActionCallResult, ExecuteActionOptions, executeAction } from './execute-action';

// Real HTTP servers on 127.0.0.1 and random ports. Loopback is refused by the default policy, so
// most tests allow exactly the server's address and port, and http (not https) with allowHttp.

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Server {
  port: number;
  url(path: string): string;
  requests: SeenRequest[];
  connections: number;
  close(): Promise<void>;
}

type Handler = (req: SeenRequest, res: http.ServerResponse) => void;

const servers: Server[] = [];
const timers: NodeJS.Timeout[] = [];

async function startServer(handler: Handler): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      srv.requests.push(seen);
      handler(seen, res);
    });
  });
  const srv: Server = {
    port: 0,
    url: (path) => `http://127.0.0.1:${srv.port}${path}`,
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    srv.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  srv.port = (server.address() as AddressInfo).port;
  servers.push(srv);
  return srv;
}

afterEach(async () => {
  timers.splice(0).forEach(clearTimeout);
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function allowing(...srvs: Server[]): OutboundPolicy {
  return outboundPolicy({ allowedPorts: [80, 443, ...srvs.map((s) => s.port)], allowCidrs: ['127.0.0.1/32'] });
}

function options(srvs: Server[], extra: Partial<ExecuteActionOptions> = {}): ExecuteActionOptions {
  return { policy: allowing(...srvs), allowHttp: true, ...extra };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

describe('executeAction against a local server', () => {
  it('calls the endpoint and returns its JSON as the server sent it', async () => {
    const body = '{"order":"A-1",\n "status":"shipped"}';
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body);
    });
    const spec: ActionRequestSpec = { method: 'POST', url: srv.url('/orders/{order_id}/notes'), headers: { 'X-Api-Key': 'k-123456' } };
    const result = await executeAction(spec, { order_id: 'A 1', note: 'hello' }, options([srv]));
    expect(result).toEqual({ ok: true, status: 200, duration_ms: expect.any(Number), result: body, truncated: false, error: null, message: expect.stringMatching(/^200 OK in \d+ ms$/) });
    expect(srv.requests).toHaveLength(1);
    const [seen] = srv.requests;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/orders/A%201/notes');
    expect(seen.body).toBe('{"note":"hello"}');
    expect(seen.headers['x-api-key']).toBe('k-123456');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['accept']).toBe('application/json, text/plain;q=0.9, */*;q=0.1');
  });

  it('sends GET members in the query string', async () => {
    const srv = await startServer((_req, res) => json(res, 200, { ok: true }));
    const result = await executeAction({ method: 'GET', url: srv.url('/search'), headers: {} }, { q: 'a b', tag: ['x', 'y'] }, options([srv]));
    expect(result.ok).toBe(true);
    expect(srv.requests[0].url).toBe('/search?q=a%20b&tag=x&tag=y');
    expect(srv.requests[0].body).toBe('');
  });

  it('reports a 404 as http_error with the body', async () => {
    const srv = await startServer((_req, res) => json(res, 404, { error: 'no such order' }));
    const result = await executeAction({ method: 'GET', url: srv.url('/orders/{id}'), headers: {} }, { id: 'X' }, options([srv]));
    expect(result).toEqual({
      ok: false,
      status: 404,
      duration_ms: expect.any(Number),
      result: '{"error":"no such order"}',
      truncated: false,
      error: 'http_error',
      message: expect.stringMatching(/^404 Not Found in \d+ ms$/),
    });
  });

  it('does not follow a redirect, and the target is never requested', async () => {
    const target = await startServer((_req, res) => json(res, 200, { hijacked: true }));
    const srv = await startServer((req, res) => {
      if (req.url === '/elsewhere') return json(res, 200, { followed: true });
      res.writeHead(302, { location: req.url === '/away' ? target.url('/x') : '/elsewhere', 'content-length': '0' });
      res.end();
    });
    const local = await executeAction({ method: 'GET', url: srv.url('/start'), headers: {} }, {}, options([srv, target]));
    expect(local).toEqual({ ok: false, status: 302, duration_ms: expect.any(Number), result: '', truncated: false, error: 'redirect', message: 'Redirects are not followed (302 to another address)' });
    const away = await executeAction({ method: 'POST', url: srv.url('/away'), headers: {} }, {}, options([srv, target]));
    expect(away.error).toBe('redirect');
    expect(srv.requests.map((r) => r.url)).toEqual(['/start', '/away']);
    expect(target.connections).toBe(0);
  });

  it('cuts a slow endpoint at timeoutMs', async () => {
    const srv = await startServer((_req, res) => {
      timers.push(setTimeout(() => json(res, 200, { late: true }), 2000));
    });
    const started = Date.now();
    const result = await executeAction({ method: 'GET', url: srv.url('/slow'), headers: {} }, {}, options([srv], { timeoutMs: 300 }));
    const took = Date.now() - started;
    expect(result).toEqual({ ok: false, status: null, duration_ms: expect.any(Number), result: '', truncated: false, error: 'timeout', message: 'The endpoint took longer than 300 ms' });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1000);
    expect(result.duration_ms).toBeLessThan(1000);
  });

  it('cuts a body that trickles in past timeoutMs', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part one ');
      timers.push(setTimeout(() => res.end('part two'), 2000));
    });
    const started = Date.now();
    const result = await executeAction({ method: 'GET', url: srv.url('/trickle'), headers: {} }, {}, options([srv], { timeoutMs: 300 }));
    expect(result.error).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a body larger than maxResponseBytes, declared or not', async () => {
    const big = 'x'.repeat(2048);
    const srv = await startServer((req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(big.length) });
        res.end(big);
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length announced
        res.write(big.slice(0, 1000));
        res.end(big.slice(1000));
      }
    });
    for (const path of ['/declared', '/chunked']) {
      const result = await executeAction({ method: 'GET', url: srv.url(path), headers: {} }, {}, options([srv], { maxResponseBytes: 1024 }));
      expect(result).toEqual({ ok: false, status: null, duration_ms: expect.any(Number), result: '', truncated: false, error: 'too_large', message: 'The response is larger than 1 KiB' });
    }
    const fits = await executeAction({ method: 'GET', url: srv.url('/declared'), headers: {} }, {}, options([srv], { maxResponseBytes: 2048 }));
    expect(fits.ok).toBe(true);
    expect(fits.result).toBe(big);
  });

  it('cuts a long result to maxResultChars and says so', async () => {
    const text = 'abcdefghijklmnopqrstuvwxyz';
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(text);
    });
    const cut = await executeAction({ method: 'GET', url: srv.url('/'), headers: {} }, {}, options([srv], { maxResultChars: 10 }));
    expect(cut).toMatchObject({ ok: true, result: 'abcdefghij…', truncated: true });
    const whole = await executeAction({ method: 'GET', url: srv.url('/'), headers: {} }, {}, options([srv], { maxResultChars: 26 }));
    expect(whole).toMatchObject({ ok: true, result: text, truncated: false });
  });

  it('describes a binary body instead of returning it', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    });
    const result = await executeAction({ method: 'GET', url: srv.url('/logo'), headers: {} }, {}, options([srv]));
    expect(result).toMatchObject({ ok: true, result: '(7 bytes of image/png, not shown)' });
  });
});

describe('executeAction and the outbound policy', () => {
  const hello: Handler = (_req, res) => json(res, 200, { hello: true });

  it('refuses the loopback server under the default policy and never connects to it', async () => {
    const srv = await startServer(hello);
    const portOnly = await executeAction({ method: 'GET', url: srv.url('/'), headers: {} }, {}, { policy: outboundPolicy({ allowedPorts: [srv.port] }), allowHttp: true });
    expect(portOnly).toEqual({
      ok: false,
      status: null,
      duration_ms: expect.any(Number),
      result: '',
      truncated: false,
      error: 'blocked',
      message: 'Blocked by the outbound policy: 127.0.0.1 is a loopback address (127.0.0.0/8)',
    });
    const strict = await executeAction({ method: 'GET', url: srv.url('/'), headers: {} }, {}, { policy: DEFAULT_OUTBOUND_POLICY, allowHttp: true });
    expect(strict.error).toBe('blocked');
    // A public-looking name that resolves to loopback is refused at connect time.
    const byName = await executeAction({ method: 'GET', url: `http://api.example.com:${srv.port}/`, headers: {} }, {}, {
      policy: outboundPolicy({ allowedPorts: [srv.port] }),
      allowHttp: true,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(byName.error).toBe('blocked');
    expect(byName.message).toBe('Blocked by the outbound policy: api.example.com resolves to a blocked address: 127.0.0.1 is a loopback address (127.0.0.0/8)');
    expect(srv.connections).toBe(0);
  });

  it('refuses http unless allowHttp is set, even when the policy allows the server', async () => {
    const srv = await startServer(hello);
    const result = await executeAction({ method: 'GET', url: srv.url('/'), headers: {} }, {}, { policy: allowing(srv) });
    expect(result).toMatchObject({ ok: false, status: null, error: 'blocked', message: 'Blocked by the outbound policy: only https URLs are allowed' });
    expect(srv.connections).toBe(0);
  });

  it('reports bad input without calling', async () => {
    const srv = await startServer(hello);
    const result = await executeAction({ method: 'GET', url: srv.url('/orders/{order_id}'), headers: {} }, {}, options([srv]));
    expect(result).toMatchObject({ ok: false, status: null, error: 'invalid_input', message: 'The URL needs "order_id", which the input does not have' });
    expect(srv.connections).toBe(0);
  });

  it('reports a refused connection and a cancelled call as network errors', async () => {
    const srv = await startServer(hello);
    const policy = allowing(srv);
    await srv.close();
    const refused = await executeAction({ method: 'GET', url: srv.url('/'), headers: {} }, {}, { policy, allowHttp: true });
    expect(refused).toMatchObject({ ok: false, status: null, error: 'network', message: `Could not reach the endpoint: connection refused by 127.0.0.1:${srv.port}` });

    const slow = await startServer((_req, res) => {
      timers.push(setTimeout(() => json(res, 200, {}), 2000));
    });
    const controller = new AbortController();
    timers.push(setTimeout(() => controller.abort(), 100));
    const cancelled = await executeAction({ method: 'GET', url: slow.url('/'), headers: {} }, {}, options([slow], { signal: controller.signal }));
    expect(cancelled).toMatchObject({ ok: false, status: null, error: 'network', message: 'The call was cancelled' });
  });
});

describe('executeAction keeps header values secret', () => {
  const secret = 'sk_live_9f8e7d6c5b4a';
  const key = 'apikey-0123456789';
  const headers = { Authorization: `Bearer ${secret}`, 'X-Api-Key': key };
  /** Echoes the request's headers, as some debugging endpoints and error pages do. */
  const echo = (status: number): Handler => (req, res) => json(res, status, { received: req.headers, auth: req.headers['authorization'], token: String(req.headers['authorization']).slice(7) });

  function expectNoSecret(results: ActionCallResult[]): void {
    const serialized = JSON.stringify(results);
    expect(serialized).not.toContain(secret);
    expect(serialized).not.toContain(key);
  }

  it('never returns a header value, whatever happens', async () => {
    const ok = await startServer(echo(200));
    const failing = await startServer(echo(500));
    const redirecting = await startServer((req, res) => {
      res.writeHead(302, { location: `/next?token=${req.headers['x-api-key']}`, 'content-type': 'text/plain' });
      res.end(`Moved; you sent ${req.headers['authorization']}`);
    });
    const slow = await startServer((_req, res) => {
      timers.push(setTimeout(() => json(res, 200, {}), 2000));
    });
    const large = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.headers['authorization']} ${'x'.repeat(4096)}`);
    });
    const all = [ok, failing, redirecting, slow, large];
    const opts = options(all, { timeoutMs: 300, maxResponseBytes: 2048 });
    const results = [
      await executeAction({ method: 'POST', url: ok.url('/'), headers }, { q: 1 }, opts),
      await executeAction({ method: 'GET', url: failing.url('/'), headers }, {}, opts),
      await executeAction({ method: 'GET', url: redirecting.url('/'), headers }, {}, opts),
      await executeAction({ method: 'GET', url: slow.url('/'), headers }, {}, opts),
      await executeAction({ method: 'GET', url: large.url('/'), headers }, {}, opts),
      await executeAction({ method: 'GET', url: ok.url('/'), headers }, {}, { policy: DEFAULT_OUTBOUND_POLICY, allowHttp: true }),
      await executeAction({ method: 'GET', url: ok.url('/{missing}'), headers }, {}, opts),
      await executeAction({ method: 'GET', url: ok.url('/'), headers: { ...headers, 'X-Bad': `${secret}\n` } }, {}, opts),
    ];
    expect(results.map((r) => r.error)).toEqual([null, 'http_error', 'redirect', 'timeout', 'too_large', 'blocked', 'invalid_input', 'invalid_input']);
    // The secrets did reach the servers (so the echo above really carried them) …
    expect(ok.requests[0].headers['authorization']).toBe(`Bearer ${secret}`);
    expect(failing.requests[0].headers['x-api-key']).toBe(key);
    // … and came back redacted.
    expect(JSON.parse(results[0].result)).toMatchObject({ auth: '[redacted]', token: '[redacted]', received: { 'x-api-key': '[redacted]' } });
    expect(results[2].result).toBe('Moved; you sent [redacted]');
    expectNoSecret(results);
  });
});
