import { Controller, Get, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { CallerContext, LeadView, ListLeadsRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';

/** GET /v1/leads (spec part 4): at most 500 intent-scored leads, newest first. */
@Controller('v1')
export class LeadsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('leads')
  @RequireScope('leads:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListLeadsRequest, 'query')) query: ListLeadsRequest): Promise<{ data: LeadView[] }> {
    return { data: await this.rpc.send('leads.lead.list', query, ctx) };
  }
}
