import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { MCP_CALL_TIMEOUT_MS, MCP_TOOLS_PER_SERVER_MAX } from '@sa/contracts';
import { GuardError, type OutboundPolicy, guardedModelFetch, isGuardError } from '@sa/net-guard';

/*
 * One connection to a remote MCP server with the official client SDK, for a sync (the bots
 * service lists the tools; chat has its own twin for calls). Every request of the transport goes
 * through the outbound guard (guardedModelFetch: the policy's addresses and ports, checked in
 * the socket's own lookup), redirects are refused (the SDK would follow one within the origin;
 * a token must never go anywhere but the address it was given for), the bearer token is added
 * only to requests for the server's own origin, and one deadline covers the whole exchange.
 */

export interface McpConnectOptions {
  policy: OutboundPolicy;
  /** Sent as `Authorization: Bearer …`; null: none. */
  token: string | null;
  /** Default MCP_CALL_TIMEOUT_MS, for connecting and the work together. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Tests against a local server: http as well as https. */
  allowHttp?: boolean;
}

/** Why the exchange failed, for people: never the token. */
export class McpConnectionError extends Error {
  constructor(
    readonly code: 'blocked' | 'redirect' | 'timeout' | 'unauthorized' | 'http_error' | 'network' | 'protocol',
    message: string,
  ) {
    super(message);
    this.name = 'McpConnectionError';
  }
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** Longest error text kept (the view's `error`). */
const MESSAGE_MAX = 500;

/** The fetch the transports use: guarded, no redirects, the token for the server's origin only, the deadline on every request. */
function serverFetch(origin: string, token: string | null, policy: OutboundPolicy, deadline: AbortSignal): typeof fetch {
  const guarded = guardedModelFetch(policy, { headersTimeoutMs: policy.timeoutMs });
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.delete('authorization');
    if (token !== null && new URL(url).origin === origin) headers.set('authorization', `Bearer ${token}`);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await guarded(input instanceof Request ? input.url : input, { ...init, headers, signal, redirect: 'manual' });
    if (REDIRECT.has(response.status)) {
      await response.body?.cancel().catch(() => undefined);
      throw new McpConnectionError('redirect', `the server redirected (HTTP ${response.status}); redirects are never followed`);
    }
    return response;
  };
}

/** The error as McpConnectionError, its text cut and without the token. */
export function connectionError(err: unknown, token: string | null, timeoutMs: number): McpConnectionError {
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
  if (token) text = text.split(token).join('[token]');
  if (text.length > MESSAGE_MAX) text = `${text.slice(0, MESSAGE_MAX)}…`;
  return text === out.message ? out : new McpConnectionError(out.code, text);
}

/** Whether the streamable HTTP attempt says the server only speaks the older HTTP+SSE transport. */
const tryOlderTransport = (err: unknown): boolean => err instanceof StreamableHTTPError && (err.code === 400 || err.code === 404 || err.code === 405);

/**
 * Connects (Streamable HTTP, then the older HTTP+SSE when the server refuses the former with
 * 400, 404 or 405), runs `use`, and closes, all within one deadline. Throws McpConnectionError.
 */
export async function withMcpClient<T>(url: string, opts: McpConnectOptions, use: (client: Client, signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? MCP_CALL_TIMEOUT_MS;
  const target = new URL(url);
  if (target.protocol !== 'https:' && !(opts.allowHttp && target.protocol === 'http:')) throw new McpConnectionError('blocked', 'only https addresses are called');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new GuardError('timeout', `no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  const onCancel = (): void => controller.abort(new GuardError('network', 'the request was cancelled'));
  if (opts.signal?.aborted) onCancel();
  opts.signal?.addEventListener('abort', onCancel, { once: true });
  const policy = { ...opts.policy, timeoutMs: Math.min(opts.policy.timeoutMs, timeoutMs) };
  const fetchFn = serverFetch(target.origin, opts.token, policy, controller.signal);
  const deadline = new Promise<never>((_, reject) => {
    const fail = (): void => reject(controller.signal.reason);
    if (controller.signal.aborted) fail();
    controller.signal.addEventListener('abort', fail, { once: true });
  });
  deadline.catch(() => undefined);
  const clients: Client[] = [];
  const attempt = async (transport: StreamableHTTPClientTransport | SSEClientTransport): Promise<T> => {
    const client = new Client({ name: 'support-agent', version: '1.0.0' });
    clients.push(client);
    await Promise.race([client.connect(transport, { signal: controller.signal, timeout: timeoutMs }), deadline]);
    return Promise.race([use(client, controller.signal), deadline]);
  };
  try {
    try {
      return await attempt(new StreamableHTTPClientTransport(target, { fetch: fetchFn }));
    } catch (err) {
      if (!tryOlderTransport(err) || controller.signal.aborted) throw err;
      return await attempt(new SSEClientTransport(target, { fetch: fetchFn }));
    }
  } catch (err) {
    throw connectionError(err, opts.token, timeoutMs);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCancel);
    for (const c of clients) await c.close().catch(() => undefined);
  }
}

/** The server's tools, every page, at most one more than MCP_TOOLS_PER_SERVER_MAX (so a longer list is known to be longer). */
export async function listMcpTools(url: string, opts: McpConnectOptions): Promise<Tool[]> {
  return withMcpClient(url, opts, async (client, signal) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const res = await client.listTools(cursor ? { cursor } : {}, { signal });
      tools.push(...res.tools);
      cursor = res.nextCursor;
      if (!cursor || tools.length > MCP_TOOLS_PER_SERVER_MAX) break;
    }
    return tools;
  });
}
