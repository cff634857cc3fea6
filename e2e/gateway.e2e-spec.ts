import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from './support/api';
import { newWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { e2eState } from './support/state';

/**
 * The status code a POST with this body gets, over a plain socket: the headers first, and the body
 * only if no answer came within a second. The gateway refuses an oversized body from its
 * Content-Length before reading it and closes; a client still writing then meets a reset that can
 * discard the answer it was sent (EPIPE in fetch), which says nothing about the gateway.
 */
function statusOfOversizedPost(url: string, token: string, body: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(Number(u.port), u.hostname, () => {
      socket.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`);
      setTimeout(() => {
        if (!answer && !socket.destroyed) socket.write(body);
      }, 1000).unref();
    });
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      answer += d;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (m) {
        resolve(Number(m[1]));
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => reject(new Error(`no HTTP answer: ${JSON.stringify(answer.slice(0, 200))}`)));
    setTimeout(() => socket.destroy(), 15000).unref();
  });
}

describe('gateway edge behaviour (spec parts 7 and 9)', () => {
  it('GET /v1/openapi.json needs no token and is OpenAPI 3.1.0, spec version 1.0.1', async () => {
    const res = await request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('1.0.1');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/bots', '/kb', '/kb/ingest', '/chat', '/bookings/{id}', '/openapi.json']));
    // What the gateway generates when it starts is what the SDK was generated from (tools/sdk/generate.js).
    expect(res.body).toEqual(JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'libs', 'sdk', 'openapi.json'), 'utf8')));
  });

  it('every response carries X-Request-Id; a plain caller id is echoed', async () => {
    const ws = await newWorkspace();
    for (const res of [await request('GET', '/bots'), await ws.api.get('/bots'), await request('GET', '/nope'), await request('GET', '/openapi.json')]) {
      expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{8,}$/);
    }
    const echoed = await ws.api.get('/bots', { 'x-request-id': 'trace-abc.123' });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
    const unsafe = await ws.api.get('/bots', { 'x-request-id': 'bad id with spaces' });
    expect(unsafe.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it('unknown routes and methods are 404 in the general error shape', async () => {
    const ws = await newWorkspace();
    for (const res of [await ws.api.get('/nothing-here'), await request('DELETE', '/bots', undefined, { token: ws.token }), await request('GET', '/v2/bots', undefined, { baseUrl: e2eState().gatewayUrl })]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(expect.objectContaining({ code: 'not_found', error: 'Not Found', message: expect.any(String) }));
    }
  });

  it('malformed JSON, wrong content type and oversized bodies are 400, never 5xx', async () => {
    const ws = await newWorkspace();
    const bad = await request('POST', '/bots', undefined, { token: ws.token, rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(expect.objectContaining({ code: 'bad_request', message: expect.stringContaining('JSON') }));
    const text = await request('POST', '/bots', undefined, { token: ws.token, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    const empty = await request('POST', '/bots', undefined, { token: ws.token });
    expect(empty.status).toBe(400);
    expect(await statusOfOversizedPost(`${e2eState().baseUrl}/bots`, ws.token, JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }))).toBe(400);
    const array = await ws.api.post('/bots', [{ name: 'x' }]);
    expect(array.status).toBe(400);
    const nul = await ws.api.post('/bots', { name: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body.success).toBe(false);
  });

  it('/healthz is up and /readyz names every service', async () => {
    const health = await request('GET', '/healthz', undefined, { baseUrl: e2eState().gatewayUrl });
    expect(health.status).toBe(200);
    const ready = await request('GET', '/readyz', undefined, { baseUrl: e2eState().gatewayUrl });
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.body.services).sort()).toEqual(['bookings', 'bots', 'channels', 'chat', 'evaluations', 'knowledge', 'leads', 'mcp', 'webhook-dispatcher']);
  });
});

describe('rate limiting per token (429)', () => {
  it('429 with Retry-After and retry_after once the window is used, counted across two gateway replicas', async () => {
    const s = e2eState();
    const limit = 6;
    const ports = [await freePort(), await freePort()];
    const gateways = ports.map((port) =>
      spawn(process.execPath, [path.join(s.root, 'dist/apps/gateway/src/main.js')], {
        env: { ...process.env, ...s.env, GATEWAY_PORT: String(port), RATE_LIMIT_REQUESTS: String(limit), RATE_LIMIT_WINDOW_SECONDS: '30', RATE_LIMIT_PREFIX: `${s.rateLimitPrefix}rl:` },
        stdio: 'ignore',
      }),
    );
    try {
      for (const port of ports) await waitHealthy(`http://127.0.0.1:${port}`);
      const ws = await newWorkspace();
      const urls = ports.map((p) => `http://127.0.0.1:${p}/v1`);
      const statuses: number[] = [];
      for (let i = 0; i < limit; i++) statuses.push((await request('GET', '/bots', undefined, { token: ws.token, baseUrl: urls[i % 2] })).status);
      expect(statuses).toEqual(Array(limit).fill(200));
      const limited = await request('GET', '/bots', undefined, { token: ws.token, baseUrl: s.redisUrl ? urls[1] : urls[0] });
      if (!s.redisUrl) {
        // Without Redis each replica counts alone; the shared-count half of this test needs Redis.
        expect([200, 429]).toContain(limited.status);
        return;
      }
      expect(limited.status).toBe(429);
      const retryAfter = limited.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(30);
      expect(limited.body).toEqual(expect.objectContaining({ code: 'rate_limited', retry_after: Number(retryAfter) }));
      // Another token of the same workspace has its own window.
      const other = await newWorkspace();
      expect((await request('GET', '/bots', undefined, { token: other.token, baseUrl: urls[0] })).status).toBe(200);
    } finally {
      for (const g of gateways) g.kill('SIGTERM');
    }
  });
});

async function waitHealthy(url: string): Promise<void> {
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}
