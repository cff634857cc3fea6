import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BotView, CallerContext, CreateBotRequest, CreatedBotView, ListBotsRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';
import { ApiData, ApiErrorObject, ApiTokenErrors } from '../openapi/api-responses';

@ApiTags('Bots')
@ApiTokenErrors()
@Controller('v1/bots')
export class BotsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @RequireScope('bots:read', { botAccess: { mode: BotAccess.MayName } })
  @ApiOperation({ operationId: 'listBots', summary: 'List bots', description: 'Lists the bots of the workspace. No parameters.' })
  @ApiData(200, 'The bots.', [BotView])
  async list(@Caller() ctx: CallerContext, @Query(dto(ListBotsRequest, 'query')) _query: ListBotsRequest): Promise<{ data: BotView[] }> {
    return { data: await this.rpc.send('bots.bot.list', {}, ctx) };
  }

  @Post()
  @HttpCode(201)
  @RequireScope('bots:write', { botAccess: { mode: BotAccess.NewBot } })
  @ApiOperation({
    operationId: 'createBot',
    summary: 'Create a bot',
    description:
      'Creates a bot. A token restricted to specific bots cannot create bots (403). An enterprise workspace must send ' +
      '`enterprise_plan_tier` and must have an available slot in that tier, otherwise 403 (tier capacity unavailable). ' +
      'Plan capacity or quota exhaustion gives 402.',
  })
  @ApiData(201, 'The bot was created.', CreatedBotView)
  @ApiErrorObject(409, 'The bot name is already used; the body carries `suggested_name`, a name that is free.')
  async create(@Caller() ctx: CallerContext, @Body(dto(CreateBotRequest, 'body')) body: CreateBotRequest): Promise<{ data: CreatedBotView }> {
    return { data: await this.rpc.send('bots.bot.create', body, ctx) };
  }
}
