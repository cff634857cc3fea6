import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { checkUrl, Resolver } from './check-url';
import { GuardError } from './guard-error';
import { type Handler, type TestServer, closeServers, startServer } from './testdata/test-server';
import { KeptConnections, guardedFetch } from './guarded-fetch';
import { OutboundPolicy, outboundPolicy } from './outbound-policy';

// Real HTTP servers on loopback addresses with random ports. Loopback is blocked by default,
// so most tests allow exactly the server's address and port.

afterEach(async () => {
  jest.restoreAllMocks();
  await closeServers();
});

function allowing(srvs: TestServer[], extra: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return outboundPolicy({
    allowedPorts: [80, 443, ...srvs.map((s) => s.port)],
    allowCidrs: srvs.map((s) => (s.host.includes(':') ? `${s.host}/128` : `${s.host}/32`)),
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<GuardError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GuardError);
    return err as GuardError;
  }
  throw new Error('expected the request to fail');
}

function redirectTo(res: http.ServerResponse, location: string, status = 302): void {
  res.writeHead(status, { location, 'content-length': '0' });
  res.end();
}

/** A resolver stub with a call log. */
function stub(answer: (hostname: string, call: number) => string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    return answer(hostname, calls.length).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

const hello: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' });
  res.end('hello');
};

describe('guardedFetch: the address policy', () => {
  it('refuses the loopback server by default and never connects to it', async () => {
    const srv = await startServer(hello);
    const policy = outboundPolicy({ allowedPorts: [srv.port] });
    const err = await failure(guardedFetch(srv.url('/'), policy));
    expect(err.code).toBe('blocked');
    expect(err.message).toBe('127.0.0.1 is a loopback address (127.0.0.0/8)');
    const viaName = await failure(guardedFetch(`http://localhost:${srv.port}/`, policy));
    expect(viaName.code).toBe('blocked');
    const viaNotation = await failure(guardedFetch(`http://0x7f.1:${srv.port}/`, policy));
    expect(viaNotation.code).toBe('blocked');
    expect(srv.connections).toBe(0);
  });

  it('fetches from the server once its address and port are allowed', async () => {
    const srv = await startServer(hello);
    const res = await guardedFetch(srv.url('/page?x=1#frag'), allowing([srv]), { accept: 'text/html', headers: { 'X-Trace': 'abc', Host: 'evil.example' } });
    expect(res).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'text/plain', 'content-length': '5' }),
      body: Buffer.from('hello'),
      url: srv.url('/page?x=1#frag'),
      redirects: [],
    });
    expect(srv.connections).toBe(1);
    expect(srv.requests).toHaveLength(1);
    const seen = srv.requests[0];
    expect(seen.url).toBe('/page?x=1');
    expect(seen.headers.host).toBe(`127.0.0.1:${srv.port}`);
    expect(seen.headers['user-agent']).toBe(outboundPolicy().userAgent);
    expect(seen.headers['accept']).toBe('text/html');
    expect(seen.headers['x-trace']).toBe('abc');
    expect(seen.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('sends a method, headers and a body', async () => {
    const srv = await startServer((req, res, s) => {
      const last = s.requests[s.requests.length - 1];
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: last.method, body: last.body, type: req.headers['content-type'], length: req.headers['content-length'] }));
    });
    const body = JSON.stringify({ event: 'lead.created' });
    const res = await guardedFetch(srv.url('/hook'), allowing([srv]), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString())).toEqual({ method: 'POST', body, type: 'application/json', length: String(Buffer.byteLength(body)) });
  });

  it('decompresses gzip and reports the decoded body', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
      res.end(zlib.gzipSync('hello, compressed world'));
    });
    const res = await guardedFetch(srv.url('/'), allowing([srv]));
    expect(res.body.toString()).toBe('hello, compressed world');
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('reports a refused connection as a network error', async () => {
    const srv = await startServer(hello);
    const port = srv.port;
    await srv.close();
    const err = await failure(guardedFetch(`http://127.0.0.1:${port}/`, outboundPolicy({ allowedPorts: [port], allowCidrs: ['127.0.0.1/32'] })));
    expect(err.code).toBe('network');
    expect(err.message).toBe(`connection refused by 127.0.0.1:${port}`);
  });
});

