import * as http from 'node:http';
import { freePort } from '../infra/local-services';

/*
 * Local HTTP stand-ins for remote model providers (the one allowed stand-in: a remote paid model
 * we cannot reach). Each speaks its provider's real wire format and records what it receives:
 *  - startModelStandIn: OpenAI (chat completions, streamed or not, and embeddings);
 *  - startAnthropicStandIn: the Anthropic Messages API (streamed or not).
 * Both can answer with tool calls. The formats followed are the documented ones:
 *  - OpenAI's API reference, "Chat Completions" (create, the chat completion object, the chunk
 *    object) and the function-calling guide ("Streaming"): `tools: [{type: "function", function:
 *    {name, description, parameters}}]` in; `message.tool_calls: [{id: "call_…", type: "function",
 *    function: {name, arguments: "<JSON string>"}}]`, `content: null` and finish_reason
 *    "tool_calls" out; streamed, the first delta of a call carries its index, id, type, name and
 *    `arguments: ""`, later deltas pieces of `arguments`; follow-ups carry the assistant message
 *    with `tool_calls` and `{role: "tool", tool_call_id, content}` messages;
 *  - Anthropic's API reference, "Messages" and "Streaming Messages", and the tool-use guide:
 *    `tools: [{name, description, input_schema}]` in; content blocks `{type: "tool_use", id:
 *    "toolu_…", name, input}` (after a text block, when there is text) with stop_reason
 *    "tool_use" out; streamed, `content_block_start` with `input: {}`, `content_block_delta`s of
 *    `input_json_delta` (`partial_json`, the first one empty), `content_block_stop`;
 *    follow-ups carry `{type: "tool_result", tool_use_id, content}` blocks in a user message.
 * Read the tools offered with toolsOf, the tool calls and results sent back with toolCallsOf and
 * toolResultsOf.
 */

/** A provider's JSON body: any shape, read freely by tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider JSON of any shape
type Json = any;

/**
 * What the stand-in answers one request with: the pieces of the reply, the gap between them, and
 * whether the connection drops after the pieces instead of finishing. With `toolCalls`, the model
 * asks for those tools after the text of `pieces` (usually none): streamed, each call's input
 * arrives as a few pieces of JSON, `gapMs` apart like the text (and `dropAfterPieces` drops after
 * them).
 */
export interface StandInAnswer {
  pieces: string[];
  gapMs?: number;
  dropAfterPieces?: boolean;
  toolCalls?: StandInToolCall[];
}

/** A tool call the model makes: the tool's name and its input. */
export interface StandInToolCall {
  /** Default: a fresh `call_…` (OpenAI) or `toolu_…` (Anthropic). */
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export interface StandInRequest {
  method: string;
  /** The path without the query: `/v1/chat/completions`, `/v1/embeddings`, `/v1/messages` … */
  path: string;
  /** As received, names lower-cased: `authorization`, `x-api-key`, `anthropic-version` … */
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (null when there was none or it was not JSON). */
  body: Json;
  /** The HTTP status the stand-in answered with (0 until it answers). */
  status: number;
  /** The client closed the connection before the answer was complete (generation cancelled). */
  closedEarly: boolean;
}

export interface ModelStandInOptions {
  /** When set, every request must carry `Authorization: Bearer <apiKey>`, else OpenAI's 401. */
  apiKey?: string;
  /** When set, a body.model not in the list gets OpenAI's 404 model_not_found. */
  models?: string[];
  /** Mixed into the embedding hash: stand-ins with different salts are different embedding "models". Default ''. */
  salt?: string;
  /** Vector length when the request has no `dimensions`. Default 64. */
  embeddingDimensions?: number;
  /** How long each embeddings request waits before it is answered. Default 0; also settable later on the stand-in. */
  embedDelayMs?: number;
}

export interface ModelStandIn {
  /** The base URL to give as CHAT_MODEL_BASE_URL (ends in /v1). */
  baseUrl: string;
  /** Every request, answered or refused, chat and embeddings alike (tell them apart by `path`). */
  requests: StandInRequest[];
  /** How long each embeddings request waits before it is answered; change it at any time. */
  embedDelayMs: number;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The shared server: reads and records each request, then hands it to the provider's handler.
// ---------------------------------------------------------------------------------------------

let sequence = 0;
const nextId = () => `${Date.now().toString(36)}${(++sequence).toString(36).padStart(6, '0')}`;

async function startServer(
  requests: StandInRequest[],
  handle: (record: StandInRequest, res: http.ServerResponse, jsonOk: boolean) => void,
): Promise<{ port: number; close(): Promise<void> }> {
  const port = await freePort();
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      let body: Json = null;
      let jsonOk = true;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        jsonOk = false;
      }
      const record: StandInRequest = { method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'http://stand-in').pathname, headers: req.headers, body, status: 0, closedEarly: false };
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      handle(record, res, jsonOk);
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { port, close: () => new Promise((r) => server.close(() => r())) };
}

