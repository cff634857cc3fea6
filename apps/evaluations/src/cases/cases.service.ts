import { Injectable } from '@nestjs/common';
import {
  CallerContext,
  CreateEvalCaseRequest,
  EvalCaseView,
  EvalExportView,
  EvalImportResult,
  EvalSettingsView,
  ExportEvalCasesRequest,
  ImportEvalCasesRequest,
  UpdateEvalCaseRequest,
  UpdateEvalSettingsRequest,
} from '@sa/contracts';
import { NotFound, ValidationFailed } from '@sa/errors';
import { BotCheck } from '../bot-check';
import { CaseLine, exportCases, parseCases } from './case-files';
import { CasesRepository } from './cases.repository';

/** `facts` goes with expect "facts" only, and then at least one. */
function checkFacts(c: CaseLine): CaseLine {
  if (c.expect === 'facts' && c.facts.length === 0) throw new ValidationFailed([{ code: 'required', path: ['body', 'facts'], message: 'expect "facts" needs at least one fact' }], 'expect "facts" needs at least one fact');
  if (c.expect !== 'facts' && c.facts.length > 0) throw new ValidationFailed([{ code: 'invalid', path: ['body', 'facts'], message: `expect "${c.expect}" takes no facts` }], `expect "${c.expect}" takes no facts`);
  return c;
}

/** A bot's test set (cases, import and export) and its settings (issue 33). */
@Injectable()
export class CasesService {
  constructor(
    private readonly cases: CasesRepository,
    private readonly bots: BotCheck,
  ) {}

  async list(ctx: CallerContext, botId: string): Promise<EvalCaseView[]> {
    await this.bots.mustExist(ctx, botId);
    return this.cases.list(ctx.tenantId, botId);
  }

  async create(ctx: CallerContext, req: CreateEvalCaseRequest): Promise<EvalCaseView> {
    await this.bots.mustExist(ctx, req.chatbotId);
    const c = checkFacts({ question: req.question.trim(), language: req.language ?? null, expect: req.expect, facts: (req.facts ?? []).map((f) => f.trim()), note: req.note?.trim() || null });
    return this.cases.create(ctx.tenantId, req.chatbotId, c, req.source ?? 'manual');
  }

  async update(ctx: CallerContext, req: UpdateEvalCaseRequest): Promise<EvalCaseView> {
    await this.bots.mustExist(ctx, req.chatbotId);
    const current = await this.cases.find(ctx.tenantId, req.chatbotId, req.caseId);
    if (!current) throw new NotFound('Case');
    const expect = req.expect ?? current.expect;
    // Changing what is expected away from facts drops the facts unless new ones are given.
    const facts = req.facts !== undefined ? req.facts.map((f) => f.trim()) : expect === 'facts' ? current.facts : [];
    const c = checkFacts({
      question: req.question !== undefined ? req.question.trim() : current.question,
      language: req.language !== undefined ? req.language : current.language,
      expect,
      facts,
      note: req.note !== undefined ? req.note?.trim() || null : current.note,
    });
    return this.cases.update(ctx.tenantId, req.chatbotId, req.caseId, c);
  }

  async delete(ctx: CallerContext, botId: string, caseId: string): Promise<{ deleted: true }> {
    await this.bots.mustExist(ctx, botId);
    if (!(await this.cases.delete(ctx.tenantId, botId, caseId))) throw new NotFound('Case');
    return { deleted: true };
  }

  async import(ctx: CallerContext, req: ImportEvalCasesRequest): Promise<EvalImportResult> {
    await this.bots.mustExist(ctx, req.chatbotId);
    const cases = parseCases(req.format, req.content);
    return this.cases.import(ctx.tenantId, req.chatbotId, cases, req.mode ?? 'append');
  }

  async export(ctx: CallerContext, req: ExportEvalCasesRequest): Promise<EvalExportView> {
    await this.bots.mustExist(ctx, req.chatbotId);
    return { format: req.format, content: exportCases(req.format, await this.cases.list(ctx.tenantId, req.chatbotId)) };
  }

  async settings(ctx: CallerContext, botId: string): Promise<EvalSettingsView> {
    await this.bots.mustExist(ctx, botId);
    return this.cases.settings(ctx.tenantId, botId);
  }

  async updateSettings(ctx: CallerContext, req: UpdateEvalSettingsRequest): Promise<EvalSettingsView> {
    await this.bots.mustExist(ctx, req.chatbotId);
    return this.cases.updateSettings(ctx.tenantId, req.chatbotId, { min_pass_rate: req.min_pass_rate, auto_run: req.auto_run, judge: req.judge });
  }
}
