import {
  CHAT_STREAM_DESCRIPTION,
  CHAT_STREAM_EXAMPLE,
  FEEDBACK_VALUES,
  Operation,
  Parameter,
  PathItem,
  Response,
  Schema,
  codesFor,
  dataOf,
  dateTime,
  deepFreeze,
  errorResponse,
  int,
  json,
  obj,
  ref,
  schemas as restSchemas,
  str,
  stringMap,
  uuid,
  widgetCodesFor,
} from './openapi.document';

/**
 * The OpenAPI 3.1.0 description of the visitor widget API, served unauthenticated at
 * GET /widget/v1/openapi.json.
 *
 * This API is this implementation's own: the API specification says visitors act "through the
 * widget" and shows no API for it. Request bodies restate the limits of libs/contracts
 * (widget.ts, WidgetBookingBody in bookings.ts); answers are the visitor views of widget.ts, which
 * carry only what the visitor sent plus ids, statuses and timestamps.
 */

// ---------------------------------------------------------------------------------------------
// Request bodies (libs/contracts/src/widget.ts and bookings.ts).

const NOT_BLANK = '\\S';
/** A string that must contain a character other than white space (the contracts' NotBlank). */
const notBlank = (schema: Schema): Schema => ({ ...schema, pattern: NOT_BLANK }) as Schema;

const sessionId = (description: string): Schema => str({ minLength: 1, maxLength: 120, description });
const SESSION =
  'The visitor session, minted by the server (POST /bots/{botId}/sessions, or the X-Session-Id of a chat started without one). ' +
  'Any other id, or a session of another bot, is refused with 403 `session_forbidden`.';
const email = (): Schema => str({ format: 'email', minLength: 3, maxLength: 254 });
const phone = (): Schema => str({ minLength: 3, maxLength: 40 });
const personName = (): Schema => str({ minLength: 1, maxLength: 200 });

const requestSchemas: Record<string, Schema> = {
  WidgetSessionRequest: obj({}, { additionalProperties: false, description: 'Body of POST /bots/{botId}/sessions: none, or an empty object. Unknown members are rejected (400).' }),

  WidgetChatRequest: obj(
    {
      message: notBlank(str({ minLength: 1, maxLength: 2000, description: '1 to 2000 characters, not only white space.' })),
      sessionId: sessionId(`${SESSION} When omitted a new session is minted; its id is returned in the X-Session-Id header.`),
      language: str({ description: "Reply language code such as `en` or `ja-JP` (BCP 47). When omitted the bot's default is used." }),
    },
    { required: ['message'], additionalProperties: false, description: 'Body of POST /bots/{botId}/chat. Unknown members are rejected (400).' },
  ),

  WidgetFeedbackRequest: obj(
    {
      sessionId: sessionId(SESSION),
      messageId: uuid('An assistant message of that session.'),
      feedback: str({ enum: FEEDBACK_VALUES }),
    },
    { additionalProperties: false, description: 'Body of POST /bots/{botId}/feedback. Unknown members are rejected (400).' },
  ),

  WidgetIdentifyRequest: obj(
    {
      sessionId: sessionId(SESSION),
      externalUserId: notBlank(str({ minLength: 1, maxLength: 200, description: "The visitor's user id on the customer's site; not only white space." })),
      name: personName(),
      email: email(),
      phone: phone(),
    },
    {
      required: ['sessionId', 'externalUserId'],
      additionalProperties: false,
      description: "Body of POST /bots/{botId}/identify: the visitor is signed in on the customer's site. Unknown members are rejected (400).",
    },
  ),

  WidgetLeadRequest: obj(
    {
      sessionId: sessionId(SESSION),
      name: personName(),
      email: email(),
      phone: phone(),
      company: str({ minLength: 1, maxLength: 200 }),
      message: str({ minLength: 1, maxLength: 2000 }),
      qualification: stringMap('Answers of the lead form: a map of string to string.'),
    },
    { required: [], additionalProperties: false, description: "Body of POST /bots/{botId}/leads: the widget's lead form. Unknown members are rejected (400)." },
  ),

  WidgetBookingRequest: obj(
    {
      sessionId: sessionId(SESSION),
      name: notBlank(str({ minLength: 1, maxLength: 200, description: 'Not only white space.' })),
      email: email(),
      phone: notBlank(str({ minLength: 3, maxLength: 40, description: 'Not only white space.' })),
      notes: str({ minLength: 0, maxLength: 2000 }),
      requestedSlot: dateTime('ISO 8601 with a UTC offset, such as `2026-12-01T10:00:00+03:00`.'),
      country: str({ minLength: 2, maxLength: 2, description: 'Two-letter country code.' }),
      timeZone: str({ minLength: 1, maxLength: 64, description: 'IANA time zone, such as `Europe/Paris`.' }),
      customFields: stringMap('Further answers of the booking form: a map of string to string.'),
    },
    {
      required: ['name', 'email', 'phone'],
      additionalProperties: false,
      description: 'Body of POST /bots/{botId}/bookings: a booking request, created `pending`. Unknown members are rejected (400).',
    },
  ),

  WidgetTicketRequest: obj(
    {
      sessionId: sessionId(SESSION),
      email: email(),
      subject: notBlank(str({ minLength: 1, maxLength: 200, description: 'Not only white space.' })),
      message: notBlank(str({ minLength: 1, maxLength: 5000, description: 'Not only white space.' })),
      name: personName(),
    },
    {
      required: ['sessionId', 'email', 'subject', 'message'],
      additionalProperties: false,
      description: "Body of POST /bots/{botId}/tickets: a support ticket from the widget's Support tab. Unknown members are rejected (400).",
    },
  ),

  WidgetHandoffRequest: obj(
    {
      sessionId: sessionId(SESSION),
      reason: str({ minLength: 1, maxLength: 500 }),
    },
    { required: ['sessionId'], additionalProperties: false, description: 'Body of POST /bots/{botId}/handoff: the visitor asks for a person. Unknown members are rejected (400).' },
  ),
};

