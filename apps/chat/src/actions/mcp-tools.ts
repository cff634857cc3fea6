import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ACTION_MAX_RESULT_CHARS, validateActionInput } from '@sa/actions';
import { ACTION_NAME_PATTERN, MCP_CALL_TIMEOUT_MS, type McpServerSpec, type McpToolSpec } from '@sa/contracts';
import { GuardError, type OutboundPolicy, guardedModelFetch, isGuardError } from '@sa/net-guard';
import type { SecretBox } from '@sa/secret-box';
import type { LoopTool, ToolOutcome } from './tool-loop';

/*
 * The enabled tools of a bot's remote MCP servers (bots.action.specs → `mcp_servers`) as the tool
 * loop's tools (issue 34, item 3). A call is one connection with the official MCP client SDK:
 * Streamable HTTP (the older HTTP+SSE when the server refuses it with 400, 404 or 405), every
 * request through the outbound guard, redirects refused, the bearer token (opened from its seal
 * for this call only) sent to the server's own origin only, one 10 s deadline for connecting and
 * the call. The input is checked against the tool's schema first. The result is text cut to the
 * size of an action's, without the token; every failure is an outcome with `ok: false`, never a
 * throw. What the server answers is data for the model, never our words (toolResultContent).
 */

export interface McpToolsContext {
  /** Opens the sealed credentials (the bots service's key, shared as for model keys). */
  box: SecretBox;
  policy: OutboundPolicy;
  /** Cancels every call (the turn is over). */
  signal?: AbortSignal;
  /** Names the model already sees (the bot's own actions, built-ins): an MCP tool never takes one. */
  reserved?: Iterable<string>;
  /** Tests: a local server over http, a shorter deadline. */
  call?: { timeoutMs?: number; allowHttp?: boolean };
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** A failure of the exchange, with the outcome's `error` code. */
class McpCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const refused = (error: string, message: string, duration_ms = 0): ToolOutcome => ({ ok: false, status: null, duration_ms, result: '', error, message });

/** The fetch of the transports: guarded, no redirects, the token for the server's origin only, under the deadline. */
function serverFetch(origin: string, token: string | null, policy: OutboundPolicy, deadline: AbortSignal): typeof fetch {
  const guarded = guardedModelFetch(policy, { headersTimeoutMs: policy.timeoutMs });
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.delete('authorization');
    if (token !== null && new URL(url).origin === origin) headers.set('authorization', `Bearer ${token}`);
    const response = await guarded(url, { ...init, headers, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
    if (REDIRECT.has(response.status)) {
      await response.body?.cancel().catch(() => undefined);
      throw new McpCallError('redirect', `the server redirected (HTTP ${response.status}); redirects are never followed`);
    }
    return response;
  };
}

/** What went wrong, as an outcome's code and words. */
function failureOf(err: unknown, timeoutMs: number): McpCallError {
  const inner = (err as { cause?: unknown })?.cause;
  for (const e of [err, inner]) {
    if (e instanceof McpCallError) return e;
    if (isGuardError(e)) return new McpCallError(e.code === 'bad_url' ? 'blocked' : e.code, e.message);
  }
  if (err instanceof StreamableHTTPError) return new McpCallError(err.code === 401 || err.code === 403 ? 'unauthorized' : 'http_error', `the server answered HTTP ${err.code ?? '?'}`);
  const message = err instanceof Error ? err.message : String(err);
  if ((err as { name?: string })?.name === 'AbortError' || /timed? ?out|-32001/i.test(message)) return new McpCallError('timeout', `no answer within ${timeoutMs / 1000} s`);
  return new McpCallError('network', message);
}

/** One connection, `use`, and closing, under one deadline. Throws McpCallError. */
async function withClient<T>(spec: McpServerSpec, token: string | null, ctx: McpToolsContext, signal: AbortSignal, use: (c: Client, s: AbortSignal) => Promise<T>): Promise<T> {
  const timeoutMs = ctx.call?.timeoutMs ?? MCP_CALL_TIMEOUT_MS;
  const target = new URL(spec.url);
  if (target.protocol !== 'https:' && !(ctx.call?.allowHttp && target.protocol === 'http:')) throw new McpCallError('blocked', 'only https addresses are called');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new GuardError('timeout', `no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  const onCancel = (): void => controller.abort(new GuardError('network', 'the call was cancelled'));
  if (signal.aborted) onCancel();
  signal.addEventListener('abort', onCancel, { once: true });
  const deadline = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  deadline.catch(() => undefined);
  const fetchFn = serverFetch(target.origin, token, { ...ctx.policy, timeoutMs: Math.min(ctx.policy.timeoutMs, timeoutMs) }, controller.signal);
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
      const older = err instanceof StreamableHTTPError && (err.code === 400 || err.code === 404 || err.code === 405);
      if (!older || controller.signal.aborted) throw err;
      return await attempt(new SSEClientTransport(target, { fetch: fetchFn }));
    }
  } catch (err) {
    throw failureOf(err, timeoutMs);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onCancel);
    for (const c of clients) await c.close().catch(() => undefined);
  }
}

/** A call's content as text: text parts as they are, other parts named, structured content as JSON when there is no text. */
function resultText(result: Record<string, unknown>): string {
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

/** The text cut to an action result's size, and the token cut out (a server may echo it). */
function cut(text: string, token: string | null): string {
  const clean = token && token.length >= 4 ? text.split(token).join('[redacted]') : text;
  return clean.length > ACTION_MAX_RESULT_CHARS ? `${clean.slice(0, ACTION_MAX_RESULT_CHARS)}…` : clean;
}

/** Model-facing names: valid for every provider, unique (case-insensitively) among the bot's tools. */
function namer(reserved: Iterable<string>): (wanted: string) => string {
  const taken = new Set([...reserved].map((n) => n.toLowerCase()));
  return (wanted) => {
    let base = wanted.replace(/[^a-zA-Z0-9_-]/g, '_');
    if (!/^[a-zA-Z]/.test(base)) base = `mcp_${base}`;
    base = base.slice(0, 64);
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()) || !ACTION_NAME_PATTERN.test(name); n++) name = `${base.slice(0, 64 - `_${n}`.length)}_${n}`;
    taken.add(name.toLowerCase());
    return name;
  };
}

function tool(server: McpServerSpec, t: McpToolSpec, name: string, ctx: McpToolsContext): LoopTool {
  return {
    name,
    description: t.description,
    source: 'mcp',
    label: null,
    parameters: t.input_schema,
    confirm: t.confirm,
    verifiedOnly: t.verified_only,
    run: async (input, turnSignal) => {
      const started = Date.now();
      const token = server.auth_sealed ? ((): string | null => {
        try {
          return (JSON.parse(ctx.box.open(server.auth_sealed!)) as { token?: string }).token ?? null;
        } catch {
          return null;
        }
      })() : null;
      try {
        const checked = validateActionInput(t.input_schema, input);
        if (!checked.ok) return refused('invalid_input', `The input does not fit the tool's parameters: ${checked.errors.join('; ')}`);
        if (server.auth_sealed && token === null) return refused('credentials', 'The stored credentials of this MCP server could not be opened');
        const signal = ctx.signal ? AbortSignal.any([turnSignal, ctx.signal]) : turnSignal;
        const result = await withClient(server, token, ctx, signal, (client, s) => client.callTool({ name: t.name, arguments: checked.value }, undefined, { signal: s }));
        const text = cut(resultText(result as Record<string, unknown>), token);
        const duration_ms = Date.now() - started;
        if (result.isError) return { ok: false, status: null, duration_ms, result: text, error: 'tool_error', message: 'The MCP server says the tool failed' };
        return { ok: true, status: null, duration_ms, result: text, error: null, message: 'Done' };
      } catch (err) {
        const failure = err instanceof McpCallError ? err : failureOf(err, ctx.call?.timeoutMs ?? MCP_CALL_TIMEOUT_MS);
        return refused(failure.code, cut(failure.message, token).slice(0, 500), Date.now() - started);
      }
    },
  };
}

/**
 * The tools of a bot's MCP servers for one conversation, in the servers' order. Each keeps its
 * flags (confirm, verified only); the loop enforces them as for the bot's own actions.
 */
export function mcpTools(servers: McpServerSpec[], ctx: McpToolsContext): LoopTool[] {
  const nameOf = namer(ctx.reserved ?? []);
  return servers.flatMap((server) => server.tools.map((t) => tool(server, t, nameOf(t.model_name), ctx)));
}
