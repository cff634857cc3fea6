import fc from 'fast-check';

/**
 * Request generation from an OpenAPI 3.1 document, shared by the fuzz suites of the REST API
 * (/v1) and the widget API (/widget/v1): valid values from the schemas, invalid ones (wrong types,
 * oversized and unicode-edge strings, unknown fields, malformed JSON, other content types, deep
 * nesting), and the checks every answer must pass.
 */
export type Schema = Record<string, any>;

export interface FuzzContext {
  /** Ids that exist (bots, bookings, the workspace): valid uuids are drawn from these half the time. */
  ids: string[];
  /** Values for members named sessionId (e.g. widget sessions the server minted). */
  sessions: string[];
  /** A URL nothing listens on. */
  blockedUrl: string;
}

export interface FuzzRequest {
  method: string;
  path: string;
  /** `METHOD /route` as the document names the operation. */
  op: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Operation {
  route: string;
  method: string;
  op: any;
}

/** Nested arrays this deep: far beyond any schema, and deep enough to break a recursive walk. */
export const deeplyNested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  'hi \ud800 there',
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
  '__proto__',
  'constructor',
  'a'.repeat(5000),
  '日本語'.repeat(700),
];

export const nasty = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, [], {}, [1, 2], { a: 1 }, { constructor: 'x' }, { __proto__: 'x' }, { prototype: { a: 1 } }),
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Bodies that are not a JSON object of the right content type, for any operation with a body. */
export const MALFORMED_BODIES: { body: string; contentType: string }[] = [
  { body: '{"message": ', contentType: 'application/json' },
  { body: '[1,2', contentType: 'application/json' },
  { body: 'null', contentType: 'application/json' },
  { body: '"just a string"', contentType: 'application/json' },
  { body: '[]', contentType: 'application/json' },
  { body: '{"a":1}}', contentType: 'application/json' },
  { body: '', contentType: 'application/json' },
  { body: `{"a":${deeplyNested(5000)}}`, contentType: 'application/json' },
  { body: deeplyNested(5000), contentType: 'application/json' },
  { body: 'message=hi', contentType: 'application/x-www-form-urlencoded' },
  { body: '{"message":"hi"}', contentType: 'text/plain' },
  { body: '--x\r\n\r\nhi\r\n--x--', contentType: 'multipart/form-data; boundary=x' },
  { body: '{"message":"hi"}', contentType: 'application/json; charset=latin1' },
  { body: JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) }), contentType: 'application/json' },
];

