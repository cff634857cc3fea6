import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { ChannelKind } from '@sa/contracts';
import { queryRows } from '@sa/db';

export interface DeliveryRow {
  id: string;
  connection_id: string;
  kind: ChannelKind;
  reply_to: Record<string, unknown>;
  text: string;
  attempts: number;
}

/** channels.deliveries: replies to send, one per source, sent once the provider took them. */
@Injectable()
export class DeliveriesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Queues a reply; a source queued before (a redelivered event, a retried answer) is kept once. */
  async queue(m: EntityManager, d: { connectionId: string; tenantId: string; sessionId: string; source: string; replyTo: Record<string, unknown>; text: string }): Promise<void> {
    await m.query(
      `INSERT INTO channels.deliveries (connection_id, tenant_id, session_id, source, reply_to, text) VALUES ($1, $2, $3, $4, $5::jsonb, $6) ON CONFLICT (source) DO NOTHING`,
      [d.connectionId, d.tenantId, d.sessionId, d.source, JSON.stringify(d.replyTo), d.text],
    );
  }

  /**
   * The next due reply under a lease, oldest first; a connection turned off sends nothing. Paced
   * as the providers ask: a conversation's replies go in order, one at a time, at least `gapMs`
   * apart (not e-mail), and a connection sends at most `perSecond` replies a second. A reply held
   * back by the pace is taken by a later poll.
   */
  async claim(workerId: string, leaseMs: number, pace: { gapMs: number; perSecond: number }): Promise<DeliveryRow | null> {
    const [row] = await queryRows<DeliveryRow>(
      this.ds.manager,
      `WITH next AS (
         SELECT d.id FROM channels.deliveries d JOIN channels.connections c ON c.id = d.connection_id AND c.enabled
          WHERE d.state = 'pending' AND d.next_attempt_at <= clock_timestamp() AND (d.claimed_until IS NULL OR d.claimed_until < clock_timestamp())
            AND NOT EXISTS (
              SELECT 1 FROM channels.deliveries o
               WHERE o.connection_id = d.connection_id AND o.session_id = d.session_id AND o.id <> d.id
                 AND ((o.state = 'pending' AND (o.created_at, o.id) < (d.created_at, d.id))
                   OR (c.kind <> 'email' AND o.sent_at > clock_timestamp() - make_interval(secs => $3::double precision / 1000))))
            AND (SELECT count(*) FROM channels.deliveries r WHERE r.connection_id = d.connection_id AND r.sent_at > clock_timestamp() - interval '1 second') < $4
          ORDER BY d.next_attempt_at, d.created_at LIMIT 1 FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE channels.deliveries AS t
          SET claimed_by = $1, claimed_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000), attempts = t.attempts + 1
         FROM next, channels.connections c
        WHERE t.id = next.id AND c.id = t.connection_id
       RETURNING t.id, t.connection_id, c.kind, t.reply_to, t.text, t.attempts`,
      [workerId, leaseMs, pace.gapMs, pace.perSecond],
    );
    return row ?? null;
  }

  async sent(id: string, workerId: string, providerMessageId: string | null): Promise<void> {
    await this.ds.query(
      `UPDATE channels.deliveries SET state = 'sent', sent_at = clock_timestamp(), provider_message_id = $3, error = NULL, claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2`,
      [id, workerId, providerMessageId],
    );
  }

  async failed(id: string, workerId: string, error: string): Promise<void> {
    await this.ds.query(`UPDATE channels.deliveries SET state = 'failed', error = left($3, 500), claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2`, [id, workerId, error]);
  }

  async retryLater(id: string, workerId: string, delayMs: number, error: string): Promise<void> {
    await this.ds.query(
      `UPDATE channels.deliveries SET claimed_by = NULL, claimed_until = NULL, error = left($3, 500),
              next_attempt_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
        WHERE id = $1 AND claimed_by = $2`,
      [id, workerId, error, delayMs],
    );
  }
}
