import { Controller } from '@nestjs/common';
import {
  ActionIdRequest,
  ActionTestResult,
  ActionView,
  BotActionSettingsView,
  BotActionSpecs,
  BotActionsRequest,
  CallerContext,
  CreateActionRequest,
  TestActionRequest,
  UpdateActionRequest,
  UpdateBotActionSettingsRequest,
} from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { McpServersService } from '../action-sources/mcp-servers.service';
import { ActionsService } from './actions.service';

/** bots.action.* and bots.action-settings.*: a bot's actions (issue 34); the console checks the role. */
@Controller()
export class ActionsHandler {
  constructor(
    private readonly actions: ActionsService,
    private readonly mcpServers: McpServersService,
  ) {}

  @RpcHandler('bots.action.list')
  list(req: BotActionsRequest, ctx: CallerContext): Promise<ActionView[]> {
    return this.actions.list(ctx, req.botId);
  }

  @RpcHandler('bots.action.get')
  get(req: ActionIdRequest, ctx: CallerContext): Promise<ActionView> {
    return this.actions.get(ctx, req.botId, req.actionId);
  }

  @RpcHandler('bots.action.create')
  create(req: CreateActionRequest, ctx: CallerContext): Promise<ActionView> {
    return this.actions.create(ctx, req);
  }

  @RpcHandler('bots.action.update')
  update(req: UpdateActionRequest, ctx: CallerContext): Promise<ActionView> {
    return this.actions.update(ctx, req);
  }

  @RpcHandler('bots.action.delete')
  delete(req: ActionIdRequest, ctx: CallerContext): Promise<{ deleted: true }> {
    return this.actions.delete(ctx, req.botId, req.actionId);
  }

  @RpcHandler('bots.action.test')
  test(req: TestActionRequest, ctx: CallerContext): Promise<ActionTestResult> {
    return this.actions.test(ctx, req);
  }

  @RpcHandler('bots.action.specs')
  async specs(req: BotActionsRequest, ctx: CallerContext): Promise<BotActionSpecs> {
    // The bot's own actions and, issue 34 item 3, its MCP servers' enabled tools.
    const [specs, mcp_servers] = await Promise.all([this.actions.specs(ctx, req.botId), this.mcpServers.specs(ctx, req.botId)]);
    return { ...specs, mcp_servers };
  }

  @RpcHandler('bots.action-settings.get')
  settings(req: BotActionsRequest, ctx: CallerContext): Promise<BotActionSettingsView> {
    return this.actions.settings(ctx, req.botId);
  }

  @RpcHandler('bots.action-settings.update')
  updateSettings(req: UpdateBotActionSettingsRequest, ctx: CallerContext): Promise<BotActionSettingsView> {
    return this.actions.updateSettings(ctx, req);
  }
}
