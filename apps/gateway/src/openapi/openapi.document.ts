import type { ErrorCode, Scope } from '@sa/contracts';

/**
 * The OpenAPI 3.1.0 description of the REST API (spec part 4, versioning in part 9), served
 * unauthenticated at GET /v1/openapi.json.
 *
 * Written by hand rather than generated from decorators: the API specification (api-spec.md) is
 * the source of truth, and 3.1 needs JSON Schema type arrays for nullable fields (never `nullable`).
 * Where the spec says "not shown", the document describes what this implementation does and says so.
 */

// ---------------------------------------------------------------------------------------------
// A small JSON Schema (2020-12, as used by OpenAPI 3.1) vocabulary, typed to catch typos.

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

export interface Schema {
  $ref?: string;
  type?: JsonType | JsonType[];
  format?: string;
  enum?: (string | null)[];
  const?: unknown;
  title?: string;
  description?: string;
  default?: unknown;
  examples?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  /** Marks a member this implementation adds beyond the spec (OpenAPI allows x- keywords). */
  'x-extension'?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  if?: Schema;
  then?: Schema;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  description: string;
  schema: Schema;
}

export interface Header {
  description: string;
  required?: boolean;
  schema: Schema;
}

export interface MediaType {
  schema: Schema;
  example?: unknown;
}

export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}

export type ResponseOrRef = Response | { $ref: string };

export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  'x-required-scope'?: Scope;
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, ResponseOrRef>;
}

export type HttpMethod = 'get' | 'post' | 'patch';
export type PathItem = Partial<Record<HttpMethod, Operation>>;

// ---------------------------------------------------------------------------------------------
// Schema helpers.

/** The chat event stream (POST /chat and the widget's chat): its frames and how it ends. */
export const CHAT_STREAM_DESCRIPTION =
  'A sequence of SSE frames of the form `data: <json>` followed by a blank line. Each JSON chunk (schema ChatChunk) ' +
  'has `choices[0].delta.content`, a string fragment of the reply, and `finish_reason` null. The last frame says how the stream ended ' +
  '(this implementation): `finish_reason: "stop"` when the answer is complete and stored, or `"error"` with an `error` object ' +
  '`{code, message}` when it broke off; its `delta.content` is an empty string. There is no `data: [DONE]` frame. ' +
  'Read incrementally until the stream closes; a stream that closes without a last frame broke off.';

export const CHAT_STREAM_EXAMPLE =
  'data: {"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n' +
  'data: {"choices":[{"index":0,"delta":{"content":", how can I help?"},"finish_reason":null}]}\n\n' +
  'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\n';

const JSON_MEDIA = 'application/json';

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (extra: Omit<Schema, 'type'> = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Omit<Schema, 'type'> = {}): Schema => ({ type: 'integer', ...extra });
const num = (extra: Omit<Schema, 'type'> = {}): Schema => ({ type: 'number', ...extra });
export const uuid = (description?: string): Schema => str({ format: 'uuid', ...(description ? { description } : {}) });
export const dateTime = (description?: string): Schema => str({ format: 'date-time', ...(description ? { description } : {}) });
const oneOfValues = (values: string[], description?: string): Schema => str({ enum: values, ...(description ? { description } : {}) });
export const stringMap = (description: string): Schema => ({ type: 'object', additionalProperties: { type: 'string' }, description });

/** The same schema, also allowing JSON null (a 3.1 type array; an enum gains null as a value). */
export function nullable(schema: Schema): Schema {
  if (typeof schema.type !== 'string') throw new Error('nullable() needs a schema with a single type');
  return { ...schema, type: [schema.type, 'null'], ...(schema.enum ? { enum: [...schema.enum, null] } : {}) };
}

/** An object schema whose members are all required unless `extra.required` says otherwise. */
export function obj(properties: Record<string, Schema>, extra: Omit<Schema, 'type' | 'properties'> = {}): Schema {
  const { required = Object.keys(properties), ...rest } = extra;
  return { type: 'object', ...rest, properties, ...(required.length ? { required } : {}) };
}

