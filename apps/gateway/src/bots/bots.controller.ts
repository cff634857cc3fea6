import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { BotView, CallerContext, CreateBotRequest, CreatedBotView, ListBotsRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';

@Controller('v1/bots')
export class BotsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @RequireScope('bots:read', { botAccess: { mode: BotAccess.MayName } })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListBotsRequest, 'query')) _query: ListBotsRequest): Promise<{ data: BotView[] }> {
    return { data: await this.rpc.send('bots.bot.list', {}, ctx) };
  }

  @Post()
  @HttpCode(201)
  @RequireScope('bots:write', { botAccess: { mode: BotAccess.NewBot } })
  async create(@Caller() ctx: CallerContext, @Body(dto(CreateBotRequest, 'body')) body: CreateBotRequest): Promise<{ data: CreatedBotView }> {
    return { data: await this.rpc.send('bots.bot.create', body, ctx) };
  }
}
