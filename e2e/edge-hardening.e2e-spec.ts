import { randomBytes, randomUUID } from 'node:crypto';
import { request } from './support/api';
import { SpawnedApp, spawnApp, waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { errorOf, INITIALIZE, mcpConnect, mcpPost } from './support/mcp';
import { jsonOf, rawHttp } from './support/raw-http';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { newWidgetSession } from './support/widget';

/**
 * The public HTTP edges from outside (issue 14): content types, repeated Authorization headers,
 * security headers, OPTIONS and CORS, lone UTF-16 surrogates, deep nesting and reserved member
 * names, and every refusal counting toward the caller's rate limit. The slow-body and
 * connection-cap behaviour is in e2e/slow-body.e2e-spec.ts.
 */
describe('public edge hardening (issue 14)', () => {
  const s = e2eState();
  const widget = (botId: string, path: string) => `${s.gatewayUrl}/widget/v1/bots/${botId}/${path}`;
  const deep = (levels: number) => `{"message":${'['.repeat(levels)}"x"${']'.repeat(levels)}}`;
  let ws: TestWorkspace;
  let bot: string;

  beforeAll(async () => {
    ws = await newWorkspace(['--plan', 'scale']);
    bot = (await ws.api.post('/bots', { name: `Edge ${randomBytes(2).toString('hex')}` })).body.data.id;
  });

  /** Starts an extra replica with its own env and waits for its health endpoint. */
  async function replica(app: 'gateway' | 'mcp', env: Record<string, string>): Promise<{ url: string; app: SpawnedApp }> {
    const port = await freePort();
    const portVar = app === 'gateway' ? 'GATEWAY_PORT' : 'MCP_PORT';
    const spawned = spawnApp(app, { [portVar]: String(port), RATE_LIMIT_PREFIX: `${s.rateLimitPrefix}edge-${randomBytes(3).toString('hex')}:`, ...env });
    await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 20000);
    return { url: `http://127.0.0.1:${port}`, app: spawned };
  }

  describe('only application/json bodies (item 2)', () => {
    it('a cross-site form post to a widget route is 400 and creates nothing', async () => {
      const name = `Form ${randomBytes(3).toString('hex')}`;
      const form = await rawHttp(widget(bot, 'bookings'), {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: `name=${encodeURIComponent(name)}&email=x%40x.co&phone=1234567`,
      });
      expect(form.status).toBe(400);
      expect(jsonOf(form)).toEqual({ error: 'Bad Request', code: 'bad_request', message: expect.stringContaining('application/json') });
      const bookings = (await ws.api.get('/bookings')).body.data;
      expect(bookings.some((b: any) => b.name === name)).toBe(false);
    });

    it.each([
      ['application/x-www-form-urlencoded', 'message=hi'],
      ['text/plain', '{"message":"hi"}'],
      ['text/plain;charset=UTF-8', '{"message":"hi"}'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi\r\n--x--'],
      ['application/merge-patch+json', '{"message":"hi"}'],
    ])('%s is refused with 400 on /v1, the widget and /mcp', async (contentType, body) => {
      const targets: { url: string; headers: Record<string, string> }[] = [
        { url: `${s.baseUrl}/chat`, headers: { authorization: `Bearer ${ws.token}` } },
        { url: widget(bot, 'chat'), headers: {} },
        { url: s.mcpUrl, headers: { authorization: `Bearer ${ws.token}`, accept: 'application/json, text/event-stream' } },
      ];
      for (const t of targets) {
        const res = await rawHttp(t.url, { method: 'POST', headers: { ...t.headers, 'content-type': contentType }, body });
        expect([t.url, res.status]).toEqual([t.url, 400]);
        expect(jsonOf(res)).toEqual(expect.objectContaining({ code: 'bad_request' }));
      }
    });

    it('application/json with a charset is accepted, and the official MCP client still works', async () => {
      const res = await request('POST', '', { sessionId: await newWidgetSession(bot), reason: 'charset' }, { baseUrl: widget(bot, 'handoff'), headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(res.status).toBe(200);
      const mcp = await mcpConnect(ws.token);
      try {
        expect(errorOf(await mcp.call('list_bots'))).toBeUndefined();
      } finally {
        await mcp.close();
      }
    });
  });

  describe('repeated Authorization headers (item 5)', () => {
    it('are 400 on /v1 and /mcp, whichever comes first', async () => {
      const other = await newWorkspace();
      for (const pair of [[`Bearer ${ws.token}`, `Bearer ${other.token}`], [`Bearer mgpt_${'x'.repeat(43)}`, `Bearer ${ws.token}`]]) {
        const rest = await rawHttp(`${s.baseUrl}/bots`, { headers: { authorization: pair } });
        expect(rest.status).toBe(400);
        expect(jsonOf(rest)).toEqual({ error: 'Bad Request', code: 'bad_request', message: expect.stringMatching(/Authorization/) });
        const mcp = await rawHttp(s.mcpUrl, {
          method: 'POST',
          headers: { authorization: pair, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(INITIALIZE),
        });
        expect(mcp.status).toBe(400);
        expect(jsonOf(mcp)).toEqual(expect.objectContaining({ code: 'bad_request' }));
      }
      // One header still works.
      expect((await rawHttp(`${s.baseUrl}/bots`, { headers: { authorization: `Bearer ${ws.token}` } })).status).toBe(200);
    });
  });

  describe('response headers, OPTIONS and CORS (item 6)', () => {
    it('nosniff on every response; no-store on JSON answers and errors; the SSE stream keeps its own cache-control', async () => {
      const responses = {
        leads: await ws.api.get('/leads'),
        conversations: await ws.api.get('/conversations'),
        unauthorized: await request('GET', '/leads'),
        notFound: await ws.api.get('/nothing-here'),
        invalid: await ws.api.post('/bots', { name: '' }),
        widgetNotFound: await request('POST', '', { message: 'hi' }, { baseUrl: widget(randomUUID(), 'chat') }),
      };
      for (const [name, res] of Object.entries(responses)) {
        expect([name, res.headers.get('x-content-type-options'), res.headers.get('cache-control')]).toEqual([name, 'nosniff', 'no-store']);
      }
      const mcp = await mcpPost(INITIALIZE, { authorization: `Bearer ${ws.token}` });
      expect(mcp.status).toBe(200);
      expect(mcp.headers.get('x-content-type-options')).toBe('nosniff');
      const mcp401 = await mcpPost(INITIALIZE);
      expect([mcp401.status, mcp401.headers.get('x-content-type-options'), mcp401.headers.get('cache-control')]).toEqual([401, 'nosniff', 'no-store']);
      // The API descriptions stay cacheable.
      const openapi = await request('GET', '/openapi.json');
      expect([openapi.headers.get('x-content-type-options'), openapi.headers.get('cache-control')]).toEqual(['nosniff', 'public, max-age=300']);
      const stream = await postSse('/chat', { message: 'hello there', chatbotId: bot }, ws.token);
      expect(stream.status).toBe(200);
      expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
      expect(stream.headers.get('cache-control')).toBe('no-cache, no-transform');
    });

    it('OPTIONS answers 204 with Allow (404 for unknown paths), and grants no origin by default', async () => {
      const preflight = { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' };
      const cases: [string, string[]][] = [
        [`${s.baseUrl}/bots`, ['GET', 'POST', 'OPTIONS']],
        [`${s.baseUrl}/bookings/${randomUUID()}`, ['GET', 'PATCH', 'OPTIONS']],
        [`${s.baseUrl}/chat`, ['POST', 'OPTIONS']],
        [widget(bot, 'bookings'), ['POST', 'OPTIONS']],
        [s.mcpUrl, ['POST', 'OPTIONS']],
      ];
      for (const [url, methods] of cases) {
        const res = await rawHttp(url, { method: 'OPTIONS', headers: preflight });
        expect([url, res.status]).toEqual([url, 204]);
        const allow = String(res.headers['allow']).split(/,\s*/);
        expect(allow).toEqual(expect.arrayContaining(methods));
        // The widget's CORS is per bot (issue 18): a bot without allowed origins grants every origin.
        expect(res.headers['access-control-allow-origin']).toBe(url.includes('/widget/') ? preflight.origin : undefined);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
      const unknown = await rawHttp(`${s.baseUrl}/nothing-here`, { method: 'OPTIONS' });
      expect(unknown.status).toBe(404);
      expect(jsonOf(unknown)).toEqual(expect.objectContaining({ code: 'not_found' }));
      const get = await ws.api.get('/bots', { origin: 'https://evil.example' });
      expect(get.status).toBe(200);
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
    });

    describe('with CORS_ALLOWED_ORIGINS', () => {
      const allowed = 'https://app.example.com';
      let gw: { url: string; app: SpawnedApp };
      let mcp: { url: string; app: SpawnedApp };
      beforeAll(async () => {
        [gw, mcp] = await Promise.all([replica('gateway', { CORS_ALLOWED_ORIGINS: `${allowed}, https://other.example.org` }), replica('mcp', { CORS_ALLOWED_ORIGINS: allowed })]);
      });
      afterAll(async () => {
        await Promise.all([gw?.app.kill(), mcp?.app.kill()]);
      });

      it('answers preflights and grants the listed origins only, on /v1 and /mcp; the widget per bot', async () => {
        const pre = await rawHttp(`${gw.url}/v1/bots`, { method: 'OPTIONS', headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
        expect(pre.status).toBe(204);
        expect(pre.headers['access-control-allow-origin']).toBe(allowed);
        expect(String(pre.headers['vary'])).toMatch(/origin/i);
        expect(String(pre.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST']));
        expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toEqual(expect.stringContaining('authorization'));
        expect(pre.headers['access-control-allow-credentials']).toBeUndefined();

        const get = await request('GET', '/bots', undefined, { token: ws.token, baseUrl: `${gw.url}/v1`, headers: { origin: allowed } });
        expect(get.status).toBe(200);
        expect(get.headers.get('access-control-allow-origin')).toBe(allowed);
        const exposed = (get.headers.get('access-control-expose-headers') ?? '').toLowerCase();
        for (const h of ['x-session-id', 'x-chatbot-id', 'x-request-id', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(exposed).toContain(h);

        const evil = await request('GET', '/bots', undefined, { token: ws.token, baseUrl: `${gw.url}/v1`, headers: { origin: 'https://evil.example' } });
        expect(evil.headers.get('access-control-allow-origin')).toBeNull();
        const evilPre = await rawHttp(`${gw.url}/v1/bots`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
        expect([evilPre.status, evilPre.headers['access-control-allow-origin']]).toEqual([204, undefined]);

        // The widget routes follow their bot's allowed origins (issue 18), not CORS_ALLOWED_ORIGINS: this bot lists none, so every origin.
        const widgetPre = await rawHttp(`${gw.url}/widget/v1/bots/${bot}/chat`, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' } });
        expect([widgetPre.status, widgetPre.headers['access-control-allow-origin'], widgetPre.headers['access-control-allow-methods']]).toEqual([204, 'https://elsewhere.example', 'GET, POST']);

        const mcpPre = await rawHttp(`${mcp.url}/mcp`, { method: 'OPTIONS', headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });
        expect([mcpPre.status, mcpPre.headers['access-control-allow-origin']]).toEqual([204, allowed]);
        expect(String(mcpPre.headers['access-control-allow-headers']).toLowerCase()).toContain('mcp-protocol-version');
        const init = await mcpPost(INITIALIZE, { authorization: `Bearer ${ws.token}`, origin: allowed }, `${mcp.url}/mcp`);
        expect(init.status).toBe(200);
        expect(init.headers.get('access-control-allow-origin')).toBe(allowed);
      });
    });
  });

  describe('lone UTF-16 surrogates (item 7)', () => {
    const issueAt = (body: any) => body?.error?.issues?.[0];

    it('a chat message with one is a validation 400 on /v1/chat and the widget, and costs no quota', async () => {
      const small = await newWorkspace(['--plan', 'growth', '--messages-per-month', '1']);
      const chat = await small.api.post('/chat', { message: 'hi \ud800 there', sessionId: 'surrogate-api' });
      expect(chat.status).toBe(400);
      expect(chat.body).toEqual({ success: false, error: expect.objectContaining({ name: 'ValidationError', issues: [expect.objectContaining({ code: 'invalid_string', path: ['body', 'message'] })] }) });
      const viaWidget = await request('POST', '', { message: 'lonely \udc00 low' }, { baseUrl: widget(bot, 'chat') });
      expect(viaWidget.status).toBe(400);
      expect(issueAt(viaWidget.body)).toEqual(expect.objectContaining({ code: 'invalid_string', path: ['body', 'message'] }));
      // The one message of the month is still there.
      const ok = await postSse('/chat', { message: 'hello, a real question' }, small.token);
      expect(ok.status).toBe(200);
      expect((await small.api.get('/conversations')).body.data.some((c: any) => c.session_id === 'surrogate-api')).toBe(false);
    });

    it('is refused in names, reasons, session ids and map keys (never 500); a proper emoji pair is fine', async () => {
      const cases: [string, string, unknown, (string | number)[]][] = [
        ['/v1/bots', `${s.baseUrl}/bots`, { name: 'Bot \ud83d' }, ['body', 'name']],
        ['handoff reason', widget(bot, 'handoff'), { sessionId: 'edge-s', reason: 'x\udfff' }, ['body', 'reason']],
        ['handoff session', widget(bot, 'handoff'), { sessionId: 'edge-\ud800' }, ['body', 'sessionId']],
        ['booking customFields key', widget(bot, 'bookings'), { name: 'Ann', email: 'ann@example.com', phone: '+44 20 7946 0000', customFields: { 'k\ud800': 'v' } }, ['body', 'customFields', 'k\ud800']],
      ];
      for (const [name, url, body, path] of cases) {
        const res = await request('POST', '', body, { baseUrl: url, token: ws.token });
        expect([name, res.status]).toEqual([name, 400]);
        expect(issueAt(res.body)).toEqual(expect.objectContaining({ code: 'invalid_string', path }));
      }
      const emoji = await ws.api.post('/bots', { name: `Bot 😀 ${randomBytes(2).toString('hex')}` });
      expect(emoji.status).toBe(201);
    });

    it('cannot arrive through a path or query string (invalid UTF-8 there stays a 400 or plain text)', async () => {
      const path = await ws.api.get('/conversations/%ED%A0%80');
      expect(path.status).toBe(400);
      const query = await ws.api.get('/conversations?q=%ED%A0%80');
      expect(query.status).toBeLessThan(500);
    });

    it('MCP tool arguments with one get a validation tool error', async () => {
      const mcp = await mcpConnect(ws.token);
      try {
        for (const [tool, args] of [['ask_bot', { message: 'hi \ud800' }], ['list_conversations', { q: '\udc00' }]] as const) {
          const err = errorOf(await mcp.call(tool, args));
          expect([tool, err?.status, err?.code]).toEqual([tool, 400, 'validation_failed']);
        }
      } finally {
        await mcp.close();
      }
    });
  });

  describe('deep nesting and reserved member names (item 8)', () => {
    it('bodies nested deeper than the limit are 400 (not 500), with or without a token, on every edge', async () => {
      for (const levels of [33, 3000]) {
        const api = await request('POST', '/chat', undefined, { token: ws.token, rawBody: deep(levels), headers: { 'content-type': 'application/json' } });
        expect([levels, api.status]).toEqual([levels, 400]);
        expect(api.body).toEqual(expect.objectContaining({ code: 'bad_request', message: expect.stringMatching(/nested/) }));
        const viaWidget = await request('POST', '', undefined, { baseUrl: widget(bot, 'chat'), rawBody: deep(levels), headers: { 'content-type': 'application/json' } });
        expect(viaWidget.status).toBe(400);
        const mcp = await rawHttp(s.mcpUrl, {
          method: 'POST',
          headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_bot","arguments":${deep(levels)}}}`,
        });
        expect(mcp.status).toBe(400);
      }
      // 32 levels is within the limit: an ordinary validation error, not a refusal of the body.
      const within = await request('POST', '/chat', undefined, { token: ws.token, rawBody: deep(31), headers: { 'content-type': 'application/json' } });
      expect(within.status).toBe(400);
      expect(within.body.success).toBe(false);
    });

    it('constructor, __proto__ and other Object.prototype names as members are 400, never 500; ordinary custom fields are kept', async () => {
      const booking = (customFields: string) =>
        request('POST', '', undefined, { baseUrl: widget(bot, 'bookings'), rawBody: `{"name":"Ann","email":"ann@example.com","phone":"+44 20 7946 0000","customFields":${customFields}}`, headers: { 'content-type': 'application/json' } });
      for (const fields of ['{"constructor":"x"}', '{"toString":"x"}', '{"prototype":"x"}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}', '{"a":{"b":"c"}}', '{"a":1}']) {
        const res = await booking(fields);
        expect([fields, res.status]).toEqual([fields, 400]);
      }
      const top = await request('POST', '/bots', undefined, { token: ws.token, rawBody: '{"name":"Top","constructor":"x"}', headers: { 'content-type': 'application/json' } });
      expect(top.status).toBe(400);
      const ok = await booking('{"plan":"pro","seats":"12"}');
      expect(ok.status).toBe(201);
      expect(ok.body.data.custom_fields).toEqual({ plan: 'pro', seats: '12' });
    });

    describe('every refusal counts toward the caller’s rate limit', () => {
      let gw: { url: string; app: SpawnedApp };
      let mcp: { url: string; app: SpawnedApp };
      const limits = { ANONYMOUS_RATE_LIMIT_REQUESTS: '4', WIDGET_RATE_LIMIT_REQUESTS: '4', RATE_LIMIT_REQUESTS: '4', RATE_LIMIT_WINDOW_SECONDS: '60' };
      beforeAll(async () => {
        [gw, mcp] = await Promise.all([replica('gateway', limits), replica('mcp', limits)]);
      });
      afterAll(async () => {
        await Promise.all([gw?.app.kill(), mcp?.app.kill()]);
      });

      const statuses = async (n: number, send: () => Promise<{ status: number }>) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await send()).status);
        return out;
      };

      it('anonymous: deep bodies on /v1/chat, then 429 with Retry-After', async () => {
        const send = () => rawHttp(`${gw.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep(3000), localAddress: '127.0.0.11' });
        expect(await statuses(4, send)).toEqual([400, 400, 400, 400]);
        const limited = await send();
        expect(limited.status).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
        expect(jsonOf(limited)).toEqual(expect.objectContaining({ code: 'rate_limited' }));
      });

      it('widget: invalid bodies count per client address before validation', async () => {
        const send = () => rawHttp(`${gw.url}/widget/v1/bots/${bot}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":', localAddress: '127.0.0.12' });
        expect(await statuses(4, send)).toEqual([400, 400, 400, 400]);
        expect((await send()).status).toBe(429);
      });

      it('a token: malformed bodies count toward its budget', async () => {
        const t = await newWorkspace();
        const send = () => rawHttp(`${gw.url}/v1/bots`, { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' }, body: '{"name":' });
        const first = await send();
        expect(first.status).toBe(400);
        expect(first.headers['x-ratelimit-remaining']).toBe('3');
        expect(await statuses(3, send)).toEqual([400, 400, 400]);
        expect((await send()).status).toBe(429);
      });

      it('MCP without a token: 401s count per client address, then 429', async () => {
        const send = () =>
          rawHttp(`${mcp.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(INITIALIZE), localAddress: '127.0.0.13' });
        expect(await statuses(4, send)).toEqual([401, 401, 401, 401]);
        expect((await send()).status).toBe(429);
      });
    });
  });
});
