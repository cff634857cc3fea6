import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { EdgeGate } from '@sa/edge';
import { MCP_LOGGER } from '../config/mcp.config';
import { ToolServerFactory } from '../tools/tool-server';
import { OriginPolicy } from './origin-policy';

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
  ) {}

  @Post('mcp')
  async post(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const refusal = this.origins.refusal(req.headers);
    if (refusal) {
      void reply.status(403).send({ error: 'Forbidden', code: 'origin_not_allowed', message: refusal });
      return;
    }
    const caller = await this.gate.caller(req, reply);

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
