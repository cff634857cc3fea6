import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { HandoffKind, HandoffMessageView, HandoffPerson, HandoffState, HandoffView, WidgetReplyView } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { MESSAGE_ORDER } from '../conversations/conversations.views';
import { PREVIEW_MAX } from '../conversations/messages.repository';

interface HandoffRow {
  session_id: string;
  chatbot_id: string | null;
  channel: string;
  state: HandoffState;
  kind: HandoffKind;
  reason: string | null;
  question: string | null;
  requested_at: Date;
  taken_by_id: string | null;
  taken_by_label: string | null;
  taken_at: Date | null;
  released_at: Date | null;
}

interface MessageRow {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  author_kind: 'person' | null;
  author_label: string | null;
  created_at: Date;
}

const HANDOFF_COLUMNS = 'session_id, chatbot_id, channel, state, kind, reason, question, requested_at, taken_by_id, taken_by_label, taken_at, released_at';
/** Most sessions the queue lists. */
const QUEUE_MAX = 200;
/** Most messages of a transcript. */
const TRANSCRIPT_MAX = 500;

/** SQL: a timestamptz as ISO 8601 in UTC with microseconds (a cursor that loses no precision). */
const ISO_US = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

export function toHandoffView(r: HandoffRow): HandoffView {
  return {
    session_id: r.session_id,
    chatbot_id: r.chatbot_id,
    channel: r.channel,
    state: r.state,
    kind: r.kind,
    reason: r.reason,
    question: r.question,
    requested_at: new Date(r.requested_at).toISOString(),
    taken_by_id: r.taken_by_id,
    taken_by_label: r.taken_by_label,
    taken_at: iso(r.taken_at),
    released_at: iso(r.released_at),
  };
}

function toMessage(r: MessageRow): HandoffMessageView {
  return { id: r.id, role: r.role, content: r.content, author_kind: r.author_kind, author_label: r.author_label, created_at: new Date(r.created_at).toISOString() };
}

export interface NewHandoff {
  tenantId: string;
  sessionId: string;
  chatbotId: string | null;
  channel: string;
  kind: HandoffKind;
  reason: string | null;
  question: string | null;
}

