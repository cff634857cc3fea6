import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { EVAL_CASES_MAX, EVAL_SET_MAX_BYTES, EvalCaseSource, EvalCaseView, EvalSettingsView } from '@sa/contracts';
import { isUniqueViolation, queryRows } from '@sa/db';
import { DomainError, NotFound } from '@sa/errors';
import type { CaseLine } from './case-files';

interface CaseRow {
  id: string;
  question: string;
  language: string | null;
  expect: EvalCaseView['expect'];
  facts: string[];
  note: string | null;
  source: EvalCaseSource;
  created_at: Date;
  updated_at: Date;
}

interface SettingsRow {
  chatbot_id: string;
  min_pass_rate: number | null;
  auto_run: boolean;
  judge: boolean;
}

const CASE_COLUMNS = 'id, question, language, expect, facts, note, source, created_at, updated_at';

export function toCaseView(r: CaseRow): EvalCaseView {
  return { id: r.id, question: r.question, language: r.language, expect: r.expect, facts: r.facts, note: r.note, source: r.source, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() };
}

const duplicate = () => new DomainError('conflict', "The bot's test set already has this question (in this language)");
const full = () => new DomainError('conflict', `A bot's test set holds at most ${EVAL_CASES_MAX} cases`);

/** A bot's test set and its settings (schema evaluations). Every method takes the workspace id. */
@Injectable()
export class CasesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async list(tenantId: string, botId: string): Promise<EvalCaseView[]> {
    const rows = await queryRows<CaseRow>(this.ds, `SELECT ${CASE_COLUMNS} FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2 ORDER BY created_at, id`, [tenantId, botId]);
    return rows.map(toCaseView);
  }

  async count(tenantId: string, botId: string): Promise<number> {
    const [r] = await queryRows<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
    return r?.n ?? 0;
  }

  /** The bot's settings row, made when missing and locked: writes to one bot's set take turns (the case limit). */
  private async lockBot(m: EntityManager, tenantId: string, botId: string): Promise<void> {
    await m.query(`INSERT INTO evaluations.settings (tenant_id, chatbot_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [tenantId, botId]);
    await m.query(`SELECT 1 FROM evaluations.settings WHERE tenant_id = $1 AND chatbot_id = $2 FOR UPDATE`, [tenantId, botId]);
  }

  /**
   * Refuses (409, the transaction rolls back) a test set whose text passes EVAL_SET_MAX_BYTES: the
   * set is listed and exported in one NATS message, which holds 1 MB at most.
   */
  private async checkSize(m: EntityManager, tenantId: string, botId: string): Promise<void> {
    const [{ bytes }] = await queryRows<{ bytes: number }>(
      m,
      `SELECT coalesce(sum(octet_length(question) + coalesce(octet_length(note), 0) + coalesce((SELECT sum(octet_length(f)) FROM unnest(facts) AS f), 0)), 0)::int AS bytes
         FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`,
      [tenantId, botId],
    );
    if (bytes > EVAL_SET_MAX_BYTES) throw new DomainError('conflict', `A bot's test set holds at most ${EVAL_SET_MAX_BYTES / 1024} KiB of text (questions, facts and notes); this change would make it ${Math.ceil(bytes / 1024)} KiB. Nothing was changed.`);
  }

  async create(tenantId: string, botId: string, c: CaseLine, source: EvalCaseSource): Promise<EvalCaseView> {
    try {
      return await this.ds.transaction(async (m) => {
        await this.lockBot(m, tenantId, botId);
        const [{ n }] = await queryRows<{ n: number }>(m, `SELECT count(*)::int AS n FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
        if (n >= EVAL_CASES_MAX) throw full();
        const [row] = await queryRows<CaseRow>(
          m,
          `INSERT INTO evaluations.cases (tenant_id, chatbot_id, question, language, expect, facts, note, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${CASE_COLUMNS}`,
          [tenantId, botId, c.question, c.language, c.expect, c.facts, c.note, source],
        );
        await this.checkSize(m, tenantId, botId);
        return toCaseView(row!);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'cases_question_key')) throw duplicate();
      throw err;
    }
  }

  async find(tenantId: string, botId: string, caseId: string): Promise<EvalCaseView | null> {
    const [row] = await queryRows<CaseRow>(this.ds, `SELECT ${CASE_COLUMNS} FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3`, [tenantId, botId, caseId]);
    return row ? toCaseView(row) : null;
  }

  async update(tenantId: string, botId: string, caseId: string, c: CaseLine): Promise<EvalCaseView> {
    try {
      return await this.ds.transaction(async (m) => {
        await this.lockBot(m, tenantId, botId);
        const [row] = await queryRows<CaseRow>(
          m,
          `UPDATE evaluations.cases SET question = $4, language = $5, expect = $6, facts = $7, note = $8, updated_at = clock_timestamp()
            WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3 RETURNING ${CASE_COLUMNS}`,
          [tenantId, botId, caseId, c.question, c.language, c.expect, c.facts, c.note],
        );
        if (!row) throw new NotFound('Case');
        await this.checkSize(m, tenantId, botId);
        return toCaseView(row);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'cases_question_key')) throw duplicate();
      throw err;
    }
  }

  async delete(tenantId: string, botId: string, caseId: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(this.ds, `DELETE FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3 RETURNING id`, [tenantId, botId, caseId]);
    return rows.length > 0;
  }

  /**
   * Adds the cases (append: a question the set already has is skipped) or makes them the set
   * (replace), in one transaction: all or nothing. Returns how many were added and the set's size.
   */
  async import(tenantId: string, botId: string, cases: readonly CaseLine[], mode: 'append' | 'replace'): Promise<{ imported: number; total: number }> {
    return this.ds.transaction(async (m) => {
      await this.lockBot(m, tenantId, botId);
      if (mode === 'replace') await m.query(`DELETE FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
      let imported = 0;
      for (let i = 0; i < cases.length; i += 200) {
        const batch = cases.slice(i, i + 200);
        const rows = await queryRows<{ id: string }>(
          m,
          `INSERT INTO evaluations.cases (tenant_id, chatbot_id, question, language, expect, facts, note, source, created_at)
           SELECT $1, $2, c.e->>'question', c.e->>'language', c.e->>'expect', ARRAY(SELECT jsonb_array_elements_text(c.e->'facts')), c.e->>'note', 'import', clock_timestamp() + (c.ord * interval '1 microsecond')
             FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS c(e, ord)
           ON CONFLICT DO NOTHING RETURNING id`,
          [tenantId, botId, JSON.stringify(batch)],
        );
        imported += rows.length;
      }
      const [{ n }] = await queryRows<{ n: number }>(m, `SELECT count(*)::int AS n FROM evaluations.cases WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
      if (n > EVAL_CASES_MAX) throw new DomainError('conflict', `A bot's test set holds at most ${EVAL_CASES_MAX} cases: with this import it would have ${n}. Nothing was imported.`);
      await this.checkSize(m, tenantId, botId);
      return { imported, total: n };
    });
  }

  async settings(tenantId: string, botId: string): Promise<EvalSettingsView> {
    const [row] = await queryRows<SettingsRow>(this.ds, `SELECT chatbot_id, min_pass_rate, auto_run, judge FROM evaluations.settings WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
    return row ?? { chatbot_id: botId, min_pass_rate: null, auto_run: true, judge: false };
  }

  async updateSettings(tenantId: string, botId: string, change: { min_pass_rate?: number | null; auto_run?: boolean; judge?: boolean }): Promise<EvalSettingsView> {
    const [row] = await queryRows<SettingsRow>(
      this.ds,
      `INSERT INTO evaluations.settings AS s (tenant_id, chatbot_id, min_pass_rate, auto_run, judge) VALUES ($1, $2, $4, coalesce($5, true), coalesce($6, false))
       ON CONFLICT (tenant_id, chatbot_id) DO UPDATE SET
         min_pass_rate = CASE WHEN $3 THEN $4 ELSE s.min_pass_rate END,
         auto_run = coalesce($5, s.auto_run),
         judge = coalesce($6, s.judge),
         updated_at = clock_timestamp()
       RETURNING chatbot_id, min_pass_rate, auto_run, judge`,
      [tenantId, botId, change.min_pass_rate !== undefined, change.min_pass_rate ?? null, change.auto_run ?? null, change.judge ?? null],
    );
    return row!;
  }
}