/** The `{data: X}` envelope of a success response. */
export function dataOf(schema: Schema): Schema {
  return obj({ data: schema });
}

/** The `{data: [X]}` envelope of a list response. */
function listOf(schema: Schema, maxItems?: number): Schema {
  return dataOf({ type: 'array', items: schema, ...(maxItems ? { maxItems } : {}) });
}

export function json(schema: Schema): Record<string, MediaType> {
  return { [JSON_MEDIA]: { schema } };
}

/**
 * Error codes this implementation sends, by status: the mapping of libs/errors (httpStatusOf), restated
 * here so this module stays free of runtime imports; the unit test checks the two agree.
 */
const CODES_BY_STATUS: Record<number, ErrorCode[]> = {
  400: ['validation_failed', 'bad_request'], // validation_failed is sent as the ValidationError body, not as a code
  401: ['unauthorized'],
  402: ['api_locked', 'plan_capacity_exhausted', 'quota_exhausted'],
  403: ['insufficient_scope', 'bot_access_denied', 'tier_capacity_unavailable'],
  404: ['not_found'],
  409: ['bot_name_taken', 'conflict'],
  429: ['rate_limited'],
  500: ['internal_error'],
  503: ['service_unavailable'],
};

/** Codes only the visitor widget API (/widget/v1) sends, by status; never sent under /v1. */
export const WIDGET_CODES_BY_STATUS: Record<number, ErrorCode[]> = {
  402: ['widget_budget_exhausted'],
  403: ['session_forbidden'],
};

const codeList = (codes: string[]): string => codes.map((code) => `\`${code}\``).join(', ');
export const codesFor = (status: number): string => codeList(CODES_BY_STATUS[status] ?? []);
export const widgetCodesFor = (status: number): string => codeList(WIDGET_CODES_BY_STATUS[status] ?? []);

// ---------------------------------------------------------------------------------------------
// Enumerations, exactly as in the spec.

const SLOT_KINDS = ['plan', 'addon', 'vendor'];
const ENTERPRISE_TIERS = ['starter', 'growth', 'scale'];
const KB_SOURCE_TYPES = ['url', 'file', 'qa', 'snippet'];
const KB_STATUSES = ['queued', 'processing', 'ready', 'failed'];
const MESSAGE_ROLES = ['user', 'assistant'];
export const FEEDBACK_VALUES = ['positive', 'negative'];
const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'won', 'lost'];
const SCORE_BANDS = ['hot', 'warm', 'cold'];
const CAPTURE_KINDS = ['conversational', 'form', 'inferred'];
const BOOKING_STATUSES = ['pending', 'confirmed', 'rejected', 'cancelled'];
const BOOKING_ACTIONS = ['confirm', 'reject', 'reschedule', 'cancel'];
const CHAT_LANGUAGES = ['en-IN', 'ja-JP', 'ko-KR', 'zh-CN', 'ms-MY', 'id-ID', 'th-TH', 'vi-VN', 'fil-PH', 'ar-AE', 'hi-IN', 'ta-IN', 'sw-KE', 'ha-NG', 'yo-NG'];

// ---------------------------------------------------------------------------------------------
// Component schemas: resources (spec part 2), request bodies (part 4), error bodies (part 7).

const LANGUAGE_DESCRIPTION = 'Language code such as a locale tag (BCP 47), for example `en` or `ja-JP`.';

