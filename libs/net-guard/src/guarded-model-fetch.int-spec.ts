import zlib from 'node:zlib';
import OpenAI from 'openai';
import { Resolver } from './check-url';
import { GuardError } from './guard-error';
import { type TestServer, closeServers, startServer } from './testdata/test-server';
import { guardedModelFetch } from './guarded-model-fetch';
import { OutboundPolicy, outboundPolicy } from './outbound-policy';

// Real HTTP servers on 127.0.0.1 with random ports. Loopback is blocked by default, so most
// tests allow exactly the server's address and port, as an operator would with OUTBOUND_ALLOW_CIDRS.

afterEach(async () => {
  await closeServers();
});

function allowing(srvs: TestServer[], extra: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return outboundPolicy({ allowedPorts: [443, ...srvs.map((s) => s.port)], allowCidrs: ['127.0.0.1/32'], ...extra });
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

/** A promise and the function that settles it, for servers that wait on the test. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

const text = (chunk: Uint8Array | undefined): string => Buffer.from(chunk ?? []).toString();

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let out = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) out += text(r.value);
  return out;
}

describe('guardedModelFetch: requests and responses', () => {
  it('streams SSE chunk by chunk while the server still holds the response open', async () => {
    const release = signal();
    let ended = false;
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: one\n\n');
      void release.promise.then(() => {
        res.write('data: two\n\n');
        res.end('data: [DONE]\n\n');
        ended = true;
      });
    });
    const res = await guardedModelFetch(allowing([srv]))(srv.url('/v1/stream'));
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(text(first.value)).toBe('data: one\n\n');
    expect(ended).toBe(false);
    release.fire();
    expect(await readAll(reader)).toBe('data: two\n\ndata: [DONE]\n\n');
    expect(ended).toBe(true);
  });

  it('sends the method, headers and body, with its own User-Agent unless the caller set one', async () => {
    const srv = await startServer((_req, res) => res.end('ok'));
    const guarded = guardedModelFetch(allowing([srv]));
    const body = JSON.stringify({ model: 'm', messages: [] });
    await guarded(srv.url('/v1/chat?x=1'), {
      method: 'post',
      headers: { authorization: 'Bearer sk-1', 'x-api-key': 'key-2', 'content-type': 'application/json', host: 'evil.example', 'content-length': '1' },
      body,
    });
    await guarded(new URL(srv.url('/form')), { method: 'POST', headers: [['User-Agent', 'sdk/1.0']], body: new URLSearchParams({ a: '1' }) });
    await guarded(new Request(srv.url('/req'), { method: 'PUT', headers: new Headers({ 'x-api-key': 'key-3' }), body: new Uint8Array([104, 105]) }));

    const [chat, form, put] = srv.requests;
    expect(chat).toEqual({ method: 'POST', url: '/v1/chat?x=1', body, headers: expect.objectContaining({ authorization: 'Bearer sk-1', 'x-api-key': 'key-2', 'content-type': 'application/json' }) });
    expect(chat.headers).toEqual(
      expect.objectContaining({ host: `127.0.0.1:${srv.port}`, 'content-length': String(body.length), 'user-agent': outboundPolicy().userAgent, 'accept-encoding': 'gzip, deflate, br', connection: 'close' }),
    );
    expect(form).toEqual({ method: 'POST', url: '/form', body: 'a=1', headers: expect.objectContaining({ 'user-agent': 'sdk/1.0', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }) });
    expect(put).toEqual({ method: 'PUT', url: '/req', body: 'hi', headers: expect.objectContaining({ 'x-api-key': 'key-3' }) });
    expect(srv.connections).toBe(3);
  });

  it('gives a Response that res.json() and res.text() read, with the status, headers and URL', async () => {
    const srv = await startServer((req, res) => {
      res.writeHead(req.url === '/json' ? 200 : 404, 'Nothing Here', { 'content-type': 'application/json', 'x-request-id': 'r1' });
      res.end(JSON.stringify({ models: [{ name: 'llama3' }] }));
    });
    const guarded = guardedModelFetch(allowing([srv]));
    const res = await guarded(srv.url('/json'));
    expect(res.ok).toBe(true);
    expect(res.url).toBe(srv.url('/json'));
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await res.json()).toEqual({ models: [{ name: 'llama3' }] });

    const missing = await guarded(srv.url('/missing'));
    expect([missing.status, missing.statusText, missing.ok]).toEqual([404, 'Nothing Here', false]);
    expect(await missing.text()).toBe('{"models":[{"name":"llama3"}]}');
  });

  it('gives no body for a 204 or a HEAD', async () => {
    const srv = await startServer((req, res) => (req.method === 'HEAD' ? res.writeHead(200, { 'content-length': '10' }).end() : res.writeHead(204).end()));
    const guarded = guardedModelFetch(allowing([srv]));
    const empty = await guarded(srv.url('/'), { method: 'DELETE' });
    expect([empty.status, empty.body]).toEqual([204, null]);
    const head = await guarded(srv.url('/'), { method: 'HEAD' });
    expect([head.status, head.body, head.headers.get('content-length')]).toEqual([200, null, '10']);
  });

  it('decodes a gzip body and drops content-encoding and content-length', async () => {
    const packed = zlib.gzipSync(JSON.stringify({ hello: 'compressed world' }));
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(packed.length) });
      res.end(packed);
    });
    const res = await guardedModelFetch(allowing([srv]))(srv.url('/'));
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBeNull();
    expect(await res.json()).toEqual({ hello: 'compressed world' });
  });

  it('returns a 302 as is without following it', async () => {
    const target = await startServer((_req, res) => res.end('followed'));
    const srv = await startServer((_req, res) => res.writeHead(302, { location: target.url('/elsewhere'), 'content-length': '0' }).end());
    const res = await guardedModelFetch(allowing([srv, target]))(srv.url('/v1/models'), { headers: { authorization: 'Bearer sk-1' } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(target.url('/elsewhere'));
    expect(await res.text()).toBe('');
    expect(target.connections).toBe(0);
  });
});

describe('guardedModelFetch: the address policy', () => {
  it('refuses the loopback server without the allow-list, before any connection', async () => {
    const srv = await startServer((_req, res) => res.end('secret'));
    const policy = outboundPolicy({ allowedPorts: [srv.port] });
    const err = await failure(guardedModelFetch(policy)(srv.url('/v1/chat/completions'), { method: 'POST', body: '{}' }));
    expect(err.code).toBe('blocked');
    expect(err.message).toBe('127.0.0.1 is a loopback address (127.0.0.0/8)');

    const internal = await failure(guardedModelFetch(policy)('http://10.0.0.1:11434/api/chat'));
    expect(internal.code).toBe('blocked');

    // A name is checked by the socket's own lookup, on every address it resolves to.
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const viaName = await failure(guardedModelFetch(policy, { resolver })(`http://models.example.test:${srv.port}/`));
    expect(viaName.code).toBe('blocked');
    expect(viaName.message).toBe('models.example.test resolves to a blocked address: 127.0.0.1 is a loopback address (127.0.0.0/8)');
    expect(srv.connections).toBe(0);

    const allowed = await guardedModelFetch(allowing([srv]), { resolver })(`http://models.example.test:${srv.port}/`);
    expect(await allowed.text()).toBe('secret');
    expect(srv.requests[0].headers.host).toBe(`models.example.test:${srv.port}`);
  });

  it('refuses a port that is not allowed, and URLs with credentials or other schemes', async () => {
    const srv = await startServer((_req, res) => res.end('x'));
    const guarded = guardedModelFetch(allowing([srv], { allowedPorts: [443] }));
    const err = await failure(guarded(srv.url('/')));
    expect(err.code).toBe('blocked');
    expect(err.message).toBe(`port ${srv.port} is not allowed (allowed: 443)`);
    expect((await failure(guarded('https://user:pw@api.example.com/v1'))).code).toBe('blocked');
    expect((await failure(guarded('file:///etc/passwd'))).code).toBe('blocked');
    expect(srv.connections).toBe(0);
  });

  it('reports a refused connection as a network error', async () => {
    const srv = await startServer((_req, res) => res.end('x'));
    const policy = allowing([srv]);
    await srv.close();
    const err = await failure(guardedModelFetch(policy)(srv.url('/')));
    expect(err.code).toBe('network');
    expect(err.message).toBe(`connection refused by 127.0.0.1:${srv.port}`);
  });
});

describe('guardedModelFetch: limits', () => {
  it('errors the body once it passes maxBytes, and closes the connection', async () => {
    const closed = signal();
    let written = 0;
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
      res.on('close', closed.fire);
      pump();
    });
    const res = await guardedModelFetch(allowing([srv], { maxBytes: 1024 * 1024 }))(srv.url('/big'));
    expect(res.status).toBe(200);
    const err = await failure(res.text());
    expect(err.code).toBe('too_large');
    expect(err.message).toBe('response larger than 1048576 bytes');
    await closed.promise;
    expect(written).toBeLessThan(total);
  });

  it('refuses a Content-Length over maxBytes when the headers arrive', async () => {
    const srv = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.flushHeaders();
    });
    const err = await failure(guardedModelFetch(allowing([srv], { maxBytes: 1024 * 1024 }))(srv.url('/')));
    expect(err.code).toBe('too_large');
    expect(err.message).toBe('response larger than 1048576 bytes (Content-Length: 10485760)');
  });

  it('times out when the headers take longer than headersTimeoutMs', async () => {
    const closed = signal();
    const srv = await startServer((_req, res) => res.on('close', closed.fire)); // and never answers
    const started = Date.now();
    const err = await failure(guardedModelFetch(allowing([srv], { timeoutMs: 10_000 }), { headersTimeoutMs: 300 })(srv.url('/slow')));
    expect(err.code).toBe('timeout');
    expect(err.message).toBe(`127.0.0.1:${srv.port} timed out: no response headers within 300 ms`);
    expect(Date.now() - started).toBeLessThan(2000);
    await closed.promise;
  });

  it('errors the body when the server goes quiet for idleTimeoutMs, but not while the reader is the slow one', async () => {
    const srv = await startServer((req, res, s) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      if (req.url === '/quick') s.timers.push(setTimeout(() => res.end('data: two\n\n'), 50));
    });
    const guarded = guardedModelFetch(allowing([srv]), { headersTimeoutMs: 5000, idleTimeoutMs: 300 });

    const quiet = (await guarded(srv.url('/quiet'))).body!.getReader();
    expect(text((await quiet.read()).value)).toBe('data: one\n\n');
    const err = await failure(quiet.read());
    expect(err.code).toBe('timeout');
    expect(err.message).toBe(`127.0.0.1:${srv.port} timed out: nothing received for 300 ms`);

    // The reader asks for more, the server sends it, then the reader takes its time.
    const slow = (await guarded(srv.url('/quick'))).body!.getReader();
    expect(text((await slow.read()).value)).toBe('data: one\n\n');
    await new Promise((r) => setTimeout(r, 600));
    expect(await readAll(slow)).toBe('data: two\n\n');
  });
});

describe('guardedModelFetch: aborting', () => {
  /** A server that sends the headers and one event, then holds the response open; `closed` fires when the client goes. */
  async function holdingServer(headers = true): Promise<{ srv: TestServer; closed: Promise<void>; received: Promise<void> }> {
    const closed = signal();
    const received = signal();
    const srv = await startServer((_req, res) => {
      res.on('close', closed.fire);
      received.fire();
      if (headers) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
      }
    });
    return { srv, closed: closed.promise, received: received.promise };
  }

  it('mid-stream: the server sees the connection close and the body errors with an AbortError', async () => {
    const { srv, closed } = await holdingServer();
    const controller = new AbortController();
    const res = await guardedModelFetch(allowing([srv]))(srv.url('/'), { signal: controller.signal });
    const reader = res.body!.getReader();
    expect(text((await reader.read()).value)).toBe('data: one\n\n');
    controller.abort();
    await closed;
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('while waiting for the headers: rejects with the signal reason and closes the connection', async () => {
    const { srv, closed, received } = await holdingServer(false);
    const controller = new AbortController();
    const pending = guardedModelFetch(allowing([srv]))(srv.url('/'), { signal: controller.signal });
    await received;
    const reason = new Error('the user went away');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed;
  });

  it('before the request: rejects without connecting', async () => {
    const { srv } = await holdingServer();
    await expect(guardedModelFetch(allowing([srv]))(srv.url('/'), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(srv.connections).toBe(0);
  });
});

describe('guardedModelFetch: the OpenAI SDK', () => {
  const chunk = (content: string, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

  it('streams a chat completion through it, and a 401 is an AuthenticationError', async () => {
    const srv = await startServer((req, res) => {
      if (req.headers.authorization !== 'Bearer k') {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Hel'));
      res.write(chunk('lo'));
      res.write(chunk('', 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const fetch = guardedModelFetch(allowing([srv]));
    const client = new OpenAI({ apiKey: 'k', baseURL: srv.url('/v1'), fetch, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const parts: string[] = [];
    for await (const part of stream) parts.push(part.choices[0]?.delta?.content ?? '');
    expect(parts.join('')).toBe('Hello');
    expect(srv.requests[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(JSON.parse(srv.requests[0].body)).toMatchObject({ model: 'm', stream: true });

    const wrongKey = new OpenAI({ apiKey: 'wrong', baseURL: srv.url('/v1'), fetch, maxRetries: 0 });
    const err = await wrongKey.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
  });
});
