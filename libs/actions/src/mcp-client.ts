import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { GuardError, type OutboundPolicy, guardedModelFetch, isGuardError } from '@sa/net-guard';

/*
 * One exchange with a remote MCP server (issue 34, item 3) with the official client SDK: the
 * bots service's sync and OAuth flow, chat's tool calls. Every request (MCP, and the OAuth
 * discovery, registration and token requests) goes through the outbound guard
 * (guardedModelFetch: the policy's addresses and ports, checked in the socket's own lookup), over
 * https only (http where a test allows it), redirects refused (the SDK would follow one within
 * the origin; a token must never go anywhere but where it was given for), a bearer token only to
 * the MCP server's own origin, and one deadline covers the whole exchange. Errors become
 * McpConnectionError with words for people, never a secret.
 */

/** Tools read of one server at most (pages of tools/list), past which a list is known to be longer. */
const MAX_LIST_PAGES = 20;

export type McpConnectionErrorCode = 'blocked' | 'redirect' | 'timeout' | 'unauthorized' | 'http_error' | 'network' | 'protocol';

/** Why the exchange failed, for people: never a token. `code` is the outcome's error in chat. */
export class McpConnectionError extends Error {
  constructor(
    readonly code: McpConnectionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'McpConnectionError';
  }
}

export interface McpExchangeOptions {
  policy: OutboundPolicy;
  /** For the whole exchange (connect and list, connect and call, or an OAuth step): MCP_CALL_TIMEOUT_MS in the app. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Tests against local servers: http as well as https. */
  allowHttp?: boolean;
  /** Texts cut out of error messages (tokens, secrets) besides `token`. */
  secrets?: readonly string[];
}

export interface McpConnectOptions extends McpExchangeOptions {
  /** Sent as `Authorization: Bearer …` to the server's origin only; null: none. */
  token: string | null;
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** Longest error text kept (a server view's `error`, an outcome's message). */
const MESSAGE_MAX = 500;

/**
 * The fetch of one exchange: guarded, https only (unless allowed), no redirects, under the
 * deadline. With `token`, every request to `origin` carries it as the bearer and no other
 * Authorization goes anywhere; without, the SDK's own Authorization (client authentication at a
 * token endpoint) is kept, but never a bearer token off the MCP server's origin.
 */
function exchangeFetch(origin: string, token: string | null, policy: OutboundPolicy, deadline: AbortSignal, allowHttp: boolean): typeof fetch {
  const guarded = guardedModelFetch(policy, { headersTimeoutMs: policy.timeoutMs });
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const target = new URL(url);
    if (target.protocol !== 'https:' && !(allowHttp && target.protocol === 'http:')) throw new McpConnectionError('blocked', `only https addresses are called (${target.origin})`);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const sameOrigin = target.origin === origin;
    if (token !== null) {
      headers.delete('authorization');
      if (sameOrigin) headers.set('authorization', `Bearer ${token}`);
    } else if (!sameOrigin && /^bearer\s/i.test(headers.get('authorization') ?? '')) headers.delete('authorization');
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await guarded(url, { ...init, headers, signal, redirect: 'manual' });
    if (REDIRECT.has(response.status)) {
      await response.body?.cancel().catch(() => undefined);
      throw new McpConnectionError('redirect', `${target.host} redirected (HTTP ${response.status}); redirects are never followed`);
    }
    return response;
  };
}

/** The error as McpConnectionError, its text cut and without any of `secrets`. */
export function mcpConnectionError(err: unknown, secrets: readonly (string | null | undefined)[], timeoutMs: number): McpConnectionError {
  let out: McpConnectionError;
  // The SDK may wrap what the fetch threw: look at the cause too.
  const inner = (err as { cause?: unknown })?.cause;
  const guard = isGuardError(err) ? err : isGuardError(inner) ? inner : null;
  const own = err instanceof McpConnectionError ? err : inner instanceof McpConnectionError ? inner : null;
  const message = err instanceof Error ? err.message : String(err);
  if (own) out = own;
  else if (guard) out = new McpConnectionError(guard.code === 'blocked' || guard.code === 'bad_url' ? 'blocked' : guard.code === 'timeout' ? 'timeout' : 'network', guard.message);
  else if (err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403)) out = new McpConnectionError('unauthorized', `the server refused the credentials (HTTP ${err.code})`);
  else if (err instanceof StreamableHTTPError) out = new McpConnectionError('http_error', `the server answered HTTP ${err.code ?? '?'}`);
  else if ((err as { name?: string })?.name === 'AbortError' || /timed? ?out|-32001/i.test(message)) out = new McpConnectionError('timeout', `no answer within ${timeoutMs / 1000} s`);
  else if (/\b401\b|unauthori[sz]ed/i.test(message)) out = new McpConnectionError('unauthorized', 'the server refused the credentials (HTTP 401)');
  else out = new McpConnectionError('protocol', message);
  let text = out.message;
  for (const s of secrets) if (s && s.length >= 4) text = text.split(s).join('[redacted]');
  if (text.length > MESSAGE_MAX) text = `${text.slice(0, MESSAGE_MAX)}…`;
  return text === out.message ? out : new McpConnectionError(out.code, text);
}

