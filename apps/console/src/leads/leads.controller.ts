import { Body, Controller, Get, Header, HttpCode, Inject, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  CallerContext,
  ChangeLeadStatusBody,
  ConsoleLeadsFilter,
  ConsoleLeadsQuery,
  ConsoleLeadsRequest,
  LEADS_PAGE_DEFAULT,
  LeadDetailView,
  LeadPageView,
  LeadParams,
  LeadView,
  WorkspaceParams,
} from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { ApiConsoleErrors, ApiData, ApiView } from '../openapi/console-responses';
import { leadsCsv } from './leads-csv';

/** The `next` cursor of a page: the last lead's created_at and id (keyset paging). */
const cursorOf = (lead: LeadView) => `${lead.created_at}_${lead.id}`;

function afterCursor(cursor: string | undefined): Pick<ConsoleLeadsRequest, 'beforeCreatedAt' | 'beforeId'> {
  if (!cursor) return {};
  const at = cursor.lastIndexOf('_');
  return { beforeCreatedAt: cursor.slice(0, at), beforeId: cursor.slice(at + 1) };
}

function filterOf(f: ConsoleLeadsFilter): ConsoleLeadsRequest {
  return { chatbotId: f.chatbotId, band: f.band, minScore: f.minScore, status: f.status, channel: f.channel };
}

/**
 * Leads (issue 19): members list them (band, minimum score, status, channel and bot filters; pages
 * of leads.lead.list), open one (qualification, summary, status history, transcript) and export a
 * CSV; owners and admins change the status (leads.lead.update-status records who and when; the
 * audit log has it too). GET /v1/leads shows the new status at once: it reads the same row.
 */
@ApiTags('Leads')
@Controller('api/workspaces/:workspaceId/leads')
export class LeadsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listLeads', summary: 'List leads', description: 'Leads, newest first, a page at a time (`cursor`: the `next` of the previous page).' })
  @ApiView(200, 'A page of leads.', LeadPageView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleLeadsQuery, 'query')) query: ConsoleLeadsQuery,
  ): Promise<LeadPageView> {
    const limit = query.limit ?? LEADS_PAGE_DEFAULT;
    // One more than asked tells whether there is a next page.
    const leads = await this.rpc.send('leads.lead.list', { ...filterOf(query), ...afterCursor(query.cursor), limit: limit + 1 }, workspaceOf(caller).ctx);
    const page = leads.slice(0, limit);
    return { data: page, next: leads.length > limit ? cursorOf(page[page.length - 1]!) : null };
  }

  @Get('export')
  @ConsoleRoute('member')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'exportLeads',
    summary: 'Export leads as CSV',
    description:
      'Every lead matching the filters, newest first, as CSV (UTF-8 with a byte-order mark, a header row). Cells that spreadsheet programs would run as formulas (starting with = + - @) are quoted and prefixed with an apostrophe.',
  })
  @ApiProduces('text/csv')
  @ApiResponse({ status: 200, description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiConsoleErrors(400, 401, 404, 503)
  async export(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ConsoleLeadsFilter, 'query')) query: ConsoleLeadsFilter,
  ): Promise<StreamableFile> {
    const { ctx, workspace } = workspaceOf(caller);
    const page = (before: LeadView | null) =>
      this.rpc.send('leads.lead.list', { ...filterOf(query), ...(before ? { beforeCreatedAt: before.created_at, beforeId: before.id } : {}), limit: this.config.leadsExportPage }, ctx);
    // The first page and the bot names before any byte is sent: a bad filter is still a clean 4xx.
    const [first, names] = await Promise.all([page(null), this.botNames(ctx)]);
    const stream = leadsCsv(first, page, this.config.leadsExportPage, (id) => (id ? (names.get(id) ?? id) : ''));
    const day = new Date().toISOString().slice(0, 10);
    await this.audit.record(caller, 'leads.exported', 'workspace', workspace.id, { filters: filterOf(query) });
    return new StreamableFile(stream, { type: 'text/csv; charset=utf-8', disposition: `attachment; filename="leads-${day}.csv"` });
  }

  @Get(':leadId')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getLead', summary: 'A lead', description: 'The lead (qualification, summary, score), its status changes (newest first, with who and when) and its conversation.' })
  @ApiData(200, 'The lead, its history and transcript.', LeadDetailView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async get(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(LeadParams, 'path')) params: LeadParams): Promise<{ data: LeadDetailView }> {
    const { ctx } = workspaceOf(caller);
    const lead = await this.rpc.send('leads.lead.get', { leadId: params.leadId }, ctx);
    const [history, messages] = await Promise.all([this.rpc.send('leads.lead.history', { leadId: lead.id }, ctx), this.rpc.send('chat.conversation.messages', { sessionId: lead.session_id }, ctx)]);
    return { data: { lead, history, messages } };
  }

  @Post(':leadId/status')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'changeLeadStatus', summary: 'Change the status', description: 'Sets new, contacted, qualified, won or lost, recording who and when (and the note). The current status again is 409 `conflict`.' })
  @ApiData(200, 'The lead with its new status.', LeadView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async changeStatus(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(LeadParams, 'path')) params: LeadParams,
    @Body(dto(ChangeLeadStatusBody, 'body')) body: ChangeLeadStatusBody,
  ): Promise<{ data: LeadView }> {
    const { ctx, person } = workspaceOf(caller);
    const before = await this.rpc.send('leads.lead.get', { leadId: params.leadId }, ctx);
    const lead = await this.rpc.send('leads.lead.update-status', { leadId: params.leadId, status: body.status, note: body.note, actor: { kind: 'person', id: person.id, label: person.email } }, ctx);
    await this.audit.record(caller, 'lead.status_changed', 'lead', lead.id, { from: before.status, to: lead.status, ...(body.note?.trim() ? { note: body.note.trim() } : {}) });
    return { data: lead };
  }

  private async botNames(ctx: CallerContext): Promise<Map<string, string>> {
    const bots = await this.rpc.send('bots.bot.list', {}, ctx);
    return new Map(bots.map((b) => [b.id, b.name]));
  }
}
