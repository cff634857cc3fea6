import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { StoredMessage } from '@langchain/core/messages';
import { DataSource, EntityManager } from 'typeorm';
import type { LoopTool, ToolCallRecord } from './tool-loop';

/** The result kept with a call record (the model got up to the action's own cap). */
export const RECORDED_RESULT_MAX = 1000;

/** A call of a turn to store: what the loop reported, and where the tool came from. */
export interface CallToStore {
  record: ToolCallRecord;
  source: LoopTool['source'];
}

/** The call a session's last answer waits on (chat.pending_actions). */
export interface PendingAction {
  chatbot_id: string | null;
  call_id: string;
  action_name: string;
  input: Record<string, unknown>;
  after_tool_result: boolean;
  /** The turn's model messages up to the call (langchain's stored form). */
  messages: StoredMessage[];
  language: string;
  /** When the answer started waiting (ISO; set by the database). */
  created_at?: string;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The calls of each turn (chat.action_calls) and the call a conversation waits on
 * (chat.pending_actions), both written in the turn's own transaction (issue 34, "Records"). A
 * call waiting for the visitor is one row, updated in place when the visitor decides (or moves on).
 */
@Injectable()
export class ActionCallsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Stores the calls of a turn with its assistant message. */
  async insert(m: EntityManager, at: { tenantId: string; chatbotId: string | null; sessionId: string; messageId: string }, calls: readonly CallToStore[]): Promise<void> {
    for (const { record, source } of calls) {
      const o = record.outcome;
      await m.query(
        `INSERT INTO chat.action_calls (tenant_id, chatbot_id, session_id, message_id, call_id, action_name, source, input, state, ok, http_status, error, duration_ms, result)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          at.tenantId,
          at.chatbotId,
          at.sessionId,
          at.messageId,
          clip(record.id, 200),
          clip(record.name, 200),
          source,
          JSON.stringify(record.input),
          record.state,
          o ? o.ok : null,
          o?.status ?? null,
          clip(o?.error ?? record.refusal ?? '', 100) || null,
          Math.max(0, Math.round(o?.duration_ms ?? 0)),
          clip(o?.result ?? '', RECORDED_RESULT_MAX),
        ],
      );
    }
  }

  /** The waiting call's row becomes what the visitor's decision came to. */
  async resolve(m: EntityManager, tenantId: string, sessionId: string, callId: string, to: { state: 'ran' | 'cancelled' | 'refused'; record?: ToolCallRecord; error?: string }): Promise<void> {
    const o = to.record?.outcome ?? null;
    await m.query(
      `UPDATE chat.action_calls SET state = $4, ok = $5, http_status = $6, error = $7, duration_ms = $8, result = $9
        WHERE tenant_id = $1 AND session_id = $2 AND call_id = $3 AND state = 'awaiting_confirmation'`,
      [tenantId, sessionId, callId, to.state, o ? o.ok : null, o?.status ?? null, clip(o?.error ?? to.error ?? to.record?.refusal ?? '', 100) || null, Math.max(0, Math.round(o?.duration_ms ?? 0)), clip(o?.result ?? '', RECORDED_RESULT_MAX)],
    );
  }

  /** The session's answer now waits on this call (replacing any earlier one). */
  async setPending(m: EntityManager, tenantId: string, sessionId: string, p: PendingAction): Promise<void> {
    await m.query(
      `INSERT INTO chat.pending_actions (tenant_id, session_id, chatbot_id, call_id, action_name, input, after_tool_result, messages, language)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (tenant_id, session_id) DO UPDATE SET chatbot_id = EXCLUDED.chatbot_id, call_id = EXCLUDED.call_id, action_name = EXCLUDED.action_name,
         input = EXCLUDED.input, after_tool_result = EXCLUDED.after_tool_result, messages = EXCLUDED.messages, language = EXCLUDED.language, created_at = clock_timestamp()`,
      [tenantId, sessionId, p.chatbot_id, p.call_id, p.action_name, JSON.stringify(p.input), p.after_tool_result, JSON.stringify(p.messages), p.language],
    );
  }

  /**
   * Takes the session's waiting call away and returns it: only when it is `callId` (a decision on
   * it), or whichever waits (callId null: the visitor moved on). One statement: of two turns
   * racing for the same call, one gets it.
   */
  async takePending(tenantId: string, sessionId: string, callId: string | null): Promise<PendingAction | null> {
    const rows: PendingAction[] = await this.ds.query(
      `WITH gone AS (
         DELETE FROM chat.pending_actions WHERE tenant_id = $1 AND session_id = $2 AND ($3::text IS NULL OR call_id = $3)
         RETURNING chatbot_id, call_id, action_name, input, after_tool_result, messages, language, created_at
       )
       SELECT * FROM gone`,
      [tenantId, sessionId, callId],
    );
    return rows[0] ?? null;
  }
}