export const schemas: Record<string, Schema> = {
  Bot: obj(
    {
      id: uuid(),
      name: str({ maxLength: 30 }),
      slot_kind: oneOfValues(SLOT_KINDS),
      language: str({ description: LANGUAGE_DESCRIPTION }),
      created_at: dateTime(),
    },
    { description: 'A bot as listed by GET /bots.' },
  ),

  CreatedBot: obj(
    {
      id: uuid(),
      name: str(),
      language: str({ description: LANGUAGE_DESCRIPTION }),
      created_at: dateTime(),
    },
    { description: 'The bot returned by POST /bots.' },
  ),

  KBDocument: obj(
    {
      id: uuid(),
      title: str(),
      source_url: nullable(str()),
      source_type: oneOfValues(KB_SOURCE_TYPES),
      status: oneOfValues(KB_STATUSES),
      chunk_count: int(),
      chatbot_id: nullable(uuid()),
      created_at: dateTime(),
      failure_reason: {
        ...nullable(str()),
        description: 'Not in the spec (this implementation adds it; marked x-extension): why a `failed` document failed, in words a person can act on; null otherwise.',
        'x-extension': true,
      },
    },
    {
      required: ['id', 'title', 'source_url', 'source_type', 'status', 'chunk_count', 'chatbot_id', 'created_at'],
      description: 'A knowledge-base document. POST /kb/ingest creates it `queued`; poll GET /kb for its status.',
    },
  ),

  Conversation: obj(
    {
      session_id: str(),
      message_count: int(),
      first_at: dateTime(),
      last_at: dateTime(),
      preview: nullable(str()),
      channel: str({ description: 'Values and format: not shown by the spec.' }),
    },
    { description: 'A conversation session summary.' },
  ),

  ChatMessage: obj(
    {
      id: uuid(),
      tenant_id: uuid(),
      chatbot_id: nullable(uuid()),
      session_id: str(),
      role: oneOfValues(MESSAGE_ROLES),
      content: str(),
      feedback: nullable(oneOfValues(FEEDBACK_VALUES)),
      source_urls: nullable({ type: 'array', items: str() }),
      channel: str({ description: 'Values and format: not shown by the spec.' }),
      provider_message_id: nullable(str()),
      created_at: dateTime(),
    },
    { description: 'One message of a conversation.' },
  ),

  Lead: obj(
    {
      id: uuid(),
      tenant_id: uuid(),
      chatbot_id: nullable(uuid()),
      session_id: str(),
      name: nullable(str({ description: 'Contact name.' })),
      email: nullable(str({ description: 'Contact e-mail.' })),
      phone: nullable(str({ description: 'Contact phone.' })),
      external_user_id: nullable(str({ description: "Set when the visitor was signed in through the widget's identify call." })),
      company: nullable(str()),
      intent_category: nullable(str({ description: 'Values: not shown by the spec.' })),
      intent_summary: nullable(str({ description: 'AI summary of the intent.' })),
      score: int(),
      score_band: oneOfValues(SCORE_BANDS),
      sentiment: nullable(str({ description: 'Values: not shown by the spec.' })),
      qualification: nullable(stringMap('Map of string to string.')),
      status: oneOfValues(LEAD_STATUSES),
      captured_via: oneOfValues(CAPTURE_KINDS),
      confidence: nullable(num()),
      notified_at: nullable(dateTime()),
      asked_contact_at: nullable(dateTime()),
      notes: nullable(str()),
      country: nullable(str({ description: 'Format: not shown by the spec.' })),
      region: nullable(str({ description: 'Format: not shown by the spec.' })),
      channel: str({ description: 'Values and format: not shown by the spec.' }),
      created_at: dateTime(),
      updated_at: dateTime(),
    },
    { description: 'An intent-scored lead.' },
  ),

  Analytics: obj(
    {
      daily: {
        type: 'array',
        description: 'Messages per day.',
        items: obj({ day: str({ format: 'date', description: 'YYYY-MM-DD' }), user_messages: int(), assistant_messages: int() }),
      },
      top_questions: { type: 'array', items: obj({ question: str(), times: int() }) },
      unanswered: obj({
        count: int(),
        total: int(),
        rate: num({ minimum: 0, maximum: 100, description: 'A percentage from 0 to 100, rounded to one decimal place.' }),
      }),
      feedback: obj({ positive: int(), negative: int() }),
      sessions: obj({ total: int(), avg_messages: num() }),
    },
    { description: 'A summary of the last 30 days. All five members are always present.' },
  ),

  Booking: obj(
    {
      id: uuid(),
      tenant_id: uuid(),
      chatbot_id: nullable(uuid()),
      name: str({ description: 'Visitor name.' }),
      email: str({ description: 'Visitor e-mail.' }),
      phone: str({ description: 'Visitor phone.' }),
      notes: nullable(str()),
      requested_slot: nullable(dateTime()),
      country: nullable(str()),
      time_zone: nullable(str()),
      custom_fields: nullable(stringMap('Map of string to string.')),
      status: oneOfValues(BOOKING_STATUSES),
      rejection_comment: nullable(str()),
      confirmed_at: nullable(dateTime()),
      rejected_at: nullable(dateTime()),
      cancelled_at: nullable(dateTime()),
      created_at: dateTime(),
    },
    { description: 'An appointment booking made by a visitor through the widget.' },
  ),

  CreateBotRequest: obj(
    {
      name: str({ minLength: 1, maxLength: 30, description: '1 to 30 characters (Unicode code points). This implementation also rejects a name of only white space.' }),
      language: str({ description: LANGUAGE_DESCRIPTION }),
      enterprise_plan_tier: oneOfValues(ENTERPRISE_TIERS, 'Required for enterprise workspaces, which must have an available slot in that tier (otherwise 403).'),
    },
    { required: ['name'], additionalProperties: false, description: 'Body of POST /bots. Unknown members are rejected (400).' },
  ),

  KbIngestRequest: obj(
    {
      title: str({ minLength: 1, maxLength: 300 }),
      url: str({ format: 'uri', description: 'A page to crawl. One of `url` or `text` is required.' }),
      text: str({ minLength: 1, maxLength: 200000, description: 'Raw text. One of `url` or `text` is required.' }),
      chatbotId: uuid('Target bot. A token restricted to specific bots must send an allowed chatbotId.'),
    },
    {
      required: ['title'],
      additionalProperties: false,
      description: 'Body of POST /kb/ingest. Unknown members are rejected (400). At least one of `url` or a non-empty `text` must be present; otherwise 400.',
      anyOf: [{ required: ['url'] }, { required: ['text'] }],
    },
  ),

  KbIngestAccepted: obj(
    {
      id: str({ description: 'Identifier of the queued document (a uuid in this implementation).' }),
      status: str({ description: 'The document status; `queued` on acceptance.' }),
    },
    { description: 'The `data` of the 202 response of POST /kb/ingest.' },
  ),

  ChatRequest: obj(
    {
      message: str({ minLength: 1, maxLength: 2000 }),
      chatbotId: uuid('Required for bot-restricted tokens. The bot chosen when an unrestricted token omits it is not specified.'),
      sessionId: str({ maxLength: 120, description: 'A stable id that groups turns into one conversation.' }),
      language: str({
        description:
          "Reply language code. When omitted the bot's default is used, and the bot still matches the language the user writes in. " +
          `Accepted codes include ${CHAT_LANGUAGES.join(', ')}.`,
        examples: CHAT_LANGUAGES,
      }),
    },
    { required: ['message'], additionalProperties: false, description: 'Body of POST /chat. Unknown members are rejected (400).' },
  ),

  ChatChunk: obj(
    {
      choices: {
        type: 'array',
        minItems: 1,
        items: obj(
          {
            index: int({ description: 'Not in the spec (this implementation adds it; marked x-extension): always 0, as in OpenAI chunks.', 'x-extension': true }),
            delta: obj({ content: str({ description: 'A fragment of the reply; an empty string in the last frame.' }) }),
            finish_reason: {
              ...nullable(
                oneOfValues(
                  ['stop', 'error'],
                  'Not in the spec (this implementation adds it; marked x-extension). null in every frame but the last; the last frame says how the ' +
                    'stream ended: `stop` (the answer is complete and stored) or `error` (it broke off; see `error`).',
                ),
              ),
              'x-extension': true,
            },
          },
          { required: ['delta'] },
        ),
      },
      error: obj(
        {
          code: str({ description: 'Machine code, for example `internal_error` (the answer could not be saved, so it was not counted) or `service_unavailable`.' }),
          message: str({ description: 'What happened, in words a person can read.' }),
        },
        {
          description: 'Not in the spec (this implementation adds it; marked x-extension). Only in a last frame whose finish_reason is `error`.',
          'x-extension': true,
        },
      ),
    },
    {
      required: ['choices'],
      description:
        'The JSON of one `data: <json>` frame of the POST /chat event stream; `choices[0].delta.content` is a string fragment of the reply, in every frame.',
    },
  ),

  UpdateBookingRequest: obj(
    {
      action: oneOfValues(BOOKING_ACTIONS, '`confirm` and `reject` apply only to pending bookings; `reschedule` and `cancel` only to pending or confirmed ones.'),
      requestedSlot: dateTime('ISO 8601 with a UTC offset. Required when action is `reschedule`.'),
      rejectionComment: str({ maxLength: 500, description: 'Included in the visitor e-mail.' }),
      cancelComment: str({ maxLength: 500, description: 'Included in the visitor e-mail.' }),
    },
    {
      required: ['action'],
      additionalProperties: false,
      description: 'Body of PATCH /bookings/{id}. Unknown members are rejected (400).',
      if: { properties: { action: { const: 'reschedule' } }, required: ['action'] },
      then: { required: ['requestedSlot'] },
    },
  ),

  ErrorObject: obj(
    {
      error: str({ description: 'Reason phrase of the status, for example `Conflict` (this implementation).' }),
      code: str({ description: `Machine code. The spec names \`api_locked\`; the complete list is not shown. This implementation sends: ${codeList(Object.values(CODES_BY_STATUS).flat().filter((code) => code !== 'validation_failed'))}; the visitor widget API also ${codeList(Object.values(WIDGET_CODES_BY_STATUS).flat())}.` }),
      message: str(),
      retry_after: int({ description: 'Seconds to wait (429).' }),
      suggested_name: str({ description: 'A free bot name (409 on POST /bots).' }),
      available_slots: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Map of string to integer.' },
    },
    { required: [], description: 'The general error object; all members are optional.' },
  ),

  ValidationIssue: obj(
    {
      code: str({ description: 'Machine code. This implementation sends invalid_type, too_small, too_big, invalid_format, invalid_value, unrecognized_keys or required.' }),
      path: { type: 'array', items: { type: ['string', 'integer'] }, description: 'Where the issue is, for example `["body", "name"]` or `["query", "limit"]`.' },
      message: str(),
    },
    { description: 'One issue of a validation error. The spec leaves this structure open; this is the one this implementation sends.' },
  ),

  ValidationError: obj(
    {
      success: { type: 'boolean', const: false },
      error: obj(
        { name: str({ description: '`ValidationError` in this implementation.' }), message: str(), issues: { type: 'array', items: ref('ValidationIssue') } },
        { description: 'The structured error, carrying the issues.' },
      ),
    },
    { description: 'A validation error (400 only).' },
  ),
};

