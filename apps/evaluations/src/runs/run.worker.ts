import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import type { BotSummary, CallerContext, MessagePassageView, TurnDiagnostics } from '@sa/contracts';
import { startChatTurn, StreamIdle } from '@sa/edge';
import { ClaimLoop } from '@sa/db';
import { DomainError } from '@sa/errors';
import { NATS_CONNECTION, RpcClient } from '@sa/messaging';
import { counter } from '@sa/metrics';
import { EVALUATIONS_CONFIG, EvaluationsConfig } from '../config/evaluations.config';
import { EVALUATIONS_LOGGER, JUDGE } from '../evaluations.tokens';
import { gradeReply } from '../grading/grade';
import type { Judge } from '../judge/judge';
import { serviceContext } from '../service-context';
import { GateNotifier } from './gate.notifier';
import { NewResult, RunCase, RunLost, RunRow, RunsRepository } from './runs.repository';

const answered = counter({ name: 'sa_eval_cases_total', help: 'Evaluation cases this replica answered, by verdict (pass, fail, error)', labelNames: ['verdict'] as const });
const finished = counter({ name: 'sa_eval_runs_total', help: 'Evaluation runs this replica finished, by outcome (completed, failed)', labelNames: ['outcome'] as const });

/** The run stopped being worked on here (shutdown, cancelled, lease lost): the case in flight is not recorded. */
class RunStopped extends Error {}

/** Tries of a turn the chat service did not take (not running, no reply in time) before the case is an error. */
const START_TRIES = 3;
const START_RETRY_MS = 1000;

export const BUDGET_USED_UP = "The run's token budget is used up";

/**
 * Works on evaluation runs (issue 33), one run at a time per replica, its cases EVAL_CONCURRENCY
 * at a time. A run is claimed under a lease in PostgreSQL (RunsRepository.claim, renewed while it
 * runs); each case is asked through the real chat path as a playground turn (stored and counted
 * nowhere: no analytics, leads, quota or webhooks), graded by the rules (and the judge when the run
 * has it and the bot has a model), and its result written in one transaction with the run's
 * counters, under the key (run, case). So a replica killed halfway leaves a run whose lease lapses;
 * the next claim continues with the unanswered cases only, and a case whose answer was in flight
 * at the kill is asked again (nothing was written for it). A cancelled run (a newer one replaced
 * it) stops at its next write or lease renewal.
 */
