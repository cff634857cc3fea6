import 'reflect-metadata';
import { collectRefs, newAjv2020, resolvePointer, expectValidOpenApi31 } from '@sa/testing';
import { PATH_METADATA } from '@nestjs/common/constants';
import { ApiDocuments } from './api-documents';
import { gatewayApiDocuments } from './gateway-documents';
import { OpenApiController } from './openapi.controller';

type Json = Record<string, any>;

// The widget document as GET /widget/v1/openapi.json serves it, generated with the REST one.
let documents: ApiDocuments;
let doc: Json;
let schemas: Record<string, Json>;
beforeAll(async () => {
  documents = await gatewayApiDocuments();
  doc = documents.widget;
  schemas = doc.components.schemas;
});

const routes: [string, string, string, string][] = [
  // [path, success status, request schema, data schema]
  ['/bots/{botId}/sessions', '201', 'WidgetSessionRequest', 'WidgetSession'],
  ['/bots/{botId}/chat', '200', 'WidgetChatRequest', ''],
  ['/bots/{botId}/feedback', '200', 'WidgetFeedbackRequest', 'FeedbackResult'],
  ['/bots/{botId}/identify', '200', 'WidgetIdentifyRequest', 'IdentifyResult'],
  ['/bots/{botId}/leads', '201', 'WidgetLeadRequest', 'Receipt'],
  ['/bots/{botId}/bookings', '201', 'WidgetBookingRequest', 'VisitorBooking'],
  ['/bots/{botId}/tickets', '201', 'WidgetTicketRequest', 'Receipt'],
  ['/bots/{botId}/handoff', '200', 'WidgetHandoffRequest', 'HandoffResult'],
  ['/bots/{botId}/replies', '200', 'WidgetRepliesRequest', 'WidgetReplies'],
];

const post = (path: string): Json => doc.paths[path].post;

