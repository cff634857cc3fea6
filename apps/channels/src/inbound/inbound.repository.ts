import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { ChannelKind } from '@sa/contracts';
import { queryRows } from '@sa/db';
import type { InboundMessage } from '../providers/provider';

/** A stored inbound message as the answering worker claims it, with its connection's bot. */
export interface InboundRow {
  id: string;
  connection_id: string;
  tenant_id: string;
  chatbot_id: string;
  kind: ChannelKind;
  provider_message_id: string;
  session_id: string;
  text: string;
  sender: InboundMessage['sender'];
  reply_to: Record<string, unknown>;
  attempts: number;
}

/** The chat session of an external conversation: `<kind>_` and 32 characters of a hash of the connection and the conversation. */
export function sessionIdOf(kind: ChannelKind, connectionId: string, conversationKey: string): string {
  return `${kind}_${createHash('sha256').update(`${connectionId}\n${conversationKey}`).digest('base64url').slice(0, 32)}`;
}

/** The chat message max: longer texts are cut (a provider's message can be longer than a chat message). */
const TEXT_MAX = 2000;

/**
 * channels.inbound and channels.conversations: what providers delivered, stored before they get
 * their 2xx, answered once under a lease.
 */
@Injectable()
export class InboundRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /**
   * Stores the messages (a redelivered one is kept once: the connection and the provider's id are
   * unique) and records each conversation's latest way to reply. How many were new.
   */
  async store(m: EntityManager, conn: { id: string; tenant_id: string; kind: ChannelKind }, messages: InboundMessage[]): Promise<number> {
    let added = 0;
    for (const msg of messages) {
      const text = msg.text.trim().slice(0, TEXT_MAX);
      if (!text) continue;
      const sessionId = sessionIdOf(conn.kind, conn.id, msg.conversationKey);
      const inserted = await queryRows<{ id: string }>(
        m,
        `INSERT INTO channels.inbound (connection_id, tenant_id, provider_message_id, conversation_key, session_id, text, sender, reply_to)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb)
         ON CONFLICT (connection_id, provider_message_id) DO NOTHING RETURNING id`,
        [conn.id, conn.tenant_id, msg.providerMessageId.slice(0, 500), msg.conversationKey.slice(0, 1000), sessionId, text, JSON.stringify(msg.sender), JSON.stringify(msg.replyTo)],
      );
      if (!inserted.length) continue;
      added++;
      await m.query(
        `INSERT INTO channels.conversations (connection_id, conversation_key, tenant_id, session_id, reply_to) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT (connection_id, conversation_key) DO UPDATE SET reply_to = EXCLUDED.reply_to, updated_at = clock_timestamp()`,
        [conn.id, msg.conversationKey.slice(0, 1000), conn.tenant_id, sessionId, JSON.stringify(msg.replyTo)],
      );
    }
    return added;
  }

  /**
   * Claims the next message to answer under a lease: the oldest due one whose conversation has no
   * older message waiting (a conversation's messages are answered in order, one at a time).
   */
  async claim(workerId: string, leaseMs: number): Promise<InboundRow | null> {
    const [row] = await queryRows<InboundRow>(
      this.ds.manager,
      `WITH next AS (
         SELECT i.id FROM channels.inbound i
          WHERE i.state = 'received' AND i.next_attempt_at <= clock_timestamp()
            AND (i.claimed_until IS NULL OR i.claimed_until < clock_timestamp())
            AND NOT EXISTS (
              SELECT 1 FROM channels.inbound o
               WHERE o.connection_id = i.connection_id AND o.session_id = i.session_id AND o.state = 'received' AND (o.received_at, o.id) < (i.received_at, i.id))
          ORDER BY i.next_attempt_at LIMIT 1 FOR UPDATE OF i SKIP LOCKED
       )
       UPDATE channels.inbound AS t
          SET claimed_by = $1, claimed_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000), attempts = t.attempts + 1
         FROM next, channels.connections c
        WHERE t.id = next.id AND c.id = t.connection_id
       RETURNING t.id, t.connection_id, t.tenant_id, c.chatbot_id, c.kind, t.provider_message_id, t.session_id, t.text, t.sender, t.reply_to, t.attempts`,
      [workerId, leaseMs],
    );
    return row ?? null;
  }

  /** The message's end (answered, held, skipped, failed), if this worker still holds it. */
  async finish(m: EntityManager, id: string, workerId: string, state: 'answered' | 'held' | 'skipped' | 'failed', error: string | null = null): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      m,
      `UPDATE channels.inbound SET state = $3, error = $4, done_at = clock_timestamp(), claimed_by = NULL, claimed_until = NULL
        WHERE id = $1 AND claimed_by = $2 AND state = 'received' RETURNING id`,
      [id, workerId, state, error?.slice(0, 500) ?? null],
    );
    return rows.length > 0;
  }

  /** Hands the message back, to be tried again after `delayMs`. */
  async retryLater(id: string, workerId: string, delayMs: number, error: string): Promise<void> {
    await this.ds.query(
      `UPDATE channels.inbound SET claimed_by = NULL, claimed_until = NULL, error = left($3, 500),
              next_attempt_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
        WHERE id = $1 AND claimed_by = $2`,
      [id, workerId, error, delayMs],
    );
  }

  /** Hands the message back at once (shutdown): another replica, or this one after a restart, answers it. */
  async release(id: string, workerId: string): Promise<void> {
    await this.ds.query(`UPDATE channels.inbound SET claimed_by = NULL, claimed_until = NULL, attempts = greatest(attempts - 1, 0) WHERE id = $1 AND claimed_by = $2`, [id, workerId]);
  }

  /** How to reply in a session's conversation (a person's reply from the console), or null when the session is no channel's. */
  async conversationOf(tenantId: string, sessionId: string): Promise<{ connection_id: string; reply_to: Record<string, unknown> } | null> {
    const [row] = await this.ds.query(`SELECT connection_id, reply_to FROM channels.conversations WHERE tenant_id = $1 AND session_id = $2`, [tenantId, sessionId]);
    return row ?? null;
  }
}