/**
 * Runs `use` with the exchange's fetch under one deadline (and the caller's signal); what it
 * throws becomes McpConnectionError. `url` is the MCP server's address: its origin alone gets
 * the bearer token.
 */
export async function withMcpExchange<T>(url: string, opts: McpExchangeOptions & { token?: string | null }, use: (fetchFn: typeof fetch, signal: AbortSignal, timeoutMs: number) => Promise<T>): Promise<T> {
  const timeoutMs = opts.timeoutMs;
  const token = opts.token ?? null;
  const secrets = [token, ...(opts.secrets ?? [])];
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new McpConnectionError('blocked', 'the address is not a URL');
  }
  if (target.protocol !== 'https:' && !(opts.allowHttp && target.protocol === 'http:')) throw new McpConnectionError('blocked', 'only https addresses are called');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new GuardError('timeout', `no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  const onCancel = (): void => controller.abort(new GuardError('network', 'the request was cancelled'));
  if (opts.signal?.aborted) onCancel();
  opts.signal?.addEventListener('abort', onCancel, { once: true });
  const policy = { ...opts.policy, timeoutMs: Math.min(opts.policy.timeoutMs, timeoutMs) };
  const deadline = new Promise<never>((_, reject) => {
    const fail = (): void => reject(controller.signal.reason);
    if (controller.signal.aborted) fail();
    controller.signal.addEventListener('abort', fail, { once: true });
  });
  deadline.catch(() => undefined);
  try {
    const fetchFn = exchangeFetch(target.origin, token, policy, controller.signal, opts.allowHttp ?? false);
    return await Promise.race([use(fetchFn, controller.signal, timeoutMs), deadline]);
  } catch (err) {
    throw mcpConnectionError(err, secrets, timeoutMs);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCancel);
  }
}

/** Whether the streamable HTTP attempt says the server only speaks the older HTTP+SSE transport. */
const tryOlderTransport = (err: unknown): boolean => err instanceof StreamableHTTPError && (err.code === 400 || err.code === 404 || err.code === 405);

/**
 * Connects (Streamable HTTP, then the older HTTP+SSE when the server refuses the former with
 * 400, 404 or 405), runs `use`, and closes, all within one deadline. Throws McpConnectionError
 * (`unauthorized` when the server refuses the token: an OAuth caller refreshes and tries again).
 */
export async function withMcpClient<T>(url: string, opts: McpConnectOptions, use: (client: Client, signal: AbortSignal) => Promise<T>): Promise<T> {
  const clients: Client[] = [];
  try {
    return await withMcpExchange(url, opts, async (fetchFn, signal, timeoutMs) => {
      const target = new URL(url);
      const attempt = async (transport: StreamableHTTPClientTransport | SSEClientTransport): Promise<T> => {
        const client = new Client({ name: 'support-agent', version: '1.0.0' });
        clients.push(client);
        await client.connect(transport, { signal, timeout: timeoutMs });
        return use(client, signal);
      };
      try {
        return await attempt(new StreamableHTTPClientTransport(target, { fetch: fetchFn }));
      } catch (err) {
        if (!tryOlderTransport(err) || signal.aborted) throw err;
        return await attempt(new SSEClientTransport(target, { fetch: fetchFn }));
      }
    });
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
  }
}

/** The server's tools, every page, at most one more than `max` (so a longer list is known to be longer). */
export async function listMcpTools(url: string, opts: McpConnectOptions & { max: number }): Promise<Tool[]> {
  return withMcpClient(url, opts, async (client, signal) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : {}, { signal });
      tools.push(...res.tools);
      cursor = res.nextCursor;
      if (!cursor || tools.length > opts.max) break;
    }
    return tools;
  });
}

/** A tool call's content as text: text parts as they are, other parts named, structured content as JSON when there is no text. */
export function mcpResultText(result: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const c of Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : []) {
    if (c?.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c?.type === 'resource' && c.resource && typeof (c.resource as { text?: unknown }).text === 'string') parts.push((c.resource as { text: string }).text);
    else if (c?.type === 'resource_link' && typeof c.uri === 'string') parts.push(`[link: ${c.uri}]`);
    else if (typeof c?.type === 'string') parts.push(`[${c.type}]`);
  }
  if (!parts.length && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n');
}
