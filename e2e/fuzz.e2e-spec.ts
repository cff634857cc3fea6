import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { request } from './support/api';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { freePort } from './support/infra';
import { e2eState } from './support/state';

/**
 * Input fuzzing of the REST API from its own OpenAPI document (libs/sdk/openapi.json, the document
 * GET /v1/openapi.json serves). fast-check generates requests for every operation: valid ones from
 * the schemas, and invalid ones (wrong types, oversized and unicode-edge strings, unknown fields,
 * malformed JSON, wrong content types, bad tokens). Every answer must have a status the document
 * lists for that operation and, for errors, one of the spec's error bodies; no 5xx; and the
 * system keeps serving. FUZZ_REQUESTS sets the size (CI: 10,000; `npm run fuzz`: 100,000),
 * FUZZ_SEED replays a run.
 */
type Schema = Record<string, any>;
const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'libs', 'sdk', 'openapi.json'), 'utf8'));
const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 10000);
const SEED = Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31);
const CONCURRENCY = 16;

const resolve = (s: Schema): Schema => (s?.$ref ? resolve(s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc)) : s);

interface Context {
  ids: string[];
  blockedUrl: string;
}

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u202dabc',
  '\u200b\u200c\u200d\ufeff',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'e\u0301\u0301\u0301',
  '𝕳𝖊𝖑𝖑𝖔',
  '<script>alert(1)</script>',
  "'; DROP TABLE bots; --",
  '../../../../etc/passwd',
  '%00%ff%',
  '${7*7}{{7*7}}',
  'a'.repeat(5000),
  '日本語'.repeat(700),
];
const nasty = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, [], {}, [1, 2], { a: 1 }),
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** A value the schema accepts (mostly; formats like uri are approximated). */
function valid(schema: Schema, ctx: Context): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (!s.type && (s.anyOf || s.oneOf)) return fc.oneof(...(s.anyOf ?? s.oneOf).filter((x: Schema) => x.type || x.$ref).map((x: Schema) => valid(x, ctx)));
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      if (s.format === 'uuid') return fc.oneof(fc.constantFrom(...ctx.ids), fc.uuid());
      if (s.format === 'date-time') return fc.date({ min: new Date('2026-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (s.format === 'uri') return fc.constantFrom(ctx.blockedUrl, 'http://10.0.0.1/internal', 'ftp://example.com/x');
      return fc.string({ unit: fc.constantFrom('a', 'é', '日', ' ', '😀', 'Z', '1', '-'), minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 60) });
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 });
    case 'number':
      return fc.double({ noNaN: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valid(s.items ?? {}, ctx), { maxLength: 3 });
    case 'object': {
      const props = s.properties ?? {};
      const required: string[] = s.required ?? [];
      const shape = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v as Schema, ctx)]));
      return fc.record(shape, { requiredKeys: required.filter((k) => k in props) as never[] });
    }
    default:
      return nasty;
  }
}

/** A value that is wrong for the schema in some way, or just odd. */
function invalid(schema: Schema): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const max = s.maxLength;
  return fc.oneof(nasty, ...(max ? [fc.constant('x'.repeat(max + 1)), fc.constant('😀'.repeat(max + 1))] : []), ...(s.maximum !== undefined ? [fc.constant(s.maximum + 1), fc.constant(String(s.maximum))] : []));
}

