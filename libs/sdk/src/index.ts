import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
/** The webhook receiver helper (spec part 6): verify a delivery with its raw body and secret. */
export * from '@support-agent/webhooks';

export type Schemas = components['schemas'];
export type SupportAgentClient = Client<paths>;

export interface ClientOptions {
  /** The REST base address, ending in /v1 (e.g. http://127.0.0.1:3000/v1). */
  baseUrl: string;
  /** An API token (`mgpt_…`), sent as `Authorization: Bearer`. */
  token: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

/**
 * A typed client for the REST API (openapi-fetch over the generated `paths`): every path, query
 * parameter, body and response is checked by TypeScript.
 *
 *   const api = createSupportAgentClient({ baseUrl, token });
 *   const { data, error, response } = await api.GET('/bookings', { params: { query: { status: 'pending' } } });
 */
export function createSupportAgentClient(opts: ClientOptions): SupportAgentClient {
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${opts.token}`, ...opts.headers },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}

/** A non-2xx answer: the HTTP status and the spec's error body (part 7). */
export class SupportAgentError extends Error {
  constructor(
    readonly status: number,
    readonly body: Schemas['ErrorObject'] | Schemas['ValidationError'] | string,
  ) {
    super(`HTTP ${status}: ${messageOf(body)}`);
    this.name = 'SupportAgentError';
  }
}

function messageOf(body: unknown): string {
  if (typeof body === 'string') return body;
  const b = body as { message?: unknown; error?: { message?: unknown } | string };
  if (typeof b.message === 'string') return b.message;
  if (b.error && typeof b.error === 'object' && typeof b.error.message === 'string') return b.error.message;
  return JSON.stringify(body);
}

/**
 * A chat answer that did not end complete: its last frame said `finish_reason: "error"` (code and
 * message from the frame's `error` object), or the stream closed without a last frame (code
 * `incomplete`: the connection broke).
 */
export class ChatStreamError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChatStreamError';
  }
}

export interface ChatStream {
  /** The conversation's session id (X-Session-Id): pass it as sessionId to continue. */
  sessionId: string | null;
  /** The bot that answered (X-Chatbot-Id), when one did. */
  chatbotId: string | null;
  /**
   * The reply's text fragments as they arrive (choices[0].delta.content of each SSE frame). Ends
   * normally only when the answer is complete (last frame `finish_reason: "stop"`); an answer that
   * broke off throws ChatStreamError after the fragments that did arrive.
   */
  deltas: AsyncGenerator<string>;
}

/**
 * POST /chat with the answer as it streams. Errors before the answer starts (validation, auth,
 * quota, …) are thrown as SupportAgentError; then `deltas` yields each fragment, and throws
 * ChatStreamError when the answer breaks off.
 *
 *   const chat = await streamChat({ baseUrl, token }, { message: 'Do you ship to Lagos?', chatbotId });
 *   for await (const text of chat.deltas) process.stdout.write(text);
 */
export async function streamChat(opts: ClientOptions, body: Schemas['ChatRequest'], init: { signal?: AbortSignal } = {}): Promise<ChatStream> {
  const res = await (opts.fetch ?? fetch)(`${opts.baseUrl.replace(/\/+$/, '')}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json', accept: 'text/event-stream', ...opts.headers },
    body: JSON.stringify(body),
    signal: init.signal,
  });
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    let parsed: SupportAgentError['body'] = text;
    try {
      parsed = JSON.parse(text) as SupportAgentError['body'];
    } catch {
      // not JSON: keep the text
    }
    throw new SupportAgentError(res.status, parsed);
  }
  return { sessionId: res.headers.get('x-session-id'), chatbotId: res.headers.get('x-chatbot-id'), deltas: sseDeltas(res.body) };
}

/**
 * The text deltas of a stream of `data: <json>` SSE frames, up to the last frame: returns after
 * `finish_reason: "stop"`; throws ChatStreamError on `finish_reason: "error"` or when the stream
 * closes without a last frame.
 */
export async function* sseDeltas(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const data = frame
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (!data || data === '[DONE]') continue;
        const chunk = JSON.parse(data) as Schemas['ChatChunk'];
        const choice = chunk.choices?.[0];
        const text = choice?.delta?.content;
        if (typeof text === 'string' && text) yield text;
        if (choice?.finish_reason === 'stop') return;
        if (choice?.finish_reason === 'error') throw new ChatStreamError(chunk.error?.code ?? 'error', chunk.error?.message ?? 'The answer broke off');
      }
      if (done) throw new ChatStreamError('incomplete', 'The chat stream closed before its last frame: the answer may be incomplete');
    }
  } finally {
    reader.releaseLock();
  }
}