describe('guardedFetch: redirects', () => {
  it('follows a chain within the allowed server and records each hop', async () => {
    const srv = await startServer((req, res) => {
      const m = /^\/r\/(\d+)$/.exec(req.url ?? '');
      const n = m ? Number(m[1]) : 0;
      if (n > 0) redirectTo(res, n === 2 ? `${srv.url(`/r/${n - 1}`)}` : `/r/${n - 1}`, n === 3 ? 301 : 302);
      else hello(req, res, srv);
    });
    const res = await guardedFetch(srv.url('/r/3'), allowing([srv]));
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.redirects).toEqual([srv.url('/r/2'), srv.url('/r/1'), srv.url('/r/0')]);
    expect(res.url).toBe(srv.url('/r/0'));
    expect(srv.requests.map((r) => r.url)).toEqual(['/r/3', '/r/2', '/r/1', '/r/0']);
  });

  it('turns a POST into a GET without the body after 303, and keeps both after 307', async () => {
    const srv = await startServer((req, res, s) => {
      if (req.url === '/see-other') return redirectTo(res, '/done', 303);
      if (req.url === '/temporary') return redirectTo(res, '/done', 307);
      const last = s.requests[s.requests.length - 1];
      res.end(`${last.method} ${last.body}`);
    });
    const policy = allowing([srv]);
    expect((await guardedFetch(srv.url('/see-other'), policy, { method: 'POST', body: 'payload' })).body.toString()).toBe('GET ');
    expect((await guardedFetch(srv.url('/temporary'), policy, { method: 'POST', body: 'payload' })).body.toString()).toBe('POST payload');
  });

  it.each([
    ['http://10.0.0.1/', '10.0.0.1 is a private address (10.0.0.0/8)'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['http://[::ffff:169.254.169.254]/', 'IPv4-mapped form of 169.254.169.254'],
    ['http://0x7f000002/', '127.0.0.2 is a loopback address'],
    ['http://localhost/', 'localhost is an internal host name'],
    ['file:///etc/passwd', 'only http and https URLs are allowed'],
    ['http://user:pw@8.8.8.8/', 'URLs with a user name or password are not allowed'],
    ['http://8.8.8.8:25/', 'port 25 is not allowed'],
  ])('refuses a redirect to %s before connecting', async (location, reason) => {
    const srv = await startServer((_req, res) => redirectTo(res, location));
    const requestSpy = jest.spyOn(http, 'request');
    const err = await failure(guardedFetch(srv.url('/go'), allowing([srv])));
    expect(err.code).toBe('blocked');
    expect(err.message).toContain(`redirect to ${new URL(location).href} refused: `);
    expect(err.message).toContain(reason);
    // Exactly one request was started: the one to the allowed server.
    expect(requestSpy).toHaveBeenCalledTimes(1);
    expect(srv.requests).toHaveLength(1);
  });

  it('refuses a redirect to [::1] on a listening port and the IPv6 server sees no connection', async () => {
    let trap: TestServer;
    try {
      trap = await startServer(hello, '::1');
    } catch {
      console.warn('no IPv6 loopback here; skipping the [::1] listener check');
      return;
    }
    const srv = await startServer((_req, res) => redirectTo(res, trap.url('/')));
    const err = await failure(guardedFetch(srv.url('/'), allowing([srv], { allowedPorts: [srv.port, trap.port] })));
    expect(err.code).toBe('blocked');
    expect(err.message).toBe(`redirect to http://[::1]:${trap.port}/ refused: ::1 is the loopback address (::1/128)`);
    expect(trap.connections).toBe(0);
  });

  describe('to another host', () => {
    let a: TestServer;
    let b: TestServer;
    const resolver = stub((hostname) => (hostname === 'b.test' ? ['127.0.0.2'] : []));

    beforeEach(async () => {
      resolver.calls.length = 0;
      b = await startServer((req, res) => res.end(`b saw ${req.headers.host} auth=${req.headers.authorization ?? 'none'}`), '127.0.0.2');
      a = await startServer((req, res) => redirectTo(res, req.url === '/by-name' ? `http://b.test:${b.port}/x` : b.url('/x')));
    });

    it('follows it when the new host is allowed too, without carrying credentials across', async () => {
      const res = await guardedFetch(a.url('/'), allowing([a, b]), { headers: { authorization: 'Bearer secret' } });
      expect(res.body.toString()).toBe(`b saw 127.0.0.2:${b.port} auth=none`);
      expect(res.redirects).toEqual([b.url('/x')]);
      expect(a.requests[0].headers.authorization).toBe('Bearer secret');
    });

    it('re-checks the new address: refused when only the first host is allowed', async () => {
      const err = await failure(guardedFetch(a.url('/'), allowing([a], { allowedPorts: [a.port, b.port] })));
      expect(err.code).toBe('blocked');
      expect(err.message).toBe(`redirect to ${b.url('/x')} refused: 127.0.0.2 is a loopback address (127.0.0.0/8)`);
      expect(b.connections).toBe(0);
    });

    it('re-checks the port of the new URL', async () => {
      const err = await failure(guardedFetch(a.url('/'), allowing([a, b], { allowedPorts: [a.port] })));
      expect(err.message).toBe(`redirect to ${b.url('/x')} refused: port ${b.port} is not allowed (allowed: ${a.port})`);
      expect(b.connections).toBe(0);
    });

    it('resolves and checks a host name in the redirect', async () => {
      const ok = await guardedFetch(a.url('/by-name'), allowing([a, b]), { resolver });
      expect(ok.body.toString()).toBe(`b saw b.test:${b.port} auth=none`);
      expect(resolver.calls).toEqual(['b.test']);

      const err = await failure(guardedFetch(a.url('/by-name'), allowing([a], { allowedPorts: [a.port, b.port] }), { resolver }));
      expect(err.code).toBe('blocked');
      expect(err.message).toBe(`redirect to http://b.test:${b.port}/x refused: b.test resolves to a blocked address: 127.0.0.2 is a loopback address (127.0.0.0/8)`);
      expect(b.connections).toBe(1); // only the allowed fetch above
    });
  });

  it('stops after maxRedirects', async () => {
    const srv = await startServer((req, res) => redirectTo(res, `/loop/${Number((req.url ?? '').split('/')[2] ?? 0) + 1}`));
    const err = await failure(guardedFetch(srv.url('/loop/0'), allowing([srv], { maxRedirects: 3 })));
    expect(err.code).toBe('too_many_redirects');
    expect(err.message).toBe(`more than 3 redirects (the last one pointed to ${srv.url('/loop/4')})`);
    expect(srv.requests.map((r) => r.url)).toEqual(['/loop/0', '/loop/1', '/loop/2', '/loop/3']);

    const none = await failure(guardedFetch(srv.url('/loop/0'), allowing([srv], { maxRedirects: 0 })));
    expect(none.code).toBe('too_many_redirects');
  });

  it('returns a 3xx as is when followRedirects is false (webhook delivery)', async () => {
    const srv = await startServer((_req, res) => redirectTo(res, 'http://10.0.0.1/'));
    const res = await guardedFetch(srv.url('/hook'), allowing([srv]), { method: 'POST', body: '{}', followRedirects: false });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('http://10.0.0.1/');
    expect(res.redirects).toEqual([]);
    expect(res.url).toBe(srv.url('/hook'));
    expect(srv.requests).toHaveLength(1);
  });
});

