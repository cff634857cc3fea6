import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BotBehaviourView, BotParams, UpdateBotBehaviourBody } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData } from '../openapi/console-responses';

/**
 * A bot's behaviour (issue 32): everyone reads it; owners and admins change it (audit-logged with
 * the members changed, not their text). The bots service keeps it (bots.behaviour.*) and checks
 * the bot is the caller's workspace's (another workspace's bot is 404).
 */
@ApiTags('Bots')
@Controller('api/workspaces/:workspaceId/bots/:botId/behaviour')
export class BehaviourController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getBotBehaviour', summary: "A bot's behaviour", description: 'Instructions, fallback reply, answer length and starter questions.' })
  @ApiData(200, "The bot's behaviour.", BotBehaviourView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async get(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: BotBehaviourView }> {
    return { data: await this.rpc.send('bots.behaviour.get', { botId: params.botId }, workspaceOf(caller).ctx) };
  }

  @Patch()
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateBotBehaviour',
    summary: "Change a bot's behaviour",
    description: "Members left out stay as they are; `fallback_reply: null` restores the translated default. The next answer uses the change; the widget shows new starter questions on its next load.",
  })
  @ApiData(200, 'The behaviour as saved.', BotBehaviourView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(UpdateBotBehaviourBody, 'body')) body: UpdateBotBehaviourBody,
  ): Promise<{ data: BotBehaviourView }> {
    const saved = await this.rpc.send('bots.behaviour.update', { ...body, botId: params.botId }, workspaceOf(caller).ctx);
    const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
    await this.audit.record(caller, 'bot.behaviour_updated', 'bot', params.botId, { changed, answer_length: saved.answer_length });
    return { data: saved };
  }
}
