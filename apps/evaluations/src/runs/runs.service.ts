import { Inject, Injectable } from '@nestjs/common';
import { visibleBots } from '@sa/bot-access';
import { CallerContext, EVAL_RESULTS_PAGE_BYTES, EVAL_RESULTS_PAGE_DEFAULT, EvalAlertView, EvalResultView, EvalRunDetailView, EvalRunView, GetEvalRunRequest, ListEvalRunsRequest, StartEvalRunRequest } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { BotCheck } from '../bot-check';
import { EVALUATIONS_CONFIG, EvaluationsConfig } from '../config/evaluations.config';
import { RunWorker } from './run.worker';
import { RunsRepository, toRunView } from './runs.repository';

/** Runs of a bot's test set (issue 33): start one, list them with their progress, read one with its results, the bots under their gate. */
@Injectable()
export class RunsService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly worker: RunWorker,
    private readonly bots: BotCheck,
    @Inject(EVALUATIONS_CONFIG) private readonly config: EvaluationsConfig,
  ) {}

  /** Queues a run (cancelling the bot's queued or running one) and wakes the worker. */
  async start(ctx: CallerContext, req: StartEvalRunRequest): Promise<EvalRunView> {
    await this.bots.mustExist(ctx, req.chatbotId);
    const run = await this.runs.create(ctx.tenantId, req.chatbotId, req.trigger ?? 'manual', this.config.runTokenBudget);
    this.worker.wake();
    return toRunView(run);
  }

  async list(ctx: CallerContext, req: ListEvalRunsRequest): Promise<EvalRunView[]> {
    await this.bots.mustExist(ctx, req.chatbotId);
    return (await this.runs.list(ctx.tenantId, req.chatbotId, req.limit ?? this.config.runsListed)).map(toRunView);
  }

  /** A run and one page of its results: at most `limit` of them, and at most EVAL_RESULTS_PAGE_BYTES of JSON (a NATS message is 1 MB at most). */
  async get(ctx: CallerContext, req: GetEvalRunRequest): Promise<EvalRunDetailView> {
    await this.bots.mustExist(ctx, req.chatbotId);
    const run = await this.runs.find(ctx.tenantId, req.chatbotId, req.runId);
    if (!run) throw new NotFound('Run');
    const previous = await this.runs.previousCompleted(ctx.tenantId, req.chatbotId, run);
    const offset = req.offset ?? 0;
    const { rows, total } = await this.runs.results(ctx.tenantId, run, previous, offset, req.limit ?? EVAL_RESULTS_PAGE_DEFAULT);
    const results = pageOf(rows, EVAL_RESULTS_PAGE_BYTES);
    const next = offset + results.length;
    return { run: toRunView(run), results, results_total: total, next_offset: next < total ? next : null };
  }

  /** The bots under their gate that still exist (a deleted bot's runs stay until cleaned up, but raise no banner). */
  async alerts(ctx: CallerContext): Promise<EvalAlertView[]> {
    const visible = visibleBots(ctx);
    const alerts = (await this.runs.alerts(ctx.tenantId)).filter((a) => !visible || visible.includes(a.chatbot_id));
    return this.bots.existing(ctx, alerts);
  }
}

/** The first results that fit `bytes` of JSON (always at least one: a single result is a few tens of kB at most). */
export function pageOf(rows: EvalResultView[], bytes: number): EvalResultView[] {
  let size = 0;
  let n = 0;
  for (const row of rows) {
    size += Buffer.byteLength(JSON.stringify(row)) + 1;
    if (n > 0 && size > bytes) break;
    n++;
  }
  return rows.slice(0, n);
}
