import { EVAL_RESULTS_PAGE_MAX, EvalRunDetailView, EvalRunView } from '@sa/contracts';
import type { RpcClient } from '@sa/messaging';
import type { CallerContext } from '@sa/contracts';
import { ParsedArgs, UsageError, takeInt, takeString } from './args';

export const DEFAULT_EVAL_TIMEOUT_SECONDS = 1800;
const POLL_MS = 1000;
const FINISHED: ReadonlySet<EvalRunView['status']> = new Set(['completed', 'failed', 'cancelled']);

/** What `eval run` prints, and the exit code it ends with (1: under the threshold, or no complete run). */
export interface EvalRunOutcome {
  passed: boolean;
  /** The threshold the run was held to: --min-pass, else the bot's gate; null: none (a completed run passes). */
  min_pass_rate: number | null;
  pass_rate: number | null;
  run: EvalRunView;
  /** Every case's outcome, the changed ones first. */
  results: EvalRunDetailView['results'];
}

/** `--min-pass`: a pass rate from 0 to 1 (0.9), or a percentage (90%). */
export function parseMinPass(args: ParsedArgs): number | undefined {
  const raw = takeString(args, 'min-pass');
  if (raw === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(raw.trim());
  const value = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new UsageError(`--min-pass must be a pass rate from 0 to 1, such as 0.9, or a percentage such as 90% (got "${raw}")`);
  return value;
}

export function parseTimeout(args: ParsedArgs): number {
  const seconds = takeInt(args, 'timeout') ?? DEFAULT_EVAL_TIMEOUT_SECONDS;
  if (seconds < 1) throw new UsageError(`--timeout must be at least 1 second (got ${seconds})`);
  return seconds;
}

/** Whether a finished run meets the threshold: completed, and its pass rate at least `min` (no threshold: completed is enough). */
export function judgeRun(run: EvalRunView, min: number | null): boolean {
  if (run.status !== 'completed' || run.pass_rate === null) return false;
  // Rates are fractions of whole cases: compare with a tolerance for 0.9 written as 9/10.
  return min === null || run.pass_rate + 1e-9 >= min;
}

/**
 * `eval run`: starts a run of the bot's test set (trigger cli), waits for it to finish (printing
 * progress on stderr), and returns its results. A run still going at the timeout is left running
 * and reported as not passed.
 */
export async function runEvaluation(rpc: RpcClient, ctx: CallerContext, botId: string, minPass: number | undefined, timeoutSeconds: number, progress: (line: string) => void, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<EvalRunOutcome> {
  let run = await rpc.send('evaluations.run.start', { chatbotId: botId, trigger: 'cli' }, ctx);
  const deadline = Date.now() + timeoutSeconds * 1000;
  let said = '';
  while (!FINISHED.has(run.status) && Date.now() < deadline) {
    await sleep(POLL_MS);
    run = (await rpc.send('evaluations.run.get', { chatbotId: botId, runId: run.id, limit: 1 }, ctx)).run;
    const line = `${run.status}: ${run.done} of ${run.total} answered`;
    if (line !== said) progress(line);
    said = line;
  }
  const detail = await allResults(rpc, ctx, botId, run.id);
  run = detail.run;
  const min = minPass ?? run.min_pass_rate;
  if (!FINISHED.has(run.status)) progress(`the run did not finish within ${timeoutSeconds} s; it goes on in the service (run ${run.id})`);
  return { passed: judgeRun(run, min), min_pass_rate: min, pass_rate: run.pass_rate, run, results: detail.results };
}

/** A run with every result recorded, read page by page (a page fits one NATS message). */
export async function allResults(rpc: RpcClient, ctx: CallerContext, botId: string, runId: string): Promise<Pick<EvalRunDetailView, 'run' | 'results'>> {
  let page = await rpc.send('evaluations.run.get', { chatbotId: botId, runId, offset: 0, limit: EVAL_RESULTS_PAGE_MAX }, ctx);
  const results = [...page.results];
  while (page.next_offset !== null) {
    page = await rpc.send('evaluations.run.get', { chatbotId: botId, runId, offset: page.next_offset, limit: EVAL_RESULTS_PAGE_MAX }, ctx);
    results.push(...page.results);
  }
  return { run: page.run, results };
}
