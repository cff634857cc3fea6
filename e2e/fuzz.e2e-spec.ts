import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { request } from './support/api';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { errorOf, mcpConnect, McpSession } from './support/mcp';
import { checkErrorBody, deeplyNested, FuzzContext, FuzzRequest, fuzzerFor, NON_JSON_TYPES, Operation, operationsOf, runPool } from './support/openapi-fuzz';
import { e2eState } from './support/state';
import { newWidgetSession } from './support/widget';

/**
 * Input fuzzing of the three public surfaces from their own descriptions: the REST API from its
 * OpenAPI document (libs/sdk/openapi.json, what GET /v1/openapi.json serves), the widget API from
 * GET /widget/v1/openapi.json, and the MCP tools from their input schemas (tools/list).
 * fast-check generates valid requests and invalid ones (wrong types, oversized and unicode-edge
 * strings, lone surrogates, unknown fields, keys such as __proto__, malformed and deeply nested
 * JSON, other content types, bad tokens). Every answer must have a status the document lists and,
 * for errors, one of the spec's error bodies; no 5xx; nothing lost (every chat turn answered is
 * stored); and the system keeps serving. Targeted sweeps then send a lone surrogate in every
 * string member, 5,000 levels of nesting and every non-JSON content type to every operation.
 * FUZZ_REQUESTS sets the size (CI: 10,000 REST requests, a quarter of that for the widget and a
 * tenth for MCP; `npm run fuzz`: 100,000), FUZZ_SEED replays a run.
 */
const restDoc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'libs', 'sdk', 'openapi.json'), 'utf8'));
const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 10000);
const SEED = Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31);
const CONCURRENCY = 16;
const SURROGATE = 'hi \ud800 there';
const BODY_LIMIT = 2 * 1024 * 1024;

interface Outcome {
  failures: string[];
  seen: Map<string, number>;
  /** Chat turns answered 200 whose stream ended with finish_reason "stop". */
  chatTurns: number;
}

/** The finish_reason of a chat stream's last frame (spec: every frame is `data: <json>` with choices[0].delta.content). */
function finishOf(stream: string): string | null {
  const frames = stream.split('\n\n').filter((f) => f.startsWith('data: '));
  const last = frames.length ? JSON.parse(frames[frames.length - 1].slice(6)) : null;
  return last?.choices?.[0]?.finish_reason ?? null;
}

/** Sends the requests to `base` and checks every answer against the document's operations. */
async function fire(base: string, requests: FuzzRequest[], operations: Operation[], chatOps: Set<string>): Promise<Outcome> {
  const statusOf = new Map(operations.map(({ route, method, op }) => [`${method.toUpperCase()} ${route}`, new Set(Object.keys(op.responses).map(Number))]));
  const out: Outcome = { failures: [], seen: new Map(), chatTurns: 0 };
  const done = await runPool(
    requests,
    CONCURRENCY,
    async (r) => {
      try {
        const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(15000) });
        const status = res.status;
        const text = await res.text();
        out.seen.set(`${r.op} ${status}`, (out.seen.get(`${r.op} ${status}`) ?? 0) + 1);
        const problem = (why: string) => out.failures.push(`${r.method} ${r.path.slice(0, 120)} [${JSON.stringify(r.headers).slice(0, 80)}] body ${JSON.stringify((r.body ?? '').slice(0, 120))} → ${status}: ${why}: ${text.slice(0, 200)}`);
        if (status >= 500) return problem('server error');
        if (!statusOf.get(r.op)!.has(status)) return problem('status not documented for this operation');
        if (status >= 400) {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            return problem('error body is not JSON');
          }
          const bad = checkErrorBody(body);
          if (bad) problem(bad);
        } else if (chatOps.has(r.op)) {
          if (!/^text\/event-stream/.test(res.headers.get('content-type') ?? '')) return problem('chat answer is not an event stream');
          const finish = finishOf(text);
          if (finish !== 'stop') return problem(`chat stream ended with finish_reason ${finish}`);
          out.chatTurns++;
        } else if (!r.op.endsWith('/openapi.json') && !('data' in (JSON.parse(text) as object))) problem('success body without data');
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        // Over the body limit (BODY_LIMIT_BYTES, 2 MiB) the gateway answers 400 and closes without
        // reading the rest, so a client still writing may see the connection close instead.
        if ((r.body?.length ?? 0) > BODY_LIMIT && ['EPIPE', 'ECONNRESET'].includes(cause?.code ?? '')) return;
        out.failures.push(`${r.method} ${r.path.slice(0, 120)} (body ${r.body?.length ?? 0} bytes) → transport error ${(err as Error).message} ${cause?.code ?? ''} ${cause?.message ?? ''}`);
      }
    },
    () => out.failures.length >= 25,
  );
  if (!out.failures.length) expect(done).toBe(requests.length);
  return out;
}

