import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { CallerContext, IngestKbRequest, KbDocumentView, KbIngestAccepted, ListKbRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';

@Controller('v1/kb')
export class KbController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @RequireScope('kb:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListKbRequest, 'query')) query: ListKbRequest): Promise<{ data: KbDocumentView[] }> {
    return { data: await this.rpc.send('knowledge.document.list', query, ctx) };
  }

  @Post('ingest')
  @HttpCode(202)
  @RequireScope('kb:write', { botAccess: { mode: BotAccess.MustName, from: 'body' } })
  async ingest(@Caller() ctx: CallerContext, @Body(dto(IngestKbRequest, 'body')) body: IngestKbRequest): Promise<{ data: KbIngestAccepted }> {
    return { data: await this.rpc.send('knowledge.document.ingest', body, ctx) };
  }
}