@Injectable()
export class RunWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly loop: ClaimLoop<RunRow>;
  private current: { runId: string; abort: AbortController } | null = null;

  constructor(
    private readonly runs: RunsRepository,
    private readonly rpc: RpcClient,
    private readonly notifier: GateNotifier,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(JUDGE) private readonly judge: Judge,
    @Inject(EVALUATIONS_CONFIG) private readonly config: EvaluationsConfig,
    @Inject(EVALUATIONS_LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new ClaimLoop({
      pollMs: config.pollMs,
      claim: () => this.runs.claim(this.workerId, this.config.leaseMs),
      work: (row) => this.run(row),
      onError: (err) => this.logger.warn({ err: err.message }, 'looking for evaluation runs failed; will retry'),
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  /** On shutdown: the case in flight is cut short (not recorded) and the run handed back at once. */
  async beforeApplicationShutdown(): Promise<void> {
    const stopped = this.loop.stop();
    this.current?.abort.abort();
    await stopped;
  }

  /** A run was started (or cancelled) in this process: look for work at once. */
  wake(): void {
    void this.pump();
  }

  pump(): Promise<void> {
    return this.loop.pump();
  }

  /** Works on one run until it completes or stops; false when it was handed back after an error a later try may get past. */
  private async run(row: RunRow): Promise<boolean> {
    const abort = new AbortController();
    this.current = { runId: row.id, abort };
    const log = this.logger.child({ run_id: row.id, tenant_id: row.tenant_id, chatbot_id: row.chatbot_id });
    const renew = setInterval(
      () =>
        void this.runs
          .renew(row.id, this.workerId, this.config.leaseMs)
          .then((kept) => kept || abort.abort())
          .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not renew the lease of an evaluation run')),
      Math.max(200, Math.floor(this.config.leaseMs / 3)),
    );
    try {
      const ctx = serviceContext(row.tenant_id, `eval-run-${row.id}`);
      const [bot] = await this.rpc.send('bots.bot.describe', { ids: [row.chatbot_id] }, ctx);
      if (!bot) {
        await this.runs.fail(row.id, this.workerId, 'The bot no longer exists');
        finished.inc({ outcome: 'failed' });
        return true;
      }
      const judge = row.judge && this.judge.canJudge(bot);
      const todo = await this.runs.unanswered(row.id);
      log.info({ cases: row.total, unanswered: todo.length, judge }, todo.length < row.total ? 'resuming an evaluation run' : 'starting an evaluation run');
      let tokensUsed = row.tokens_used;
      const next = () => todo.shift();
      const lane = async () => {
        for (let c = next(); c; c = next()) {
          if (abort.signal.aborted) throw new RunStopped();
          const result =
            c.position > this.config.runMaxCases
              ? errorResult(c, `The run's case limit (${this.config.runMaxCases}) is reached`)
              : tokensUsed >= row.token_budget
                ? errorResult(c, BUDGET_USED_UP)
                : await this.answer(ctx, bot, c, judge, abort.signal);
          if (abort.signal.aborted) throw new RunStopped();
          tokensUsed = await this.runs.record(row, this.workerId, result);
          answered.inc({ verdict: result.verdict });
        }
      };
      const lanes = Array.from({ length: Math.min(this.config.concurrency, Math.max(1, todo.length)) }, lane);
      const outcomes = await Promise.allSettled(lanes);
      const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failure) throw failure.reason;
      const done = await this.runs.complete(row.id, this.workerId);
      if (done) {
        finished.inc({ outcome: 'completed' });
        log.info({ passed: done.passed, total: done.total, pass_rate: done.pass_rate, tokens: done.tokens_used }, 'evaluation run completed');
        this.notifier.wake();
      }
      return true;
    } catch (err) {
      if (err instanceof RunLost || err instanceof RunStopped || abort.signal.aborted) {
        if (this.loop.stopped) await this.runs.release(row.id, this.workerId).catch(() => undefined);
        else log.info('the evaluation run was replaced by a newer one, or taken over; this replica stops working on it');
        return true;
      }
      log.warn({ err: (err as Error).message }, 'an evaluation run was interrupted; it resumes later');
      await this.runs.release(row.id, this.workerId).catch(() => undefined);
      return false;
    } finally {
      clearInterval(renew);
      this.current = null;
    }
  }

  /** Asks one case through the chat path and grades the reply. RunStopped when the run stopped meanwhile. */
  private async answer(ctx: CallerContext, bot: BotSummary, c: RunCase, judge: boolean, signal: AbortSignal): Promise<NewResult> {
    const started = Date.now();
    let reply = '';
    let diagnostics: TurnDiagnostics | undefined;
    let error: string | null = null;
    try {
      const turn = await this.start(ctx, bot.id, c, signal);
      const onAbort = () => turn.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        for await (const event of turn.events()) {
          if (event.type === 'delta') reply += event.text;
          else if (event.type === 'end') diagnostics = event.diagnostics;
          else if (event.type === 'error') error = event.message;
          else if (event.type === 'held') error = 'A person holds the conversation';
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        turn.close();
      }
      if (!error && !diagnostics) error = 'The answer stream ended early';
    } catch (err) {
      if (err instanceof RunStopped) throw err;
      error = err instanceof StreamIdle ? err.message : err instanceof DomainError ? err.message : 'The chat service failed';
    }
    if (signal.aborted) throw new RunStopped();
    const latencyMs = Date.now() - started;
    const passages: MessagePassageView[] = diagnostics?.passages ?? [];
    if (error || !diagnostics) return { ...errorResult(c, error ?? 'No answer'), reply, passages, latencyMs };
    const graded = gradeReply(c.expect, c.facts, { reply, unanswered: diagnostics.unanswered, handoff: diagnostics.handoff });
    let tokens = diagnostics.tokens ? diagnostics.tokens.prompt + diagnostics.tokens.completion : 0;
    let judgement: NewResult['judge'] = null;
    if (judge) {
      const judged = await this.judge.grade(bot, { question: c.question, expect: c.expect, facts: c.facts, passages, reply }, signal);
      judgement = judged.judgement;
      tokens += judged.tokens;
      if (signal.aborted) throw new RunStopped();
    }
    return { caseId: c.case_id, verdict: graded.verdict, reason: graded.reason, reply, unanswered: diagnostics.unanswered, handoff: diagnostics.handoff, passages, judge: judgement, tokens, latencyMs };
  }

  /** Starts the case's playground turn; a chat service not running (or slow to take it) is tried again a few times. */
  private async start(ctx: CallerContext, botId: string, c: RunCase, signal: AbortSignal) {
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw new RunStopped();
      try {
        return await startChatTurn(
          this.rpc,
          this.nc,
          ctx,
          { message: c.question, chatbotId: botId, ...(c.language ? { language: c.language } : {}) },
          'console',
          { startTimeoutMs: this.config.chatStartTimeoutMs, idleTimeoutMs: this.config.chatIdleTimeoutMs, lostAfterMs: this.config.rpcLostAfterMs },
          { history: [] },
        );
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'service_unavailable') || attempt >= START_TRIES) throw err;
        await new Promise((r) => setTimeout(r, START_RETRY_MS * attempt));
      }
    }
  }
}

function errorResult(c: RunCase, reason: string): NewResult {
  return { caseId: c.case_id, verdict: 'error', reason, reply: '', unanswered: false, handoff: false, passages: [], judge: null, tokens: 0, latencyMs: 0 };
}