describe('the widget API document (GET /widget/v1/openapi.json)', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', () => {
    expectValidOpenApi31(doc);
  });

  it('declares OpenAPI 3.1.0, its own title and version, and the /widget/v1 server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Support-Agent Service — Visitor Widget API');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.description).toContain("this implementation's own API");
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/widget/v1' })]);
  });

  it('is built once and frozen', async () => {
    expect((await gatewayApiDocuments()).widget).toBe(doc);
    expect(Object.isFrozen(doc)).toBe(true);
    expect(Object.isFrozen(documents.rest)).toBe(true);
  });

  it('has the 10 widget operations (and its own description), with unique operationIds and no authentication', () => {
    const actual = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
    expect(actual.sort()).toEqual([...routes.map(([p]) => `post ${p}`), 'get /bots/{botId}/config', 'get /openapi.json'].sort());
    const ops = Object.values(doc.paths as Record<string, Json>).flatMap((item) => Object.values(item) as Json[]);
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(11);
    for (const o of ops) {
      expect(o.security).toEqual([]);
      expect(o['x-required-scope']).toBeUndefined();
    }
    expect(doc.security).toEqual([]);
    expect(doc.components.securitySchemes).toBeUndefined();
  });

  it('never uses `nullable` (3.1 uses type arrays)', () => {
    expect(JSON.stringify(doc)).not.toContain('nullable');
    expect(schemas.VisitorBooking.properties.notes.type).toEqual(['string', 'null']);
  });

  it('resolves every $ref to an existing component', () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/(schemas|responses)\//);
      expect([ref, resolvePointer(doc, ref)]).toEqual([ref, expect.anything()]);
    }
  });

  it("reuses the REST document's error bodies and chat chunk, and the visitor's part of its Booking", () => {
    const rest = (documents.rest as Json).components.schemas;
    for (const name of ['ErrorObject', 'ValidationError', 'ValidationIssue', 'ChatChunk']) expect(schemas[name]).toEqual(rest[name]);
    for (const [key, schema] of Object.entries(schemas.VisitorBooking.properties)) expect([key, schema]).toEqual([key, rest.Booking.properties[key]]);
  });

  it('answers only what the visitor sent plus ids, statuses and timestamps: no tenant id, no stored lead', () => {
    expect(schemas.Lead).toBeUndefined();
    expect(schemas.Booking).toBeUndefined();
    expect(Object.keys(schemas.Receipt.properties).sort()).toEqual(['created_at', 'id', 'session_id', 'status']);
    expect(Object.keys(schemas.VisitorBooking.properties)).not.toContain('tenant_id');
    expect(Object.keys(schemas.VisitorBooking.properties)).not.toContain('rejection_comment');
    expect(JSON.stringify(doc)).not.toContain('tenant_id');
  });

  describe.each(routes)('POST %s', (path, status, body, data) => {
    it('takes the bot id in the path and a closed JSON body', () => {
      const o = post(path);
      expect(o.parameters).toEqual([expect.objectContaining({ name: 'botId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } })]);
      expect(o.requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${body}` });
      // POST …/sessions takes no body, or an empty object.
      expect(o.requestBody.required).toBe(path !== '/bots/{botId}/sessions');
      expect(schemas[body].additionalProperties).toBe(false);
    });

    it(`answers ${status} and the widget errors`, () => {
      const responses = post(path).responses;
      // Every widget route may answer 403 (origin_not_allowed; those naming a session also session_forbidden).
      // The chat also answers 409 to an action decision nothing waits on (issue 34).
      expect(Object.keys(responses).sort()).toEqual([status, '400', '402', '403', '404', '429', '503', ...(path === '/bots/{botId}/chat' ? ['409'] : [])].sort());
      for (const [s, name] of [['400', 'BadRequest'], ['402', 'PaymentRequired'], ['403', 'Forbidden'], ['404', 'NotFound'], ['429', 'TooManyRequests'], ['503', 'ServiceUnavailable']]) {
        expect(responses[s]).toEqual({ $ref: `#/components/responses/${name}` });
      }
      if (data) {
        const schema = responses[status].content['application/json'].schema;
        expect(schema).toMatchObject({ type: 'object', required: ['data'] });
        expect(schema.properties.data).toEqual({ $ref: `#/components/schemas/${data}` });
      } else {
        expect(Object.keys(responses[status].content)).toEqual(['text/event-stream']);
        expect(responses[status].content['text/event-stream'].schema.description).toContain('choices[0].delta.content');
      }
    });
  });

  it('describes the errors: api_locked, widget_budget_exhausted, session_forbidden, unknown bot, Retry-After', () => {
    const r = doc.components.responses;
    expect(r.PaymentRequired.description).toContain('`api_locked`');
    expect(r.PaymentRequired.description).toContain('`widget_budget_exhausted`');
    expect(r.PaymentRequired.description).not.toContain('`quota_exhausted`');
    expect(r.Forbidden.description).toContain('`session_forbidden`');
    expect(r.Forbidden.description).toContain('`origin_not_allowed`');
    expect(r.Forbidden.description).toContain('`invalid_user_hash`');
    expect(r.NotFound.description).toContain('Unknown bot');
    expect(r.TooManyRequests.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(r.BadRequest.content['application/json'].schema.oneOf).toEqual([{ $ref: '#/components/schemas/ErrorObject' }, { $ref: '#/components/schemas/ValidationError' }]);
    expect(r.Unauthorized).toBeUndefined();
  });

  it('GET /bots/{botId}/config answers the WidgetConfig with its theme (issue 18)', () => {
    const o = doc.paths['/bots/{botId}/config'].get;
    expect(o.requestBody).toBeUndefined();
    expect(o.responses['200'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/WidgetConfig' });
    expect([...schemas.WidgetConfig.required].sort()).toEqual(['bot_id', 'identity', 'language', 'name', 'starter_questions', 'theme']);
    expect(schemas.WidgetTheme.properties.position.enum).toEqual(['right', 'left']);
    expect(doc.paths['/bots/{botId}/chat'].post.responses['200'].content['text/event-stream'].schema.description).toContain('message_id');
  });

  describe('request schemas as JSON Schema 2020-12 (ajv, strict) with the limits of libs/contracts', () => {
    let ajv: ReturnType<typeof newAjv2020>;
    beforeAll(() => {
      ajv = newAjv2020('https://openapi.test/widget', schemas);
    });
    const validate = (name: string) =>
      ajv.compile(JSON.parse(JSON.stringify({ $ref: `#/components/schemas/${name}` }).replaceAll('"#/components/', '"https://openapi.test/widget#/components/')));
    const uuidA = '2f1b8a52-4c1e-4d7a-9a57-0c5f2d0b6e11';

    it('compiles every component schema', () => {
      for (const name of Object.keys(schemas)) expect(() => validate(name)).not.toThrow();
    });

    it('WidgetSessionRequest', () => {
      const v = validate('WidgetSessionRequest');
      expect(v({})).toBe(true);
      expect(v({ sessionId: 'mine' })).toBe(false);
    });

    it('WidgetChatRequest', () => {
      const v = validate('WidgetChatRequest');
      expect(v({ message: 'Hi', sessionId: 's'.repeat(120), language: 'ja-JP' })).toBe(true);
      expect(v({ message: 'x'.repeat(2000) })).toBe(true);
      expect(v({ message: 'x'.repeat(2001) })).toBe(false);
      expect(v({ message: '   ' })).toBe(false);
      expect(v({ message: 'Hi', sessionId: '' })).toBe(false);
      expect(v({ message: 'Hi', sessionId: 's'.repeat(121) })).toBe(false);
      expect(v({ message: 'Hi', chatbotId: uuidA })).toBe(false);
    });

    it('WidgetFeedbackRequest', () => {
      const v = validate('WidgetFeedbackRequest');
      expect(v({ sessionId: 's1', messageId: uuidA, feedback: 'positive' })).toBe(true);
      expect(v({ sessionId: 's1', messageId: uuidA, feedback: 'neutral' })).toBe(false);
      expect(v({ sessionId: 's1', messageId: 'nope', feedback: 'negative' })).toBe(false);
      expect(v({ messageId: uuidA, feedback: 'negative' })).toBe(false);
    });

    it('WidgetIdentifyRequest', () => {
      const v = validate('WidgetIdentifyRequest');
      const userHash = 'aB'.repeat(32);
      expect(v({ sessionId: 's1', externalUserId: 'u-1', name: 'Ana', email: 'ana@example.com', phone: '+100', userHash })).toBe(true);
      expect(v({ sessionId: 's1', externalUserId: 'u-1' })).toBe(false);
      expect(v({ sessionId: 's1', externalUserId: 'u-1', userHash: 'a'.repeat(63) })).toBe(false);
      expect(v({ sessionId: 's1', externalUserId: 'u-1', userHash: 'g'.repeat(64) })).toBe(false);
      expect(v({ sessionId: 's1', externalUserId: ' ', userHash })).toBe(false);
      expect(v({ sessionId: 's1', externalUserId: 'x'.repeat(201), userHash })).toBe(false);
      expect(v({ sessionId: 's1', externalUserId: 'u', email: 'not-an-email', userHash })).toBe(false);
      expect(v({ sessionId: 's1', externalUserId: 'u', phone: '12', userHash })).toBe(false);
    });

    it('WidgetLeadRequest', () => {
      const v = validate('WidgetLeadRequest');
      expect(v({})).toBe(true);
      expect(v({ name: 'Ana', company: 'Acme', message: 'x'.repeat(2000), qualification: { budget: 'high' } })).toBe(true);
      expect(v({ message: 'x'.repeat(2001) })).toBe(false);
      expect(v({ qualification: { budget: 1 } })).toBe(false);
      expect(v({ score: 100 })).toBe(false);
    });

    it('WidgetBookingRequest', () => {
      const v = validate('WidgetBookingRequest');
      const ok = { name: 'Ana', email: 'ana@example.com', phone: '+100' };
      expect(v(ok)).toBe(true);
      expect(v({ ...ok, requestedSlot: '2026-12-01T10:00:00+03:00', country: 'FR', timeZone: 'Europe/Paris', notes: '', customFields: { a: 'b' } })).toBe(true);
      expect(v({ ...ok, country: 'FRA' })).toBe(false);
      expect(v({ ...ok, timeZone: 'x'.repeat(65) })).toBe(false);
      expect(v({ ...ok, notes: 'x'.repeat(2001) })).toBe(false);
      expect(v({ ...ok, name: ' ' })).toBe(false);
      expect(v({ name: 'Ana', email: 'ana@example.com' })).toBe(false);
      expect(v({ ...ok, status: 'confirmed' })).toBe(false);
    });

    it('WidgetTicketRequest', () => {
      const v = validate('WidgetTicketRequest');
      const ok = { sessionId: 's1', email: 'ana@example.com', subject: 'Help', message: 'x'.repeat(5000) };
      expect(v(ok)).toBe(true);
      expect(v({ ...ok, message: 'x'.repeat(5001) })).toBe(false);
      expect(v({ ...ok, subject: 'x'.repeat(201) })).toBe(false);
      const { sessionId: _omitted, ...noSession } = ok;
      expect(v(noSession)).toBe(false);
    });

    it('WidgetHandoffRequest', () => {
      const v = validate('WidgetHandoffRequest');
      expect(v({ sessionId: 's1' })).toBe(true);
      expect(v({ sessionId: 's1', reason: 'x'.repeat(500) })).toBe(true);
      expect(v({ sessionId: 's1', reason: 'x'.repeat(501) })).toBe(false);
      expect(v({ reason: 'now' })).toBe(false);
    });

    it('accepts the results the routes send', () => {
      expect(validate('FeedbackResult')({ message_id: uuidA, feedback: 'negative' })).toBe(true);
      expect(validate('IdentifyResult')({ session_id: 's1', identified: true })).toBe(true);
      expect(validate('HandoffResult')({ session_id: 's1', handoff: true })).toBe(true);
      expect(validate('WidgetSession')({ session_id: 'x'.repeat(43) })).toBe(true);
      const receipt = { id: uuidA, session_id: 's1', status: 'received', created_at: '2026-03-01T10:00:00.000Z' };
      expect(validate('Receipt')(receipt)).toBe(true);
      expect(validate('Receipt')({ ...receipt, status: 'new' })).toBe(false);
      const booking = {
        id: uuidA,
        chatbot_id: uuidA,
        name: 'Lin',
        email: 'lin@example.com',
        phone: '+65 6123 4567',
        notes: null,
        requested_slot: null,
        country: null,
        time_zone: null,
        custom_fields: null,
        status: 'pending',
        created_at: '2026-03-01T10:00:00.000Z',
      };
      expect(validate('VisitorBooking')(booking)).toBe(true);
    });
  });
});

describe('OpenApiController', () => {
  it('serves both documents without a token', () => {
    const controller = new OpenApiController(documents);
    expect(controller.openapi()).toBe(documents.rest);
    expect(controller.widgetOpenapi()).toBe(doc);
    expect(Reflect.getMetadata(PATH_METADATA, OpenApiController.prototype.widgetOpenapi)).toBe('widget/v1/openapi.json');
    expect(Reflect.getMetadata(PATH_METADATA, OpenApiController.prototype.openapi)).toBe('v1/openapi.json');
  });
});
