import 'reflect-metadata';
import { INestApplication, Type } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { getMetadataStorage } from 'class-validator';
import pino from 'pino';
import { ChatChunk, ErrorObjectBody, NULLABLE_CONTEXT, ValidationErrorBody, memberDocsOf } from '@sa/contracts';
import { contractSchemaName } from '@sa/openapi';
import { validateDto } from '@sa/messaging';
import { newAjv2020 } from '@sa/testing';
import { AppModule } from '../app.module';
import { loadGatewayConfig } from '../config/gateway.config';
import { ApiDocuments, Route, contractsOf, controllersOf, routesOf, scopeOf } from './api-documents';
import { gatewayApiDocuments } from './gateway-documents';

/*
 * The generated documents against their sources: every route of the gateway (walked from the Nest
 * application) is in its document with its statuses and security, and every rule of every contract
 * class a route takes or answers (walked from class-validator's metadata) is in the schemas. The
 * expectations are restated here on purpose, independently of the bridge that writes the schemas.
 */

type Json = Record<string, any>;

let app: INestApplication;
let documents: ApiDocuments;
let routes: Route[];

beforeAll(async () => {
  app = await NestFactory.create(AppModule.forRoot(loadGatewayConfig({}), pino({ level: 'silent' })), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  routes = controllersOf(app).flatMap(routesOf);
  documents = await gatewayApiDocuments();
});

afterAll(async () => {
  await app.getHttpAdapter().close();
});

const EMBED_FILES = ['get /widget/v1/embed.js', 'get /widget/v1/embed.json', 'get /widget/v1/{file}'];

/** The document a route belongs to, and its path there; undefined for routes no document describes. */
function placeOf(route: Route): { doc: Json; path: string; widget: boolean } | undefined {
  // The widget's script files (embed.controller.ts): files for browsers, not API operations.
  if (EMBED_FILES.includes(`${route.method} ${route.path}`)) return undefined;
  if (route.path.startsWith('/widget/v1/')) return { doc: documents.widget, path: route.path.slice('/widget/v1'.length), widget: true };
  if (route.path.startsWith('/v1/')) return { doc: documents.rest, path: route.path.slice('/v1'.length), widget: false };
  return undefined;
}

const operationOf = (route: Route): Json => {
  const place = placeOf(route)!;
  return place.doc.paths[place.path]?.[route.method];
};

const deref = (doc: Json, schema: Json): Json => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);

const SHARED: Record<string, string> = { 400: 'BadRequest', 401: 'Unauthorized', 402: 'PaymentRequired', 403: 'Forbidden', 404: 'NotFound', 429: 'TooManyRequests', 503: 'ServiceUnavailable' };

