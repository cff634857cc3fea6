import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AnswerLength, BehaviourSettings, BotModelChoice } from '@sa/contracts';

/** A bot's behaviour row; the defaults when the bot has none. */
export interface BehaviourRow extends BehaviourSettings, BotModelChoice {
  chatbot_id: string;
  updated_at: Date | null;
}

/** The columns of a bot `b` joined with its behaviour `h`, defaults filled in. */
export const BEHAVIOUR_COLUMNS = `coalesce(h.instructions, '') AS instructions, h.fallback_reply,
  coalesce(h.answer_length, 'normal') AS answer_length, coalesce(h.starter_questions, '{}') AS starter_questions,
  h.model_connection_id, h.temperature`;
export const BEHAVIOUR_JOIN = `LEFT JOIN bots.behaviour h ON h.chatbot_id = b.id`;

/** Picks the behaviour out of a row selected with BEHAVIOUR_COLUMNS. */
export function behaviourOf(r: { instructions: string; fallback_reply: string | null; answer_length: string; starter_questions: string[] }): BehaviourSettings {
  return { instructions: r.instructions, fallback_reply: r.fallback_reply, answer_length: r.answer_length as AnswerLength, starter_questions: r.starter_questions };
}

/** Picks the model choice out of a row selected with BEHAVIOUR_COLUMNS (real comes back as a number). */
export function modelChoiceOf(r: { model_connection_id: string | null; temperature: number | string | null }): BotModelChoice {
  return { model_connection_id: r.model_connection_id, temperature: r.temperature === null ? null : Math.round(Number(r.temperature) * 100) / 100 };
}

/** bots.behaviour: every read takes the tenant id. */
@Injectable()
export class BehaviourRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async find(tenantId: string, botId: string): Promise<BehaviourRow | null> {
    const rows: (BehaviourRow & { chatbot_id: string })[] = await this.ds.query(
      `SELECT b.id AS chatbot_id, ${BEHAVIOUR_COLUMNS}, h.updated_at FROM bots.bots b ${BEHAVIOUR_JOIN} WHERE b.id = $1 AND b.tenant_id = $2`,
      [botId, tenantId],
    );
    const r = rows[0];
    return r ? { chatbot_id: r.chatbot_id, ...behaviourOf(r), ...modelChoiceOf(r), updated_at: r.updated_at } : null;
  }

  /** Writes the behaviour of a bot of the tenant (the caller checked it). */
  async save(tenantId: string, botId: string, s: BehaviourSettings & BotModelChoice): Promise<void> {
    await this.ds.query(
      `INSERT INTO bots.behaviour (chatbot_id, tenant_id, instructions, fallback_reply, answer_length, starter_questions, model_connection_id, temperature)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8)
       ON CONFLICT (chatbot_id) DO UPDATE SET instructions = EXCLUDED.instructions, fallback_reply = EXCLUDED.fallback_reply,
         answer_length = EXCLUDED.answer_length, starter_questions = EXCLUDED.starter_questions,
         model_connection_id = EXCLUDED.model_connection_id, temperature = EXCLUDED.temperature, updated_at = clock_timestamp()`,
      [botId, tenantId, s.instructions, s.fallback_reply, s.answer_length, s.starter_questions, s.model_connection_id, s.temperature],
    );
  }
}