function sendJson(res: http.ServerResponse, record: StandInRequest, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  if (res.destroyed) return;
  record.status = status;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function startEvents(res: http.ServerResponse, record: StandInRequest, headers: http.OutgoingHttpHeaders): void {
  record.status = 200;
  res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
}

/**
 * Plays an answer's pieces: the first after 10 ms, then one each `gapMs`; after the last (and
 * one more gap) it ends, or drops the connection when asked to. Stops when the client goes away.
 */
function play(res: http.ServerResponse, { pieces, gapMs = 20, dropAfterPieces = false }: StandInAnswer, onPiece: (piece: string) => void, onEnd: () => void): void {
  let i = 0;
  const step = () => {
    if (res.destroyed) return;
    if (i < pieces.length) {
      onPiece(pieces[i++]);
      timer = setTimeout(step, gapMs);
    } else if (dropAfterPieces) res.destroy();
    else onEnd();
  };
  let timer = setTimeout(step, 10);
  res.on('close', () => clearTimeout(timer));
}

/** Text of a message's content: a string, or an array of blocks/parts of which the `text` ones count. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return String(content ?? '');
  return content.map((b: Json) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
}

/**
 * The last message of a chat request (OpenAI chat completions or Anthropic messages): its text,
 * whether the content is a string or text blocks. In a follow-up that carries tool results that
 * is the last result (OpenAI) or '' (Anthropic): read those with toolResultsOf.
 */
export const questionOf = (body: Json): string => {
  const content = body.messages.at(-1).content;
  return Array.isArray(content) ? textOf(content) : String(content);
};

/** The same as questionOf, for tests that read Anthropic bodies. */
export const anthropicQuestionOf = questionOf;

/** A tool a chat request offers the model: its name, description and the JSON Schema of its input. */
export interface OfferedTool {
  name: string;
  description?: string;
  schema: Record<string, unknown> | undefined;
}

/** The tools a chat request offers: OpenAI's `{type: "function", function: {name, description, parameters}}` or Anthropic's `{name, description, input_schema}`. */
export function toolsOf(body: Json): OfferedTool[] {
  return ((body?.tools ?? []) as Json[]).map((t) =>
    t?.type === 'function' && t.function ? { name: t.function.name, description: t.function.description, schema: t.function.parameters } : { name: t.name, description: t.description, schema: t.input_schema },
  );
}

/** A tool call the client sends back in a follow-up (the model's earlier call, as the client recorded it). */
export interface SentToolCall {
  id: string;
  name: string;
  /** The parsed input (OpenAI's arguments string parsed; the string itself when it is not JSON). */
  input: unknown;
}

/** The tool calls of the assistant messages a follow-up carries, oldest first: OpenAI's `tool_calls`, Anthropic's `tool_use` blocks. */
export function toolCallsOf(body: Json): SentToolCall[] {
  const calls: SentToolCall[] = [];
  for (const m of (body?.messages ?? []) as Json[]) {
    if (m?.role !== 'assistant') continue;
    for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) calls.push({ id: c.id, name: c.function?.name, input: parsedOr(c.function?.arguments) });
    for (const b of Array.isArray(m.content) ? m.content : []) if (b?.type === 'tool_use') calls.push({ id: b.id, name: b.name, input: b.input });
  }
  return calls;
}

/** A tool's result as a follow-up carries it to the model. */
export interface SentToolResult {
  /** The call it answers: OpenAI's `tool_call_id`, Anthropic's `tool_use_id`. */
  id: string;
  /** Its text (the text parts or blocks, when the content is not a string). */
  content: string;
  /** Anthropic's `is_error`, when set. */
  isError?: boolean;
}