describe('guardedFetch: time and size limits', () => {
  it('times out when the headers take longer than timeoutMs', async () => {
    const srv = await startServer((_req, res, s) => {
      s.timers.push(setTimeout(() => hello(_req, res, s), 3000));
    });
    const started = Date.now();
    const err = await failure(guardedFetch(srv.url('/slow'), allowing([srv], { timeoutMs: 500 })));
    expect(err.code).toBe('timeout');
    expect(err.message).toBe('timed out after 500 ms');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('counts the body in the timeout', async () => {
    const srv = await startServer((_req, res, s) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('start');
      s.timers.push(setTimeout(() => res.end('end'), 3000));
    });
    const started = Date.now();
    const err = await failure(guardedFetch(srv.url('/dribble'), allowing([srv], { timeoutMs: 500 })));
    expect(err.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('aborts a streamed body (no Content-Length) that grows past maxBytes', async () => {
    let written = 0;
    let serverSawClose!: () => void;
    const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
    const total = 50 * 1024 * 1024;
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }); // chunked, no content-length
      const chunk = Buffer.alloc(64 * 1024, 97);
      const pump = (): void => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (written >= total) res.end();
      };
      res.on('close', () => serverSawClose());
      pump();
    });
    const err = await failure(guardedFetch(srv.url('/big'), allowing([srv], { maxBytes: 1024 * 1024 })));
    expect(err.code).toBe('too_large');
    expect(err.message).toBe('response larger than 1048576 bytes');
    await closed;
    expect(written).toBeLessThan(total);
  });

  it('refuses a Content-Length over maxBytes without reading the body', async () => {
    let serverSawClose!: () => void;
    const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.flushHeaders(); // and never send the body: reading it would end in a timeout instead
      res.on('close', () => serverSawClose());
    });
    const started = Date.now();
    const err = await failure(guardedFetch(srv.url('/declared'), allowing([srv], { maxBytes: 1024 * 1024, timeoutMs: 5000 })));
    expect(err.code).toBe('too_large');
    expect(err.message).toBe('response larger than 1048576 bytes (Content-Length: 10485760)');
    expect(Date.now() - started).toBeLessThan(2000);
    await closed;
  });

  it('caps the decompressed size of a gzip body (zip bomb)', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    const err = await failure(guardedFetch(srv.url('/bomb'), allowing([srv], { maxBytes: 1024 * 1024 })));
    expect(err.code).toBe('too_large');
  });
});

