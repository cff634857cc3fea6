import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  BotParams,
  CreateEvalCaseBody,
  EvalAlertView,
  EvalCaseView,
  EvalImportResult,
  EvalRunDetailView,
  EvalResultsQuery,
  EvalRunsQuery,
  EvalRunView,
  EvalSettingsView,
  ImportEvalCasesBody,
  StartEvalRunBody,
  UpdateEvalCaseBody,
  UpdateEvalSettingsBody,
  WorkspaceParams,
} from '@sa/contracts';
import { dto } from '@sa/edge';
import { ApiLocked, NotFound } from '@sa/errors';
import { hasLiveApiAccess } from '@sa/identity';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { Workspaces } from '../auth/workspaces';
import { ApiConsoleErrors, ApiData, ApiEmpty, ApiList } from '../openapi/console-responses';
import { EvalCaseParams, EvalExportQuery, EvalRunParams } from './evaluation-params';

/** An import's text can be long: the evaluations service checks every line before it writes. */
const IMPORT_TIMEOUT_MS = 30_000;

const EXPORT_TYPES = { csv: 'text/csv; charset=utf-8', jsonl: 'application/jsonl; charset=utf-8' } as const;

/**
 * The Evaluations page (issue 33): a bot's test set (cases of a question and what a good reply
 * must do), its settings (the gate, automatic runs, the judge), its runs and their results, and
 * the workspace's bots under their gate (the console's banner). The evaluations service keeps all
 * of it (evaluations.*) and checks the bot is the caller's workspace's (another's is 404).
 * Everyone reads; owners and admins change the set and the settings and start runs, audit-logged.
 * A run answers through the chat model: refused without live access (402 `api_locked`), as the
 * playground is.
 */
