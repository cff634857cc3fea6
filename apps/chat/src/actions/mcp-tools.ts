import { createHash } from 'node:crypto';
import { ACTION_MAX_RESULT_CHARS, McpConnectionError, mcpConnectionError, mcpResultText, validateActionInput, withMcpClient } from '@sa/actions';
import { ACTION_NAME_PATTERN, MCP_CALL_TIMEOUT_MS, MCP_OAUTH_REFRESH_MARGIN_SECONDS, type McpSealedAuth, type McpServerSpec, type McpToolSpec } from '@sa/contracts';
import type { OutboundPolicy } from '@sa/net-guard';
import type { SecretBox } from '@sa/secret-box';
import type { LoopTool, ToolOutcome } from './tool-loop';

/*
 * The enabled tools of a bot's remote MCP servers (bots.action.specs → `mcp_servers`) as the tool
 * loop's tools (issue 34, item 3). A call is one connection with the official MCP client SDK
 * (libs/actions withMcpClient: Streamable HTTP or the older HTTP+SSE, every request through the
 * outbound guard, redirects refused, the token to the server's own origin only, one 10 s
 * deadline). The token is opened from its seal for this call only. With OAuth it is an access
 * token: one that expired, or that the server refuses (401, before the tool runs), chat trades
 * once for a fresh one (`freshAuth`: bots.mcp-server.token; the bots service holds the refresh
 * token and refreshes under a lock) and calls again. The input is checked against the tool's
 * schema first. The result is text cut to the size of an action's, without the token; every
 * failure is an outcome with `ok: false`, never a throw. What the server answers is data for the
 * model, never our words (toolResultContent).
 */

export interface McpToolsContext {
  /** Opens the sealed credentials (the bots service's key, shared as for model keys). */
  box: SecretBox;
  policy: OutboundPolicy;
  /** Cancels every call (the turn is over). */
  signal?: AbortSignal;
  /** Names the model already sees (the bot's own actions, built-ins): an MCP tool never takes one. */
  reserved?: Iterable<string>;
  /**
   * A fresh OAuth access token of a server, sealed as McpServerSpec.auth_sealed (null: not
   * connected any more); `staleHash` is the SHA-256 of the one a server refused. Without it, an
   * expired OAuth token is used as it is (and the server's refusal is the outcome).
   */
  freshAuth?: (serverId: string, staleHash: string | null) => Promise<string | null>;
  /** Tests: a local server over http, a shorter deadline. */
  call?: { timeoutMs?: number; allowHttp?: boolean };
}

const refused = (error: string, message: string, duration_ms = 0): ToolOutcome => ({ ok: false, status: null, duration_ms, result: '', error, message });

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The sealed credentials opened; null: none; undefined: they could not be opened. */
function openAuth(box: SecretBox, sealed: string | null): McpSealedAuth | null | undefined {
  if (!sealed) return null;
  try {
    const auth = JSON.parse(box.open(sealed)) as McpSealedAuth;
    return typeof auth?.token === 'string' ? auth : undefined;
  } catch {
    return undefined;
  }
}

/** The text cut to an action result's size, and the tokens cut out (a server may echo them). */
function cut(text: string, tokens: readonly string[]): string {
  let clean = text;
  for (const t of tokens) if (t.length >= 4) clean = clean.split(t).join('[redacted]');
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
  const timeoutMs = ctx.call?.timeoutMs ?? MCP_CALL_TIMEOUT_MS;
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
      const auth = openAuth(ctx.box, server.auth_sealed);
      const used: string[] = auth ? [auth.token] : [];
      /** A fresh OAuth access token from the bots service; null: none to be had. */
      const fresh = async (stale: string | null): Promise<string | null> => {
        if (auth?.type !== 'oauth' || !ctx.freshAuth) return null;
        // The bots service away or the refresh refused: the call goes on with what there is (and fails as the server says).
        const sealed = await ctx.freshAuth(server.id, stale ? sha256(stale) : null).catch(() => null);
        const next = openAuth(ctx.box, sealed);
        if (next) used.push(next.token);
        return next?.token ?? null;
      };
      try {
        const checked = validateActionInput(t.input_schema, input);
        if (!checked.ok) return refused('invalid_input', `The input does not fit the tool's parameters: ${checked.errors.join('; ')}`);
        if (auth === undefined) return refused('credentials', 'The stored credentials of this MCP server could not be opened');
        const signal = ctx.signal ? AbortSignal.any([turnSignal, ctx.signal]) : turnSignal;
        const call = (token: string | null) =>
          withMcpClient(server.url, { policy: ctx.policy, token, timeoutMs, allowHttp: ctx.call?.allowHttp, signal }, (client, s) =>
            client.callTool({ name: t.name, arguments: checked.value }, undefined, { signal: s }),
          );
        let token = auth?.token ?? null;
        const expired = auth?.type === 'oauth' && auth.expires_at !== null && Date.parse(auth.expires_at) - MCP_OAUTH_REFRESH_MARGIN_SECONDS * 1000 <= Date.now();
        if (expired) token = (await fresh(null)) ?? token;
        let result: Awaited<ReturnType<typeof call>>;
        try {
          result = await call(token);
        } catch (err) {
          // A refused access token never reached the tool: one fresh token, one more call.
          if (!(err instanceof McpConnectionError) || err.code !== 'unauthorized' || auth?.type !== 'oauth') throw err;
          const again = await fresh(token);
          if (!again) throw err;
          result = await call(again);
        }
        const text = cut(mcpResultText(result as Record<string, unknown>), used);
        const duration_ms = Date.now() - started;
        if (result.isError) return { ok: false, status: null, duration_ms, result: text, error: 'tool_error', message: 'The MCP server says the tool failed' };
        return { ok: true, status: null, duration_ms, result: text, error: null, message: 'Done' };
      } catch (err) {
        const failure = mcpConnectionError(err, used, timeoutMs);
        return refused(failure.code, cut(failure.message, used).slice(0, 500), Date.now() - started);
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
