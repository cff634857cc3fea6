import { Controller, Get, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CallerContext, LEADS_LIST_MAX, LeadView, ListLeadsRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';
import { ApiData, ApiTokenErrors } from '../openapi/api-responses';

/** GET /v1/leads (spec part 4): at most 500 intent-scored leads, newest first. */
@ApiTags('Leads')
@ApiTokenErrors()
@Controller('v1')
export class LeadsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('leads')
  @RequireScope('leads:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } })
  @ApiOperation({ operationId: 'listLeads', summary: 'List leads', description: `Lists at most ${LEADS_LIST_MAX} intent-scored leads, newest first.` })
  @ApiData(200, 'The leads.', [LeadView], { maxItems: LEADS_LIST_MAX })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListLeadsRequest, 'query')) query: ListLeadsRequest): Promise<{ data: LeadView[] }> {
    return { data: await this.rpc.send('leads.lead.list', query, ctx) };
  }
}
