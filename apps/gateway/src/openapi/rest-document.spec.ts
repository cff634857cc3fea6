import 'reflect-metadata';
import pino from 'pino';
import { collectRefs, newAjv2020, resolvePointer, expectValidOpenApi31 } from '@sa/testing';
import { CONSOLE_ERROR_CODES, ERROR_CODES, WIDGET_ERROR_CODES } from '@sa/contracts';
import { DomainError, ValidationFailed, httpStatusOf, toHttpError } from '@sa/errors';
import { AppModule } from '../app.module';
import { loadGatewayConfig } from '../config/gateway.config';
import { createApiDocuments } from './api-documents';
import { gatewayApiDocuments } from './gateway-documents';
import { sseFinalFrame, sseFrame } from '../chat/chat-streamer';

type Json = Record<string, any>;

// The REST document as GET /v1/openapi.json serves it, generated from the controllers and contracts.
let doc: Json;
let schemas: Record<string, Json>;
beforeAll(async () => {
  doc = (await gatewayApiDocuments()).rest;
  schemas = doc.components.schemas;
});

/** Follows a `$ref` to the component it names, or returns the schema itself. */
function deref(schema: Json): Json {
  return schema.$ref ? (resolvePointer(doc, schema.$ref) as Json) : schema;
}

const operations: [string, string][] = [
  ['get', '/bots'],
  ['post', '/bots'],
  ['get', '/kb'],
  ['post', '/kb/ingest'],
  ['post', '/chat'],
  ['get', '/conversations'],
  ['get', '/conversations/{sessionId}'],
  ['get', '/leads'],
  ['get', '/analytics'],
  ['get', '/bookings'],
  ['get', '/bookings/{id}'],
  ['patch', '/bookings/{id}'],
  ['get', '/openapi.json'],
];

const scopes: Record<string, string> = {
  'get /bots': 'bots:read',
  'post /bots': 'bots:write',
  'get /kb': 'kb:read',
  'post /kb/ingest': 'kb:write',
  'post /chat': 'chat:invoke',
  'get /conversations': 'conversations:read',
  'get /conversations/{sessionId}': 'conversations:read',
  'get /leads': 'leads:read',
  'get /analytics': 'analytics:read',
  'get /bookings': 'bookings:read',
  'get /bookings/{id}': 'bookings:read',
  'patch /bookings/{id}': 'bookings:write',
};

const sorted = (values: readonly string[]): string[] => [...values].sort();

const op = (method: string, path: string): Json => doc.paths[path][method];

