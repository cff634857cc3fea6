import { validateParametersSchema } from '@sa/actions';
import { MCP_ENABLED_TOOLS_PER_BOT_MAX, MCP_TOOL_DESCRIPTION_MAX, MCP_TOOL_NAME_MAX, MCP_TOOLS_PER_SERVER_MAX, McpSkippedToolView, McpToolChange, ValidationIssue } from '@sa/contracts';
import type { StoredMcpTool } from './mcp-servers.repository';

/*
 * The rules of a bot's MCP servers that need no database: the URL, merging a sync's tool list
 * into the stored one (the owner's flags kept), and per-tool flag changes under the cap.
 */

/** What a server lists of a tool (the SDK's Tool, as far as we read it). */
export interface ListedTool {
  name: unknown;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: unknown } | null;
}

/** Problems of a server URL beyond the contract's pattern: it parses, no credentials, https (http only for tests). */
export function urlIssues(url: string, allowHttp: boolean): ValidationIssue[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ code: 'invalid_format', path: ['body', 'url'], message: 'url is not a valid URL' }];
  }
  if (parsed.protocol !== 'https:' && !(allowHttp && parsed.protocol === 'http:')) return [{ code: 'invalid_format', path: ['body', 'url'], message: 'url must be https' }];
  if (parsed.username || parsed.password) return [{ code: 'invalid_format', path: ['body', 'url'], message: 'url must not hold a user name or password: give the token in `token`' }];
  return [];
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The input schema as kept: the server's, less the `$schema` declaration (our validator reads every draft-07 and later keyword it knows). */
function inputSchemaOf(t: ListedTool): Record<string, unknown> | null {
  const s = t.inputSchema;
  if (!s || typeof s !== 'object' || Array.isArray(s)) return null;
  const { $schema: _declared, ...rest } = s as Record<string, unknown>;
  return rest;
}

function descriptionOf(t: ListedTool, name: string): string {
  const text = typeof t.description === 'string' && t.description.trim() ? t.description.trim() : typeof t.title === 'string' && t.title.trim() ? t.title.trim() : name;
  return text.length > MCP_TOOL_DESCRIPTION_MAX ? `${text.slice(0, MCP_TOOL_DESCRIPTION_MAX - 1)}…` : text;
}

/**
 * A sync's list merged into the stored tools: a tool already known keeps the owner's flags (its
 * description and schema are the server's new ones); a new tool needs confirmation unless the
 * server marks it read-only, is for every visitor, and is on while the bot offers fewer than
 * MCP_ENABLED_TOOLS_PER_BOT_MAX MCP tools. Tools whose name or schema we cannot use, repeated
 * names and those past MCP_TOOLS_PER_SERVER_MAX are left out, each with the reason. Tools the
 * server no longer lists are gone.
 */
export function mergeTools(current: readonly StoredMcpTool[], listed: readonly ListedTool[], enabledOnOtherServers: number): { tools: StoredMcpTool[]; skipped: McpSkippedToolView[] } {
  const known = new Map(current.map((t) => [t.name, t]));
  const tools: StoredMcpTool[] = [];
  const skipped: McpSkippedToolView[] = [];
  const seen = new Set<string>();
  let enabled = enabledOnOtherServers;
  for (const t of listed) {
    const name = typeof t.name === 'string' ? t.name : '';
    const shown = name.slice(0, MCP_TOOL_NAME_MAX) || '(no name)';
    if (!name || name.length > MCP_TOOL_NAME_MAX || /[\u0000-\u001f]/.test(name)) {
      skipped.push({ name: shown, reason: `the name must be 1 to ${MCP_TOOL_NAME_MAX} characters of one line` });
      continue;
    }
    if (seen.has(name)) {
      skipped.push({ name: shown, reason: 'the server lists this name twice; the first is kept' });
      continue;
    }
    seen.add(name);
    if (tools.length >= MCP_TOOLS_PER_SERVER_MAX) {
      skipped.push({ name: shown, reason: `a server's first ${MCP_TOOLS_PER_SERVER_MAX} tools are kept` });
      continue;
    }
    const schema = inputSchemaOf(t);
    const problems = schema ? validateParametersSchema(schema) : ['the tool has no input schema object'];
    if (problems.length) {
      skipped.push({ name: shown, reason: `the input schema is not accepted: ${problems[0]}` });
      continue;
    }
    const before = known.get(name);
    const on = before ? before.enabled && enabled < MCP_ENABLED_TOOLS_PER_BOT_MAX : enabled < MCP_ENABLED_TOOLS_PER_BOT_MAX;
    if (on) enabled++;
    tools.push({
      name,
      description: descriptionOf(t, name),
      input_schema: schema!,
      confirm: before ? before.confirm : t.annotations?.readOnlyHint !== true,
      verified_only: before ? before.verified_only : false,
      enabled: on,
    });
  }
  return { tools, skipped };
}

/**
 * The owner's flag changes applied: a name the last sync did not list is a 400 issue; turning on
 * a tool past the bot's cap is `over_cap` (the caller answers 409).
 */
export function applyToolChanges(
  current: readonly StoredMcpTool[],
  changes: readonly McpToolChange[],
  enabledOnOtherServers: number,
): { tools: StoredMcpTool[]; issues: ValidationIssue[]; overCap: boolean } {
  const issues: ValidationIssue[] = [];
  const tools = current.map((t) => ({ ...t }));
  const byName = new Map(tools.map((t) => [t.name, t]));
  changes.forEach((c, i) => {
    const t = byName.get(c.name);
    if (!t) {
      issues.push({ code: 'invalid_value', path: ['body', 'tools', i, 'name'], message: `the server has no tool "${c.name.slice(0, 80)}" (sync first)` });
      return;
    }
    if (c.confirm !== undefined) t.confirm = c.confirm;
    if (c.verified_only !== undefined) t.verified_only = c.verified_only;
    if (c.enabled !== undefined) t.enabled = c.enabled;
  });
  const wasOn = current.filter((t) => t.enabled).length;
  const on = tools.filter((t) => t.enabled).length;
  // Only a change that adds tools counts against the cap: a bot over it (never, but) may still turn tools off.
  const overCap = on > wasOn && enabledOnOtherServers + on > MCP_ENABLED_TOOLS_PER_BOT_MAX;
  return { tools, issues, overCap };
}