// ---------------------------------------------------------------------------------------------
// Shared error responses (spec part 7).

export const errorResponse = (description: string, extra: Omit<Response, 'description' | 'content'> = {}): Response => ({
  description,
  ...extra,
  content: json(ref('ErrorObject')),
});

type SharedResponse = 'BadRequest' | 'Unauthorized' | 'PaymentRequired' | 'Forbidden' | 'NotFound' | 'TooManyRequests' | 'ServiceUnavailable';

const responses: Record<SharedResponse, Response> = {
  BadRequest: {
    description:
      'Invalid input or operation requirements. The body is either the validation error (what this implementation sends for ' +
      '`validation_failed`) or the general error object (code `bad_request`).',
    content: json({ oneOf: [ref('ErrorObject'), ref('ValidationError')] }),
  },
  Unauthorized: errorResponse(`Missing, invalid, expired or revoked API token (code: ${codesFor(401)}).`, {
    headers: { 'WWW-Authenticate': { description: '`Bearer` (this implementation).', schema: str() } },
  }),
  PaymentRequired: errorResponse(
    `The workspace has no live API access (code \`api_locked\`), or plan capacity or a quota is exhausted (codes: ${codesFor(402)}).`,
  ),
  Forbidden: errorResponse(`The required scope or bot access is missing, or enterprise tier capacity is unavailable (codes: ${codesFor(403)}).`),
  NotFound: errorResponse(`Record or account not found in the accessible context (code: ${codesFor(404)}).`),
  TooManyRequests: errorResponse(`Rate limit exceeded (code: ${codesFor(429)}).`, {
    headers: { 'Retry-After': { description: 'Integer seconds to wait.', required: true, schema: int() } },
  }),
  ServiceUnavailable: errorResponse(`A back-end service did not answer (code: ${codesFor(503)}; this implementation).`),
};

