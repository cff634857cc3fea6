import { Type, applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, ApiResponseOptions } from '@nestjs/swagger';
import { CONSOLE_ERROR_CODES, ERROR_CODES, ErrorObjectBody, WIDGET_ERROR_CODES, codeList } from '@sa/contracts';
import { contractSchemaName } from '@sa/openapi';
import { httpStatusOf } from '@sa/errors';

/*
 * Swagger decorators the gateway's controllers share: the `{data}` envelope of success answers,
 * the chat event stream, and the error responses every route of a kind answers. The schemas
 * themselves come from the contract classes (libs/contracts, through libs/openapi's bridge).
 */

/** The error codes the REST API sends with `status` (libs/errors' mapping), widget-only codes left out. */
export const codesFor = (status: number): string =>
  codeList(ERROR_CODES.filter((c) => httpStatusOf(c) === status && !WIDGET_ERROR_CODES.includes(c) && !CONSOLE_ERROR_CODES.includes(c)));
/** The codes only the widget API sends with `status`. */
export const widgetCodesFor = (status: number): string => codeList(WIDGET_ERROR_CODES.filter((c) => httpStatusOf(c) === status));

const SHARED = {
  BadRequest: 400,
  Unauthorized: 401,
  PaymentRequired: 402,
  Forbidden: 403,
  NotFound: 404,
  TooManyRequests: 429,
  ServiceUnavailable: 503,
} as const;

export type SharedResponse = keyof typeof SHARED;

/** The route answers with the document's shared response `name` (a `#/components/responses/…` reference). */
export const ApiShared = (...names: SharedResponse[]) =>
  applyDecorators(...names.map((name) => ApiResponse({ status: SHARED[name], $ref: `#/components/responses/${name}` } as ApiResponseOptions)));

/** What every route with a token answers besides success (the auth guard, the pipes, the services). */
export const ApiTokenErrors = () => ApiShared('BadRequest', 'Unauthorized', 'PaymentRequired', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable');

/** What every widget route answers besides success; 403 only where the route takes a session. */
export const ApiWidgetErrors = (_opts: { session: boolean }) =>
  // Every widget route may be refused 403 origin_not_allowed (issue 18); those naming a session also session_forbidden.
  ApiShared('BadRequest', 'PaymentRequired', 'Forbidden', 'NotFound', 'TooManyRequests', 'ServiceUnavailable');

/** A response with the general error object (a status only some routes answer, such as 409). */
export const ApiErrorObject = (status: number, description: string) =>
  applyDecorators(ApiExtraModels(ErrorObjectBody), ApiResponse({ status, description, schema: { $ref: ref(ErrorObjectBody) } }));

const ref = (cls: Type): string => `#/components/schemas/${contractSchemaName(cls)}`;

interface DataOptions {
  /** Response headers (name → description and schema). */
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** The most items a list answer holds (spec part 8). */
  maxItems?: number;
}

/**
 * A success answer `{data: View}` (or `{data: [View]}` when given `[View]`).
 */
export function ApiData(status: number, description: string, view: Type | [Type], opts: DataOptions = {}) {
  const cls = Array.isArray(view) ? view[0] : view;
  const data = Array.isArray(view) ? { type: 'array', items: { $ref: ref(cls) }, ...(opts.maxItems ? { maxItems: opts.maxItems } : {}) } : { $ref: ref(cls) };
  return applyDecorators(
    ApiExtraModels(cls),
    ApiResponse({ status, description, ...(opts.headers ? { headers: opts.headers } : {}), schema: { type: 'object', properties: { data }, required: ['data'] } }),
  );
}

/** The chat event stream (POST /v1/chat and the widget's chat): its frames and how it ends. */
export const CHAT_STREAM_DESCRIPTION =
  'A sequence of SSE frames of the form `data: <json>` followed by a blank line. Each JSON chunk (schema ChatChunk) ' +
  'has `choices[0].delta.content`, a string fragment of the reply, and `finish_reason` null. The last frame says how the stream ended ' +
  '(this implementation): `finish_reason: "stop"` when the answer is complete and stored, or `"error"` with an `error` object ' +
  '`{code, message}` when it broke off; its `delta.content` is an empty string. There is no `data: [DONE]` frame. ' +
  'Read incrementally until the stream closes; a stream that closes without a last frame broke off. ' +
  'When the bot calls one of its actions (this implementation), frames with an empty `delta.content` carry an additive `action` object ' +
  '`{call_id, name, label, state, input?}`, state `running`, `done`, `failed`, `refused`, `awaiting_confirmation` or `cancelled`; ' +
  'an `awaiting_confirmation` action is decided by the next message of the session with `action_confirmation: {call_id, confirm}`.';

/** A decision (action_confirmation) on no call the session waits on. */
export const ACTION_CONFLICT = 'The `action_confirmation` names no action the session waits on: decided already, older than the confirmation window, or none (this implementation).';

export const CHAT_STREAM_EXAMPLE =
  'data: {"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n' +
  'data: {"choices":[{"index":0,"delta":{"content":", how can I help?"},"finish_reason":null}]}\n\n' +
  'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\n';

/** The widget channel's last frame adds the stored message and its sources (issue 18). */
export const WIDGET_CHAT_STREAM_DESCRIPTION =
  `${CHAT_STREAM_DESCRIPTION} In the widget API the last \`"stop"\` frame also carries top-level \`message_id\` (the stored assistant message, ` +
  'for POST /bots/{botId}/feedback) and `source_urls` (the pages the answer drew on; may be empty).';

export const WIDGET_CHAT_STREAM_EXAMPLE =
  'data: {"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}\n\n' +
  'data: {"choices":[{"index":0,"delta":{"content":", how can I help?"},"finish_reason":null}]}\n\n' +
  'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"message_id":"0b6f3c9e-6a55-4d0c-9a43-8b2a51c9d1f0","source_urls":["https://www.example.com/help/pricing"]}\n\n';

/** A chat answer streamed as server-sent events (200), with the headers naming the session and bot. */
export const ApiChatStream = (
  headers: { session: string; chatbot: string },
  extraHeaders: DataOptions['headers'] = {},
  stream: { description: string; example: string } = { description: CHAT_STREAM_DESCRIPTION, example: CHAT_STREAM_EXAMPLE },
) =>
  ApiResponse({
    status: 200,
    description: 'The reply, streamed as server-sent events.',
    headers: {
      ...extraHeaders,
      'X-Session-Id': { description: headers.session, schema: { type: 'string' } },
      'X-Chatbot-Id': { description: headers.chatbot, schema: { type: 'string', format: 'uuid' } },
    },
    content: { 'text/event-stream': { schema: { type: 'string', description: stream.description }, example: stream.example } },
  });

/** The rate-limit headers of every widget answer. */
export const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};
