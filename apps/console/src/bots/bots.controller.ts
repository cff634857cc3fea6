import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BotParams, BotView, ConsoleBotView, CreateBotRequest, CreatedBotView, UpdateBotBody, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData, ApiList } from '../openapi/console-responses';

const toConsoleBot = (b: BotView): ConsoleBotView => ({ id: b.id, name: b.name, language: b.language, slot_kind: b.slot_kind, created_at: b.created_at });

/**
 * The workspace's bots (bots.bot.*): everyone lists them (also for the pickers of other pages);
 * owners and admins create them with the rules of POST /v1/bots (402 no plan slot, 403 no slot in
 * the enterprise tier, 409 name taken with `suggested_name`) and change name and reply language.
 */
@ApiTags('Workspace')
@Controller('api/workspaces/:workspaceId/bots')
export class BotsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listBots', summary: 'List bots', description: 'Every bot of the workspace, oldest first, with its default reply language.' })
  @ApiList('The bots.', ConsoleBotView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<{ data: ConsoleBotView[] }> {
    const bots = await this.rpc.send('bots.bot.list', {}, workspaceOf(caller).ctx);
    return { data: bots.map(toConsoleBot) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'createBot',
    summary: 'Create a bot',
    description:
      'The rules of POST /v1/bots: 402 `plan_capacity_exhausted` when every bot slot of the plan is in use; an enterprise workspace must choose ' +
      '`enterprise_plan_tier` with a free slot (otherwise 403 `tier_capacity_unavailable` with `available_slots`); 409 `bot_name_taken` with `suggested_name`.',
  })
  @ApiData(201, 'The bot was created.', CreatedBotView)
  @ApiConsoleErrors(400, 401, 402, 403, 404, 409, 503)
  async create(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(CreateBotRequest, 'body')) body: CreateBotRequest,
  ): Promise<{ data: CreatedBotView }> {
    const created = await this.rpc.send('bots.bot.create', body, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'bot.created', 'bot', created.id, { name: created.name, language: created.language, enterprise_plan_tier: body.enterprise_plan_tier ?? null });
    return { data: created };
  }

  @Patch(':botId')
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateBot',
    summary: 'Change a bot',
    description: "Its name or default reply language; members left out stay as they are. 409 `bot_name_taken` with `suggested_name` when another bot has the name.",
  })
  @ApiData(200, 'The bot as saved.', ConsoleBotView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(UpdateBotBody, 'body')) body: UpdateBotBody,
  ): Promise<{ data: ConsoleBotView }> {
    const saved = await this.rpc.send('bots.bot.update', { ...body, botId: params.botId }, workspaceOf(caller).ctx);
    const details: Record<string, unknown> = {};
    if (body.name != null) details['name'] = saved.name;
    if (body.language != null) details['language'] = saved.language;
    await this.audit.record(caller, 'bot.updated', 'bot', params.botId, details);
    return { data: toConsoleBot(saved) };
  }
}