describe('the REST API document (GET /v1/openapi.json)', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', () => {
    expectValidOpenApi31(doc);
  });

  it('declares OpenAPI 3.1.0, spec version 1.0.1 and the /v1 server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.1');
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.description).toBe('string');
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/v1' })]);
  });

  it('is deterministic and built once', async () => {
    expect((await gatewayApiDocuments()).rest).toBe(doc);
    const again = await createApiDocuments(AppModule.forRoot(loadGatewayConfig({}), pino({ level: 'silent' })));
    expect(JSON.stringify(again.rest)).toBe(JSON.stringify(doc));
    expect(Object.isFrozen(doc)).toBe(true);
  });

  it('has exactly the 13 operations of spec part 4, with unique operationIds', () => {
    const actual = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(actual.sort()).toEqual(operations.map(([m, p]) => `${m} ${p}`).sort());
    const ids = operations.map(([m, p]) => op(m, p).operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(13);
    for (const [m, p] of operations) {
      expect(typeof op(m, p).summary).toBe('string');
      expect(op(m, p).tags.length).toBeGreaterThan(0);
    }
  });

  it('secures every operation but /openapi.json with a bearer token and the spec scope', () => {
    for (const [m, p] of operations) {
      const operation = op(m, p);
      if (p === '/openapi.json') {
        expect(operation.security).toEqual([]);
        expect(operation['x-required-scope']).toBeUndefined();
        continue;
      }
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
      expect(operation['x-required-scope']).toBe(scopes[`${m} ${p}`]);
    }
    const bearer = doc.components.securitySchemes.bearerAuth;
    expect(bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(bearer.description).toContain('mgpt_');
  });

  it('never uses `nullable` (3.1 uses type arrays)', () => {
    expect(JSON.stringify(doc)).not.toContain('nullable');
  });

  it('resolves every $ref to an existing component', () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/(schemas|responses)\//);
      expect([ref, resolvePointer(doc, ref)]).toEqual([ref, expect.anything()]);
    }
  });

  describe('resource schemas match spec part 2 exactly', () => {
    const fields: Record<string, string[]> = {
      Bot: ['id', 'name', 'slot_kind', 'language', 'created_at'],
      CreatedBot: ['id', 'name', 'language', 'created_at'],
      KBDocument: ['id', 'title', 'source_url', 'source_type', 'status', 'chunk_count', 'chatbot_id', 'created_at'],
      Conversation: ['session_id', 'message_count', 'first_at', 'last_at', 'preview', 'channel'],
      ChatMessage: ['id', 'tenant_id', 'chatbot_id', 'session_id', 'role', 'content', 'feedback', 'source_urls', 'channel', 'provider_message_id', 'created_at'],
      Lead: [
        'id', 'tenant_id', 'chatbot_id', 'session_id', 'name', 'email', 'phone', 'external_user_id', 'company', 'intent_category',
        'intent_summary', 'score', 'score_band', 'sentiment', 'qualification', 'status', 'captured_via', 'confidence', 'notified_at',
        'asked_contact_at', 'notes', 'country', 'region', 'channel', 'created_at', 'updated_at',
      ],
      Analytics: ['daily', 'top_questions', 'unanswered', 'feedback', 'sessions'],
      Booking: [
        'id', 'tenant_id', 'chatbot_id', 'name', 'email', 'phone', 'notes', 'requested_slot', 'country', 'time_zone', 'custom_fields',
        'status', 'rejection_comment', 'confirmed_at', 'rejected_at', 'cancelled_at', 'created_at',
      ],
    };

    it.each(Object.entries(fields))('%s has exactly the spec fields, all required', (name, expected) => {
      const schema = schemas[name];
      expect(schema.type).toBe('object');
      // Members this implementation adds beyond the spec are marked x-extension and never required.
      const specFields = Object.keys(schema.properties).filter((k) => !schema.properties[k]['x-extension']);
      expect(specFields.sort()).toEqual([...expected].sort());
      expect([...schema.required].sort()).toEqual([...expected].sort());
    });

    // [schema, field, type, format?]: every typed field of part 2 (nullable ones as type arrays).
    const types: [string, string, unknown, string?][] = [
      ['Bot', 'id', 'string', 'uuid'],
      ['Bot', 'name', 'string'],
      ['Bot', 'slot_kind', 'string'],
      ['Bot', 'language', 'string'],
      ['Bot', 'created_at', 'string', 'date-time'],
      ['CreatedBot', 'id', 'string', 'uuid'],
      ['CreatedBot', 'created_at', 'string', 'date-time'],
      ['KBDocument', 'id', 'string', 'uuid'],
      ['KBDocument', 'source_url', ['string', 'null']],
      ['KBDocument', 'chunk_count', 'integer'],
      ['KBDocument', 'chatbot_id', ['string', 'null'], 'uuid'],
      ['KBDocument', 'created_at', 'string', 'date-time'],
      ['Conversation', 'session_id', 'string'],
      ['Conversation', 'message_count', 'integer'],
      ['Conversation', 'first_at', 'string', 'date-time'],
      ['Conversation', 'last_at', 'string', 'date-time'],
      ['Conversation', 'preview', ['string', 'null']],
      ['Conversation', 'channel', 'string'],
      ['ChatMessage', 'id', 'string', 'uuid'],
      ['ChatMessage', 'tenant_id', 'string', 'uuid'],
      ['ChatMessage', 'chatbot_id', ['string', 'null'], 'uuid'],
      ['ChatMessage', 'session_id', 'string'],
      ['ChatMessage', 'content', 'string'],
      ['ChatMessage', 'feedback', ['string', 'null']],
      ['ChatMessage', 'source_urls', ['array', 'null']],
      ['ChatMessage', 'channel', 'string'],
      ['ChatMessage', 'provider_message_id', ['string', 'null']],
      ['ChatMessage', 'created_at', 'string', 'date-time'],
      ['Lead', 'id', 'string', 'uuid'],
      ['Lead', 'tenant_id', 'string', 'uuid'],
      ['Lead', 'chatbot_id', ['string', 'null'], 'uuid'],
      ['Lead', 'session_id', 'string'],
      ['Lead', 'name', ['string', 'null']],
      ['Lead', 'email', ['string', 'null']],
      ['Lead', 'phone', ['string', 'null']],
      ['Lead', 'external_user_id', ['string', 'null']],
      ['Lead', 'company', ['string', 'null']],
      ['Lead', 'intent_category', ['string', 'null']],
      ['Lead', 'intent_summary', ['string', 'null']],
      ['Lead', 'score', 'integer'],
      ['Lead', 'sentiment', ['string', 'null']],
      ['Lead', 'qualification', ['object', 'null']],
      ['Lead', 'confidence', ['number', 'null']],
      ['Lead', 'notified_at', ['string', 'null'], 'date-time'],
      ['Lead', 'asked_contact_at', ['string', 'null'], 'date-time'],
      ['Lead', 'notes', ['string', 'null']],
      ['Lead', 'country', ['string', 'null']],
      ['Lead', 'region', ['string', 'null']],
      ['Lead', 'channel', 'string'],
      ['Lead', 'created_at', 'string', 'date-time'],
      ['Lead', 'updated_at', 'string', 'date-time'],
      ['Booking', 'id', 'string', 'uuid'],
      ['Booking', 'tenant_id', 'string', 'uuid'],
      ['Booking', 'chatbot_id', ['string', 'null'], 'uuid'],
      ['Booking', 'name', 'string'],
      ['Booking', 'email', 'string'],
      ['Booking', 'phone', 'string'],
      ['Booking', 'notes', ['string', 'null']],
      ['Booking', 'requested_slot', ['string', 'null'], 'date-time'],
      ['Booking', 'country', ['string', 'null']],
      ['Booking', 'time_zone', ['string', 'null']],
      ['Booking', 'custom_fields', ['object', 'null']],
      ['Booking', 'rejection_comment', ['string', 'null']],
      ['Booking', 'confirmed_at', ['string', 'null'], 'date-time'],
      ['Booking', 'rejected_at', ['string', 'null'], 'date-time'],
      ['Booking', 'cancelled_at', ['string', 'null'], 'date-time'],
      ['Booking', 'created_at', 'string', 'date-time'],
    ];

    it.each(types.map(([name, field, type, format]) => [name, field, type, format ?? null]))('%s.%s has type %j', (name, field, type, format) => {
      const property = schemas[name as string].properties[field as string];
      expect(property.type).toEqual(type);
      expect(property.format ?? null).toBe(format);
    });

    it('has the spec enums', () => {
      const enumOf = (name: string, field: string) => schemas[name].properties[field].enum;
      expect(enumOf('Bot', 'slot_kind')).toEqual(['plan', 'addon', 'vendor']);
      expect(enumOf('KBDocument', 'source_type')).toEqual(['url', 'file', 'qa', 'snippet']);
      expect(enumOf('KBDocument', 'status')).toEqual(['queued', 'processing', 'ready', 'failed']);
      expect(enumOf('ChatMessage', 'role')).toEqual(['user', 'assistant']);
      expect(enumOf('ChatMessage', 'feedback')).toEqual(['positive', 'negative', null]);
      expect(enumOf('Lead', 'score_band')).toEqual(['hot', 'warm', 'cold']);
      expect(enumOf('Lead', 'status')).toEqual(['new', 'contacted', 'qualified', 'won', 'lost']);
      expect(enumOf('Lead', 'captured_via')).toEqual(['conversational', 'form', 'inferred']);
      expect(enumOf('Booking', 'status')).toEqual(['pending', 'confirmed', 'rejected', 'cancelled']);
      expect(enumOf('CreateBotRequest', 'enterprise_plan_tier')).toEqual(['starter', 'growth', 'scale']);
      expect(enumOf('UpdateBookingRequest', 'action')).toEqual(['confirm', 'reject', 'reschedule', 'cancel']);
    });

    it('maps string to string for qualification and custom_fields, array of string for source_urls', () => {
      expect(schemas.Lead.properties.qualification.additionalProperties).toEqual({ type: 'string' });
      expect(schemas.Booking.properties.custom_fields.additionalProperties).toEqual({ type: 'string' });
      expect(schemas.ChatMessage.properties.source_urls.items).toEqual({ type: 'string' });
      expect(schemas.Bot.properties.name.maxLength).toBe(30);
    });

    it('gives Analytics its nested shapes', () => {
      // The nested objects are classes of their own in libs/contracts, so components of their own here.
      const a = Object.fromEntries(Object.entries(schemas.Analytics.properties as Record<string, Json>).map(([k, v]) => [k, v.type === 'array' ? { ...v, items: deref(v.items) } : deref(v)]));
      const shape = (s: Json) => Object.fromEntries(Object.entries(s.properties as Record<string, Json>).map(([k, v]) => [k, [v.type, v.format]]));
      expect(a.daily.type).toBe('array');
      expect(shape(a.daily.items)).toEqual({ day: ['string', 'date'], user_messages: ['integer', undefined], assistant_messages: ['integer', undefined] });
      expect(sorted(a.daily.items.required)).toEqual(['assistant_messages', 'day', 'user_messages']);
      expect(a.top_questions.type).toBe('array');
      expect(shape(a.top_questions.items)).toEqual({ question: ['string', undefined], times: ['integer', undefined] });
      expect(shape(a.unanswered)).toEqual({ count: ['integer', undefined], total: ['integer', undefined], rate: ['number', undefined] });
      expect([a.unanswered.properties.rate.minimum, a.unanswered.properties.rate.maximum]).toEqual([0, 100]);
      expect(shape(a.feedback)).toEqual({ positive: ['integer', undefined], negative: ['integer', undefined] });
      expect(shape(a.sessions)).toEqual({ total: ['integer', undefined], avg_messages: ['number', undefined] });
      for (const member of [a.unanswered, a.feedback, a.sessions, a.daily.items, a.top_questions.items]) {
        expect([...member.required].sort()).toEqual(Object.keys(member.properties).sort());
      }
    });
  });

  describe('request bodies match spec part 4', () => {
    it('CreateBotRequest', () => {
      const s = schemas.CreateBotRequest;
      expect(Object.keys(s.properties).sort()).toEqual(['enterprise_plan_tier', 'language', 'name']);
      expect(s.required).toEqual(['name']);
      expect([s.properties.name.minLength, s.properties.name.maxLength]).toEqual([1, 30]);
    });

    it('KbIngestRequest', () => {
      const s = schemas.KbIngestRequest;
      expect(Object.keys(s.properties).sort()).toEqual(['chatbotId', 'text', 'title', 'url']);
      expect(s.required).toEqual(['title']);
      expect([s.properties.title.minLength, s.properties.title.maxLength]).toEqual([1, 300]);
      expect([s.properties.text.minLength, s.properties.text.maxLength]).toEqual([1, 200000]);
      expect(s.properties.url.format).toBe('uri');
      expect(s.properties.chatbotId.format).toBe('uuid');
    });

    it('ChatRequest', () => {
      const s = schemas.ChatRequest;
      // The spec's four, and ours (issue 34: the visitor's decision on an action), optional.
      expect(Object.keys(s.properties).sort()).toEqual(['action_confirmation', 'chatbotId', 'language', 'message', 'sessionId']);
      expect(s.required).toEqual(['message']);
      expect([s.properties.message.minLength, s.properties.message.maxLength]).toEqual([1, 2000]);
      expect(s.properties.sessionId.maxLength).toBe(120);
      expect(s.properties.chatbotId.format).toBe('uuid');
    });

    it('UpdateBookingRequest', () => {
      const s = schemas.UpdateBookingRequest;
      expect(Object.keys(s.properties).sort()).toEqual(['action', 'cancelComment', 'rejectionComment', 'requestedSlot']);
      expect(s.required).toEqual(['action']);
      expect(s.properties.requestedSlot.format).toBe('date-time');
      expect(s.properties.rejectionComment.maxLength).toBe(500);
      expect(s.properties.cancelComment.maxLength).toBe(500);
    });

    it('has the request bodies on the operations', () => {
      const body = (m: string, p: string) => op(m, p).requestBody.content['application/json'].schema.$ref;
      expect(body('post', '/bots')).toBe('#/components/schemas/CreateBotRequest');
      expect(body('post', '/kb/ingest')).toBe('#/components/schemas/KbIngestRequest');
      expect(body('post', '/chat')).toBe('#/components/schemas/ChatRequest');
      expect(body('patch', '/bookings/{id}')).toBe('#/components/schemas/UpdateBookingRequest');
    });
  });

  describe('parameters', () => {
    const params = (m: string, p: string): Record<string, Json> =>
      Object.fromEntries(((op(m, p).parameters ?? []) as Json[]).map((x) => [`${x.in}:${x.name}`, x]));

    it('match spec part 4 and the limits of part 8', () => {
      expect(Object.keys(params('get', '/bots'))).toEqual([]);
      expect(Object.keys(params('get', '/kb'))).toEqual(['query:chatbotId']);
      expect(params('get', '/kb')['query:chatbotId'].schema).toMatchObject({ type: 'string', format: 'uuid' });
      expect(Object.keys(params('get', '/leads'))).toEqual(['query:chatbotId']);
      expect(Object.keys(params('get', '/analytics'))).toEqual(['query:chatbotId']);

      const conv = params('get', '/conversations');
      expect(Object.keys(conv).sort()).toEqual(['query:chatbotId', 'query:limit', 'query:q']);
      expect(conv['query:q'].schema).toMatchObject({ type: 'string', maxLength: 200 });
      expect(conv['query:limit'].schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
      expect(conv['query:chatbotId'].schema.format).toBe('uuid');

      const bookings = params('get', '/bookings');
      expect(Object.keys(bookings).sort()).toEqual(['query:chatbotId', 'query:limit', 'query:status']);
      expect(bookings['query:status'].schema.enum).toEqual(['pending', 'confirmed', 'rejected', 'cancelled']);
      expect(bookings['query:limit'].schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 200 });

      expect(params('get', '/conversations/{sessionId}')['path:sessionId']).toMatchObject({ required: true, schema: { type: 'string', maxLength: 120 } });
      for (const m of ['get', 'patch']) {
        expect(params(m, '/bookings/{id}')['path:id']).toMatchObject({ required: true, schema: { type: 'string', format: 'uuid' } });
      }
      for (const [m, p] of operations) {
        for (const x of Object.values(params(m, p))) expect(x.in === 'query' ? x.required : true).toBe(x.in === 'query' ? false : true);
      }
    });
  });

  describe('responses', () => {
    const success: [string, string, string, Json][] = [
      ['get', '/bots', '200', { type: 'array', ref: 'Bot' }],
      ['post', '/bots', '201', { ref: 'CreatedBot' }],
      ['get', '/kb', '200', { type: 'array', ref: 'KBDocument' }],
      ['post', '/kb/ingest', '202', { ref: 'KbIngestAccepted' }],
      ['get', '/conversations', '200', { type: 'array', ref: 'Conversation' }],
      ['get', '/conversations/{sessionId}', '200', { type: 'array', ref: 'ChatMessage' }],
      ['get', '/leads', '200', { type: 'array', ref: 'Lead' }],
      ['get', '/analytics', '200', { ref: 'Analytics' }],
      ['get', '/bookings', '200', { type: 'array', ref: 'Booking' }],
      ['get', '/bookings/{id}', '200', { ref: 'Booking' }],
      ['patch', '/bookings/{id}', '200', { ref: 'Booking' }],
    ];

    it.each(success)('%s %s answers %s with a {data} envelope', (m, p, status, expected) => {
      const responses = op(m, p).responses;
      expect(Object.keys(responses).filter((s) => s.startsWith('2'))).toEqual([status]);
      const schema = responses[status].content['application/json'].schema;
      expect(schema).toMatchObject({ type: 'object', required: ['data'] });
      const data = schema.properties.data;
      if (expected.type === 'array') {
        expect(data.type).toBe('array');
        expect(data.items.$ref).toBe(`#/components/schemas/${expected.ref}`);
      } else {
        expect(data.$ref).toBe(`#/components/schemas/${expected.ref}`);
      }
    });

    it('bounds the lists as spec part 8 does', () => {
      const maxItems = (p: string) => op('get', p).responses['200'].content['application/json'].schema.properties.data.maxItems;
      expect(maxItems('/leads')).toBe(500);
      expect(maxItems('/bookings')).toBe(200);
      expect(maxItems('/conversations')).toBe(200);
    });

    it('describes the 202 of POST /kb/ingest as {id, status}', () => {
      expect(Object.keys(schemas.KbIngestAccepted.properties).sort()).toEqual(['id', 'status']);
      expect(sorted(schemas.KbIngestAccepted.required)).toEqual(['id', 'status']);
    });

    it('streams POST /chat as text/event-stream and describes the chunk', () => {
      const ok = op('post', '/chat').responses['200'];
      expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
      expect(ok.content['text/event-stream'].schema.type).toBe('string');
      expect(ok.content['text/event-stream'].schema.description).toContain('choices[0].delta.content');
      const chunk = schemas.ChatChunk;
      const choice = deref(chunk.properties.choices.items);
      expect(chunk.properties.choices.type).toBe('array');
      expect(deref(choice.properties.delta).properties.content.type).toBe('string');
      // How the stream ends (this implementation): the last frame's finish_reason, marked x-extension.
      expect(ok.content['text/event-stream'].schema.description).toContain('finish_reason');
      expect(choice.properties.finish_reason['x-extension']).toBe(true);
      expect(choice.properties.finish_reason.enum).toEqual(['stop', 'error', null]);
      expect(choice.required).toEqual(['delta']);
      expect(chunk.properties.error['x-extension']).toBe(true);
      expect(chunk.required).toEqual(['choices']);
    });

    it('answers 400, 401, 402, 403, 404 and 429 on every authenticated operation, 409 where the spec says', () => {
      for (const [m, p] of operations) {
        const statuses = Object.keys(op(m, p).responses);
        if (p === '/openapi.json') {
          // No token: only the per-client-address limit applies (docs/decisions/api.md, rate limits).
          expect(statuses).toEqual(['200', '429']);
          continue;
        }
        for (const s of ['400', '401', '402', '403', '404', '429']) {
          expect([m, p, s, op(m, p).responses[s]?.$ref]).toEqual([m, p, s, expect.stringMatching(/^#\/components\/responses\//)]);
        }
        // The spec's two, and ours: a chat message deciding an action nothing waits on (issue 34).
        const conflict = (m === 'post' && p === '/bots') || (m === 'patch' && p === '/bookings/{id}') || (m === 'post' && p === '/chat');
        expect([m, p, statuses.includes('409')]).toEqual([m, p, conflict]);
        if (conflict) expect(op(m, p).responses['409'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorObject');
      }
      expect(op('post', '/bots').responses['409'].description).toContain('suggested_name');
    });

    it('shares error responses: 400 is ErrorObject or ValidationError, 429 has Retry-After', () => {
      const r = doc.components.responses;
      expect(r.BadRequest.content['application/json'].schema.oneOf).toEqual([
        { $ref: '#/components/schemas/ErrorObject' },
        { $ref: '#/components/schemas/ValidationError' },
      ]);
      for (const name of ['Unauthorized', 'PaymentRequired', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable']) {
        expect(r[name].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorObject' });
      }
      expect(r.TooManyRequests.headers['Retry-After'].schema).toEqual({ type: 'integer' });
    });

    it('names the error codes of each status as libs/errors maps them', () => {
      const byStatus: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 402: 'PaymentRequired', 403: 'Forbidden', 404: 'NotFound', 429: 'TooManyRequests', 503: 'ServiceUnavailable' };
      const widgetOnly = new Set<string>(WIDGET_ERROR_CODES);
      const consoleOnly = new Set<string>(CONSOLE_ERROR_CODES);
      for (const code of ERROR_CODES) {
        const status = httpStatusOf(code);
        for (const [s, name] of Object.entries(byStatus)) {
          // Codes only the widget API sends are named by the widget document's responses, not here.
          expect([code, name, doc.components.responses[name].description.includes(`\`${code}\``)]).toEqual([code, name, Number(s) === status && !widgetOnly.has(code) && !consoleOnly.has(code)]);
        }
        if (widgetOnly.has(code)) expect([code, [402, 403].includes(status)]).toEqual([code, true]);
        // validation_failed travels as the ValidationError body, never as the general error object's code.
        expect([code, schemas.ErrorObject.properties.code.description.includes(`\`${code}\``)]).toEqual([code, code !== 'validation_failed']);
      }
    });

    it('has the error bodies of spec part 7', () => {
      const e = schemas.ErrorObject;
      expect(Object.keys(e.properties).sort()).toEqual(['available_slots', 'code', 'error', 'message', 'retry_after', 'suggested_name']);
      expect(e.required).toBeUndefined();
      expect(e.properties.retry_after.type).toBe('integer');
      expect(e.properties.available_slots).toMatchObject({ type: 'object', additionalProperties: { type: 'integer' } });
      const v = schemas.ValidationError;
      expect(sorted(v.required)).toEqual(['error', 'success']);
      expect(v.properties.success.const).toBe(false);
      const error = deref(v.properties.error);
      expect(error.type).toBe('object');
      expect(sorted(error.required)).toEqual(['issues', 'message', 'name']);
      const issue = deref(error.properties.issues.items);
      expect(sorted(issue.required)).toEqual(['code', 'message', 'path']);
      expect(issue.properties.path.items.type).toEqual(['string', 'integer']);
    });
  });

  describe('component schemas as JSON Schema 2020-12 (ajv, strict)', () => {
    let ajv: ReturnType<typeof newAjv2020>;
    beforeAll(() => {
      ajv = newAjv2020('https://openapi.test/doc', schemas);
    });
    /** Compiles a schema of the document, its local $refs pointing into the schema registered as https://openapi.test/doc. */
    const compileFromDoc = (schema: unknown) => ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://openapi.test/doc#/components/')));
    const validate = (name: string) => compileFromDoc({ $ref: `#/components/schemas/${name}` });
    const uuidA = '2f1b8a52-4c1e-4d7a-9a57-0c5f2d0b6e11';
    const when = '2026-03-01T10:00:00.000Z';

    it('compiles every component schema', () => {
      for (const name of Object.keys(schemas)) expect(() => validate(name)).not.toThrow();
    });

    it('accepts sample responses and rejects drift', () => {
      const bot = { id: uuidA, name: 'Support', slot_kind: 'plan', language: 'en', created_at: when };
      expect(validate('Bot')(bot)).toBe(true);
      expect(validate('Bot')({ ...bot, slot_kind: 'other' })).toBe(false);
      expect(validate('Bot')({ ...bot, name: 'x'.repeat(31) })).toBe(false);
      const booking = {
        id: uuidA, tenant_id: uuidA, chatbot_id: null, name: 'Ana', email: 'ana@example.com', phone: '+100', notes: null,
        requested_slot: when, country: null, time_zone: 'Europe/Paris', custom_fields: { a: 'b' }, status: 'pending',
        rejection_comment: null, confirmed_at: null, rejected_at: null, cancelled_at: null, created_at: when,
      };
      expect(validate('Booking')(booking)).toBe(true);
      expect(validate('Booking')({ ...booking, custom_fields: { a: 1 } })).toBe(false);
      const { notes: _omitted, ...missingNotes } = booking;
      expect(validate('Booking')(missingNotes)).toBe(false);
      const message = {
        id: uuidA, tenant_id: uuidA, chatbot_id: uuidA, session_id: 's1', role: 'assistant', content: 'Hi', feedback: null,
        source_urls: ['https://example.com'], channel: 'web', provider_message_id: null, created_at: when,
      };
      expect(validate('ChatMessage')(message)).toBe(true);
      expect(validate('ChatMessage')({ ...message, feedback: 'neutral' })).toBe(false);
      const analytics = {
        daily: [{ day: '2026-03-01', user_messages: 3, assistant_messages: 3 }],
        top_questions: [{ question: 'Price?', times: 2 }],
        unanswered: { count: 1, total: 3, rate: 33.3 },
        feedback: { positive: 1, negative: 0 },
        sessions: { total: 1, avg_messages: 6 },
      };
      expect(validate('Analytics')(analytics)).toBe(true);
      expect(validate('Analytics')({ ...analytics, daily: [{ day: when, user_messages: 1, assistant_messages: 1 }] })).toBe(false);
      expect(validate('ChatChunk')({ choices: [{ delta: { content: 'Hel' } }] })).toBe(true);
      // The frames the gateway writes (chat-streamer.ts): content frames and both last frames.
      for (const frame of [sseFrame('Hel'), sseFinalFrame(), sseFinalFrame({ code: 'internal_error', message: 'not saved' })]) {
        expect(validate('ChatChunk')(JSON.parse(frame.slice('data: '.length)))).toBe(true);
      }
      expect(validate('ChatChunk')({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'length' }] })).toBe(false);
      expect(validate('ChatChunk')({ choices: [{ index: 0, delta: { content: null }, finish_reason: 'stop' }] })).toBe(false);
    });

    it('accepts the error bodies this implementation sends (libs/errors toHttpError)', () => {
      const validation = toHttpError(new ValidationFailed([{ code: 'too_big', path: ['body', 'name'], message: 'too long' }]));
      const conflict = toHttpError(new DomainError('bot_name_taken', 'taken', { suggested_name: 'Support 2' }));
      const limited = toHttpError(new DomainError('rate_limited', 'slow down', { retry_after: 3 }));
      const tier = toHttpError(new DomainError('tier_capacity_unavailable', 'full', { available_slots: { starter: 0, growth: 2 } }));
      const badRequest = compileFromDoc(doc.components.responses.BadRequest.content['application/json'].schema);
      expect(validate('ValidationError')(validation.body)).toBe(true);
      expect(badRequest(validation.body)).toBe(true);
      expect(badRequest(toHttpError(new DomainError('bad_request', 'url or text required')).body)).toBe(true);
      for (const body of [conflict.body, limited.body, tier.body]) expect(validate('ErrorObject')(body)).toBe(true);
    });

    it('requires url or text on KbIngestRequest', () => {
      const v = validate('KbIngestRequest');
      expect(v({ title: 'Pricing', url: 'https://example.com/pricing' })).toBe(true);
      expect(v({ title: 'Pricing', text: 'We charge…' })).toBe(true);
      expect(v({ title: 'Pricing' })).toBe(false);
      expect(v({ title: 'Pricing', text: '' })).toBe(false);
      expect(v({ title: '', text: 'x' })).toBe(false);
    });

    it('requires requestedSlot only when rescheduling', () => {
      const v = validate('UpdateBookingRequest');
      expect(v({ action: 'confirm' })).toBe(true);
      expect(v({ action: 'reschedule' })).toBe(false);
      expect(v({ action: 'reschedule', requestedSlot: '2026-03-02T09:30:00+05:30' })).toBe(true);
      expect(v({ action: 'cancel', cancelComment: 'x'.repeat(501) })).toBe(false);
      expect(v({ action: 'archive' })).toBe(false);
    });

    it('limits CreateBotRequest and ChatRequest', () => {
      expect(validate('CreateBotRequest')({ name: 'Support', enterprise_plan_tier: 'growth' })).toBe(true);
      expect(validate('CreateBotRequest')({ name: '' })).toBe(false);
      expect(validate('CreateBotRequest')({ name: 'Support', enterprise_plan_tier: 'gold' })).toBe(false);
      expect(validate('ChatRequest')({ message: 'Hi', sessionId: 's'.repeat(120), language: 'ja-JP' })).toBe(true);
      expect(validate('ChatRequest')({ message: 'x'.repeat(2001) })).toBe(false);
      expect(validate('ChatRequest')({ message: 'Hi', sessionId: 's'.repeat(121) })).toBe(false);
    });
  });
});