// ---------------------------------------------------------------------------------------------
// Response schemas: the REST document's resources, plus the widget's own results.

/** The members of `schema` named in `keys`, in that order, all required. */
function pick(schema: Schema, keys: string[], description: string): Schema {
  return obj(Object.fromEntries(keys.map((k) => [k, schema.properties![k]])), { description });
}

const responseSchemas: Record<string, Schema> = {
  ChatChunk: restSchemas.ChatChunk,
  ErrorObject: restSchemas.ErrorObject,
  ValidationIssue: restSchemas.ValidationIssue,
  ValidationError: restSchemas.ValidationError,

  WidgetSession: obj(
    { session_id: str({ maxLength: 120, description: "A fresh, unguessable session id (256 random bits, base64url). Keep it in the browser: it is the visitor's key to the session." }) },
    { description: 'A new widget session of the bot.' },
  ),

  Receipt: obj(
    {
      id: uuid('The stored record (lead or ticket).'),
      session_id: str({ description: 'The session it belongs to (for a lead form sent without a session, one the server made).' }),
      status: str({ const: 'received' }),
      created_at: dateTime(),
    },
    { description: 'The submission was stored. Nothing stored about the visitor is returned.' },
  ),

  VisitorBooking: pick(
    restSchemas.Booking,
    ['id', 'chatbot_id', 'name', 'email', 'phone', 'notes', 'requested_slot', 'country', 'time_zone', 'custom_fields', 'status', 'created_at'],
    "The visitor's booking request as stored: the fields they sent, with its id, status (`pending`) and creation time.",
  ),

  FeedbackResult: obj({ message_id: uuid(), feedback: str({ enum: FEEDBACK_VALUES }) }, { description: 'The feedback now recorded on the message.' }),

  IdentifyResult: obj({ session_id: str(), identified: { type: 'boolean', const: true } }, { description: 'The session is now linked to the signed-in visitor.' }),

  HandoffResult: obj({ session_id: str(), handoff: { type: 'boolean', const: true } }, { description: 'The session is marked for a person to take over.' }),
};

const schemas: Record<string, Schema> = { ...requestSchemas, ...responseSchemas };

// ---------------------------------------------------------------------------------------------
// Error responses: no token, so no 401; 403 only for a session that is not the bot's.

type WidgetResponse = 'BadRequest' | 'PaymentRequired' | 'Forbidden' | 'NotFound' | 'TooManyRequests' | 'ServiceUnavailable';

