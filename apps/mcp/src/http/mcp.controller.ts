import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { CallerContext, Scope } from '@sa/contracts';
import { EdgeGate, bearerSecret } from '@sa/edge';
import { TOKEN_PREFIX } from '@sa/identity';
import { MCP_CONFIG, MCP_LOGGER, McpConfig } from '../config/mcp.config';
import { TOOLS } from '../tools/catalogue';
import { ToolServerFactory } from '../tools/tool-server';
import { OriginPolicy } from './origin-policy';
import { bearerChallenge, resourceMetadataUrl } from './protected-resource';

const TOOL_SCOPES = new Map<string, Scope>(TOOLS.map((t) => [t.name, t.scope]));

/**
 * The scope an OAuth connection lacks for a `tools/call` in this body, or null. Only OAuth
 * connections get the HTTP step-up challenge (MCP authorization, "insufficient scope"): their
 * client can ask the person for more. An API token keeps the tool error naming the scope.
 */
export function missingScopeForCall(body: unknown, caller: Pick<CallerContext, 'scopes'>): Scope | null {
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || !params || typeof params.name !== 'string') continue;
    const scope = TOOL_SCOPES.get(params.name);
    if (scope && !caller.scopes.includes(scope)) return scope;
  }
  return null;
}

/**
 * The MCP endpoint: Streamable HTTP, stateless (no Mcp-Session-Id; every POST carries its bearer
 * token and is answered by whichever replica receives it). Before the protocol starts, the same
 * checks as the REST API: Origin (403), token (401 with WWW-Authenticate: Bearer), live access
 * (402 api_locked), rate limit per token (429, one budget with REST; counted by the EdgeGate
 * before the body was read, per client address without a valid token). Then a server scoped to
 * the caller handles the JSON-RPC message(s) of the request.
 */
@Controller()
export class McpController {
  constructor(
    private readonly gate: EdgeGate,
    private readonly tools: ToolServerFactory,
    private readonly origins: OriginPolicy,
    @Inject(MCP_LOGGER) private readonly logger: Logger,
    @Inject(MCP_CONFIG) private readonly config: McpConfig,
  ) {}

  @Post('mcp')
  async post(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const refusal = this.origins.refusal(req.headers);
    if (refusal) {
      void reply.status(403).send({ error: 'Forbidden', code: 'origin_not_allowed', message: refusal });
      return;
    }
    const caller = await this.gate.caller(req, reply);
    if (!bearerSecret(req.headers.authorization).startsWith(TOKEN_PREFIX)) {
      const missing = missingScopeForCall(req.body, caller);
      if (missing) {
        const scope = [...new Set([...caller.scopes, missing])].join(' ');
        void reply
          .status(403)
          .header('www-authenticate', bearerChallenge({ error: 'insufficient_scope', scope, resource_metadata: resourceMetadataUrl(this.config.resourceUrl), error_description: `This connection lacks the ${missing} scope` }))
          .send({ error: 'Forbidden', code: 'insufficient_scope', message: `This connection lacks the ${missing} scope; ask a workspace owner or admin to allow it`, required_scope: missing });
        return;
      }
    }

    const server = this.tools.create(caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      this.logger.error({ err: err instanceof Error ? { message: err.message, stack: err.stack } : err, request_id: req.id }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: `Internal error (request id ${req.id})` }, id: null }));
      }
    }
  }

  /** Stateless server: no server-initiated stream (GET) and no session to end (DELETE). */
  @Get('mcp')
  get(@Res() reply: FastifyReply): void {
    this.methodNotAllowed(reply);
  }

  @Delete('mcp')
  delete(@Res() reply: FastifyReply): void {
    this.methodNotAllowed(reply);
  }

  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  private methodNotAllowed(reply: FastifyReply): void {
    void reply
      .status(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST' }, id: null });
  }
}
