import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { EVAL_CASES_MAX, EvalAlertView, EvalExpectation, EvalJudgementView, EvalResultView, EvalRunStatus, EvalRunView, EvalTrigger, EvalVerdict, MessagePassageView } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { DomainError } from '@sa/errors';

export interface RunRow {
  id: string;
  tenant_id: string;
  chatbot_id: string;
  status: EvalRunStatus;
  trigger: EvalTrigger;
  total: number;
  done: number;
  passed: number;
  pass_rate: number | null;
  min_pass_rate: number | null;
  judge: boolean;
  tokens_used: number;
  token_budget: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const RUN_COLUMNS =
  'id, tenant_id, chatbot_id, status, trigger, total, done, passed, pass_rate, min_pass_rate, judge, tokens_used::int AS tokens_used, token_budget, error, created_at, started_at, finished_at';

/** A case as a run copied it at its start. */
export interface RunCase {
  case_id: string;
  position: number;
  question: string;
  language: string | null;
  expect: EvalExpectation;
  facts: string[];
}

/** One case's outcome, as the worker records it. */
export interface NewResult {
  caseId: string;
  verdict: EvalVerdict;
  reason: string;
  reply: string;
  unanswered: boolean;
  handoff: boolean;
  passages: MessagePassageView[];
  judge: EvalJudgementView | null;
  tokens: number;
  latencyMs: number;
}

/** Completed under its gate (a tolerance for rates such as 9/10 against 0.9). */
export function belowThreshold(r: Pick<RunRow, 'status' | 'pass_rate' | 'min_pass_rate'>): boolean {
  return r.status === 'completed' && r.pass_rate !== null && r.min_pass_rate !== null && r.pass_rate + 1e-9 < r.min_pass_rate;
}

export function toRunView(r: RunRow): EvalRunView {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: r.id,
    chatbot_id: r.chatbot_id,
    status: r.status,
    trigger: r.trigger,
    total: r.total,
    done: r.done,
    passed: r.passed,
    pass_rate: r.pass_rate,
    min_pass_rate: r.min_pass_rate,
    below_threshold: belowThreshold(r),
    tokens_used: r.tokens_used,
    token_budget: r.token_budget,
    error: r.error,
    created_at: r.created_at.toISOString(),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
  };
}

/** The run is no longer this worker's (cancelled by a newer run, or its lease lapsed and another replica took it). */
export class RunLost extends Error {
  constructor() {
    super('the run is no longer this worker’s');
  }
}

/**
 * Runs and their results (schema evaluations). A run is worked on by one replica at a time under a
 * lease (claim/renew, FOR UPDATE SKIP LOCKED); a result is written only by the lease holder, in the
 * transaction that counts it on the run, under the primary key (run_id, case_id): a case is
 * answered exactly once, and a worker killed mid-answer leaves that case unanswered for the next.
 */