/** The tool results a follow-up carries, oldest first: OpenAI's `{role: "tool", tool_call_id, content}` messages, Anthropic's `tool_result` blocks of user messages. */
export function toolResultsOf(body: Json): SentToolResult[] {
  const results: SentToolResult[] = [];
  for (const m of (body?.messages ?? []) as Json[]) {
    if (m?.role === 'tool') results.push({ id: m.tool_call_id, content: textOf(m.content) });
    if (m?.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b?.type === 'tool_result') results.push({ id: b.tool_use_id, content: textOf(b.content), ...(b.is_error === true ? { isError: true } : {}) });
  }
  return results;
}

function parsedOr(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return text;
  }
}

/**
 * A tool call's input as a model streams it: its JSON in (at most) three pieces, cut wherever
 * they fall, as OpenAI cuts `function.arguments` and Anthropic `partial_json`.
 */
export function jsonPieces(json: string): string[] {
  const size = Math.max(1, Math.ceil(json.length / 3));
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces;
}

// ---------------------------------------------------------------------------------------------
// OpenAI: chat completions and embeddings.
// ---------------------------------------------------------------------------------------------

/**
 * A local HTTP server that speaks the OpenAI wire format:
 *  - `POST /v1/chat/completions` with `stream: true`: `data: {chat.completion.chunk}` frames (the
 *    first delta says `role: "assistant"`), a last chunk with finish_reason "stop" ("tool_calls"
 *    when the answer has toolCalls), the usage chunk when the request asks for it, then
 *    `data: [DONE]`; without `stream`: one `chat.completion` object with usage (after the
 *    pieces' time), its message's `tool_calls` holding the answer's toolCalls;
 *  - `POST /v1/embeddings`: standInEmbedding vectors (`encoding_format` float or base64,
 *    `dimensions` honoured), after `embedDelayMs`;
 *  - OpenAI's errors: 401 invalid_api_key (options.apiKey), 404 model_not_found (options.models),
 *    400 for a body that is not JSON or an empty embeddings input, 404 for other paths.
 */