interface FuzzRequest {
  method: string;
  path: string;
  op: string;
  headers: Record<string, string>;
  body?: string;
}

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD, as a browser sends them). */
const pct = (v: string) => (/^[A-Za-z0-9_.~-]+$/.test(v) ? v : [...Buffer.from(v, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

function operationArb(route: string, method: string, op: any, ctx: Context, token: string): fc.Arbitrary<FuzzRequest> {
  const params: any[] = (op.parameters ?? []).map(resolve);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;

  const paramValue = (p: any) => fc.oneof({ weight: 4, arbitrary: valid(p.schema, ctx) }, { weight: 1, arbitrary: invalid(p.schema) });
  const pathArb = fc.tuple(...pathParams.map(paramValue)).map((values) => {
    let out = route;
    pathParams.forEach((p, i) => (out = out.replace(`{${p.name}}`, pct(typeof values[i] === 'string' ? (values[i] as string) : JSON.stringify(values[i]) ?? 'undefined'))));
    return out;
  });
  const queryArb = fc
    .tuple(
      fc.tuple(...queryParams.map((p) => fc.option(paramValue(p), { nil: undefined }))),
      fc.option(fc.constantFrom(['page', '2'], ['cursor', 'abc'], ['unknown', '1'], ['limit', '10', 'limit']), { nil: undefined, freq: 8 }),
    )
    .map(([values, extra]) => {
      const q = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const v = values[i];
        if (v !== undefined) q.append(p.name, typeof v === 'string' ? v : JSON.stringify(v));
      });
      if (extra) for (let i = 0; i + 1 < extra.length; i += 2) q.append(extra[i], extra[i + 1]);
      if (extra?.length === 3) q.append(extra[2], '20');
      const text = q.toString();
      return text ? `?${text}` : '';
    });
  const authArb = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${token}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', `Basic ${token}`, `Bearer mgpt_${'A'.repeat(43)}`, 'Bearer \u00ff\u00fe', `Bearer ${token}x`) },
  );
  const bodyArb: fc.Arbitrary<{ body?: string; contentType?: string }> = bodySchema
    ? fc.oneof(
        { weight: 5, arbitrary: valid(bodySchema, ctx).map((b) => ({ body: JSON.stringify(b), contentType: 'application/json' })) },
        {
          weight: 4,
          arbitrary: fc
            .tuple(valid(bodySchema, ctx), fc.constantFrom(...Object.keys(resolve(bodySchema).properties ?? { x: 1 }), 'unknownField'), invalid({}))
            .map(([b, key, bad]) => ({ body: JSON.stringify({ ...(b as object), [key]: bad }), contentType: 'application/json' })),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            { body: '{"message": ', contentType: 'application/json' },
            { body: '[1,2', contentType: 'application/json' },
            { body: 'null', contentType: 'application/json' },
            { body: '"just a string"', contentType: 'application/json' },
            { body: '[]', contentType: 'application/json' },
            { body: '{"a":1}}', contentType: 'application/json' },
            { body: '', contentType: 'application/json' },
            { body: 'message=hi', contentType: 'application/x-www-form-urlencoded' },
            { body: '{"message":"hi"}', contentType: 'text/plain' },
            { body: '--x\r\n\r\nhi\r\n--x--', contentType: 'multipart/form-data; boundary=x' },
            { body: '{"message":"hi"}', contentType: 'application/json; charset=latin1' },
            { body: JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) }), contentType: 'application/json' },
          ),
        },
      )
    : fc.constant({});

  return fc.tuple(pathArb, queryArb, authArb, bodyArb).map(([p, q, auth, b]) => ({
    method: method.toUpperCase(),
    path: `${p}${q}`,
    op: `${method.toUpperCase()} ${route}`,
    headers: { ...(auth ? { authorization: auth } : {}), ...(b.contentType ? { 'content-type': b.contentType } : {}) },
    ...(b.body !== undefined ? { body: b.body } : {}),
  }));
}

function checkErrorBody(body: any): string | null {
  if (body && typeof body === 'object' && body.success === false && body.error?.name === 'ValidationError' && typeof body.error.message === 'string' && Array.isArray(body.error.issues)) {
    return body.error.issues.every((i: any) => typeof i.code === 'string' && typeof i.message === 'string' && Array.isArray(i.path)) ? null : 'malformed validation issues';
  }
  if (body && typeof body === 'object' && typeof body.error === 'string' && typeof body.code === 'string' && typeof body.message === 'string') return null;
  return 'not one of the spec error bodies';
}