@Injectable()
export class RunsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * A new run of the bot's set, with its cases copied; the bot's queued or running run (if any) is
   * cancelled in the same transaction. 409 when the set is empty. `m`: inside the caller's transaction.
   */
  async create(tenantId: string, botId: string, trigger: EvalTrigger, tokenBudget: number, m?: EntityManager): Promise<RunRow> {
    const work = async (tx: EntityManager) => {
      await tx.query(`INSERT INTO evaluations.settings (tenant_id, chatbot_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [tenantId, botId]);
      const [settings] = await queryRows<{ min_pass_rate: number | null; judge: boolean }>(tx, `SELECT min_pass_rate, judge FROM evaluations.settings WHERE tenant_id = $1 AND chatbot_id = $2 FOR UPDATE`, [tenantId, botId]);
      const [{ n }] = await queryRows<{ n: number }>(tx, `SELECT count(*)::int AS n FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
      if (n === 0) throw new DomainError('conflict', "The bot's test set is empty: add cases first");
      await tx.query(
        `UPDATE evaluations.runs SET status = 'cancelled', error = 'Replaced by a newer run', finished_at = clock_timestamp(), claimed_by = NULL, claimed_until = NULL
          WHERE tenant_id = $1 AND chatbot_id = $2 AND status IN ('queued', 'running')`,
        [tenantId, botId],
      );
      const [run] = await queryRows<RunRow>(
        tx,
        `INSERT INTO evaluations.runs (tenant_id, chatbot_id, trigger, total, min_pass_rate, judge, token_budget) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${RUN_COLUMNS}`,
        [tenantId, botId, trigger, n, settings!.min_pass_rate, settings!.judge, tokenBudget],
      );
      await tx.query(
        `INSERT INTO evaluations.run_cases (run_id, case_id, position, question, language, expect, facts)
         SELECT $3, id, row_number() OVER (ORDER BY created_at, id), question, language, expect, facts
           FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`,
        [tenantId, botId, run!.id],
      );
      return run!;
    };
    return m ? work(m) : this.ds.transaction(work);
  }

  async list(tenantId: string, botId: string, limit: number): Promise<RunRow[]> {
    return queryRows<RunRow>(this.ds, `SELECT ${RUN_COLUMNS} FROM evaluations.runs WHERE tenant_id = $1 AND chatbot_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3`, [tenantId, botId, limit]);
  }

  async find(tenantId: string, botId: string, runId: string): Promise<RunRow | null> {
    const [row] = await queryRows<RunRow>(this.ds, `SELECT ${RUN_COLUMNS} FROM evaluations.runs WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3`, [tenantId, botId, runId]);
    return row ?? null;
  }

  /** The bot's completed run before this one; null: none. */
  async previousCompleted(tenantId: string, botId: string, run: Pick<RunRow, 'id' | 'created_at'>): Promise<string | null> {
    const [row] = await queryRows<{ id: string }>(
      this.ds,
      `SELECT id FROM evaluations.runs WHERE tenant_id = $1 AND chatbot_id = $2 AND status = 'completed' AND id <> $3 AND created_at < $4 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [tenantId, botId, run.id, run.created_at],
    );
    return row?.id ?? null;
  }

  /** The run's results so far with the previous completed run's verdicts: changed ones first, then in the set's order. */
  /** One page of a run's results (changed first, then the set's order), and how many there are. */
  async results(tenantId: string, run: RunRow, previousRunId: string | null, offset = 0, limit = EVAL_CASES_MAX): Promise<{ rows: EvalResultView[]; total: number }> {
    const rows = await queryRows<{
      case_id: string;
      question: string;
      language: string | null;
      expect: EvalExpectation;
      facts: string[];
      verdict: EvalVerdict;
      reason: string;
      reply: string;
      unanswered: boolean;
      handoff: boolean;
      passages: MessagePassageView[];
      judge: EvalJudgementView | null;
      previous_verdict: EvalVerdict | null;
      latency_ms: number;
    }>(
      this.ds,
      `SELECT rc.case_id, rc.question, rc.language, rc.expect, rc.facts, r.verdict, r.reason, r.reply, r.unanswered, r.handoff, r.passages, r.judge, p.verdict AS previous_verdict, r.latency_ms
         FROM evaluations.results r
         JOIN evaluations.run_cases rc ON rc.run_id = r.run_id AND rc.case_id = r.case_id
         LEFT JOIN evaluations.results p ON p.run_id = $3 AND p.case_id = r.case_id AND p.tenant_id = $1
        WHERE r.tenant_id = $1 AND r.run_id = $2
        ORDER BY (p.verdict IS NOT NULL AND p.verdict <> r.verdict) DESC, rc.position
        OFFSET $4 LIMIT $5`,
      [tenantId, run.id, previousRunId, offset, limit],
    );
    const [{ n }] = await queryRows<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM evaluations.results WHERE tenant_id = $1 AND run_id = $2`, [tenantId, run.id]);
    return { rows: rows.map((r) => ({ ...r, changed: r.previous_verdict !== null && r.previous_verdict !== r.verdict })), total: n };
  }

  /** The latest completed run of each bot, when it is under its gate (the console's banner). */
  async alerts(tenantId: string): Promise<EvalAlertView[]> {
    const rows = await queryRows<RunRow>(
      this.ds,
      `SELECT DISTINCT ON (chatbot_id) ${RUN_COLUMNS} FROM evaluations.runs WHERE tenant_id = $1 AND status = 'completed' ORDER BY chatbot_id, finished_at DESC, id DESC`,
      [tenantId],
    );
    return rows.filter(belowThreshold).map((r) => ({ chatbot_id: r.chatbot_id, run_id: r.id, pass_rate: r.pass_rate!, min_pass_rate: r.min_pass_rate!, finished_at: r.finished_at!.toISOString() }));
  }

  // ---- the worker ----

  /** Takes the oldest queued run, or a running one whose lease lapsed (its replica died), for `leaseMs`. */
  async claim(workerId: string, leaseMs: number): Promise<RunRow | null> {
    const [row] = await queryRows<RunRow>(
      this.ds,
      `UPDATE evaluations.runs SET status = 'running', claimed_by = $1, claimed_until = clock_timestamp() + make_interval(secs => $2::float8 / 1000),
              started_at = coalesce(started_at, clock_timestamp())
        WHERE id = (SELECT id FROM evaluations.runs WHERE status IN ('queued', 'running') AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${RUN_COLUMNS}`,
      [workerId, leaseMs],
    );
    return row ?? null;
  }

  /** Extends the lease; false when the run is no longer this worker's. */
  async renew(runId: string, workerId: string, leaseMs: number): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `UPDATE evaluations.runs SET claimed_until = clock_timestamp() + make_interval(secs => $3::float8 / 1000) WHERE id = $1 AND claimed_by = $2 AND status = 'running' RETURNING id`,
      [runId, workerId, leaseMs],
    );
    return rows.length > 0;
  }

  /** Hands the run back (shutdown): another replica, or this one after a restart, resumes it at once. */
  async release(runId: string, workerId: string): Promise<void> {
    await this.ds.query(`UPDATE evaluations.runs SET claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2 AND status = 'running'`, [runId, workerId]);
  }

  /** The run's cases without a result yet, in the set's order. */
  async unanswered(runId: string): Promise<RunCase[]> {
    return queryRows<RunCase>(
      this.ds,
      `SELECT rc.case_id, rc.position, rc.question, rc.language, rc.expect, rc.facts FROM evaluations.run_cases rc
        WHERE rc.run_id = $1 AND NOT EXISTS (SELECT 1 FROM evaluations.results r WHERE r.run_id = rc.run_id AND r.case_id = rc.case_id)
        ORDER BY rc.position`,
      [runId],
    );
  }

  /**
   * Writes one case's result and counts it on the run, in one transaction, only while the run is
   * this worker's: returns the run's tokens used so far. RunLost when it is not (nothing written);
   * a result already there (never expected: one holder at a time) writes nothing either.
   */
  async record(run: Pick<RunRow, 'id' | 'tenant_id'>, workerId: string, r: NewResult): Promise<number> {
    return this.ds.transaction(async (m) => {
      const inserted = await queryRows<{ case_id: string }>(
        m,
        `INSERT INTO evaluations.results (run_id, case_id, tenant_id, verdict, reason, reply, unanswered, handoff, passages, judge, tokens, latency_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12) ON CONFLICT DO NOTHING RETURNING case_id`,
        [run.id, r.caseId, run.tenant_id, r.verdict, r.reason, r.reply, r.unanswered, r.handoff, JSON.stringify(r.passages), r.judge ? JSON.stringify(r.judge) : null, r.tokens, r.latencyMs],
      );
      const [counted] = await queryRows<{ tokens_used: number }>(
        m,
        `UPDATE evaluations.runs SET done = done + $4, passed = passed + $5, tokens_used = tokens_used + $6
          WHERE id = $1 AND claimed_by = $2 AND status = 'running' AND tenant_id = $3 RETURNING tokens_used::int AS tokens_used`,
        [run.id, workerId, run.tenant_id, inserted.length, inserted.length && r.verdict === 'pass' ? 1 : 0, inserted.length ? r.tokens : 0],
      );
      if (!counted) throw new RunLost();
      return counted.tokens_used;
    });
  }

  /** Completes the run once every case has its result; a run under its gate is due for its e-mail. Null when it is not this worker's, or not done. */
  async complete(runId: string, workerId: string): Promise<RunRow | null> {
    const [row] = await queryRows<RunRow>(
      this.ds,
      `UPDATE evaluations.runs SET status = 'completed', finished_at = clock_timestamp(), claimed_by = NULL, claimed_until = NULL,
              pass_rate = CASE WHEN total > 0 THEN passed::float8 / total END,
              notify_after = CASE WHEN total > 0 AND min_pass_rate IS NOT NULL AND passed::float8 / total + 1e-9 < min_pass_rate THEN clock_timestamp() END
        WHERE id = $1 AND claimed_by = $2 AND status = 'running'
          AND NOT EXISTS (SELECT 1 FROM evaluations.run_cases rc WHERE rc.run_id = $1
                           AND NOT EXISTS (SELECT 1 FROM evaluations.results r WHERE r.run_id = rc.run_id AND r.case_id = rc.case_id))
        RETURNING ${RUN_COLUMNS}`,
      [runId, workerId],
    );
    return row ?? null;
  }

  /** Stops the run for good (it cannot go on: the bot is gone). */
  async fail(runId: string, workerId: string, error: string): Promise<void> {
    await this.ds.query(
      `UPDATE evaluations.runs SET status = 'failed', error = $3, finished_at = clock_timestamp(), claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
      [runId, workerId, error],
    );
  }

  // ---- the gate's e-mail ----

  /** Takes one run whose e-mail is due (pushing its next try `retryMs` out, a lease of sorts); null: none. */
  async claimNotification(retryMs: (attempts: number) => number): Promise<(RunRow & { notify_attempts: number }) | null> {
    return this.ds.transaction(async (m) => {
      const [due] = await queryRows<{ id: string; notify_attempts: number }>(
        m,
        `SELECT id, notify_attempts FROM evaluations.runs WHERE notify_after <= clock_timestamp() AND notified_at IS NULL ORDER BY notify_after LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      if (!due) return null;
      const attempts = due.notify_attempts + 1;
      const [row] = await queryRows<RunRow>(
        m,
        `UPDATE evaluations.runs SET notify_attempts = $2, notify_after = clock_timestamp() + make_interval(secs => $3::float8 / 1000) WHERE id = $1 RETURNING ${RUN_COLUMNS}`,
        [due.id, attempts, retryMs(attempts)],
      );
      return { ...row!, notify_attempts: attempts };
    });
  }

  async notified(runId: string): Promise<void> {
    await this.ds.query(`UPDATE evaluations.runs SET notified_at = clock_timestamp(), notify_after = NULL WHERE id = $1`, [runId]);
  }

  // ---- automatic runs (debounced) ----

  /**
   * A change that can change answers: the bot's (or, chatbotId null, every bot's of the workspace
   * with a test set) automatic run is due `debounceMs` after the last such change, and at most
   * 5 × debounceMs after the first it waits for. Bots without cases are left alone.
   */
  async schedule(tenantId: string, chatbotId: string | null, trigger: 'knowledge' | 'behaviour' | 'model', debounceMs: number): Promise<number> {
    const rows = await queryRows<{ chatbot_id: string }>(
      this.ds,
      `INSERT INTO evaluations.settings AS s (tenant_id, chatbot_id, auto_due_at, auto_since, auto_trigger)
       SELECT b.tenant_id, b.chatbot_id, clock_timestamp() + make_interval(secs => $3::float8 / 1000), clock_timestamp(), $4
         FROM (SELECT DISTINCT tenant_id, chatbot_id FROM evaluations.cases WHERE tenant_id = $1 AND ($2::uuid IS NULL OR chatbot_id = $2::uuid)) b
       ON CONFLICT (tenant_id, chatbot_id) DO UPDATE SET
         auto_since = coalesce(s.auto_since, clock_timestamp()),
         auto_due_at = least(clock_timestamp() + make_interval(secs => $3::float8 / 1000), coalesce(s.auto_since, clock_timestamp()) + make_interval(secs => 5 * $3::float8 / 1000)),
         auto_trigger = $4
       WHERE s.auto_run
       RETURNING chatbot_id`,
      [tenantId, chatbotId, debounceMs, trigger],
    );
    return rows.length;
  }

  /** Bots whose automatic run is due, oldest first. */
  async dueAutomatic(limit: number): Promise<{ tenant_id: string; chatbot_id: string }[]> {
    return queryRows(this.ds, `SELECT tenant_id, chatbot_id FROM evaluations.settings WHERE auto_due_at <= clock_timestamp() ORDER BY auto_due_at LIMIT $1`, [limit]);
  }

  /**
   * Starts the bot's automatic run if it is still due (locked, so one replica does it), in one
   * transaction with clearing the due time: a restart in between loses nothing and starts nothing
   * twice. `allowed` false (the workspace has no live access): cleared without a run.
   */
  async startDue(tenantId: string, botId: string, tokenBudget: number, allowed: boolean): Promise<RunRow | null> {
    return this.ds.transaction(async (m) => {
      const [due] = await queryRows<{ auto_run: boolean; auto_trigger: EvalTrigger | null }>(
        m,
        `SELECT auto_run, auto_trigger FROM evaluations.settings WHERE tenant_id = $1 AND chatbot_id = $2 AND auto_due_at <= clock_timestamp() FOR UPDATE SKIP LOCKED`,
        [tenantId, botId],
      );
      if (!due) return null;
      await m.query(`UPDATE evaluations.settings SET auto_due_at = NULL, auto_since = NULL, auto_trigger = NULL WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
      const [{ n }] = await queryRows<{ n: number }>(m, `SELECT count(*)::int AS n FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
      if (!due.auto_run || !allowed || n === 0) return null;
      return this.create(tenantId, botId, due.auto_trigger ?? 'knowledge', tokenBudget, m);
    });
  }

  /** Questions failing in the run that passed in the previous completed run (at most `limit`). */
  async newlyFailing(tenantId: string, run: RunRow, limit: number): Promise<string[]> {
    const previous = await this.previousCompleted(tenantId, run.chatbot_id, run);
    if (!previous) return [];
    const rows = await queryRows<{ question: string }>(
      this.ds,
      `SELECT rc.question FROM evaluations.results r
         JOIN evaluations.run_cases rc ON rc.run_id = r.run_id AND rc.case_id = r.case_id
         JOIN evaluations.results p ON p.run_id = $3 AND p.case_id = r.case_id
        WHERE r.tenant_id = $1 AND r.run_id = $2 AND r.verdict <> 'pass' AND p.verdict = 'pass'
        ORDER BY rc.position LIMIT $4`,
      [tenantId, run.id, previous, limit],
    );
    return rows.map((r) => r.question);
  }
}