const rateHeaders = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window.', schema: int() },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: int() },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets.', schema: int() },
};

const responses: Record<WidgetResponse, Response> = {
  BadRequest: {
    description:
      'Invalid input. The body is either the validation error (for `validation_failed`, for example an unknown member or a limit ' +
      'exceeded) or the general error object (code `bad_request`).',
    content: json({ oneOf: [ref('ErrorObject'), ref('ValidationError')] }),
  },
  PaymentRequired: errorResponse(
    "The bot's workspace has no live API access (code `api_locked`), or the bot's monthly widget chat budget, a plan limit per bot apart from " +
      `the workspace's message quota, is used up (code: ${widgetCodesFor(402)}).`,
  ),
  Forbidden: errorResponse(
    `The sessionId was not minted as a widget session of this bot (code: ${widgetCodesFor(403)}): the same answer for an unknown id and for another bot's session.`,
  ),
  NotFound: errorResponse(`Unknown bot: the botId is not a uuid or names no bot (code: ${codesFor(404)}). Also a record the request names that the session cannot reach.`),
  TooManyRequests: errorResponse(`Rate limit exceeded, per client IP or per session (code: ${codesFor(429)}). The body carries \`retry_after\`.`, {
    headers: { 'Retry-After': { description: 'Integer seconds to wait.', required: true, schema: int() } },
  }),
  ServiceUnavailable: errorResponse(`A back-end service did not answer (code: ${codesFor(503)}).`),
};

const responseRef = (name: WidgetResponse) => ({ $ref: `#/components/responses/${name}` });

// ---------------------------------------------------------------------------------------------
// Operations.

const botIdPath: Parameter = {
  name: 'botId',
  in: 'path',
  required: true,
  description: "The bot the widget belongs to; it names the workspace. Not a uuid, or unknown: 404.",
  schema: uuid(),
};

interface WidgetOperationInput {
  operationId: string;
  summary: string;
  description: string;
  body: string;
  status: '200' | '201';
  success: Response;
  /** False for the one route that takes no session (POST …/sessions): it never answers 403. */
  session?: boolean;
}

/** A public widget operation: no authentication, the bot in the path, the widget's error statuses. */
function operation(input: WidgetOperationInput): Operation {
  return {
    operationId: input.operationId,
    summary: input.summary,
    description: `${input.description}\n\nNo authentication: the bot in the path names the workspace. Rate-limited per client IP and per session.`,
    tags: ['Widget'],
    security: [],
    parameters: [botIdPath],
    requestBody: { required: true, content: json(ref(input.body)) },
    responses: {
      [input.status]: { ...input.success, headers: { ...rateHeaders, ...input.success.headers } },
      '400': responseRef('BadRequest'),
      '402': responseRef('PaymentRequired'),
      ...(input.session === false ? {} : { '403': responseRef('Forbidden') }),
      '404': responseRef('NotFound'),
      '429': responseRef('TooManyRequests'),
      '503': responseRef('ServiceUnavailable'),
    },
  };
}