describe(`REST API fuzzing from the OpenAPI document (${REQUESTS} requests, seed ${SEED})`, () => {
  const s = e2eState();
  let ws: TestWorkspace;
  let ctx: Context;

  beforeAll(async () => {
    ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000000', '--pages-per-bot', '100000']);
    const bot = (await ws.api.post('/bots', { name: 'Fuzz bot' })).body.data.id;
    const booking = (await request('POST', `/widget/v1/bots/${bot}/bookings`, { name: 'F', email: 'f@example.com', phone: '+1 555 0100', requestedSlot: '2027-01-01T10:00:00Z' }, { baseUrl: s.gatewayUrl })).body.data.id;
    await ws.api.post('/chat', { message: 'hello', chatbotId: bot, sessionId: 'fuzz-session' });
    ctx = { ids: [bot, booking, ws.id, 'fuzz-session'], blockedUrl: `http://127.0.0.1:${await freePort()}/nothing-here` };
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

  it('answers every request with a documented status and a spec error body; never 5xx; keeps serving', async () => {
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([route, item]) =>
      Object.entries(item)
        .filter(([m]) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
        .map(([method, op]) => ({ route, method, op })),
    );
    // Chat turns are the slow ones: fewer of them.
    const arb = fc.oneof(...operations.map(({ route, method, op }) => ({ weight: route === '/chat' ? 1 : 4, arbitrary: operationArb(route, method, op, ctx, ws.token) })));
    const requests = fc.sample(arb, { numRuns: REQUESTS, seed: SEED });
    const statusOf = new Map(operations.map(({ route, method, op }) => [`${method.toUpperCase()} ${route}`, new Set(Object.keys(op.responses).map(Number))]));

    const failures: string[] = [];
    const seen = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < requests.length && failures.length < 25) {
        const r = requests[next++];
        let status = 0;
        try {
          const res = await fetch(`${s.gatewayUrl}/v1${r.path}`, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(15000) });
          status = res.status;
          const text = await res.text();
          seen.set(`${r.op} ${status}`, (seen.get(`${r.op} ${status}`) ?? 0) + 1);
          const problem = (why: string) => failures.push(`${r.method} ${r.path.slice(0, 120)} [${JSON.stringify(r.headers).slice(0, 80)}] body ${JSON.stringify((r.body ?? '').slice(0, 120))} → ${status}: ${why}: ${text.slice(0, 200)}`);
          if (status >= 500) problem('server error');
          else if (!statusOf.get(r.op)!.has(status)) problem('status not documented for this operation');
          else if (status >= 400) {
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              problem('error body is not JSON');
              continue;
            }
            const bad = checkErrorBody(body);
            if (bad) problem(bad);
          } else if (r.op === 'POST /chat') {
            if (!/^text\/event-stream/.test(res.headers.get('content-type') ?? '')) problem('chat answer is not an event stream');
          } else if (r.op !== 'GET /openapi.json' && !('data' in (JSON.parse(text) as object))) problem('success body without data');
        } catch (err) {
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          // Over the body limit (BODY_LIMIT_BYTES, 2 MiB) the gateway answers 400 and closes without
          // reading the rest, so a client still writing may see the connection close instead.
          if ((r.body?.length ?? 0) > 2 * 1024 * 1024 && ['EPIPE', 'ECONNRESET'].includes(cause?.code ?? '')) continue;
          failures.push(`${r.method} ${r.path.slice(0, 120)} (body ${r.body?.length ?? 0} bytes) → transport error ${(err as Error).message} ${cause?.code ?? ""} ${cause?.message ?? ""}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(failures).toEqual([]);
    expect(next).toBe(requests.length);
    // Every operation was exercised with successes and with errors.
    for (const key of statusOf.keys()) {
      if (key === 'GET /openapi.json') continue;
      const statuses = [...seen.keys()].filter((k) => k.startsWith(`${key} `)).map((k) => Number(k.split(' ').pop()));
      // A booking leaves the states that accept actions after a few changes: PATCH successes are rare.
      const needsSuccess = key !== 'PATCH /bookings/{id}' || REQUESTS >= 5000;
      expect([key, needsSuccess ? statuses.some((st) => st < 300) : true, statuses.some((st) => st >= 400)]).toEqual([key, true, true]);
    }
    // Still serving, normally.
    expect((await ws.api.get('/bots')).status).toBe(200);
    expect((await fetch(`${s.gatewayUrl}/readyz`)).status).toBe(200);
  }, 900000);
});
