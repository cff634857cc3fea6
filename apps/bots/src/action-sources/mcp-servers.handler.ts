import { Controller } from '@nestjs/common';
import {
  CallerContext,
  CreateMcpServerRequest,
  FinishMcpOAuthRequest,
  McpOAuthFinishView,
  McpOAuthFlowRequest,
  McpOAuthFlowView,
  McpOAuthStartView,
  McpServerIdRequest,
  McpServersRequest,
  McpServerTokenRequest,
  McpServerTokenView,
  McpServerView,
  StartMcpOAuthRequest,
  UpdateMcpServerRequest,
} from '@sa/contracts';
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

  @RpcHandler('bots.mcp-server.oauth-start')
  oauthStart(req: StartMcpOAuthRequest, ctx: CallerContext): Promise<McpOAuthStartView> {
    return this.servers.oauthStart(ctx, req);
  }

  /** No caller context: the callback's state (its hash) is the key; the console checks the person's role next. */
  @RpcHandler('bots.mcp-server.oauth-flow')
  oauthFlow(req: McpOAuthFlowRequest): Promise<McpOAuthFlowView> {
    return this.servers.oauthFlow(req);
  }

  @RpcHandler('bots.mcp-server.oauth-finish')
  oauthFinish(req: FinishMcpOAuthRequest, ctx: CallerContext): Promise<McpOAuthFinishView> {
    return this.servers.oauthFinish(ctx, req);
  }

  /** Chat: a fresh OAuth access token, sealed. */
  @RpcHandler('bots.mcp-server.token')
  token(req: McpServerTokenRequest, ctx: CallerContext): Promise<McpServerTokenView> {
    return this.servers.token(ctx, req);
  }
}