const responseRef = (name: SharedResponse): ResponseOrRef => ({ $ref: `#/components/responses/${name}` });

// ---------------------------------------------------------------------------------------------
// Parameters (spec part 4 and limits of part 8).

const chatbotIdQuery = (description = 'Only this bot. A token restricted to specific bots must send an allowed chatbotId.'): Parameter => ({
  name: 'chatbotId',
  in: 'query',
  required: false,
  description,
  schema: uuid(),
});

const limitQuery = (defaultValue: number): Parameter => ({
  name: 'limit',
  in: 'query',
  required: false,
  description: `Maximum number of items, 1 to 200 (default ${defaultValue}).`,
  schema: int({ minimum: 1, maximum: 200, default: defaultValue }),
});

const bookingIdPath: Parameter = { name: 'id', in: 'path', required: true, description: 'Booking id.', schema: uuid() };

// ---------------------------------------------------------------------------------------------
// Operations.

interface OperationInput {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  scope: Scope;
  parameters?: Parameter[];
  body?: Schema;
  success: Record<string, Response>;
  extra?: Record<string, Response>;
}

/** An authenticated operation: bearer token with a scope, and the error statuses every endpoint can answer. */
function operation(input: OperationInput): Operation {
  return {
    operationId: input.operationId,
    summary: input.summary,
    description: `${input.description}\n\nRequired scope: \`${input.scope}\`.`,
    tags: [input.tag],
    security: [{ bearerAuth: [] }],
    'x-required-scope': input.scope,
    ...(input.parameters ? { parameters: input.parameters } : {}),
    ...(input.body ? { requestBody: { required: true, content: json(input.body) } } : {}),
    responses: {
      ...input.success,
      '400': responseRef('BadRequest'),
      '401': responseRef('Unauthorized'),
      '402': responseRef('PaymentRequired'),
      '403': responseRef('Forbidden'),
      '404': responseRef('NotFound'),
      ...input.extra,
      '429': responseRef('TooManyRequests'),
      '503': responseRef('ServiceUnavailable'),
    },
  };
}

