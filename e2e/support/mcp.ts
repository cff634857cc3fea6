import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { e2eState } from './state';

export interface McpSession {
  client: Client;
  call(name: string, args?: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The SDK's own client over Streamable HTTP, with the token in the Authorization header. */
export async function mcpConnect(token: string | null, opts: { url?: string; headers?: Record<string, string>; fetch?: typeof fetch } = {}): Promise<McpSession> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (token) headers['authorization'] = `Bearer ${token}`;
  const transport = new StreamableHTTPClientTransport(new URL(opts.url ?? e2eState().mcpUrl), { requestInit: { headers }, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    call: async (name, args = {}, onprogress) => (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as CallToolResult,
    close: () => client.close(),
  };
}

/** The text of a tool result (errors carry their message there). */
export const textOf = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** The error a tool result reports (our _meta member), or undefined for a success. */
export const errorOf = (r: CallToolResult): { status: number; code: string; message: string } | undefined =>
  r.isError ? ((r._meta?.['support-agent/error'] as any) ?? { status: 0, code: 'unknown', message: textOf(r) }) : undefined;

/** One raw JSON-RPC POST to the MCP endpoint, for the HTTP-level checks. */
export async function mcpPost(body: unknown, headers: Record<string, string> = {}, url = e2eState().mcpUrl): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e-raw', version: '1.0.0' } },
};