const paths: Record<string, PathItem> = {
  '/bots/{botId}/sessions': {
    post: operation({
      operationId: 'widgetCreateSession',
      summary: 'Start a visitor session',
      description: 'Mints a new widget session of the bot. The widget keeps its id and sends it with every later call.',
      body: 'WidgetSessionRequest',
      status: '201',
      session: false,
      success: { description: 'The new session.', content: json(dataOf(ref('WidgetSession'))) },
    }),
  },
  '/bots/{botId}/chat': {
    post: operation({
      operationId: 'widgetChat',
      summary: 'Chat with the bot',
      description:
        'Sends a visitor message and streams the reply: the same answer pipeline and event-stream format as POST /v1/chat of the REST API, ' +
        "with channel `widget`. Counts toward the bot's monthly widget budget (a plan limit per bot), not the workspace's message quota; " +
        'a used-up budget gives 402 `widget_budget_exhausted`.',
      body: 'WidgetChatRequest',
      status: '200',
      success: {
        description: 'The reply, streamed as server-sent events.',
        headers: {
          'X-Session-Id': { description: 'The session this turn belongs to (minted when no sessionId was sent: keep it for later calls).', schema: str() },
          'X-Chatbot-Id': { description: 'The bot that answered.', schema: uuid() },
        },
        content: {
          'text/event-stream': {
            schema: str({ description: CHAT_STREAM_DESCRIPTION }),
            example: CHAT_STREAM_EXAMPLE,
          },
        },
      },
    }),
  },
  '/bots/{botId}/feedback': {
    post: operation({
      operationId: 'widgetFeedback',
      summary: 'Rate an answer',
      description: 'Records positive or negative feedback on an assistant message of the session.',
      body: 'WidgetFeedbackRequest',
      status: '200',
      success: { description: 'The feedback was recorded.', content: json(dataOf(ref('FeedbackResult'))) },
    }),
  },
  '/bots/{botId}/identify': {
    post: operation({
      operationId: 'widgetIdentify',
      summary: 'Identify the visitor',
      description: "Links the session to a visitor signed in on the customer's site (the lead's `external_user_id`).",
      body: 'WidgetIdentifyRequest',
      status: '200',
      success: { description: 'The visitor was identified.', content: json(dataOf(ref('IdentifyResult'))) },
    }),
  },
  '/bots/{botId}/leads': {
    post: operation({
      operationId: 'widgetCreateLead',
      summary: 'Submit the lead form',
      description: "Captures a lead from the widget's lead form (`captured_via` `form`). The answer is a receipt: the lead is read through the REST API.",
      body: 'WidgetLeadRequest',
      status: '201',
      success: { description: 'The lead form was stored.', content: json(dataOf(ref('Receipt'))) },
    }),
  },
  '/bots/{botId}/bookings': {
    post: operation({
      operationId: 'widgetCreateBooking',
      summary: 'Request a booking',
      description: 'Creates a `pending` booking; the workspace confirms, rejects, reschedules or cancels it through the REST API (PATCH /v1/bookings/{id}).',
      body: 'WidgetBookingRequest',
      status: '201',
      success: { description: 'The booking was requested.', content: json(dataOf(ref('VisitorBooking'))) },
    }),
  },
  '/bots/{botId}/tickets': {
    post: operation({
      operationId: 'widgetCreateTicket',
      summary: 'Open a support ticket',
      description: "Creates a support ticket from the widget's Support tab.",
      body: 'WidgetTicketRequest',
      status: '201',
      success: { description: 'The ticket was created.', content: json(dataOf(ref('Receipt'))) },
    }),
  },
  '/bots/{botId}/handoff': {
    post: operation({
      operationId: 'widgetHandoff',
      summary: 'Ask for a person',
      description: 'Marks the session for a person to take over.',
      body: 'WidgetHandoffRequest',
      status: '200',
      success: { description: 'The handoff was requested.', content: json(dataOf(ref('HandoffResult'))) },
    }),
  },
  '/openapi.json': {
    get: {
      operationId: 'getWidgetOpenApiDocument',
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
      title: 'Support-Agent Service — Visitor Widget API',
      version: '1.0.0',
      description:
        "The public API of the visitor widget: this implementation's own API, not part of the API specification (which says visitors " +
        'act through the widget and shows no API for it). The workspace REST API is described separately at GET /v1/openapi.json.\n\n' +
        'No authentication: the bot in the path names the workspace, whose API access must be live (otherwise 402, code `api_locked`). ' +
        'Sessions are minted by the server (POST /bots/{botId}/sessions); a call naming any other session gets 403 `session_forbidden`. ' +
        'Answers carry only what the visitor sent plus ids, statuses and timestamps. ' +
        'Requests are rate-limited per client IP and per session (429 with Retry-After). Request bodies reject unknown members (400).',
    },
    servers: [{ url: '/widget/v1', description: 'The visitor widget base address.' }],
    security: [],
    tags: [{ name: 'Widget', description: 'Visitor actions through the widget.' }, { name: 'Meta', description: 'This API description.' }],
    paths,
    components: { schemas, responses },
  };
}

let document: Record<string, unknown> | undefined;

/** The OpenAPI 3.1.0 document of the visitor widget API: a plain, deterministic object, built once and frozen. */
export function buildWidgetOpenApiDocument(): Record<string, unknown> {
  document ??= deepFreeze(JSON.parse(JSON.stringify(build())) as Record<string, unknown>);
  return document;
}