export async function startModelStandIn(answer: (body: Json) => StandInAnswer, options: ModelStandInOptions = {}): Promise<ModelStandIn> {
  const requests: StandInRequest[] = [];
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

  const chat = (record: StandInRequest, res: http.ServerResponse, headers: http.OutgoingHttpHeaders) => {
    const reply = answer(record.body);
    const calls = (reply.toolCalls ?? []).map((c) => ({ ...c, id: c.id ?? `call_${nextId()}`, arguments: JSON.stringify(c.input) }));
    // What the reply costs: a token per piece of text and per piece of a call's arguments.
    const spent = [...reply.pieces, ...calls.flatMap((c) => jsonPieces(c.arguments))];
    const finish = calls.length > 0 ? 'tool_calls' : 'stop';
    if (record.body.stream === true) {
      // Each call: a delta with its index, id, type, name and empty arguments, then the arguments in pieces.
      const callFrames = calls.flatMap((c, index) => [
        chunk({ ...(index === 0 && reply.pieces.length === 0 ? { role: 'assistant', content: null } : {}), tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, null),
        ...jsonPieces(c.arguments).map((part) => chunk({ tool_calls: [{ index, function: { arguments: part } }] }, null)),
      ]);
      startEvents(res, record, headers);
      // OpenAI's first delta names the role; an answer that starts with a tool call names it there.
      if (reply.pieces.length > 0 || calls.length === 0) res.write(chunk({ role: 'assistant', content: '', refusal: null }, null));
      play(
        res,
        { ...reply, pieces: [...reply.pieces.map((piece) => chunk({ content: piece }, null)), ...callFrames] },
        (frame) => res.write(frame),
        () => res.end(`${chunk({}, finish)}${record.body.stream_options?.include_usage ? usageChunk(record.body, spent) : ''}data: [DONE]\n\n`),
      );
      return;
    }
    const text = reply.pieces.join('');
    const toolCalls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    const message = { role: 'assistant', content: calls.length > 0 && !text ? null : text, refusal: null, annotations: [], ...(calls.length > 0 ? { tool_calls: toolCalls } : {}) };
    play(
      res,
      { ...reply, pieces: spent },
      () => undefined,
      () =>
        sendJson(
          res,
          record,
          200,
          {
            id: `chatcmpl-${nextId()}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: record.body.model ?? 'test-model',
            choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
            usage: standInUsage(record.body, spent),
          },
          headers,
        ),
    );
  };

  const embeddings = (record: StandInRequest, res: http.ServerResponse, headers: http.OutgoingHttpHeaders) => {
    const { input, encoding_format: format = 'float', dimensions = options.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS } = record.body;
    const texts = embeddingInputs(input);
    if (!texts || texts.length === 0 || texts.some((t) => t === '')) return sendJson(res, record, 400, openAiError("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", null), headers);
    if (!Number.isInteger(dimensions) || dimensions < 1) return sendJson(res, record, 400, openAiError(`Invalid value for 'dimensions' = ${dimensions}. Must be greater than 0.`, 'dimensions'), headers);
    if (format !== 'float' && format !== 'base64') return sendJson(res, record, 400, openAiError(`'${format}' is not one of ['float', 'base64'] - 'encoding_format'`, 'encoding_format'), headers);
    const data = texts.map((text, index) => {
      const vector = standInEmbedding(text, { dimensions, salt: options.salt });
      return { object: 'embedding', index, embedding: format === 'base64' ? base64Floats(vector) : vector };
    });
    const respond = () => sendJson(res, record, 200, { object: 'list', data, model: record.body.model, usage: standInEmbeddingUsage(input) }, headers);
    if (standIn.embedDelayMs <= 0) return respond();
    const timer = setTimeout(respond, standIn.embedDelayMs);
    res.on('close', () => clearTimeout(timer));
  };

  const server = await startServer(requests, (record, res, jsonOk) => {
    const headers = { 'x-request-id': `req_${nextId()}` };
    if (options.apiKey !== undefined) {
      const auth = /^Bearer (.*)$/i.exec(String(record.headers.authorization ?? ''));
      if (!auth || !auth[1]) return sendJson(res, record, 401, openAiError(NO_KEY_MESSAGE, null), headers);
      if (auth[1] !== options.apiKey) return sendJson(res, record, 401, openAiError(`Incorrect API key provided: ${maskedKey(auth[1])}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, 'invalid_api_key'), headers);
    }
    const route = record.method === 'POST' && record.path.endsWith('/chat/completions') ? chat : record.method === 'POST' && record.path.endsWith('/embeddings') ? embeddings : null;
    if (!route) return sendJson(res, record, 404, openAiError(`Invalid URL (${record.method} ${record.path})`, null), headers);
    if (!jsonOk || typeof record.body !== 'object' || record.body === null) {
      return sendJson(res, record, 400, openAiError('We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)', null), headers);
    }
    if (typeof record.body.model !== 'string' || !record.body.model) return sendJson(res, record, 400, openAiError('you must provide a model parameter', null), headers);
    if (options.models && !options.models.includes(record.body.model)) {
      return sendJson(res, record, 404, openAiError(`The model \`${record.body.model}\` does not exist or you do not have access to it.`, null, 'model_not_found'), headers);
    }
    route(record, res, headers);
  });
  const standIn: ModelStandIn = { baseUrl: `http://127.0.0.1:${server.port}/v1`, requests, embedDelayMs: options.embedDelayMs ?? 0, close: server.close };
  return standIn;
}

const NO_KEY_MESSAGE =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.";

const openAiError = (message: string, param: string | null, code: string | null = null) => ({ error: { message, type: 'invalid_request_error', param, code } });

/** How OpenAI shows a wrong key in its 401: the first 6 characters, stars, and the last 4 of a longer key (`sk-bad***`). */
export const maskedKey = (key: string): string => `${key.slice(0, 6)}${'*'.repeat(Math.max(3, key.length - 10))}${key.length > 10 ? key.slice(-4) : ''}`;

/**
 * The usage report OpenAI streams when asked (`stream_options.include_usage`): one more chunk
 * after the last choice, with `choices: []` and `usage`. The counts are the stand-in's own and
 * deterministic: a token per four characters of the messages' content, a token per piece of the
 * reply (for tool calls, per piece of their arguments as streamed: jsonPieces). A non-streamed
 * completion reports the same usage.
 */
export function standInUsage(body: Json, pieces: string[]): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const chars = (body.messages as { content: unknown }[]).reduce((n, m) => n + String(m.content ?? '').length, 0);
  const prompt = Math.ceil(chars / 4);
  return { prompt_tokens: prompt, completion_tokens: pieces.length, total_tokens: prompt + pieces.length };
}

