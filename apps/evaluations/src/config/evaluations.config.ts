import { commonConfig, env, parseConfig } from '@sa/config';
import { modelProviderConfig } from '@sa/llm-config';
import { webhookSecretKeyConfig } from '@sa/secret-box';

export const loadEvaluationsConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      /** Cases of one run answered at once by one replica (each a chat turn). */
      concurrency: env.int('EVAL_CONCURRENCY', 2, { min: 1, max: 16 }),
      /** Model tokens one run may use (the bot's answers and the judge's gradings); past it the remaining cases are recorded as errors. */
      runTokenBudget: env.int('EVAL_RUN_TOKEN_BUDGET', 200_000, { min: 1, max: 100_000_000 }),
      /** Cases one run answers at most; the rest are recorded as errors (the set holds at most EVAL_CASES_MAX). */
      runMaxCases: env.int('EVAL_RUN_MAX_CASES', 1000, { min: 1, max: 1000 }),
      /** How long after the last knowledge, behaviour or model change an automatic run starts (changes within it start one run). */
      autoDebounceMs: env.int('EVAL_AUTO_DEBOUNCE_MS', 30_000, { min: 0, max: 86_400_000 }),
      /** How long a replica's claim on a run lasts without renewal; a replica that died leaves it to another after this. */
      leaseMs: env.int('EVAL_LEASE_MS', 30_000, { min: 1000, max: 3_600_000 }),
      /** How often a replica looks for runs to resume, automatic runs that are due and gate e-mails to (re)send. */
      pollMs: env.int('EVAL_POLL_MS', 2000, { min: 50, max: 600_000 }),
      /** How long one case's chat turn may take to start, and may stay silent, before it is recorded as an error. */
      chatStartTimeoutMs: env.int('EVAL_CHAT_START_TIMEOUT_MS', 15_000, { min: 100, max: 600_000 }),
      chatIdleTimeoutMs: env.int('EVAL_CHAT_IDLE_TIMEOUT_MS', 60_000, { min: 100, max: 600_000 }),
      /** Runs listed by evaluations.run.list when the request gives no limit. */
      runsListed: env.int('EVAL_RUNS_LISTED', 20, { min: 1, max: 100 }),
      /** The installation's chat model (CHAT_MODEL_*, as the chat service reads it): the judge of bots without a model connection of their own; extractive: none. */
      chatModel: modelProviderConfig({ prefix: 'CHAT_MODEL', local: 'extractive', timeoutMs: 60000, maxRetries: 1 }),
      /** How long the judge may take over one reply before the case keeps the rules' verdict alone. */
      judgeTimeoutMs: env.int('EVAL_JUDGE_TIMEOUT_MS', 60_000, { min: 100, max: 600_000 }),
      /** The key that opens the sealed keys of the workspaces' model connections (the judge): WEBHOOK_SECRET_KEY, as bots and chat. */
      secretKey: webhookSecretKeyConfig,
    },
    source,
  );

export type EvaluationsConfig = ReturnType<typeof loadEvaluationsConfig>;
export const EVALUATIONS_CONFIG = Symbol('EVALUATIONS_CONFIG');
