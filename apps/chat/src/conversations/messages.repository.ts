import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { PassageView } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { questionKey } from '../analytics/question-key';
import { passageRecords } from './message-passages';
import { ChatFeedback, ChatMessageRow, ChatMessageView, ChatRole, MESSAGE_COLUMNS, MESSAGE_ORDER, MESSAGE_ORDER_DESC, toChatMessageView } from './conversations.views';

/** Longest session preview (characters): the start of the session's first user message. */
export const PREVIEW_MAX = 200;

/** Both turns of one exchange, stored together once the reply is complete. */
export interface NewTurn {
  tenantId: string;
  chatbotId: string | null;
  sessionId: string;
  /** `api` for POST /v1/chat, `widget` for the widget. */
  channel: string;
  /** providerMessageId: the channel's id of the visitor's message (issue 35), unique per channel and workspace. */
  user: { content: string; language: string | null; providerMessageId?: string | null };
  assistant: {
    content: string;
    sourceUrls: string[] | null;
    unanswered: boolean;
    providerMessageId?: string | null;
    /** The passages the turn was given (issue 32, "Why this answer"); stored clipped (passageRecords). Absent: NULL, none recorded. */
    passages?: readonly PassageView[];
    /** The tokens the provider reported for the answer (issue 32); absent or null: no report. */
    tokens?: { prompt: number; completion: number } | null;
  };
}

export interface StoredTurn {
  userMessage: ChatMessageView;
  assistantMessage: ChatMessageView;
}

export interface HistoryMessage {
  role: ChatRole;
  content: string;
}

/** Who holds a reservation (issue 36): the turn it is for and the replica answering it. */
export interface ReservationHold {
  turnId: string;
  holder: string;
}

/**
 * The reservation row of a reserve statement: $4 turn, $5 holder, $6 bot, $7 bucket; written only
 * when the message was counted (it reads `counted`) and the caller holds it.
 */
const HOLD_CTE = `held AS (
         INSERT INTO chat.turn_reservations (turn_id, tenant_id, chatbot_id, bucket, month, holder)
         SELECT $4::uuid, $1, $6::uuid, $7, $2::date, $5 FROM counted WHERE $4::uuid IS NOT NULL
         RETURNING 1
       )`;

/**
 * One statement that ends the reservations `deleteReturning` (a DELETE of chat.turn_reservations)
 * removes and gives each one's message back to its bucket, never below zero; `released` counts them.
 */
function giveBack(deleteReturning: string): string {
  return `WITH gone AS (${deleteReturning} RETURNING tenant_id, chatbot_id, bucket, month),
     ws AS (
       UPDATE chat.usage u SET messages = GREATEST(u.messages - g.n, 0)
         FROM (SELECT tenant_id, month, count(*)::int AS n FROM gone WHERE bucket = 'workspace' GROUP BY 1, 2) g
        WHERE u.tenant_id = g.tenant_id AND u.month = g.month
       RETURNING 1
     ),
     widget AS (
       UPDATE chat.widget_usage u SET messages = GREATEST(u.messages - g.n, 0)
         FROM (SELECT tenant_id, chatbot_id, month, count(*)::int AS n FROM gone WHERE bucket = 'widget' GROUP BY 1, 2, 3) g
        WHERE u.tenant_id = g.tenant_id AND u.chatbot_id = g.chatbot_id AND u.month = g.month
       RETURNING 1
     )
   SELECT count(*)::int AS released FROM gone`;
}

export interface QuotaReservation {
  /** True when a message was counted; false when the month's quota was already used up. */
  ok: boolean;
  /** Messages counted this month, this one included when ok. */
  used: number;
}