describe('every gateway route is in its document', () => {
  it('walks the routes of the application', () => {
    expect(routes.length).toBeGreaterThan(20);
    // Only the probes and the widget's script files are outside both documents.
    expect(routes.filter((r) => !placeOf(r)).map((r) => `${r.method} ${r.path}`).sort()).toEqual(['get /healthz', 'get /readyz', ...EMBED_FILES].sort());
  });

  it('documents exactly the routes under /v1 and /widget/v1', () => {
    for (const [doc, widget] of [[documents.rest, false], [documents.widget, true]] as const) {
      const expected = routes.filter((r) => placeOf(r)?.widget === widget).map((r) => `${r.method} ${placeOf(r)!.path}`);
      const actual = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
      expect(actual.sort()).toEqual(expected.sort());
    }
  });

  it('gives each operation its success status and the error statuses of its kind of route', () => {
    for (const route of routes.filter(placeOf)) {
      const name = `${route.method} ${route.path}`;
      const op = operationOf(route);
      const fn = (route.controller.prototype as Record<string, object>)[route.handler];
      const success = String(Reflect.getMetadata(HTTP_CODE_METADATA, fn) ?? (route.method === 'post' ? 201 : 200));
      const statuses = Object.keys(op.responses);
      expect([name, statuses.filter((s) => s.startsWith('2'))]).toEqual([name, [success]]);
      const scope = scopeOf(route);
      let errors: string[];
      if (route.path.endsWith('/openapi.json')) errors = ['429'];
      else if (scope) errors = ['400', '401', '402', '403', '404', '429', '503'];
      // Every widget route refuses an Origin the bot does not allow (403 origin_not_allowed; issue 18).
      else errors = ['400', '402', '403', '404', '429', '503'];
      for (const s of errors) expect([name, s, op.responses[s]]).toEqual([name, s, { $ref: `#/components/responses/${SHARED[s]}` }]);
      // Beyond those, only what the route declares for itself (409 on two REST routes, and on the chats: an action decision nothing waits on).
      const conflicts = ['post /v1/bots', 'patch /v1/bookings/{id}', 'post /v1/chat', 'post /widget/v1/bots/{botId}/chat'];
      expect([name, statuses.filter((s) => s !== success && !errors.includes(s))]).toEqual([name, conflicts.includes(name) ? ['409'] : []]);
      if (scope) {
        expect([name, op.security, op['x-required-scope']]).toEqual([name, [{ bearerAuth: [] }], scope]);
        expect(op.description.endsWith(`Required scope: \`${scope}\`.`)).toBe(true);
      } else {
        expect([name, op.security, op['x-required-scope']]).toEqual([name, [], undefined]);
      }
      expect([name, typeof op.operationId, typeof op.summary, op.tags?.length]).toEqual([name, 'string', 'string', 1]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The contract classes' rules, read from class-validator, against the schemas.

interface Rule {
  type: string;
  name?: string;
  propertyName: string;
  constraints?: any[];
  each?: boolean;
  context?: unknown;
}

const rulesOf = (cls: Type): Rule[] => getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false) as Rule[];
const membersOf = (cls: Type): string[] => [...new Set(rulesOf(cls).map((r) => r.propertyName))];
const isNullable = (r: Rule) => r.type === 'conditionalValidation' && (r.context as { nullable?: boolean })?.nullable === NULLABLE_CONTEXT.nullable;

/** What the schema of one member must say, restated from its class-validator rules. */
function checkMember(doc: Json, cls: Type, member: string, schema: Json, required: boolean, where: string): number {
  const rules = rulesOf(cls).filter((r) => r.propertyName === member);
  const types = ([] as string[]).concat(schema.type ?? []);
  const items = schema.type === 'array' || types.includes('array') ? deref(doc, schema.items ?? {}) : undefined;
  const nullable = rules.some(isNullable);
  const optional = rules.some((r) => r.type === 'conditionalValidation' && !isNullable(r)) || memberDocsOf(cls).get(member)?.extension === true;
  const at = `${where}.${member}`;
  let checked = 0;
  const expectAt = (actual: unknown, expected: unknown) => {
    expect([at, actual]).toEqual([at, expected]);
    checked++;
  };
  expectAt(required, !optional);
  if (nullable) expectAt(types.includes('null') || schema.anyOf?.some((s: Json) => s.type === 'null'), true);
  for (const rule of rules) {
    const target = rule.each ? items! : schema;
    const c = rule.constraints ?? [];
    switch (rule.name) {
      case 'charLength':
        expectAt([target.minLength, target.maxLength], [c[0] > 0 ? c[0] : undefined, c[1]]);
        break;
      case 'min':
        expectAt(target.minimum, c[0]);
        break;
      case 'max':
        expectAt(target.maximum, c[0]);
        break;
      case 'arrayMinSize':
        expectAt(schema.minItems, c[0]);
        break;
      case 'arrayMaxSize':
        expectAt(schema.maxItems, c[0]);
        break;
      case 'isIn':
        expectAt(target.enum, [...c[0], ...(nullable ? [null] : [])]);
        break;
      case 'equals':
        expectAt(target.const, c[0]);
        break;
      case 'notBlank':
        expectAt(target.pattern, '\\S');
        break;
      case 'isUuid':
        expectAt(target.format, 'uuid');
        break;
      case 'isIso8601':
        expectAt(target.format, 'date-time');
        break;
      case 'isCalendarDate':
        expectAt(target.format, 'date');
        break;
      case 'isEmail':
        expectAt(target.format, 'email');
        break;
      case 'isHttpUrl':
        expectAt(target.format, 'uri');
        break;
      case 'isString':
      case 'isInt':
      case 'isNumber':
      case 'isBoolean':
      case 'isArray': {
        const t = { isString: 'string', isInt: 'integer', isNumber: 'number', isBoolean: 'boolean', isArray: 'array' }[rule.name];
        expectAt(([] as string[]).concat(target.type ?? []).includes(t), true);
        break;
      }
      case 'isStringMap':
      case 'isIntegerMap':
        expectAt(target.additionalProperties, { type: rule.name === 'isStringMap' ? 'string' : 'integer' });
        break;
    }
  }
  const nested = memberDocsOf(cls).get(member)?.nested;
  if (nested) checked += checkClass(doc, nested(), deref(doc, items ? schema.items : schema), `${where}.${member}`);
  return checked;
}

/** Every member of a contract class against its component schema (properties, required, rules). */
function checkClass(doc: Json, cls: Type, schema: Json, where: string): number {
  expect([where, schema?.type]).toEqual([where, 'object']);
  expect([where, Object.keys(schema.properties ?? {}).sort()]).toEqual([where, membersOf(cls).sort()]);
  let checked = 0;
  for (const member of membersOf(cls)) checked += checkMember(doc, cls, member, schema.properties[member], (schema.required ?? []).includes(member), where);
  return checked;
}

describe('every rule of the contract classes is in the schemas', () => {
  it('request bodies, query strings, path parameters and answers of every route', () => {
    let checked = 0;
    for (const route of routes.filter(placeOf)) {
      const { doc } = placeOf(route)!;
      const op = operationOf(route);
      const { body, query, path, views } = contractsOf(route);
      const name = `${route.method} ${route.path}`;
      if (body) {
        const ref = op.requestBody.content['application/json'].schema.$ref;
        expect([name, ref]).toEqual([name, `#/components/schemas/${contractSchemaName(body)}`]);
        const schema = deref(doc, { $ref: ref });
        // Requests are closed: validateDto refuses unknown members.
        expect([name, schema.additionalProperties]).toEqual([name, false]);
        checked += checkClass(doc, body, schema, contractSchemaName(body));
      }
      for (const [cls, where] of [[query, 'query'], [path, 'path']] as const) {
        if (!cls) continue;
        const params = ((op.parameters ?? []) as Json[]).filter((p) => p.in === where);
        expect([name, params.map((p) => p.name).sort()]).toEqual([name, membersOf(cls).sort()]);
        for (const p of params) checked += checkMember(doc, cls, p.name, p.schema, p.required === true, `${name} ${where}`);
      }
      for (const view of views) checked += checkClass(doc, view, doc.components.schemas[contractSchemaName(view)], contractSchemaName(view));
    }
    expect(checked).toBeGreaterThan(400);
  });

  it('the error bodies and the chat chunk of both documents', () => {
    for (const doc of [documents.rest, documents.widget] as Json[]) {
      for (const cls of [ErrorObjectBody, ValidationErrorBody, ChatChunk] as Type[]) checkClass(doc, cls, doc.components.schemas[contractSchemaName(cls)], contractSchemaName(cls));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Schema and validation agree: the same bodies, the same verdicts.

const VALUES: Record<string, unknown> = {
  uuid: '2f1b8a52-4c1e-4d7a-9a57-0c5f2d0b6e11',
  'date-time': '2026-12-01T10:00:00+03:00',
  email: 'ana@example.com',
  uri: 'https://example.com/pricing',
  date: '2026-03-01',
};

/** A value the schema accepts, chosen without randomness. */
function sample(doc: Json, schema: Json, name: string): unknown {
  const s = deref(doc, schema);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const type = ([] as string[]).concat(s.type).find((t) => t !== 'null');
  if (type === 'string') return s.format ? VALUES[s.format] : name === 'language' ? 'ja-JP' : 'x'.repeat(Math.max(s.minLength ?? 1, 1));
  if (type === 'integer' || type === 'number') return s.minimum ?? 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [sample(doc, s.items, name)];
  if (type === 'object') return s.properties ? Object.fromEntries(Object.entries(s.properties as Record<string, Json>).map(([k, v]) => [k, sample(doc, v, k)])) : { a: 'b' };
  throw new Error(`no sample for ${JSON.stringify(s)}`);
}

describe('the body schemas accept exactly what validation accepts', () => {
  it('on every request body, at and beyond every limit, without members, with unknown ones', () => {
    let cases = 0;
    let refused = 0;
    for (const route of routes.filter(placeOf)) {
      const { doc } = placeOf(route)!;
      const { body } = contractsOf(route);
      if (!body) continue;
      const name = contractSchemaName(body);
      const schema = doc.components.schemas[name];
      const ajv = newAjv2020(`https://openapi.test/${name}`, doc.components.schemas);
      const check = ajv.compile(JSON.parse(JSON.stringify({ $ref: `#/components/schemas/${name}` }).replaceAll('"#/components/', `"https://openapi.test/${name}#/components/`)));
      const agree = (what: string, value: Record<string, unknown>) => {
        let valid = true;
        try {
          validateDto(body as new () => object, value);
        } catch {
          valid = false;
        }
        expect([name, what, check(value)]).toEqual([name, what, valid]);
        cases++;
        if (!valid) refused++;
      };
      const full = sample(doc, schema, name) as Record<string, unknown>;
      const required = Object.fromEntries(Object.entries(full).filter(([k]) => (schema.required ?? []).includes(k)));
      agree('every member', full);
      agree('only the required members', required);
      agree('an unknown member', { ...full, unknownMember: 'x' });
      for (const [key, member] of Object.entries(schema.properties as Record<string, Json>)) {
        const { [key]: _dropped, ...without } = full;
        agree(`without ${key}`, without);
        for (const value of member.enum ?? []) agree(`${key}=${value} of the required members`, { ...required, [key]: value });
        if (member.maxLength !== undefined) {
          for (const ch of ['x', '😀']) {
            agree(`${key} of ${member.maxLength} ${ch}`, { ...full, [key]: ch.repeat(member.maxLength) });
            agree(`${key} of ${member.maxLength + 1} ${ch}`, { ...full, [key]: ch.repeat(member.maxLength + 1) });
          }
        }
        if (member.minLength > 0) agree(`${key} of ${member.minLength - 1}`, { ...full, [key]: 'x'.repeat(member.minLength - 1) });
        if (member.pattern) agree(`${key} of white space`, { ...full, [key]: ' '.repeat(Math.max(member.minLength ?? 1, 1)) });
        if (member.maximum !== undefined) agree(`${key} above its maximum`, { ...full, [key]: member.maximum + 1 });
        if (member.format) agree(`${key} not a ${member.format}`, { ...full, [key]: 'not-a-value' });
        agree(`${key} of the wrong type`, { ...full, [key]: member.type === 'string' ? 42 : 'x' });
      }
    }
    expect(cases).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(50);
  });
});
