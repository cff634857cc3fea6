import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evaluations (issue 33): each bot's test set, its settings, runs and results.
 *
 * - `cases`: a bot's test set (at most EVAL_CASES_MAX, counted under the bot's settings row lock).
 *   A question appears once per bot and language (case-insensitive): `cases_question_key`.
 * - `settings`: one row per bot that has any; the gate, automatic runs, the judge, and the
 *   debounce of automatic runs (`auto_due_at`; `auto_since`, the first change it waits for; `auto_trigger`): kept here, not in memory, so a
 *   restart of the service loses no due run.
 * - `runs`: a run of a bot's set. At most one queued or running run per bot (`runs_one_active`):
 *   a new run cancels the one before it. A replica works on a run under a lease (`claimed_by`,
 *   `claimed_until`). `notified_at`: the gate's e-mail went out (retried until it did).
 * - `run_cases`: the cases a run covers, copied at its start (edits during a run change nothing).
 * - `results`: one row per (run, case), the primary key: a case is answered exactly once, and the
 *   row is written in the transaction that counts it on its run.
 */
export class CreateEvaluations1795300033000 implements MigrationInterface {
  name = 'CreateEvaluations1795300033000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS evaluations`);
    await q.query(`
      CREATE TABLE evaluations.cases (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NOT NULL,
        question text NOT NULL CHECK (char_length(question) BETWEEN 1 AND 2000),
        language text NULL CHECK (char_length(language) <= 35),
        expect text NOT NULL CHECK (expect IN ('facts', 'unanswered', 'handoff')),
        facts text[] NOT NULL DEFAULT '{}',
        note text NULL CHECK (char_length(note) <= 500),
        source text NOT NULL CHECK (source IN ('manual', 'import', 'transcript', 'analytics')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((expect = 'facts') = (cardinality(facts) > 0))
      )`);
    await q.query(`CREATE UNIQUE INDEX cases_question_key ON evaluations.cases (tenant_id, chatbot_id, lower(question), coalesce(language, ''))`);
    await q.query(`CREATE INDEX cases_bot_idx ON evaluations.cases (tenant_id, chatbot_id, created_at, id)`);
    await q.query(`
      CREATE TABLE evaluations.settings (
        tenant_id uuid NOT NULL,
        chatbot_id uuid NOT NULL,
        min_pass_rate double precision NULL CHECK (min_pass_rate BETWEEN 0 AND 1),
        auto_run boolean NOT NULL DEFAULT true,
        judge boolean NOT NULL DEFAULT false,
        auto_due_at timestamptz NULL,
        auto_since timestamptz NULL,
        auto_trigger text NULL CHECK (auto_trigger IN ('knowledge', 'behaviour', 'model')),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (tenant_id, chatbot_id)
      )`);
    await q.query(`CREATE INDEX settings_auto_due_idx ON evaluations.settings (auto_due_at) WHERE auto_due_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE evaluations.runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
        trigger text NOT NULL CHECK (trigger IN ('manual', 'cli', 'knowledge', 'behaviour', 'model')),
        total integer NOT NULL DEFAULT 0,
        done integer NOT NULL DEFAULT 0,
        passed integer NOT NULL DEFAULT 0,
        pass_rate double precision NULL,
        min_pass_rate double precision NULL,
        judge boolean NOT NULL DEFAULT false,
        tokens_used bigint NOT NULL DEFAULT 0,
        token_budget integer NOT NULL,
        error text NULL,
        claimed_by text NULL,
        claimed_until timestamptz NULL,
        notify_after timestamptz NULL,
        notify_attempts integer NOT NULL DEFAULT 0,
        notified_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        started_at timestamptz NULL,
        finished_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX runs_one_active ON evaluations.runs (tenant_id, chatbot_id) WHERE status IN ('queued', 'running')`);
    await q.query(`CREATE INDEX runs_bot_idx ON evaluations.runs (tenant_id, chatbot_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX runs_active_idx ON evaluations.runs (created_at) WHERE status IN ('queued', 'running')`);
    await q.query(`CREATE INDEX runs_notify_idx ON evaluations.runs (notify_after) WHERE notify_after IS NOT NULL AND notified_at IS NULL`);
    await q.query(`
      CREATE TABLE evaluations.run_cases (
        run_id uuid NOT NULL REFERENCES evaluations.runs (id) ON DELETE CASCADE,
        case_id uuid NOT NULL,
        position integer NOT NULL,
        question text NOT NULL,
        language text NULL,
        expect text NOT NULL,
        facts text[] NOT NULL,
        PRIMARY KEY (run_id, case_id)
      )`);
    await q.query(`
      CREATE TABLE evaluations.results (
        run_id uuid NOT NULL,
        case_id uuid NOT NULL,
        tenant_id uuid NOT NULL,
        verdict text NOT NULL CHECK (verdict IN ('pass', 'fail', 'error')),
        reason text NOT NULL,
        reply text NOT NULL,
        unanswered boolean NOT NULL,
        handoff boolean NOT NULL,
        passages jsonb NOT NULL DEFAULT '[]',
        judge jsonb NULL,
        tokens integer NOT NULL DEFAULT 0,
        latency_ms integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (run_id, case_id),
        FOREIGN KEY (run_id, case_id) REFERENCES evaluations.run_cases (run_id, case_id) ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA evaluations CASCADE`);
  }
}
