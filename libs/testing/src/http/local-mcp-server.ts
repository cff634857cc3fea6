import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/*
 * A real MCP server on 127.0.0.1 for tests of MCP servers as action sources (issue 34, item 3),
 * built with the official SDK's server side (McpServer + StreamableHTTPServerTransport, stateless:
 * a server per request, JSON answers). It checks a bearer token when given one (401 otherwise)
 * and records every request's method, path and headers. Tools: `order_status` (read-only: where
 * an order is), `cancel_order` (a write), `echo_auth` (echoes the Authorization header it got, to
 * show the token is cut out of results), `fail` (an error result) and `slow` (answers after
 * `slowMs`). Over https with a certificate when given one (e2e, the bots service trusting it).
 * With `oauth` set (after start: the authorization server needs this server's URL first) it is
 * an OAuth protected resource (RFC 9728): its metadata names the authorization server, a request
 * without an active token (asked of the authorization server: introspection) is a 401 with
 * `WWW-Authenticate: Bearer resource_metadata=…`; `refuse` turns away tokens it still considers
 * active (a revocation the client learns of from a 401).
 */

export interface LocalMcpServer {
  url: string;
  port: number;
  /** Every request: method, path and headers, in order. */
  seen: { method: string; path: string; headers: IncomingHttpHeaders }[];
  /** The `order_status` calls, with their arguments. */
  calls: { tool: string; args: Record<string, unknown> }[];
  /** How long `slow` takes (default 0). */
  slowMs: number;
  /** The answer of every request before the MCP transport sees it (e.g. a redirect); null: none. */
  override: ((req: IncomingMessage, res: ServerResponse) => boolean) | null;
  /** OAuth protection: the authorization server and how to check a token (e.g. LocalOAuthServer.active); null: none. */
  oauth: { authorizationServer: string; active: (token: string) => Promise<boolean>; scopes?: string[] } | null;
  /** Access tokens refused even while active. */
  refuse: Set<string>;
  stop(): Promise<void>;
}

export interface LocalMcpServerOptions {
  /** A request without `Authorization: Bearer <token>` is answered 401. */
  token?: string;
  /** Path of the MCP endpoint (default /mcp). */
  path?: string;
  /** Serve https with this key and certificate. */
  tls?: { key: Buffer | string; cert: Buffer | string };
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

export async function startLocalMcpServer(opts: LocalMcpServerOptions = {}): Promise<LocalMcpServer> {
  const path = opts.path ?? '/mcp';
  const state: Omit<LocalMcpServer, 'url' | 'port' | 'stop'> = { seen: [], calls: [], slowMs: 0, override: null, oauth: null, refuse: new Set() };

  const mcpServer = (): McpServer => {
    const server = new McpServer({ name: 'local-shop', version: '1.0.0' });
    server.registerTool(
      'order_status',
      { description: 'Where an order is: its status and carrier.', inputSchema: { order_id: z.string().min(1) }, annotations: { readOnlyHint: true } },
      async ({ order_id }) => {
        state.calls.push({ tool: 'order_status', args: { order_id } });
        return { content: [{ type: 'text', text: JSON.stringify({ order_id, status: 'shipped', carrier: 'Yamato' }) }] };
      },
    );
    server.registerTool('cancel_order', { description: 'Cancels an order.', inputSchema: { order_id: z.string() } }, async ({ order_id }) => {
      state.calls.push({ tool: 'cancel_order', args: { order_id } });
      return { content: [{ type: 'text', text: `cancelled ${order_id}` }] };
    });
    server.registerTool('echo_auth', { description: 'Echoes the Authorization header (a careless server).', inputSchema: {} }, async (_args, extra) => ({
      content: [{ type: 'text', text: `you sent: ${String(extra.requestInfo?.headers['authorization'] ?? '')}` }],
    }));
    server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'the shop is closed' }], isError: true }));
    server.registerTool('slow', { description: 'Answers late.', inputSchema: {} }, async () => {
      await new Promise((r) => setTimeout(r, state.slowMs));
      return { content: [{ type: 'text', text: 'late' }] };
    });
    return server;
  };

  const out = state as LocalMcpServer;
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://local');
    state.seen.push({ method: req.method ?? '', path: url.pathname, headers: req.headers });
    if (state.override?.(req, res)) return;
    const metadataPath = `/.well-known/oauth-protected-resource${path}`;
    if (state.oauth && url.pathname === metadataPath) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ resource: out.url, authorization_servers: [state.oauth.authorizationServer], scopes_supported: state.oauth.scopes ?? ['orders:read', 'orders:write'], bearer_methods_supported: ['header'] }),
      );
      return;
    }
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    if (opts.token !== undefined && req.headers['authorization'] !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    if (state.oauth) {
      const bearer = /^Bearer (.+)$/.exec(req.headers['authorization'] ?? '')?.[1];
      if (!bearer || state.refuse.has(bearer) || !(await state.oauth.active(bearer))) {
        const metadata = `${new URL(out.url).origin}${metadataPath}`;
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadata}"` }).end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
    }
    if (req.method !== 'POST') {
      // Stateless: no standalone stream, no sessions to end.
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, await readBody(req));
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  };
  const server: Server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, onRequest) : createHttpServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  out.port = port;
  out.url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}${path}`;
  out.stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return out;
}
