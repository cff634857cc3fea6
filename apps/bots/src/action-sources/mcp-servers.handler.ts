import { Controller } from '@nestjs/common';
import { CallerContext, CreateMcpServerRequest, McpServerIdRequest, McpServersRequest, McpServerView, UpdateMcpServerRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { McpServersService } from './mcp-servers.service';

/** bots.mcp-server.*: a bot's remote MCP servers as action sources (issue 34, item 3); the console checks the role. */
@Controller()
export class McpServersHandler {
  constructor(private readonly servers: McpServersService) {}

  @RpcHandler('bots.mcp-server.list')
  list(req: McpServersRequest, ctx: CallerContext): Promise<McpServerView[]> {
    return this.servers.list(ctx, req.botId);
  }

  @RpcHandler('bots.mcp-server.create')
  create(req: CreateMcpServerRequest, ctx: CallerContext): Promise<McpServerView> {
    return this.servers.create(ctx, req);
  }

  @RpcHandler('bots.mcp-server.update')
  update(req: UpdateMcpServerRequest, ctx: CallerContext): Promise<McpServerView> {
    return this.servers.update(ctx, req);
  }

  @RpcHandler('bots.mcp-server.delete')
  delete(req: McpServerIdRequest, ctx: CallerContext): Promise<McpServerView> {
    return this.servers.delete(ctx, req.botId, req.serverId);
  }

  @RpcHandler('bots.mcp-server.sync')
  sync(req: McpServerIdRequest, ctx: CallerContext): Promise<McpServerView> {
    return this.servers.sync(ctx, req.botId, req.serverId);
  }
}
