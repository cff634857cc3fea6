import { Controller } from '@nestjs/common';
import {
  CallerContext,
  CreateEvalCaseRequest,
  EvalAlertView,
  EvalBotRequest,
  EvalCaseIdRequest,
  EvalCaseView,
  EvalExportView,
  EvalImportResult,
  EvalRunDetailView,
  GetEvalRunRequest,
  EvalRunView,
  EvalSettingsView,
  ExportEvalCasesRequest,
  ImportEvalCasesRequest,
  ListEvalAlertsRequest,
  ListEvalRunsRequest,
  StartEvalRunRequest,
  UpdateEvalCaseRequest,
  UpdateEvalSettingsRequest,
} from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { CasesService } from './cases/cases.service';
import { RunsService } from './runs/runs.service';

/**
 * evaluations.* (issue 33): a bot's test set, its settings, its runs and the workspace's bots
 * under their gate. Every request names a bot of the caller's workspace (else 404); the console
 * checks roles (members read, owners and admins change) and live access before a run.
 */
@Controller()
export class EvaluationsHandler {
  constructor(
    private readonly cases: CasesService,
    private readonly runs: RunsService,
  ) {}

  @RpcHandler('evaluations.case.list')
  listCases(req: EvalBotRequest, ctx: CallerContext): Promise<EvalCaseView[]> {
    return this.cases.list(ctx, req.chatbotId);
  }

  @RpcHandler('evaluations.case.create')
  createCase(req: CreateEvalCaseRequest, ctx: CallerContext): Promise<EvalCaseView> {
    return this.cases.create(ctx, req);
  }

  @RpcHandler('evaluations.case.update')
  updateCase(req: UpdateEvalCaseRequest, ctx: CallerContext): Promise<EvalCaseView> {
    return this.cases.update(ctx, req);
  }

  @RpcHandler('evaluations.case.delete')
  deleteCase(req: EvalCaseIdRequest, ctx: CallerContext): Promise<{ deleted: true }> {
    return this.cases.delete(ctx, req.chatbotId, req.caseId);
  }

  @RpcHandler('evaluations.case.import')
  importCases(req: ImportEvalCasesRequest, ctx: CallerContext): Promise<EvalImportResult> {
    return this.cases.import(ctx, req);
  }

  @RpcHandler('evaluations.case.export')
  exportCases(req: ExportEvalCasesRequest, ctx: CallerContext): Promise<EvalExportView> {
    return this.cases.export(ctx, req);
  }

  @RpcHandler('evaluations.settings.get')
  settings(req: EvalBotRequest, ctx: CallerContext): Promise<EvalSettingsView> {
    return this.cases.settings(ctx, req.chatbotId);
  }

  @RpcHandler('evaluations.settings.update')
  updateSettings(req: UpdateEvalSettingsRequest, ctx: CallerContext): Promise<EvalSettingsView> {
    return this.cases.updateSettings(ctx, req);
  }

  @RpcHandler('evaluations.run.start')
  startRun(req: StartEvalRunRequest, ctx: CallerContext): Promise<EvalRunView> {
    return this.runs.start(ctx, req);
  }

  @RpcHandler('evaluations.run.list')
  listRuns(req: ListEvalRunsRequest, ctx: CallerContext): Promise<EvalRunView[]> {
    return this.runs.list(ctx, req);
  }

  @RpcHandler('evaluations.run.get')
  getRun(req: GetEvalRunRequest, ctx: CallerContext): Promise<EvalRunDetailView> {
    return this.runs.get(ctx, req);
  }

  @RpcHandler('evaluations.alert.list')
  alerts(_req: ListEvalAlertsRequest, ctx: CallerContext): Promise<EvalAlertView[]> {
    return this.runs.alerts(ctx);
  }
}