describe('guardedFetch: DNS rebinding', () => {
  it('checks the address it connects to, not an earlier answer', async () => {
    const srv = await startServer(hello);
    const policy = outboundPolicy({ allowedPorts: [srv.port] });
    // First answer public (what a registration-time check sees), then loopback.
    const resolver = stub((_h, call) => (call === 1 ? ['93.184.215.14'] : ['127.0.0.1']));
    const url = `http://rebind.test:${srv.port}/`;

    expect(await checkUrl(url, policy, { resolver })).toEqual({ ok: true, url: new URL(url), addresses: ['93.184.215.14'] });
    const err = await failure(guardedFetch(url, policy, { resolver }));
    expect(err.code).toBe('blocked');
    expect(err.message).toBe('rebind.test resolves to a blocked address: 127.0.0.1 is a loopback address (127.0.0.0/8)');
    expect(resolver.calls).toEqual(['rebind.test', 'rebind.test']);
    expect(srv.connections).toBe(0);
  });

  it('connects to the address its own lookup returned', async () => {
    const srv = await startServer((req, res) => res.end(`host=${req.headers.host}`));
    // "pinned.test" exists in no DNS: only the guarded lookup can make it reach this server.
    const resolver = stub(() => ['127.0.0.1']);
    const res = await guardedFetch(`http://pinned.test:${srv.port}/`, allowing([srv]), { resolver });
    expect(res.body.toString()).toBe(`host=pinned.test:${srv.port}`);
    expect(resolver.calls).toEqual(['pinned.test']);
    expect(srv.connections).toBe(1);
  });

  it('refuses a name when any of its answers is blocked, even if another is allowed', async () => {
    const srv = await startServer(hello);
    const resolver = stub(() => ['127.0.0.1', '10.0.0.1']);
    const err = await failure(guardedFetch(`http://mixed.test:${srv.port}/`, allowing([srv]), { resolver }));
    expect(err.code).toBe('blocked');
    expect(err.message).toContain('10.0.0.1 is a private address');
    expect(srv.connections).toBe(0);
  });
});