const ok = (description: string, schema: Schema): Record<string, Response> => ({ '200': { description, content: json(schema) } });

const paths: Record<string, PathItem> = {
  '/bots': {
    get: operation({
      operationId: 'listBots',
      summary: 'List bots',
      description: 'Lists the bots of the workspace. No parameters.',
      tag: 'Bots',
      scope: 'bots:read',
      success: ok('The bots.', listOf(ref('Bot'))),
    }),
    post: operation({
      operationId: 'createBot',
      summary: 'Create a bot',
      description:
        'Creates a bot. A token restricted to specific bots cannot create bots (403). An enterprise workspace must send ' +
        '`enterprise_plan_tier` and must have an available slot in that tier, otherwise 403 (tier capacity unavailable). ' +
        'Plan capacity or quota exhaustion gives 402.',
      tag: 'Bots',
      scope: 'bots:write',
      body: ref('CreateBotRequest'),
      success: { '201': { description: 'The bot was created.', content: json(dataOf(ref('CreatedBot'))) } },
      extra: {
        '409': errorResponse('The bot name is already used; the body carries `suggested_name`, a name that is free.'),
      },
    }),
  },
  '/kb': {
    get: operation({
      operationId: 'listKnowledge',
      summary: 'List knowledge-base documents',
      description: 'Lists knowledge-base documents.',
      tag: 'Knowledge base',
      scope: 'kb:read',
      parameters: [chatbotIdQuery()],
      success: ok('The documents.', listOf(ref('KBDocument'))),
    }),
  },
  '/kb/ingest': {
    post: operation({
      operationId: 'ingestKnowledge',
      summary: 'Add knowledge from a URL or raw text',
      description:
        "Queues a document for crawling and embedding; poll GET /kb for its status. The bot's page quota is checked before " +
        'queuing; exhaustion gives 402. A token restricted to specific bots must send an allowed chatbotId.',
      tag: 'Knowledge base',
      scope: 'kb:write',
      body: ref('KbIngestRequest'),
      success: { '202': { description: 'The document is queued.', content: json(dataOf(ref('KbIngestAccepted'))) } },
    }),
  },
  '/chat': {
    post: operation({
      operationId: 'chat',
      summary: 'Chat with a bot',
      description:
        'Sends a visitor message and streams the reply. Counts toward the monthly message quota; exhaustion gives 402. ' +
        'The behaviour when sessionId is omitted is not specified by the spec; this implementation starts a new session and ' +
        'returns its id in the X-Session-Id header. Without chatbotId, an unrestricted token is answered by the workspace\'s ' +
        'first bot (X-Chatbot-Id).',
      tag: 'Chat',
      scope: 'chat:invoke',
      body: ref('ChatRequest'),
      success: {
        '200': {
          description: 'The reply, streamed as server-sent events.',
          headers: {
            'X-Session-Id': { description: 'The conversation this turn belongs to (generated when no sessionId was sent). This implementation.', schema: str() },
            'X-Chatbot-Id': { description: 'The bot that answered, when there is one. This implementation.', schema: uuid() },
          },
          content: {
            'text/event-stream': {
              schema: str({
                description: CHAT_STREAM_DESCRIPTION,
              }),
              example: CHAT_STREAM_EXAMPLE,
            },
          },
        },
      },
    }),
  },
  '/conversations': {
    get: operation({
      operationId: 'listConversations',
      summary: 'List conversation sessions',
      description: 'Lists conversation sessions.',
      tag: 'Conversations',
      scope: 'conversations:read',
      parameters: [
        { name: 'q', in: 'query', required: false, description: 'Search text, at most 200 characters.', schema: str({ maxLength: 200 }) },
        limitQuery(50),
        chatbotIdQuery('Only sessions of this bot.'),
      ],
      success: ok('The sessions.', listOf(ref('Conversation'), 200)),
    }),
  },
  '/conversations/{sessionId}': {
    get: operation({
      operationId: 'getConversation',
      summary: 'Get the messages of a session',
      description: 'Returns the messages of a session. A session that does not exist can yield an empty array. A restricted token may get 403 for a session it cannot access.',
      tag: 'Conversations',
      scope: 'conversations:read',
      parameters: [{ name: 'sessionId', in: 'path', required: true, description: 'Session id.', schema: str({ maxLength: 120 }) }],
      success: ok('The messages.', listOf(ref('ChatMessage'))),
    }),
  },
  '/leads': {
    get: operation({
      operationId: 'listLeads',
      summary: 'List leads',
      description: 'Lists at most 500 intent-scored leads, newest first.',
      tag: 'Leads',
      scope: 'leads:read',
      parameters: [chatbotIdQuery()],
      success: ok('The leads.', listOf(ref('Lead'), 500)),
    }),
  },
  '/analytics': {
    get: operation({
      operationId: 'getAnalytics',
      summary: 'Get analytics',
      description: 'Returns a summary of the last 30 days.',
      tag: 'Analytics',
      scope: 'analytics:read',
      parameters: [chatbotIdQuery()],
      success: ok('The summary.', dataOf(ref('Analytics'))),
    }),
  },
  '/bookings': {
    get: operation({
      operationId: 'listBookings',
      summary: 'List bookings',
      description: 'Lists bookings, newest first. Bookings are created by visitors through the widget; the REST API has no create operation.',
      tag: 'Bookings',
      scope: 'bookings:read',
      parameters: [
        { name: 'status', in: 'query', required: false, description: 'Only bookings in this state.', schema: oneOfValues(BOOKING_STATUSES) },
        chatbotIdQuery('Only bookings of this bot.'),
        limitQuery(200),
      ],
      success: ok('The bookings.', listOf(ref('Booking'), 200)),
    }),
  },
  '/bookings/{id}': {
    get: operation({
      operationId: 'getBooking',
      summary: 'Get a booking',
      description:
        'Returns one booking (visitor, slot, status). The spec does not show the response body beyond it being one booking; ' +
        'this implementation answers `{data: Booking}`, the same envelope as PATCH /bookings/{id}.',
      tag: 'Bookings',
      scope: 'bookings:read',
      parameters: [bookingIdPath],
      success: ok('The booking (envelope chosen by this implementation).', dataOf(ref('Booking'))),
    }),
    patch: operation({
      operationId: 'updateBooking',
      summary: 'Confirm, reject, reschedule or cancel a booking',
      description:
        'Moves a booking with `action`. `confirm` (pending, slot free) makes it confirmed, blocks the slot and sets confirmed_at; ' +
        '`reject` (pending) makes it rejected and sets rejection_comment and rejected_at; `cancel` (pending or confirmed) makes it ' +
        'cancelled and sets cancelled_at; `reschedule` (pending or confirmed, requestedSlot required) moves the slot. The visitor is ' +
        'e-mailed in every case. The status after a reschedule is not specified.',
      tag: 'Bookings',
      scope: 'bookings:write',
      parameters: [bookingIdPath],
      body: ref('UpdateBookingRequest'),
      success: ok('The updated booking.', dataOf(ref('Booking'))),
      extra: { '409': errorResponse('The slot is taken, the booking was already decided, or the booking is no longer active.') },
    }),
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'Get this API description',
      description: 'Returns this API as an OpenAPI 3.1 document. No authentication; requests without a token are rate-limited per client address.',
      tags: ['Meta'],
      security: [],
      responses: {
        '200': { description: 'The OpenAPI 3.1.0 document.', content: json({ type: 'object', description: 'An OpenAPI 3.1.0 document.' }) },
        '429': responseRef('TooManyRequests'),
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// The document.

function build(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Support-Agent Service API',
      version: '1.0.1',
      description:
        'Workspace REST API of the support-agent service: bots, knowledge base, chat, conversations, leads, analytics and bookings.\n\n' +
        'Requires live API access (an active Growth trial, an active paid Growth or Scale plan, or an enterprise contract with API access); ' +
        'otherwise requests fail with 402 and code `api_locked`. Every endpoint except GET /openapi.json needs a bearer token with the scope ' +
        'named in the operation (`x-required-scope`). List responses are bounded; no page or cursor parameters exist and clients must not send any.',
    },
    servers: [{ url: '/v1', description: 'The versioned REST base address.' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Bots' },
      { name: 'Knowledge base' },
      { name: 'Chat' },
      { name: 'Conversations' },
      { name: 'Leads' },
      { name: 'Analytics' },
      { name: 'Bookings' },
      { name: 'Meta', description: 'This API description.' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'API token created in the dashboard (API and Agents), sent as `Authorization: Bearer <API_TOKEN>`. Token values start with the prefix `mgpt_`. ' +
            'Tokens are scoped and may be limited to specific bots; a missing scope gives 403, a missing, invalid, expired or revoked token gives 401.',
        },
      },
      schemas,
      responses,
    },
  };
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

let document: Record<string, unknown> | undefined;

/** The OpenAPI 3.1.0 document of the REST API: a plain, deterministic object, built once and frozen. */
export function buildOpenApiDocument(): Record<string, unknown> {
  // Round-tripped through JSON so the shared helper objects become independent plain data before freezing.
  document ??= deepFreeze(JSON.parse(JSON.stringify(build())) as Record<string, unknown>);
  return document;
}