/** Content types other than JSON that a browser can send cross-site without a preflight (and one it cannot). */
export const NON_JSON_TYPES = ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/xml'];

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD, as a browser sends them). */
export const pct = (v: string) => (/^[A-Za-z0-9_.~-]+$/.test(v) ? v : [...Buffer.from(v, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

export function operationsOf(doc: any): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([route, item]) =>
    Object.entries(item)
      .filter(([m]) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
      .map(([method, op]) => ({ route, method, op })),
  );
}

/**
 * Date-times of the right shape that name no real instant (issue 30): days a month lacks, 29
 * February of common years, year 0000, hour 24, minute or second 60, offsets beyond ±14:00.
 */
export const impossibleDateTime: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('2026', '2027', '2100', '0000'),
    fc.constantFrom('02-29', '02-30', '02-31', '04-31', '06-31', '09-31', '11-31', '13-01', '00-10', '01-00'),
    fc.constantFrom('T10:00:00', 'T24:00:00', 'T23:60:00', 'T23:59:60', 'T09:30'),
    fc.constantFrom('Z', '+03:00', '-05:30', '+15:00', '+05:60'),
  )
  .map(([y, md, t, z]) => `${y}-${md}${t}${z}`);

/** The generators for one document (they resolve its $refs). */
export function fuzzerFor(doc: any) {
  const resolve = (s: Schema): Schema => (s?.$ref ? resolve(s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc)) : s);

  /**
   * A value the schema accepts (mostly; formats like uri are approximated). Maps get odd keys
   * (`constructor`, `__proto__` …) unless `plain`.
   */
  function valid(schema: Schema, ctx: FuzzContext, name?: string, plain = false): fc.Arbitrary<unknown> {
    const s = resolve(schema);
    if (s.enum) return fc.constantFrom(...s.enum);
    if (!s.type && (s.anyOf || s.oneOf)) return fc.oneof(...(s.anyOf ?? s.oneOf).filter((x: Schema) => x.type || x.$ref).map((x: Schema) => valid(x, ctx, name, plain)));
    const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
    switch (type) {
      case 'string':
        if (name === 'language') return fc.constantFrom('en', 'ja-JP', 'ar-AE', 'hi-IN', 'sw-KE');
        // Fields whose valid values no random string hits: mostly real ones, sometimes noise (with
        // random time zones nearly every widget booking was a 400).
        if (name === 'timeZone') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom('Europe/Paris', 'Asia/Tokyo', 'America/New_York', 'UTC') }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) });
        if (name === 'country') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom('FR', 'JP', 'US', 'KE') }, { weight: 1, arbitrary: fc.string({ minLength: 2, maxLength: 2 }) });
        if (name === 'sessionId' && ctx.sessions.length) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ctx.sessions) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) });
        if (s.format === 'uuid') return fc.oneof(fc.constantFrom(...ctx.ids), fc.uuid());
        if (s.format === 'date-time') return fc.oneof({ weight: 3, arbitrary: fc.date({ min: new Date('2026-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString()) }, { weight: 1, arbitrary: impossibleDateTime });
        if (s.format === 'uri') return fc.constantFrom(ctx.blockedUrl, 'http://10.0.0.1/internal', 'ftp://example.com/x');
        if (s.format === 'email') return fc.constantFrom('visitor@example.com', 'a.b+c@example.org', 'not-an-email');
        return fc.string({ unit: fc.constantFrom('a', 'é', '日', ' ', '😀', 'Z', '1', '-'), minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 60) });
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 });
      case 'number':
        return fc.double({ noNaN: true, min: -1e6, max: 1e6 });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(valid(s.items ?? {}, ctx, undefined, plain), { maxLength: 3 });
      case 'object': {
        const props = s.properties ?? {};
        if (!Object.keys(props).length && s.additionalProperties && typeof s.additionalProperties === 'object') {
          // Odd keys in one map of four: each is refused, and a map with one of them nearly always
          // made the whole body a 400 (widget bookings, whose customFields is such a map, then had
          // no success at all with some CI-size seeds, e.g. 579467219).
          const plainKeys = fc.dictionary(fc.constantFrom('size', 'colour'), valid(s.additionalProperties, ctx, undefined, plain), { maxKeys: 3 });
          if (plain) return plainKeys;
          const oddKeys = fc.dictionary(fc.constantFrom('size', 'colour', 'constructor', '__proto__', 'toString', 'a b'), valid(s.additionalProperties, ctx, undefined, plain), { maxKeys: 3 });
          return fc.oneof({ weight: 3, arbitrary: plainKeys }, { weight: 1, arbitrary: oddKeys });
        }
        const required: string[] = s.required ?? [];
        const shape = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v as Schema, ctx, k, plain)]));
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

  function bodySchemaOf(op: any): Schema | undefined {
    const schema = op.requestBody?.content?.['application/json']?.schema;
    return schema ? resolve(schema) : undefined;
  }

  /** Requests for one operation: mostly valid, some invalid; `auth` draws the Authorization header (undefined: none). */
  function operationArb(o: Operation, ctx: FuzzContext, auth: fc.Arbitrary<string | undefined>): fc.Arbitrary<FuzzRequest> {
    const { route, method, op } = o;
    const params: any[] = (op.parameters ?? []).map(resolve);
    const pathParams = params.filter((p) => p.in === 'path');
    const queryParams = params.filter((p) => p.in === 'query');
    const bodySchema = bodySchemaOf(op);

    const paramValue = (p: any) => fc.oneof({ weight: 4, arbitrary: valid(p.schema, ctx, p.name) }, { weight: 1, arbitrary: invalid(p.schema) });
    const pathArb = fc.tuple(...pathParams.map(paramValue)).map((values) => {
      let out = route;
      pathParams.forEach((p, i) => (out = out.replace(`{${p.name}}`, pct(typeof values[i] === 'string' ? (values[i] as string) : (JSON.stringify(values[i]) ?? 'undefined')))));
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
    const bodyArb: fc.Arbitrary<{ body?: string; contentType?: string }> = bodySchema
      ? fc.oneof(
          { weight: 5, arbitrary: valid(bodySchema, ctx).map((b) => ({ body: JSON.stringify(b), contentType: 'application/json' })) },
          {
            weight: 4,
            arbitrary: fc
              .tuple(valid(bodySchema, ctx), fc.constantFrom(...Object.keys(bodySchema.properties ?? { x: 1 }), 'unknownField'), invalid({}))
              .map(([b, key, bad]) => ({ body: JSON.stringify({ ...(b as object), [key]: bad }), contentType: 'application/json' })),
          },
          { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_BODIES) },
        )
      : fc.constant({});

    return fc.tuple(pathArb, queryArb, auth, bodyArb).map(([p, q, authorization, b]) => ({
      method: method.toUpperCase(),
      path: `${p}${q}`,
      op: `${method.toUpperCase()} ${route}`,
      headers: { ...(authorization !== undefined ? { authorization } : {}), ...(b.contentType ? { 'content-type': b.contentType } : {}) },
      ...(b.body !== undefined ? { body: b.body } : {}),
    }));
  }

  /** One valid body for the operation (the first sample), for targeted sweeps over its fields. */
  function sampleBody(o: Operation, ctx: FuzzContext, seed: number): Record<string, unknown> | undefined {
    const schema = bodySchemaOf(o.op);
    if (!schema) return undefined;
    const full = fc.record(Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, valid(v as Schema, ctx, k, true)])));
    return fc.sample(full, { numRuns: 1, seed })[0] as Record<string, unknown>;
  }

  /** Names of the body's string members (top level). */
  function stringFields(o: Operation): string[] {
    const schema = bodySchemaOf(o.op);
    return Object.entries(schema?.properties ?? {})
      .filter(([, v]) => {
        const s = resolve(v as Schema);
        return (Array.isArray(s.type) ? s.type.includes('string') : s.type === 'string') && !s.enum;
      })
      .map(([k]) => k);
  }

  return { resolve, valid, invalid, operationArb, sampleBody, stringFields, bodySchemaOf };
}

/** Null when the body is one of the spec's error bodies (part 7), else what is wrong with it. */
export function checkErrorBody(body: any): string | null {
  if (body && typeof body === 'object' && body.success === false && body.error?.name === 'ValidationError' && typeof body.error.message === 'string' && Array.isArray(body.error.issues)) {
    return body.error.issues.every((i: any) => typeof i.code === 'string' && typeof i.message === 'string' && Array.isArray(i.path)) ? null : 'malformed validation issues';
  }
  if (body && typeof body === 'object' && typeof body.error === 'string' && typeof body.code === 'string' && typeof body.message === 'string') return null;
  return 'not one of the spec error bodies';
}

/** Runs `fn` over `items` with `concurrency` workers; stops early once `stop()` says so. */
export async function runPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>, stop: () => boolean = () => false): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return next;
}