/** First day of `now`'s calendar month in UTC, as YYYY-MM-DD. */
export function usageMonth(now: Date): string {
  return `${now.getUTCFullYear().toString().padStart(4, '0')}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

/** Writes of chat.messages, chat.sessions, chat.usage and chat.widget_usage. Every method names the tenant. */
@Injectable()
export class MessagesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /**
   * Stores the user's message and the reply, and creates or updates the session summary
   * (message_count + 2, first_at/last_at, preview from the first user message): one statement,
   * so it is atomic even outside a transaction. The session keeps the chatbot and channel of its
   * first turn. Concurrent turns of one session serialise on the session row.
   */
  async insertTurn(m: EntityManager, t: NewTurn): Promise<StoredTurn> {
    const rows = await queryRows<ChatMessageRow>(
      m,
      `WITH inserted AS (
         INSERT INTO chat.messages (tenant_id, chatbot_id, session_id, channel, role, content, language, question_key, source_urls, unanswered, provider_message_id, passages, prompt_tokens, completion_tokens)
         VALUES ($1, $2, $3, $4, 'user', $5, $6, $7, NULL, false, $15, NULL, NULL, NULL),
                ($1, $2, $3, $4, 'assistant', $8, NULL, NULL, $9::text[], $10, $11, $12::jsonb, $13::int, $14::int)
         RETURNING ${MESSAGE_COLUMNS}
       ), session AS (
         INSERT INTO chat.sessions AS s (tenant_id, session_id, chatbot_id, channel, message_count, first_at, last_at, preview)
         SELECT $1, $3, $2, $4, 2, min(created_at), max(created_at), left($5, ${PREVIEW_MAX}) FROM inserted
         ON CONFLICT (tenant_id, session_id) DO UPDATE
           SET message_count = s.message_count + EXCLUDED.message_count,
               first_at = least(s.first_at, EXCLUDED.first_at),
               last_at = greatest(s.last_at, EXCLUDED.last_at),
               preview = coalesce(s.preview, EXCLUDED.preview)
       )
       SELECT * FROM inserted`,
      [
        t.tenantId,
        t.chatbotId,
        t.sessionId,
        t.channel,
        t.user.content,
        t.user.language,
        questionKey(t.user.content),
        t.assistant.content,
        t.assistant.sourceUrls,
        t.assistant.unanswered,
        t.assistant.providerMessageId ?? null,
        t.assistant.passages ? JSON.stringify(passageRecords(t.assistant.passages)) : null,
        t.assistant.tokens?.prompt ?? null,
        t.assistant.tokens?.completion ?? null,
        t.user.providerMessageId ?? null,
      ],
    );
    const user = rows.find((r) => r.role === 'user');
    const assistant = rows.find((r) => r.role === 'assistant');
    if (!user || !assistant) throw new Error('insertTurn: the insert returned no rows');
    return { userMessage: toChatMessageView(user), assistantMessage: toChatMessageView(assistant) };
  }

  /**
   * Issue 35: the visitor's message a channel delivered before (same provider id, channel and
   * session), and the reply stored after it (null: none, e.g. a person held the session).
   */
  async byProviderMessageId(tenantId: string, sessionId: string, channel: string, providerMessageId: string): Promise<{ user: ChatMessageView; reply: ChatMessageView | null } | null> {
    const [user] = await queryRows<ChatMessageRow>(
      this.ds.manager,
      `SELECT ${MESSAGE_COLUMNS} FROM chat.messages
        WHERE tenant_id = $1 AND channel = $2 AND provider_message_id = $3 AND role = 'user' AND session_id = $4`,
      [tenantId, channel, providerMessageId, sessionId],
    );
    if (!user) return null;
    const [reply] = await queryRows<ChatMessageRow>(
      this.ds.manager,
      `SELECT ${MESSAGE_COLUMNS} FROM chat.messages
        WHERE tenant_id = $1 AND session_id = $2 AND role = 'assistant' AND created_at >= $3::timestamptz AND id <> $4::uuid
        ORDER BY ${MESSAGE_ORDER} LIMIT 1`,
      [tenantId, sessionId, user.created_at, user.id],
    );
    return { user: toChatMessageView(user), reply: reply ? toChatMessageView(reply) : null };
  }

  /** The last `limit` messages of the session, oldest first: the context of the next reply. */
  async history(tenantId: string, sessionId: string, limit: number): Promise<HistoryMessage[]> {
    return this.ds.query(
      `SELECT role, content FROM (
         SELECT id, role, content, created_at FROM chat.messages
          WHERE tenant_id = $1 AND session_id = $2
          ORDER BY ${MESSAGE_ORDER_DESC} LIMIT $3
       ) AS last ORDER BY ${MESSAGE_ORDER}`,
      [tenantId, sessionId, limit],
    );
  }

  /**
   * The bot of an existing session (null: a session without a bot), or undefined when the
   * workspace has no such session: for access checks of bot-restricted tokens.
   */
  async sessionBot(tenantId: string, sessionId: string, m: EntityManager = this.ds.manager): Promise<string | null | undefined> {
    const [row] = await m.query(`SELECT chatbot_id FROM chat.sessions WHERE tenant_id = $1 AND session_id = $2`, [tenantId, sessionId]);
    return row ? (row.chatbot_id as string | null) : undefined;
  }

  /**
   * Counts one message against the workspace's quota of `limit` messages for `now`'s calendar
   * month (UTC). Atomic: the conditional upsert locks the month's row, so concurrent calls can
   * never count past the limit. The row lock is held until `m`'s transaction ends: reserve in a
   * short transaction of its own, not in one that spans generating the reply. With `hold`, the
   * same statement records the reservation under the turn and the replica holding it (issue 36),
   * so that releaseTurn, settleTurn or, when the replica dies, releaseOrphans ends it.
   */
  async reserveMessage(m: EntityManager, tenantId: string, limit: number, now: Date, hold?: ReservationHold): Promise<QuotaReservation> {
    const month = usageMonth(now);
    const [counted] = await queryRows<{ messages: number }>(
      m,
      `WITH counted AS (
         INSERT INTO chat.usage AS u (tenant_id, month, messages)
         SELECT $1, $2::date, 1 WHERE $3::int > 0
         ON CONFLICT (tenant_id, month) DO UPDATE SET messages = u.messages + 1 WHERE u.messages < $3::int
         RETURNING messages
       ), ${HOLD_CTE}
       SELECT messages FROM counted`,
      [tenantId, month, limit, hold?.turnId ?? null, hold?.holder ?? null, null, 'workspace'],
    );
    if (counted) return { ok: true, used: counted.messages };
    const [current] = await queryRows<{ messages: number }>(m, `SELECT messages FROM chat.usage WHERE tenant_id = $1 AND month = $2::date`, [tenantId, month]);
    return { ok: false, used: current?.messages ?? 0 };
  }

  /** Messages counted against the workspace's quota in `now`'s month (UTC): what reserveMessage counts. */
  async messagesInMonth(tenantId: string, now: Date): Promise<number> {
    const [row] = await queryRows<{ messages: number }>(this.ds, `SELECT messages FROM chat.usage WHERE tenant_id = $1 AND month = $2::date`, [tenantId, usageMonth(now)]);
    return row ? Number(row.messages) : 0;
  }

  /**
   * Gives back a message reserved for `now`'s month (pass the reservation's `now`) when no reply
   * was stored, e.g. the model failed. Never goes below zero. For a reservation without a hold.
   */
  async releaseMessage(m: EntityManager, tenantId: string, now: Date): Promise<void> {
    await m.query(`UPDATE chat.usage SET messages = messages - 1 WHERE tenant_id = $1 AND month = $2::date AND messages > 0`, [tenantId, usageMonth(now)]);
  }

  /**
   * Counts one widget chat message against the bot's widget budget of `limit` messages for `now`'s
   * calendar month (UTC), apart from the workspace's quota. Atomic in the same way as reserveMessage.
   */
  async reserveWidgetMessage(m: EntityManager, tenantId: string, chatbotId: string, limit: number, now: Date, hold?: ReservationHold): Promise<QuotaReservation> {
    const month = usageMonth(now);
    const [counted] = await queryRows<{ messages: number }>(
      m,
      `WITH counted AS (
         INSERT INTO chat.widget_usage AS u (tenant_id, chatbot_id, month, messages)
         SELECT $1, $6, $2::date, 1 WHERE $3::int > 0
         ON CONFLICT (tenant_id, chatbot_id, month) DO UPDATE SET messages = u.messages + 1 WHERE u.messages < $3::int
         RETURNING messages
       ), ${HOLD_CTE}
       SELECT messages FROM counted`,
      [tenantId, month, limit, hold?.turnId ?? null, hold?.holder ?? null, chatbotId, 'widget'],
    );
    if (counted) return { ok: true, used: counted.messages };
    const [current] = await queryRows<{ messages: number }>(m, `SELECT messages FROM chat.widget_usage WHERE tenant_id = $1 AND chatbot_id = $2 AND month = $3::date`, [
      tenantId,
      chatbotId,
      month,
    ]);
    return { ok: false, used: current?.messages ?? 0 };
  }

  /** Gives back a widget message reserved for `now`'s month (pass the reservation's `now`). Never goes below zero. For a reservation without a hold. */
  async releaseWidgetMessage(m: EntityManager, tenantId: string, chatbotId: string, now: Date): Promise<void> {
    await m.query(`UPDATE chat.widget_usage SET messages = messages - 1 WHERE tenant_id = $1 AND chatbot_id = $2 AND month = $3::date AND messages > 0`, [
      tenantId,
      chatbotId,
      usageMonth(now),
    ]);
  }

  /** Gives back the message a turn reserved with a hold, once: false when it was settled or given back already. */
  async releaseTurn(m: EntityManager, turnId: string): Promise<boolean> {
    const [row] = await queryRows<{ released: number }>(m, giveBack(`DELETE FROM chat.turn_reservations WHERE turn_id = $1`), [turnId]);
    return (row?.released ?? 0) > 0;
  }

  /** The turn was stored: its reservation stays counted and is no longer open. Call in the transaction that stores it. */
  async settleTurn(m: EntityManager, turnId: string): Promise<void> {
    await m.query(`DELETE FROM chat.turn_reservations WHERE turn_id = $1`, [turnId]);
  }

  /** This replica is alive (issue 36); first call: it exists. */
  async heartbeat(replicaId: string): Promise<void> {
    await this.ds.query(`INSERT INTO chat.replicas (id, seen_at) VALUES ($1, now()) ON CONFLICT (id) DO UPDATE SET seen_at = now()`, [replicaId]);
  }

  /** This replica stops: its own reservations (none once its turns ended) are given back, and it is gone. */
  async leave(replicaId: string): Promise<number> {
    const [row] = await queryRows<{ released: number }>(this.ds, giveBack(`DELETE FROM chat.turn_reservations WHERE holder = $1`), [replicaId]);
    await this.ds.query(`DELETE FROM chat.replicas WHERE id = $1`, [replicaId]);
    return row?.released ?? 0;
  }

  /**
   * Gives back the reservations of replicas silent for `orphanMs` (killed, or gone without a
   * word), made at least `orphanMs` ago, and forgets replicas silent for a day. Returns how many
   * messages were given back. Any replica may run it; concurrent runs give each back once (the
   * DELETE takes each row once).
   */
  async releaseOrphans(orphanMs: number): Promise<number> {
    const [row] = await queryRows<{ released: number }>(
      this.ds,
      giveBack(
        `DELETE FROM chat.turn_reservations r
          WHERE r.reserved_at < now() - make_interval(secs => $1::double precision / 1000)
            AND NOT EXISTS (SELECT 1 FROM chat.replicas p WHERE p.id = r.holder AND p.seen_at >= now() - make_interval(secs => $1::double precision / 1000))`,
      ),
      [orphanMs],
    );
    await this.ds.query(`DELETE FROM chat.replicas WHERE seen_at < now() - interval '1 day'`);
    return row?.released ?? 0;
  }

  /**
   * Records (or with null clears) the visitor's feedback on an assistant message of the session.
   * False when the workspace has no such assistant message in that session.
   */
  async setFeedback(tenantId: string, sessionId: string, messageId: string, feedback: ChatFeedback | null): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `UPDATE chat.messages SET feedback = $4
        WHERE tenant_id = $1 AND session_id = $2 AND id = $3 AND role = 'assistant'
        RETURNING id`,
      [tenantId, sessionId, messageId, feedback],
    );
    return rows.length > 0;
  }
}