@ApiTags('Evaluations')
@Controller('api/workspaces/:workspaceId')
export class EvaluationsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
    private readonly workspaces: Workspaces,
  ) {}

  @Get('bots/:botId/evaluations/cases')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listEvalCases', summary: "A bot's test set", description: 'The cases of the bot\'s test set, oldest first. Questions and facts are user text: render them as text.' })
  @ApiList('The cases.', EvalCaseView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async listCases(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: EvalCaseView[] }> {
    return { data: await this.rpc.send('evaluations.case.list', { chatbotId: params.botId }, workspaceOf(caller).ctx) };
  }

  @Post('bots/:botId/evaluations/cases')
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'createEvalCase',
    summary: 'Add a case to the test set',
    description: '`facts` (1 or more) when `expect` is facts; none otherwise. `source` says where it came from (a transcript, the Analytics page). 409 `conflict`: the set is full.',
  })
  @ApiData(201, 'The case.', EvalCaseView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async createCase(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(CreateEvalCaseBody, 'body')) body: CreateEvalCaseBody,
  ): Promise<{ data: EvalCaseView }> {
    const created = await this.rpc.send('evaluations.case.create', { ...body, chatbotId: params.botId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'evaluation.case_created', 'bot', params.botId, { case_id: created.id, expect: created.expect, source: created.source });
    return { data: created };
  }

  @Patch('bots/:botId/evaluations/cases/:caseId')
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'updateEvalCase', summary: 'Change a case', description: 'Members left out stay as they are.' })
  @ApiData(200, 'The case as saved.', EvalCaseView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async updateCase(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(EvalCaseParams, 'path')) params: EvalCaseParams,
    @Body(dto(UpdateEvalCaseBody, 'body')) body: UpdateEvalCaseBody,
  ): Promise<{ data: EvalCaseView }> {
    const saved = await this.rpc.send('evaluations.case.update', { ...body, chatbotId: params.botId, caseId: params.caseId }, workspaceOf(caller).ctx);
    const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
    await this.audit.record(caller, 'evaluation.case_updated', 'bot', params.botId, { case_id: saved.id, changed });
    return { data: saved };
  }

  @Delete('bots/:botId/evaluations/cases/:caseId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'deleteEvalCase', summary: 'Delete a case', description: 'Earlier runs keep their results for it.' })
  @ApiEmpty(204, 'Deleted.')
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async deleteCase(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(EvalCaseParams, 'path')) params: EvalCaseParams): Promise<void> {
    await this.rpc.send('evaluations.case.delete', { chatbotId: params.botId, caseId: params.caseId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'evaluation.case_deleted', 'bot', params.botId, { case_id: params.caseId });
  }

  @Post('bots/:botId/evaluations/cases/import')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'importEvalCases',
    summary: 'Import a test set (CSV or JSONL)',
    description:
      'The file\'s text in `content`. csv: a header row with question, expect, facts (separated by "|"), and optionally language and note; ' +
      'jsonl: one JSON object per line with the same members (facts an array). Every line is checked first: one bad line rejects the whole import (400, naming the line). ' +
      '`mode` append (default) adds to the set; replace makes the set the imported cases.',
  })
  @ApiData(200, 'How many cases were imported, and the size of the set now.', EvalImportResult)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async importCases(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(ImportEvalCasesBody, 'body')) body: ImportEvalCasesBody,
  ): Promise<{ data: EvalImportResult }> {
    const result = await this.rpc.send('evaluations.case.import', { ...body, chatbotId: params.botId }, workspaceOf(caller).ctx, { timeoutMs: IMPORT_TIMEOUT_MS });
    await this.audit.record(caller, 'evaluation.cases_imported', 'bot', params.botId, { format: body.format, mode: body.mode ?? 'append', imported: result.imported, total: result.total });
    return { data: result };
  }

  @Get('bots/:botId/evaluations/cases/export')
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'exportEvalCases',
    summary: 'Export the test set (CSV or JSONL)',
    description: 'A download (Content-Disposition: attachment) in the import format: `text/csv` or `application/jsonl`.',
  })
  @ApiProduces('text/csv', 'application/jsonl')
  @ApiResponse({
    status: 200,
    description: 'The test set as a file.',
    content: { 'text/csv': { schema: { type: 'string' } }, 'application/jsonl': { schema: { type: 'string' } } },
    headers: { 'Content-Disposition': { description: 'attachment; filename="test-set-<bot>.<csv|jsonl>"', schema: { type: 'string' } } },
  })
  @ApiConsoleErrors(400, 401, 404, 503)
  async exportCases(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Query(dto(EvalExportQuery, 'query')) query: EvalExportQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const file = await this.rpc.send('evaluations.case.export', { chatbotId: params.botId, format: query.format }, workspaceOf(caller).ctx);
    void reply.header('content-type', EXPORT_TYPES[file.format]);
    void reply.header('content-disposition', `attachment; filename="test-set-${params.botId}.${file.format}"`);
    return file.content;
  }

  @Get('bots/:botId/evaluations/settings')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'getEvalSettings', summary: "A bot's evaluation settings", description: 'The gate (a pass rate from 0 to 1, or null), automatic runs and the judge.' })
  @ApiData(200, 'The settings.', EvalSettingsView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async getSettings(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(BotParams, 'path')) params: BotParams): Promise<{ data: EvalSettingsView }> {
    return { data: await this.rpc.send('evaluations.settings.get', { chatbotId: params.botId }, workspaceOf(caller).ctx) };
  }

  @Put('bots/:botId/evaluations/settings')
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'updateEvalSettings', summary: "Change a bot's evaluation settings", description: 'Members left out stay as they are; `min_pass_rate: null` removes the gate.' })
  @ApiData(200, 'The settings as saved.', EvalSettingsView)
  @ApiConsoleErrors(400, 401, 403, 404, 503)
  async updateSettings(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(UpdateEvalSettingsBody, 'body')) body: UpdateEvalSettingsBody,
  ): Promise<{ data: EvalSettingsView }> {
    const saved = await this.rpc.send('evaluations.settings.update', { ...body, chatbotId: params.botId }, workspaceOf(caller).ctx);
    await this.audit.record(caller, 'evaluation.settings_updated', 'bot', params.botId, { min_pass_rate: saved.min_pass_rate, auto_run: saved.auto_run, judge: saved.judge });
    return { data: saved };
  }

  @Get('bots/:botId/evaluations/runs')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listEvalRuns', summary: "A bot's runs", description: 'Newest first (`limit`, default the service\'s). A queued or running run shows its progress in `done` of `total`.' })
  @ApiList('The runs.', EvalRunView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async listRuns(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Query(dto(EvalRunsQuery, 'query')) query: EvalRunsQuery,
  ): Promise<{ data: EvalRunView[] }> {
    return { data: await this.rpc.send('evaluations.run.list', { chatbotId: params.botId, ...(query.limit !== undefined ? { limit: query.limit } : {}) }, workspaceOf(caller).ctx) };
  }

  @Post('bots/:botId/evaluations/runs')
  @HttpCode(202)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'startEvalRun',
    summary: 'Run the test set now',
    description:
      'Every case is answered through the real chat path (stored and counted nowhere) and graded; read the run\'s progress with GET …/runs/{runId}. ' +
      '402 `api_locked` without live access; 409 `conflict`: the set is empty.',
  })
  @ApiData(202, 'The run, queued.', EvalRunView)
  @ApiConsoleErrors(400, 401, 402, 403, 404, 409, 503)
  async startRun(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BotParams, 'path')) params: BotParams,
    @Body(dto(StartEvalRunBody, 'body', { optional: true })) _body: StartEvalRunBody | undefined,
  ): Promise<{ data: EvalRunView }> {
    const { workspace, ctx } = workspaceOf(caller);
    const facts = await this.workspaces.facts(workspace.id);
    if (!facts) throw new NotFound('Workspace');
    if (!hasLiveApiAccess(facts)) throw new ApiLocked();
    const run = await this.rpc.send('evaluations.run.start', { chatbotId: params.botId, trigger: 'manual' }, ctx);
    await this.audit.record(caller, 'evaluation.run_started', 'bot', params.botId, { run_id: run.id, total: run.total });
    return { data: run };
  }

  @Get('bots/:botId/evaluations/runs/:runId')
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'getEvalRun',
    summary: 'A run and its results',
    description:
      "Each case's verdict (and the judge's, when it graded), the reply and the passages it was given, the cases that changed since the previous run first, a page at a time " +
      '(`offset`, `limit`; `next_offset` is where the next page starts, null on the last). Replies and passages are model and user text: render them as text.',
  })
  @ApiData(200, 'The run and a page of its results.', EvalRunDetailView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async getRun(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(EvalRunParams, 'path')) params: EvalRunParams,
    @Query(dto(EvalResultsQuery, 'query')) query: EvalResultsQuery,
  ): Promise<{ data: EvalRunDetailView }> {
    return { data: await this.rpc.send('evaluations.run.get', { chatbotId: params.botId, runId: params.runId, offset: query.offset, limit: query.limit }, workspaceOf(caller).ctx) };
  }

  @Get('evaluations/alerts')
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listEvalAlerts', summary: 'Bots under their gate', description: "The workspace's bots whose latest completed run passed fewer cases than their gate (the console's banner)." })
  @ApiList('The alerts.', EvalAlertView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async alerts(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams): Promise<{ data: EvalAlertView[] }> {
    return { data: await this.rpc.send('evaluations.alert.list', {}, workspaceOf(caller).ctx) };
  }
}
