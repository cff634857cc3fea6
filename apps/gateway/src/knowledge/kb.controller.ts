import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CallerContext, IngestKbRequest, KbDocumentView, KbIngestAccepted, ListKbRequest } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';
import { ApiData, ApiTokenErrors } from '../openapi/api-responses';

@ApiTags('Knowledge base')
@ApiTokenErrors()
@Controller('v1/kb')
export class KbController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @RequireScope('kb:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } })
  @ApiOperation({ operationId: 'listKnowledge', summary: 'List knowledge-base documents', description: 'Lists knowledge-base documents.' })
  @ApiData(200, 'The documents.', [KbDocumentView])
  async list(@Caller() ctx: CallerContext, @Query(dto(ListKbRequest, 'query')) query: ListKbRequest): Promise<{ data: KbDocumentView[] }> {
    return { data: await this.rpc.send('knowledge.document.list', query, ctx) };
  }

  @Post('ingest')
  @HttpCode(202)
  @RequireScope('kb:write', { botAccess: { mode: BotAccess.MustName, from: 'body' } })
  @ApiOperation({
    operationId: 'ingestKnowledge',
    summary: 'Add knowledge from a URL or raw text',
    description:
      "Queues a document for crawling and embedding; poll GET /kb for its status. The bot's page quota is checked before " +
      'queuing; exhaustion gives 402. A token restricted to specific bots must send an allowed chatbotId.',
  })
  @ApiData(202, 'The document is queued.', KbIngestAccepted)
  async ingest(@Caller() ctx: CallerContext, @Body(dto(IngestKbRequest, 'body')) body: IngestKbRequest): Promise<{ data: KbIngestAccepted }> {
    return { data: await this.rpc.send('knowledge.document.ingest', body, ctx) };
  }
}