/** Every operation was exercised with successes and with errors. */
function expectCoverage(operations: Operation[], seen: Map<string, number>, rare: string[]): void {
  for (const { route, method } of operations) {
    const key = `${method.toUpperCase()} ${route}`;
    if (route.endsWith('/openapi.json')) continue;
    const statuses = [...seen.keys()].filter((k) => k.startsWith(`${key} `)).map((k) => Number(k.split(' ').pop()));
    expect([key, rare.includes(key) ? true : statuses.some((st) => st < 300), statuses.some((st) => st >= 400)]).toEqual([key, true, true]);
  }
}

describe(`fuzzing the REST API, the widget API and the MCP tools (${REQUESTS} requests, seed ${SEED})`, () => {
  const s = e2eState();
  let ws: TestWorkspace;
  let ctx: FuzzContext;
  let bot: string;
  let widgetDoc: any;
  let mcp: McpSession;

  /** User messages stored in the workspace (analytics, last 30 days): the count of chat turns saved. */
  const storedTurns = async (): Promise<number> => {
    const res = await ws.api.get('/analytics');
    return (res.body.data.daily as { user_messages: number }[]).reduce((n, d) => n + d.user_messages, 0);
  };

  beforeAll(async () => {
    ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000000', '--pages-per-bot', '100000']);
    bot = (await ws.api.post('/bots', { name: 'Fuzz bot' })).body.data.id;
    const sessions = [await newWidgetSession(bot), await newWidgetSession(bot)];
    const booking = (await request('POST', `/widget/v1/bots/${bot}/bookings`, { sessionId: sessions[0], name: 'F', email: 'f@example.com', phone: '+1 555 0100', requestedSlot: '2027-01-01T10:00:00Z' }, { baseUrl: s.gatewayUrl })).body.data.id;
    await ws.api.post('/chat', { message: 'hello', chatbotId: bot, sessionId: 'fuzz-session' });
    // An assistant message of the first widget session, for the widget's feedback route.
    await fetch(`${s.gatewayUrl}/widget/v1/bots/${bot}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello', sessionId: sessions[0] }) }).then((r) => r.text());
    const answer = (await ws.api.get(`/conversations/${sessions[0]}`)).body.data.find((m: { role: string }) => m.role === 'assistant').id;
    // Repeats make the ids and the session that fit together likelier.
    ctx = { ids: [bot, booking, ws.id, answer, answer], sessions: [sessions[0], sessions[0], sessions[1], 'fuzz-session'], blockedUrl: `http://127.0.0.1:${await freePort()}/nothing-here` };
    widgetDoc = (await request('GET', '/widget/v1/openapi.json', undefined, { baseUrl: s.gatewayUrl })).body;
    mcp = await mcpConnect(ws.token);
  });

  afterAll(async () => {
    await mcp?.close();
  });

  describe('what fuzzing found (regressions)', () => {
    it('a session id that is not printable ASCII still gets its stream; X-Session-Id is percent-encoded', async () => {
      const res = await fetch(`${s.gatewayUrl}/v1/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello', sessionId: 'é😀 tab\there' }),
        signal: AbortSignal.timeout(10000),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-session-id')).toBe(encodeURIComponent('é😀 tab\there'));
      expect(await res.text()).toMatch(/^data: /);
    });

    it('an over-long path segment or URL is a 400 in the spec error body', async () => {
      const seg = await fetch(`${s.gatewayUrl}/v1/bookings/${'a'.repeat(3000)}`, { headers: { authorization: `Bearer ${ws.token}` } });
      expect([seg.status, await seg.json()]).toEqual([400, expect.objectContaining({ code: 'bad_request', message: expect.any(String) })]);
      const url = await fetch(`${s.gatewayUrl}/v1/kb?chatbotId=${'%E6%97%A5'.repeat(3000)}`, { headers: { authorization: `Bearer ${ws.token}` } });
      expect([url.status, await url.json()]).toEqual([400, expect.objectContaining({ code: 'bad_request' })]);
    });
  });

  it('REST: every request gets a documented status and a spec error body; never 5xx; every answered chat turn is stored; keeps serving', async () => {
    const before = await storedTurns();
    const operations = operationsOf(restDoc);
    const f = fuzzerFor(restDoc);
    const auth = fc.oneof(
      { weight: 12, arbitrary: fc.constant<string | undefined>(`Bearer ${ws.token}`) },
      { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, '', 'Bearer', `Basic ${ws.token}`, `Bearer mgpt_${'A'.repeat(43)}`, 'Bearer \u00ff\u00fe', `Bearer ${ws.token}x`) },
    );
    // Chat turns are the slow ones: fewer of them. A chat succeeds only with the bot's id (one uuid in
    // ten), a session of its own and no action_confirmation (a 409 without a pending action): at one
    // request in ~90, seed 715985655 answered none of its ~110 chats in CI. Chats that can only name
    // this bot and the REST session keep answered ones all but certain; the rest still get their 4xx.
    const chatOp = operations.find((o) => o.method.toUpperCase() === 'POST' && o.route === '/chat')!;
    const arb = fc.oneof(
      ...operations.map((o) => ({ weight: o.route === '/chat' ? 1 : 4, arbitrary: f.operationArb(o, ctx, auth) })),
      { weight: 3, arbitrary: f.operationArb(chatOp, { ...ctx, ids: [bot], sessions: ['fuzz-session'] }, auth) },
    );
    const out = await fire(`${s.gatewayUrl}/v1`, fc.sample(arb, { numRuns: REQUESTS, seed: SEED }), operations, new Set(['POST /chat']));

    expect(out.failures).toEqual([]);
    // A booking leaves the states that accept actions after a few changes: PATCH successes are rare.
    expectCoverage(operations, out.seen, REQUESTS >= 5000 ? [] : ['PATCH /bookings/{id}']);
    if (REQUESTS >= 5000) expect(out.chatTurns).toBeGreaterThan(0);
    expect(await storedTurns()).toBe(before + out.chatTurns);
    expect((await ws.api.get('/bots')).status).toBe(200);
    expect((await fetch(`${s.gatewayUrl}/readyz`)).status).toBe(200);
  }, 900000);

  it('widget: every request gets a documented status and a spec error body; never 5xx; every answered chat turn is stored', async () => {
    const before = await storedTurns();
    const operations = operationsOf(widgetDoc);
    const f = fuzzerFor(widgetDoc);
    // No token on the widget; a stray Authorization header changes nothing.
    const auth = fc.oneof({ weight: 12, arbitrary: fc.constant<string | undefined>(undefined) }, { weight: 1, arbitrary: fc.constant<string | undefined>(`Bearer ${ws.token}`) });
    // Every widget route names the bot in its path, and a chat succeeds only with the bot, a
    // session of that bot and a valid body: at one chat in 29 and one bot id in 6, a seed of the CI
    // size hit none about one run in five (seed 185771562). The bot id in half the paths and three
    // times the chats make a success all but certain, and the other ids still get their 404s.
    const botCtx = { ...ctx, ids: [bot, bot, bot, ...ctx.ids] };
    // A booking succeeds only with the bot, a valid e-mail and phone, a real future slot and no odd
    // map key: twice the bookings keep a success all but certain (seed 579467219 had none).
    const weightOf = (route: string) => (route.endsWith('/chat') ? 3 : route.endsWith('/bookings') ? 8 : 4);
    // Since a chat body may carry an `action_confirmation` (issue 34), about half the valid chat
    // bodies are a 409 (no such pending action), and a CI-size seed got no answered chat at all
    // (seed 690530457: 0 of 135). More chats with only this bot's id in their path keep the
    // answered ones all but certain (7 to 12 in a CI-size run) while the rest still get every error.
    const chatOp = operations.find((o) => o.method.toUpperCase() === 'POST' && o.route.endsWith('/chat'))!;
    const arb = fc.oneof(
      ...operations.map((o) => ({ weight: weightOf(o.route), arbitrary: f.operationArb(o, botCtx, auth) })),
      { weight: 6, arbitrary: f.operationArb(chatOp, { ...ctx, ids: [bot] }, auth) },
    );
    const out = await fire(`${s.gatewayUrl}/widget/v1`, fc.sample(arb, { numRuns: Math.ceil(REQUESTS / 4), seed: SEED }), operations, new Set(['POST /bots/{botId}/chat']));

    expect(out.failures).toEqual([]);
    // Feedback succeeds only for an id and a session that fit together, in a body valid in every
    // member: rare enough that some seeds of the CI size (2,500 widget requests) never hit it.
    // Required from `npm run fuzz`'s size on; the widget suite checks a valid feedback directly.
    // Identify succeeds only with the HMAC of its externalUserId under the bot's secret (issue 18),
    // which random bodies never hit; e2e/widget-settings checks a valid identify directly.
    expectCoverage(operations, out.seen, [...(REQUESTS >= 50000 ? [] : ['POST /bots/{botId}/feedback']), 'POST /bots/{botId}/identify']);
    if (REQUESTS >= 5000) expect(out.chatTurns).toBeGreaterThan(0);
    expect(await storedTurns()).toBe(before + out.chatTurns);
  }, 900000);

  it('MCP: every tool call with generated arguments is a result or a JSON-RPC error, never a server error', async () => {
    const { tools } = await mcp.client.listTools();
    const f = fuzzerFor({});
    const arb = fc.oneof(
      ...tools.map((t) => ({
        weight: t.name === 'ask_bot' || t.name === 'add_knowledge' ? 1 : 4,
        arbitrary: fc.tuple(
          fc.constant(t.name),
          fc.oneof(
            { weight: 3, arbitrary: f.valid(t.inputSchema, ctx) },
            { weight: 2, arbitrary: fc.tuple(f.valid(t.inputSchema, ctx), fc.constantFrom(...Object.keys(t.inputSchema.properties ?? { x: 1 }), 'unknownField'), f.invalid({})).map(([a, k, bad]) => ({ ...(a as object), [k]: bad })) },
          ),
        ),
      })),
    );
    const calls = fc.sample(arb, { numRuns: Math.ceil(REQUESTS / 10), seed: SEED });
    const failures: string[] = [];
    const outcomes = new Map<string, Set<string>>();
    await runPool(
      calls,
      4,
      async ([name, args]) => {
        const note = (o: string) => outcomes.set(name, (outcomes.get(name) ?? new Set()).add(o));
        try {
          const result = await mcp.call(name, args as Record<string, unknown>);
          const err = errorOf(result);
          if (err && (err.status >= 500 || err.code === 'internal_error')) failures.push(`${name} ${JSON.stringify(args).slice(0, 160)} → ${JSON.stringify(err)}`);
          note(err ? 'error' : 'ok');
        } catch (e) {
          if (e instanceof McpError && [-32602, -32600].includes(e.code)) note('error');
          else failures.push(`${name} ${JSON.stringify(args).slice(0, 160)} → threw ${(e as Error).message}`);
        }
      },
      () => failures.length >= 25,
    );
    expect(failures).toEqual([]);
    for (const t of tools) expect([t.name, outcomes.get(t.name)?.has('error')]).toEqual([t.name, true]);
    expect((await mcp.client.listTools()).tools.length).toBe(tools.length);
  }, 900000);

  describe('sweeps over every operation', () => {
    /** Every operation with a JSON body, of both documents, with a URL to send it to. */
    const bodyOperations = () => {
      const rest = operationsOf(restDoc).map((o) => ({ o, f: fuzzerFor(restDoc), base: `${s.gatewayUrl}/v1`, token: ws.token }));
      const widget = operationsOf(widgetDoc).map((o) => ({ o, f: fuzzerFor(widgetDoc), base: `${s.gatewayUrl}/widget/v1`, token: null as string | null }));
      return [...rest, ...widget]
        .filter(({ o, f }) => f.bodySchemaOf(o.op))
        .map((x) => {
          const target = x.o.route.replace('{botId}', bot).replace('{id}', ctx.ids[1]);
          return { ...x, url: `${x.base}${target}`, method: x.o.method.toUpperCase(), name: `${x.o.method.toUpperCase()} ${x.base.slice(s.gatewayUrl.length)}${x.o.route}` };
        });
    };
    const send = (method: string, url: string, token: string | null, body: string, contentType = 'application/json') =>
      fetch(url, { method, headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body, signal: AbortSignal.timeout(15000) });

    it('a lone surrogate in any string member is refused with a validation 400, and nothing is stored or charged', async () => {
      const before = await storedTurns();
      const seen: string[] = [];
      for (const { o, f, url, method, token, name } of bodyOperations()) {
        const base = f.sampleBody(o, ctx, SEED)!;
        for (const field of f.stringFields(o)) {
          const res = await send(method, url, token, JSON.stringify({ ...base, [field]: SURROGATE }));
          const body = (await res.json()) as any;
          seen.push(`${name} ${field} → ${res.status} ${body.success === false ? body.error.issues.map((i: any) => i.path.join('.')).join(',') : body.code}`);
          expect([name, field, res.status, body.success]).toEqual([name, field, 400, false]);
        }
      }
      expect(seen.length).toBeGreaterThan(20);
      // MCP: the same in every string argument of every tool.
      const { tools } = await mcp.client.listTools();
      const f = fuzzerFor({});
      for (const t of tools) {
        const [args] = fc.sample(f.valid(t.inputSchema, ctx, undefined, true), { numRuns: 1, seed: SEED }) as Record<string, unknown>[];
        for (const [field, schema] of Object.entries((t.inputSchema.properties ?? {}) as Record<string, any>)) {
          if (schema.type !== 'string' || schema.enum) continue;
          let refused: boolean;
          try {
            const err = errorOf(await mcp.call(t.name, { ...args, [field]: SURROGATE }));
            refused = err?.status === 400;
          } catch (e) {
            refused = e instanceof McpError && e.code === -32602;
          }
          expect([t.name, field, refused]).toEqual([t.name, field, true]);
        }
      }
      expect(await storedTurns()).toBe(before);
    }, 300000);

    it('5,000 levels of nesting, keys such as __proto__, and every non-JSON content type get a 400 on every operation with a body, MCP included', async () => {
      for (const { o, f, url, method, token, name } of bodyOperations()) {
        const base = JSON.stringify(f.sampleBody(o, ctx, SEED));
        for (const [what, body, type] of [
          ['nested member', `{"x":${deeplyNested(5000)}}`, 'application/json'],
          ['nested body', deeplyNested(5000), 'application/json'],
          ['nested object', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, 'application/json'],
          ...NON_JSON_TYPES.map((t) => [t, t.includes('urlencoded') ? 'message=hi&name=X&email=x%40x.co&phone=1234567' : base, t]),
        ]) {
          const res = await send(method, url, token, body, type);
          expect([name, what, res.status, checkErrorBody(await res.json())]).toEqual([name, what, 400, null]);
        }
        for (const key of ['__proto__', 'constructor', 'prototype']) {
          const res = await send(method, url, token, base === '{}' ? `{"${key}":{"x":"y"}}` : `{"${key}":{"x":"y"},${base.slice(1)}`);
          expect([name, key, res.status]).toEqual([name, key, 400]);
        }
      }
      const mcpInit = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      for (const [what, body, type] of [
        ['nested', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_bots","arguments":{"x":${deeplyNested(5000)}}}}`, 'application/json'],
        ...NON_JSON_TYPES.map((t) => [t, mcpInit, t]),
      ]) {
        const res = await fetch(s.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${ws.token}`, 'content-type': type, accept: 'application/json, text/event-stream' }, body });
        expect([what, res.status < 500, res.status === 400 || (await res.clone().text()).includes('-32602')]).toEqual([what, true, true]);
      }
      expect((await ws.api.get('/bots')).status).toBe(200);
    }, 300000);

    it('odd bytes in path parameters (a lone surrogate in UTF-8, NUL) are never a server error', async () => {
      for (const { route, method: m } of [...operationsOf(restDoc).map((o) => ({ ...o, route: `/v1${o.route}` })), ...operationsOf(widgetDoc).map((o) => ({ ...o, route: `/widget/v1${o.route}` }))]) {
        if (!route.includes('{')) continue;
        for (const odd of ['%ED%A0%80', '%00', '%C0%AF', '%']) {
          const res = await fetch(`${s.gatewayUrl}${route.replace(/\{[^}]+\}/g, odd)}`, { method: m.toUpperCase(), headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' }, body: m === 'get' ? undefined : '{}' });
          expect([route, odd, res.status < 500, checkErrorBody(await res.json().catch(() => null))]).toEqual([route, odd, true, res.status < 400 ? expect.anything() : null]);
        }
      }
    });
  });
});