/** chat.handoffs and the messages a person writes. Every method names the tenant. */
@Injectable()
export class HandoffRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Puts the session in the queue: a new row, or a released one requested again. A session already
   * requested or taken keeps its state (a second request changes nothing). True when it (re)entered the queue.
   */
  async request(m: EntityManager, h: NewHandoff): Promise<boolean> {
    const rows = await queryRows<{ session_id: string }>(
      m,
      `INSERT INTO chat.handoffs AS h (tenant_id, session_id, chatbot_id, channel, state, kind, reason, question)
       VALUES ($1, $2, $3, $4, 'requested', $5, $6, $7)
       ON CONFLICT (tenant_id, session_id) DO UPDATE
         SET state = 'requested', kind = EXCLUDED.kind, reason = EXCLUDED.reason, question = EXCLUDED.question,
             requested_at = clock_timestamp(), taken_by_id = NULL, taken_by_label = NULL, taken_at = NULL, released_at = NULL
         WHERE h.state = 'released'
       RETURNING session_id`,
      [h.tenantId, h.sessionId, h.chatbotId, h.channel, h.kind, h.reason?.slice(0, 500) ?? null, h.question],
    );
    return rows.length > 0;
  }

  async get(tenantId: string, sessionId: string, m: EntityManager = this.ds.manager, lock = false): Promise<HandoffView | null> {
    const [row] = await queryRows<HandoffRow>(m, `SELECT ${HANDOFF_COLUMNS} FROM chat.handoffs WHERE tenant_id = $1 AND session_id = $2${lock ? ' FOR UPDATE' : ''}`, [tenantId, sessionId]);
    return row ? toHandoffView(row) : null;
  }

  /** Open handoffs (requested, taken) oldest request first; with `all`, the handed-back ones after them. */
  async queue(tenantId: string, botIds: string[] | null, all: boolean): Promise<HandoffView[]> {
    const rows = await queryRows<HandoffRow>(
      this.ds,
      `SELECT ${HANDOFF_COLUMNS} FROM chat.handoffs
        WHERE tenant_id = $1 AND ($2::uuid[] IS NULL OR chatbot_id = ANY($2::uuid[])) AND ($3 OR state <> 'released')
        ORDER BY state = 'released', requested_at, session_id
        LIMIT ${QUEUE_MAX}`,
      [tenantId, botIds, all],
    );
    return rows.map(toHandoffView);
  }

  async setState(m: EntityManager, tenantId: string, sessionId: string, state: 'taken' | 'released', person: HandoffPerson | null): Promise<HandoffView> {
    const [row] = await queryRows<HandoffRow>(
      m,
      state === 'taken'
        ? `UPDATE chat.handoffs SET state = 'taken', taken_by_id = $3, taken_by_label = $4, taken_at = clock_timestamp(), released_at = NULL
            WHERE tenant_id = $1 AND session_id = $2 RETURNING ${HANDOFF_COLUMNS}`
        : `UPDATE chat.handoffs SET state = 'released', taken_by_id = NULL, released_at = clock_timestamp()
            WHERE tenant_id = $1 AND session_id = $2 RETURNING ${HANDOFF_COLUMNS}`,
      state === 'taken' ? [tenantId, sessionId, person!.id, person!.label] : [tenantId, sessionId],
    );
    if (!row) throw new Error('setState: no handoff row');
    return toHandoffView(row);
  }

  /** Who holds the session now (null: the bot answers). */
  async takenBy(tenantId: string, sessionId: string): Promise<string | null> {
    const [row] = await queryRows<{ taken_by_label: string | null }>(this.ds, `SELECT taken_by_label FROM chat.handoffs WHERE tenant_id = $1 AND session_id = $2 AND state = 'taken'`, [tenantId, sessionId]);
    return row ? (row.taken_by_label ?? '') : null;
  }

  /** The session's messages, oldest first (the first TRANSCRIPT_MAX). */
  async transcript(tenantId: string, sessionId: string): Promise<HandoffMessageView[]> {
    const rows = await queryRows<MessageRow>(
      this.ds,
      `SELECT id, role, content, author_kind, author_label, created_at FROM chat.messages WHERE tenant_id = $1 AND session_id = $2 ORDER BY ${MESSAGE_ORDER} LIMIT ${TRANSCRIPT_MAX}`,
      [tenantId, sessionId],
    );
    return rows.map(toMessage);
  }

  /**
   * A person's replies in the session written after `after` (an ISO time, microseconds kept; null:
   * the last `windowMs`), and the cursor for the next call: the last reply's time, to the
   * microsecond, or `after` itself when there was none.
   */
  async repliesAfter(tenantId: string, sessionId: string, after: string | null, windowMs: number): Promise<{ replies: WidgetReplyView[]; cursor: string }> {
    const rows = await queryRows<MessageRow & { since: string; at: string }>(
      this.ds,
      `WITH since AS (SELECT coalesce($3::timestamptz, clock_timestamp() - make_interval(secs => $4::int / 1000.0)) AS t)
       SELECT m.id, m.role, m.content, m.author_kind, m.author_label, m.created_at,
              ${ISO_US('since.t')} AS since, ${ISO_US('m.created_at')} AS at
         FROM since LEFT JOIN chat.messages m
           ON m.tenant_id = $1 AND m.session_id = $2 AND m.author_kind = 'person' AND m.created_at > since.t
        ORDER BY m.created_at, m.id LIMIT 100`,
      [tenantId, sessionId, after, windowMs],
    );
    const replies = rows.filter((r) => r.id !== null);
    return {
      replies: replies.map((r) => ({ id: r.id, content: r.content, author_label: r.author_label, created_at: new Date(r.created_at).toISOString() })),
      cursor: replies.length ? replies[replies.length - 1]!.at : rows[0]!.since,
    };
  }

  /**
   * Stores one message of the session alone (a person's reply, or the visitor's message while a
   * person holds the session) and counts it in the session summary, as insertTurn does for two.
   */
  async insertMessage(
    m: EntityManager,
    t: { tenantId: string; chatbotId: string | null; sessionId: string; channel: string; role: 'user' | 'assistant'; content: string; language: string | null; questionKey: string | null; author: HandoffPerson | null; providerMessageId?: string | null },
  ): Promise<HandoffMessageView> {
    const [row] = await queryRows<MessageRow>(
      m,
      `WITH inserted AS (
         INSERT INTO chat.messages (tenant_id, chatbot_id, session_id, channel, role, content, language, question_key, source_urls, unanswered, author_kind, author_label, provider_message_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, false, $9, $10, $11)
         RETURNING id, role, content, author_kind, author_label, created_at
       ), session AS (
         INSERT INTO chat.sessions AS s (tenant_id, session_id, chatbot_id, channel, message_count, first_at, last_at, preview)
         SELECT $1, $3, $2, $4, 1, created_at, created_at, CASE WHEN $5 = 'user' THEN left($6, ${PREVIEW_MAX}) END FROM inserted
         ON CONFLICT (tenant_id, session_id) DO UPDATE
           SET message_count = s.message_count + 1,
               first_at = least(s.first_at, EXCLUDED.first_at),
               last_at = greatest(s.last_at, EXCLUDED.last_at),
               preview = coalesce(s.preview, EXCLUDED.preview)
       )
       SELECT * FROM inserted`,
      [t.tenantId, t.chatbotId, t.sessionId, t.channel, t.role, t.content, t.language, t.questionKey, t.author ? 'person' : null, t.author?.label ?? null, t.providerMessageId ?? null],
    );
    if (!row) throw new Error('insertMessage: the insert returned no row');
    return toMessage(row);
  }
}
