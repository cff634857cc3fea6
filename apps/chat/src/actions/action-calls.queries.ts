import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ACTION_RECORDS_PER_TRANSCRIPT_MAX, ActionCountsView, ActionCountView, ActionRecordSource, ActionRecordState, SessionActionCall } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { ANALYTICS_DAYS, AnalyticsQuery, analyticsWindow } from '../analytics/analytics.repository';

/** Most rows of the Analytics page's actions table (actions of every bot, built-ins and MCP tools). */
export const ACTION_COUNTS_MAX = 200;

interface CallRow {
  id: string;
  message_id: string;
  name: string;
  source: ActionRecordSource;
  state: ActionRecordState;
  ok: boolean | null;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  result: string;
  input: Record<string, unknown>;
  created_at: Date;
}

interface CountRow {
  name: string;
  source: ActionRecordSource;
  calls: number;
  succeeded: number;
  failed: number;
  refused: number;
  cancelled: number;
  awaiting: number;
  avg_duration_ms: number | null;
  last_called_at: Date;
}

/**
 * Reads of the action call records (chat.action_calls, issue 34 item 5; the turn writes them). Every
 * statement names the tenant. The records hold no secret (no header value ever reaches them), but
 * the input and result are the visitor's and the customer's data: the transcript's calls are for
 * owners and admins only (the handler checks it), the counts carry only names and numbers.
 */
@Injectable()
export class ActionCallsQueries {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The calls recorded with a session's assistant messages, oldest first; the latest
   * ACTION_RECORDS_PER_TRANSCRIPT_MAX when there are more. Through the session's messages (their
   * session index, then the calls' message index); a call without a message is not part of a
   * transcript.
   */
  async ofSession(tenantId: string, sessionId: string, max = ACTION_RECORDS_PER_TRANSCRIPT_MAX): Promise<SessionActionCall[]> {
    const rows = await queryRows<CallRow>(
      this.ds,
      `SELECT c.id, c.message_id, c.action_name AS name, c.source, c.state, c.ok, c.http_status, c.error, c.duration_ms, c.result, c.input, c.created_at
         FROM chat.messages m
         JOIN chat.action_calls c ON c.message_id = m.id AND c.tenant_id = m.tenant_id
        WHERE m.tenant_id = $1 AND m.session_id = $2 AND m.role = 'assistant'
        ORDER BY c.created_at DESC, c.id DESC
        LIMIT $3`,
      [tenantId, sessionId, max],
    );
    return rows.reverse().map((r) => ({
      id: r.id,
      message_id: r.message_id,
      name: r.name,
      source: r.source,
      state: r.state,
      ok: r.ok,
      http_status: r.http_status,
      error: r.error,
      duration_ms: r.duration_ms,
      result: r.result,
      input: r.input,
      created_at: new Date(r.created_at).toISOString(),
    }));
  }

  /**
   * Calls per action (name and source) over the window of the Analytics page (UTC days, today
   * included, as the question insights), most called first. `failed` is a call that ran without a
   * 2xx; the average duration counts only calls that ran (a refused or waiting call took no time).
   */
  async counts(query: AnalyticsQuery): Promise<ActionCountsView> {
    const days = query.days ?? ANALYTICS_DAYS;
    const w = analyticsWindow(query.now ?? new Date(), days);
    const rows = await queryRows<CountRow>(
      this.ds,
      `SELECT action_name AS name, source,
              count(*)::int AS calls,
              count(*) FILTER (WHERE state = 'ran' AND ok)::int AS succeeded,
              count(*) FILTER (WHERE state = 'ran' AND ok IS NOT TRUE)::int AS failed,
              count(*) FILTER (WHERE state = 'refused')::int AS refused,
              count(*) FILTER (WHERE state = 'cancelled')::int AS cancelled,
              count(*) FILTER (WHERE state = 'awaiting_confirmation')::int AS awaiting,
              round(avg(duration_ms) FILTER (WHERE state = 'ran'))::int AS avg_duration_ms,
              max(created_at) AS last_called_at
         FROM chat.action_calls
        WHERE tenant_id = $1 AND created_at >= $4::timestamptz AND created_at < $5::timestamptz
          AND ($2::uuid IS NULL OR chatbot_id = $2::uuid) AND ($3::uuid[] IS NULL OR chatbot_id = ANY ($3::uuid[]))
        GROUP BY action_name, source
        ORDER BY calls DESC, last_called_at DESC, action_name, source
        LIMIT $6`,
      [query.tenantId, query.chatbotId ?? null, query.botIds ?? null, w.start.toISOString(), w.end.toISOString(), ACTION_COUNTS_MAX],
    );
    const actions: ActionCountView[] = rows.map((r) => ({ ...r, last_called_at: new Date(r.last_called_at).toISOString() }));
    return { days, actions };
  }
}
