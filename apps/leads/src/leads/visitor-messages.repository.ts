import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { queryRows } from '@sa/db';

/** One visitor message of a chat session, as chat.turn.completed carried it. */
export interface VisitorMessage {
  messageId: string;
  sessionId: string;
  chatbotId: string | null;
  channel: string;
  content: string;
  /** When chat stored it (ISO 8601). */
  createdAt: string;
}

interface VisitorMessageRow {
  message_id: string;
  session_id: string;
  chatbot_id: string | null;
  channel: string;
  content: string;
  created_at: Date;
}

/** Namespaces the session locks of this table among the database's advisory locks. */
const SESSION_LOCK_SEED = 7306;

/**
 * leads.visitor_messages: the leads service's copy of each session's visitor messages (the newest
 * `keep`), written and read in the chat.turn.completed consumer's transaction. Every method names
 * the tenant.
 */
@Injectable()
export class VisitorMessagesRepository {
  /**
   * Holds the session until the transaction ends: turns of one session are scored one after
   * another (across replicas), so the later one sees the earlier one's message.
   */
  async lockSession(m: EntityManager, tenantId: string, sessionId: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, ${SESSION_LOCK_SEED}))`, [`${tenantId}:${sessionId}`]);
  }

  /** Adds the message (a message added before is left as it is) and keeps only the session's newest `keep`. */
  async add(m: EntityManager, tenantId: string, msg: VisitorMessage, keep: number): Promise<void> {
    await m.query(
      `INSERT INTO leads.visitor_messages (tenant_id, message_id, session_id, chatbot_id, channel, content, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, message_id) DO NOTHING`,
      [tenantId, msg.messageId, msg.sessionId, msg.chatbotId, msg.channel, msg.content, msg.createdAt],
    );
    await m.query(
      `DELETE FROM leads.visitor_messages
        WHERE tenant_id = $1 AND session_id = $2
          AND message_id NOT IN (SELECT message_id FROM leads.visitor_messages WHERE tenant_id = $1 AND session_id = $2 ORDER BY created_at DESC, message_id DESC LIMIT $3)`,
      [tenantId, msg.sessionId, keep],
    );
  }

  /** The session's newest `limit` visitor messages, oldest first. */
  async latest(m: EntityManager, tenantId: string, sessionId: string, limit: number): Promise<VisitorMessage[]> {
    const rows = await queryRows<VisitorMessageRow>(
      m,
      `SELECT message_id, session_id, chatbot_id, channel, content, created_at FROM (
         SELECT * FROM leads.visitor_messages WHERE tenant_id = $1 AND session_id = $2 ORDER BY created_at DESC, message_id DESC LIMIT $3
       ) AS newest ORDER BY created_at, message_id`,
      [tenantId, sessionId, limit],
    );
    return rows.map((r) => ({ messageId: r.message_id, sessionId: r.session_id, chatbotId: r.chatbot_id, channel: r.channel, content: r.content, createdAt: r.created_at.toISOString() }));
  }
}
