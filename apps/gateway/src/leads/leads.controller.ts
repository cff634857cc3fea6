import { Controller, Get, Query } from '@nestjs/common';
import { CallerContext, LeadView, ListLeadsRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { checkBotAccess } from '@sa/edge';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';

/** GET /v1/leads (spec part 4): at most 500 intent-scored leads, newest first. */
@Controller('v1')
export class LeadsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('leads')
  @RequireScope('leads:read')
  async list(@Caller() ctx: CallerContext, @Query(dto(ListLeadsRequest, 'query')) query: ListLeadsRequest): Promise<{ data: LeadView[] }> {
    checkBotAccess(ctx, query.chatbotId, 'query');
    return { data: await this.rpc.send('leads.lead.list', query, ctx) };
  }
}