describe('guardedFetch: https', () => {
  /** A self-signed certificate for tls.test, made with the openssl CLI (the test is skipped without it). */
  function selfSigned(): { key: Buffer; cert: Buffer } | null {
    const dir = mkdtempSync(join(tmpdir(), 'net-guard-tls-'));
    try {
      const made = spawnSync(
        'openssl',
        ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=tls.test', '-addext', 'subjectAltName=DNS:tls.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
        { stdio: 'ignore' },
      );
      if (made.status !== 0) return null;
      return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
    } catch {
      return null;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('connects to the checked address, sends the host name as SNI and verifies the certificate', async () => {
    const pair = selfSigned();
    if (!pair) {
      console.warn('openssl not available; skipping the https test');
      return;
    }
    const sniNames: string[] = [];
    let connections = 0;
    const context = tls.createSecureContext(pair);
    const server = https.createServer({ ...pair, SNICallback: (name, cb) => (sniNames.push(name), cb(null, context)) }, (_req, res) => res.end('secure'));
    server.on('connection', () => connections++);
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    try {
      const resolver = stub(() => ['127.0.0.1']);
      const policy = outboundPolicy({ allowedPorts: [port], allowCidrs: ['127.0.0.1/32'] });
      // The certificate is self-signed: verification must refuse it.
      const err = await failure(guardedFetch(`https://tls.test:${port}/`, policy, { resolver }));
      expect(err.code).toBe('network');
      expect(err.message).toMatch(new RegExp(`^TLS error talking to tls.test:${port}: .*certificate`, 'i'));
      expect(sniNames).toEqual(['tls.test']);
      expect(connections).toBe(1);

      // And the loopback address stays blocked over https too, before any connection.
      const blocked = await failure(guardedFetch(`https://tls.test:${port}/`, outboundPolicy({ allowedPorts: [port] }), { resolver }));
      expect(blocked.code).toBe('blocked');
      expect(connections).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('guardedFetch: kept connections', () => {
  const kept: KeptConnections[] = [];
  const keep = (idleMs = 1000) => {
    const k = new KeptConnections({ idleMs });
    kept.push(k);
    return k;
  };
  afterEach(() => kept.splice(0).forEach((k) => k.close()));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('without them every request has a connection of its own; with them one connection serves request after request', async () => {
    const fresh = await startServer(hello);
    for (let i = 0; i < 3; i++) expect((await guardedFetch(fresh.url('/'), allowing([fresh]), { method: 'POST', body: 'x', discardBody: true })).status).toBe(200);
    expect(fresh.connections).toBe(3);
    expect(fresh.requests.every((r) => r.headers.connection === 'close')).toBe(true);

    const srv = await startServer(hello);
    const connections = keep();
    const policy = allowing([srv]);
    for (let i = 0; i < 3; i++) expect((await guardedFetch(srv.url('/'), policy, { method: 'POST', body: 'x', discardBody: true, connections })).status).toBe(200);
    expect((await guardedFetch(srv.url('/read'), policy, { connections })).body.toString()).toBe('hello');
    expect(srv.requests).toHaveLength(4);
    expect(srv.connections).toBe(1);
  });

  it('a 204 keeps its connection; a large or unannounced body to discard closes it', async () => {
    const srv = await startServer((req, res) => {
      if (req.url === '/empty') res.writeHead(204).end();
      else if (req.url === '/large') res.writeHead(200, { 'content-length': String(1024 * 1024) }).end(Buffer.alloc(1024 * 1024));
      else res.writeHead(200).end('chunked, no length'); // no content-length: chunked
    });
    const connections = keep();
    const policy = allowing([srv]);
    const post = (path: string) => guardedFetch(srv.url(path), policy, { method: 'POST', body: 'x', discardBody: true, connections });
    expect((await post('/empty')).status).toBe(204);
    expect((await post('/empty')).status).toBe(204);
    expect(srv.connections).toBe(1);
    expect((await post('/large')).status).toBe(200);
    expect((await post('/empty')).status).toBe(204);
    expect(srv.connections).toBe(2);
    expect((await post('/chunked')).status).toBe(200);
    expect((await post('/empty')).status).toBe(204);
    expect(srv.connections).toBe(3);
  });

  it('an idle connection is closed after idleMs, and one the server closed first is not used: the next request opens another and succeeds', async () => {
    const srv = await startServer(hello);
    const connections = keep(200);
    const policy = allowing([srv]);
    await guardedFetch(srv.url('/'), policy, { connections });
    await guardedFetch(srv.url('/'), policy, { connections });
    expect(srv.connections).toBe(1);
    await sleep(500); // past idleMs: closed by us
    await guardedFetch(srv.url('/'), policy, { connections });
    expect(srv.connections).toBe(2);

    // A server that closes idle connections after 100 ms, well before our 1 s.
    const server = await new Promise<http.Server>((resolve) => {
      const s = http.createServer((_req, res) => res.writeHead(200, { 'content-length': '2' }).end('ok'));
      s.keepAliveTimeout = 100;
      s.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const port = (server.address() as AddressInfo).port;
      const policy = outboundPolicy({ allowedPorts: [port], allowCidrs: ['127.0.0.1/32'] });
      const long = keep(1000);
      let accepted = 0;
      server.on('connection', () => accepted++);
      for (let i = 0; i < 3; i++) {
        expect((await guardedFetch(`http://127.0.0.1:${port}/`, policy, { method: 'POST', body: 'x', discardBody: true, connections: long })).status).toBe(200);
        await sleep(300);
      }
      expect(accepted).toBe(3);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('a request that takes longer than idleMs is not cut off (the idle limit is for idle connections only)', async () => {
    const srv = await startServer((_req, res, s) => {
      s.timers.push(setTimeout(() => res.writeHead(200, { 'content-length': '2' }).end('ok'), 500));
    });
    const connections = keep(100);
    const policy = allowing([srv]);
    for (let i = 0; i < 2; i++) expect((await guardedFetch(srv.url('/'), policy, { method: 'POST', body: 'x', discardBody: true, connections })).status).toBe(200);
    expect(srv.connections).toBe(1);
  });

  it('the address policy still applies to every request, and origins do not share connections', async () => {
    const a = await startServer(hello);
    const b = await startServer(hello);
    const connections = keep();
    const both = allowing([a, b]);
    expect((await guardedFetch(a.url('/'), both, { connections })).status).toBe(200);
    expect((await guardedFetch(b.url('/'), both, { connections })).status).toBe(200);
    expect([a.connections, b.connections]).toEqual([1, 1]);
    // A host name checked when its connection opened, then asked for under a policy that refuses
    // its address: refused, although that connection is still open.
    const resolver = stub(() => ['127.0.0.1']);
    const byName = `http://hooks.example.test:${a.port}/`;
    expect((await guardedFetch(byName, allowing([a]), { connections, resolver })).status).toBe(200);
    const err = await failure(guardedFetch(byName, outboundPolicy({ allowedPorts: [a.port] }), { connections, resolver }));
    expect(err.code).toBe('blocked');
    expect(a.requests).toHaveLength(2);
  });
});