const usageChunk = (body: Json, pieces: string[]) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [], usage: standInUsage(body, pieces) })}\n\n`;

export const DEFAULT_EMBEDDING_DIMENSIONS = 64;

/**
 * The stand-in's embedding of one text: a signed bag of words (lower-cased runs of letters and
 * digits; a text without any counts as one word) hashed with the salt into `dimensions` buckets,
 * L2-normalised, so texts sharing words are close and the dot product is the cosine. Values are
 * float32, so the float and base64 encodings agree exactly.
 */
export function standInEmbedding(text: string, options: { dimensions?: number; salt?: string } = {}): number[] {
  const { dimensions = DEFAULT_EMBEDDING_DIMENSIONS, salt = '' } = options;
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [text];
  for (const word of words) {
    const h = hash32(`${salt}\u0000${word}`);
    vector[h % dimensions] += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.sqrt(vector.reduce((n, x) => n + x * x, 0)) || 1;
  return vector.map((x) => Math.fround(x / norm));
}

/** Cosine similarity of two stand-in embeddings (they are normalised: the dot product). */
export const cosine = (a: number[], b: number[]): number => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

/** The usage an embeddings request reports: a token per four characters of each input (at least one). */
export function standInEmbeddingUsage(input: unknown): { prompt_tokens: number; total_tokens: number } {
  const tokens = (embeddingInputs(input) ?? []).reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0);
  return { prompt_tokens: tokens, total_tokens: tokens };
}

/** The texts of an embeddings `input`: a string, strings, or token arrays (taken as their numbers, space-separated). */
function embeddingInputs(input: unknown): string[] | null {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return null;
  if (input.every((x) => typeof x === 'number')) return [input.join(' ')];
  if (input.every((x) => typeof x === 'string')) return input as string[];
  if (input.every((x) => Array.isArray(x))) return (input as unknown[][]).map((x) => x.join(' '));
  return null;
}

/** FNV-1a over UTF-16 code units with a murmur3 finaliser: well spread, deterministic. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** OpenAI's `encoding_format: "base64"`: the vector as little-endian float32, base64-encoded. */
function base64Floats(vector: number[]): string {
  const buf = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}

// ---------------------------------------------------------------------------------------------
// Anthropic: the Messages API.
// ---------------------------------------------------------------------------------------------

export interface AnthropicStandInOptions {
  /** When set, `x-api-key` must equal it, else 401 authentication_error "invalid x-api-key". */
  apiKey?: string;
  /** When set, a body.model not in the list gets 404 not_found_error "model: <model>". */
  models?: string[];
}

export interface AnthropicStandIn {
  /** The base URL to give the Anthropic SDK / ChatAnthropic's anthropicApiUrl (no /v1: the SDK appends /v1/messages). */
  baseUrl: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server that speaks the Anthropic Messages API, `POST /v1/messages`:
 *  - headers: `x-api-key` required (401 authentication_error), `anthropic-version` required (400);
 *  - `max_tokens` required (400); an answer longer than max_tokens pieces is cut there with
 *    stop_reason "max_tokens" (and its toolCalls never come);
 *  - `stream: true`: SSE with `event:` lines, message_start, content_block_start, ping, a
 *    content_block_delta (text_delta) per piece `gapMs` apart, content_block_stop,
 *    message_delta (stop_reason, usage.output_tokens), message_stop; each tool call is one more
 *    block (content_block_start of a tool_use with `input: {}`, input_json_delta pieces,
 *    content_block_stop) and the stop_reason is "tool_use"; an answer of tool calls only has no
 *    text block;
 *  - otherwise one message object with content [{type: "text", text}] (then a tool_use block per
 *    tool call; no text block when there is no text but calls) and usage (after the pieces' time);
 *  - a `request-id` header on every answer; errors as `{type: "error", error: {type, message}}`.
 * Usage is anthropicStandInUsage's.
 */
export async function startAnthropicStandIn(answer: (body: Json) => StandInAnswer, options: AnthropicStandInOptions = {}): Promise<AnthropicStandIn> {
  const requests: StandInRequest[] = [];
  const error = (type: string, message: string) => ({ type: 'error', error: { type, message } });

  const server = await startServer(requests, (record, res, jsonOk) => {
    const headers = { 'request-id': `req_${nextId()}` };
    const fail = (status: number, type: string, message: string) => sendJson(res, record, status, error(type, message), headers);
    if (record.method !== 'POST' || record.path !== '/v1/messages') return fail(404, 'not_found_error', 'Not Found');
    const key = record.headers['x-api-key'];
    if (!key) return fail(401, 'authentication_error', 'x-api-key header is required');
    if (options.apiKey !== undefined && key !== options.apiKey) return fail(401, 'authentication_error', 'invalid x-api-key');
    if (!record.headers['anthropic-version']) return fail(400, 'invalid_request_error', 'anthropic-version: header is required');
    const body = record.body;
    if (!jsonOk || typeof body !== 'object' || body === null) return fail(400, 'invalid_request_error', 'There was an error parsing the body of your request: not valid JSON');
    if (typeof body.model !== 'string') return fail(400, 'invalid_request_error', 'model: Field required');
    if (!Number.isInteger(body.max_tokens)) return fail(400, 'invalid_request_error', 'max_tokens: Field required');
    if (!Array.isArray(body.messages)) return fail(400, 'invalid_request_error', 'messages: Field required');
    if (options.models && !options.models.includes(body.model)) return fail(404, 'not_found_error', `model: ${body.model}`);

    const reply = answer(body);
    const pieces = reply.pieces.slice(0, body.max_tokens);
    const cut = pieces.length < reply.pieces.length;
    const calls = cut ? [] : (reply.toolCalls ?? []).map((c) => ({ ...c, id: c.id ?? `toolu_${nextId()}`, json: jsonPieces(JSON.stringify(c.input)) }));
    const stopReason = cut ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn';
    // A token per piece of text and per piece of a call's input.
    const usage = anthropicStandInUsage(body, [...reply.pieces, ...calls.flatMap((c) => c.json)]);
    const textBlock = pieces.length > 0 || calls.length === 0;
    const message = (content: object[], stop: string | null, outputTokens: number) => ({
      id: `msg_${nextId()}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: outputTokens },
    });
    if (body.stream !== true) {
      const content = [...(textBlock ? [{ type: 'text', text: pieces.join('') }] : []), ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }))];
      play(res, { ...reply, pieces: [...pieces, ...calls.flatMap((c) => c.json)] }, () => undefined, () => sendJson(res, record, 200, message(content, stopReason, usage.output_tokens), headers));
      return;
    }
    const event = (type: string, data: object = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const inputDelta = (index: number, json: string) => event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json } });
    // Block indexes: the text block (when there is one) is 0, the tool_use blocks follow.
    const first = textBlock ? 1 : 0;
    const callFrames = calls.flatMap((c, k) => [
      (k > 0 || textBlock ? event('content_block_stop', { index: first + k - 1 }) : '') +
        event('content_block_start', { index: first + k, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }) +
        inputDelta(first + k, ''),
      ...c.json.map((part) => inputDelta(first + k, part)),
    ]);
    startEvents(res, record, { 'cache-control': 'no-cache', ...headers });
    res.write(event('message_start', { message: message([], null, 1) }));
    if (textBlock) res.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    res.write(event('ping'));
    play(
      res,
      { ...reply, pieces: [...pieces.map((piece) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } })), ...callFrames] },
      (frame) => res.write(frame),
      () =>
        res.end(
          event('content_block_stop', { index: first + calls.length - 1 }) +
            event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }) +
            event('message_stop'),
        ),
    );
  });
  return { baseUrl: `http://127.0.0.1:${server.port}`, requests, close: server.close };
}

/**
 * The usage the Anthropic stand-in reports, deterministic as standInUsage's: an input token per
 * four characters of the text of `system` and the messages, an output token per piece of the
 * answer (at most max_tokens; for tool calls, per piece of their input as streamed: jsonPieces).
 * Streamed, message_start says output_tokens 1 and message_delta the total; LangChain's
 * ChatAnthropic adds the two, so its summed usage_metadata has output_tokens one more (as with the
 * real API).
 */
export function anthropicStandInUsage(body: Json, pieces: string[]): { input_tokens: number; output_tokens: number } {
  const chars = textOf(body.system ?? '').length + (body.messages as { content: unknown }[]).reduce((n, m) => n + textOf(m.content).length, 0);
  const output = Number.isInteger(body.max_tokens) ? Math.min(pieces.length, body.max_tokens) : pieces.length;
  return { input_tokens: Math.ceil(chars / 4), output_tokens: output };
}
