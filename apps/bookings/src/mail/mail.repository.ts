import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '@sa/db';

export interface OutgoingEmail {
  id: string;
  tenant_id: string;
  booking_id: string;
  kind: string;
  to_address: string;
  subject: string;
  body_text: string;
  attempts: number;
}

/** The e-mail outbox (bookings.emails) as the mail worker uses it. */
@Injectable()
export class MailRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /** The oldest due pending e-mail nobody else holds, locked until the transaction ends. */
  async claim(m: EntityManager): Promise<OutgoingEmail | undefined> {
    const [row] = await queryRows<OutgoingEmail>(
      m,
      `SELECT id, tenant_id, booking_id, kind, to_address, subject, body_text, attempts FROM bookings.emails
        WHERE status = 'pending' AND next_attempt_at <= clock_timestamp()
        ORDER BY next_attempt_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    return row;
  }

  async markSent(m: EntityManager, id: string): Promise<void> {
    await queryRows(m, `UPDATE bookings.emails SET status = 'sent', attempts = attempts + 1, last_error = NULL, sent_at = clock_timestamp() WHERE id = $1 RETURNING id`, [id]);
  }

  /** A failed attempt: retried after `retryInMs`, or failed for good when `final`. */
  async markAttemptFailed(m: EntityManager, id: string, error: string, final: boolean, retryInMs: number): Promise<void> {
    await queryRows(
      m,
      `UPDATE bookings.emails
          SET attempts = attempts + 1, last_error = $2, status = CASE WHEN $3::boolean THEN 'failed' ELSE 'pending' END,
              next_attempt_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
        WHERE id = $1 RETURNING id`,
      [id, error.slice(0, 2000), final, retryInMs],
    );
  }
}
