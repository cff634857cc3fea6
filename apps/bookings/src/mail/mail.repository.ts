import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { EMAILS_LIST_DEFAULT, EmailStatus, EmailView, LINK_EMAIL_KINDS, SendPersonEmailRequest } from '@sa/contracts';
import { queryRows } from '@sa/db';

/**
 * What replaces the body of an e-mail to a person once it is sent or has failed for good: the
 * body carried a single-use link (an invitation, a password reset) that must not outlive it.
 */
export const ERASED_BODY = '[erased after sending: it carried a single-use link]';

/** SQL: the body of a finished e-mail, erased for the kinds that carry a single-use link. */
const FINISHED_BODY = `CASE WHEN kind = ANY('{${LINK_EMAIL_KINDS.join(',')}}'::text[]) THEN '${ERASED_BODY}' ELSE body_text END`;

export interface OutgoingEmail {
  id: string;
  /** Null for an e-mail to a person that concerns no workspace (a password reset). */
  tenant_id: string | null;
  /** Null for an e-mail to a person (no booking). */
  booking_id: string | null;
  kind: string;
  to_address: string;
  subject: string;
  body_text: string;
  attempts: number;
}

interface EmailRow extends OutgoingEmail {
  status: EmailStatus;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

/** The e-mail outbox (bookings.emails) as the mail worker uses it, and as operators list it. */
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
    await queryRows(m, `UPDATE bookings.emails SET status = 'sent', attempts = attempts + 1, last_error = NULL, sent_at = clock_timestamp(), body_text = ${FINISHED_BODY}
        WHERE id = $1 RETURNING id`, [id]);
  }

  /** A failed attempt: retried after `retryInMs`, or failed for good when `final`. */
  async markAttemptFailed(m: EntityManager, id: string, error: string, final: boolean, retryInMs: number): Promise<void> {
    await queryRows(
      m,
      `UPDATE bookings.emails
          SET attempts = attempts + 1, last_error = $2, status = CASE WHEN $3::boolean THEN 'failed' ELSE 'pending' END,
              body_text = CASE WHEN $3::boolean THEN ${FINISHED_BODY} ELSE body_text END,
              next_attempt_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
        WHERE id = $1 RETURNING id`,
      [id, error.slice(0, 2000), final, retryInMs],
    );
  }

  /** Queues an e-mail to a person (an invitation, a password reset); the insert wakes the mail worker. */
  async enqueuePersonEmail(req: SendPersonEmailRequest): Promise<{ id: string }> {
    const [row] = await queryRows<{ id: string }>(
      this.ds,
      `INSERT INTO bookings.emails (tenant_id, booking_id, kind, to_address, subject, body_text) VALUES ($1, NULL, $2, $3, $4, $5) RETURNING id`,
      [req.workspace_id ?? null, req.kind, req.to, req.subject, req.body_text],
    );
    return { id: row.id };
  }

  /** The e-mails of one workspace (and booking, and status), newest first. */
  async list(tenantId: string, filter: { bookingId?: string; status?: EmailStatus; limit?: number }): Promise<EmailView[]> {
    const rows = await queryRows<EmailRow>(
      this.ds,
      `SELECT id, tenant_id, booking_id, kind, to_address, subject, body_text, status, attempts, last_error, created_at, sent_at
         FROM bookings.emails
        WHERE tenant_id = $1 AND ($2::uuid IS NULL OR booking_id = $2::uuid) AND ($3::text IS NULL OR status = $3::text)
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [tenantId, filter.bookingId ?? null, filter.status ?? null, filter.limit ?? EMAILS_LIST_DEFAULT],
    );
    return rows.map((r) => ({
      id: r.id,
      workspace_id: r.tenant_id!,
      booking_id: r.booking_id,
      kind: r.kind,
      to: r.to_address,
      subject: r.subject,
      body_text: r.body_text,
      status: r.status,
      attempts: Number(r.attempts),
      last_error: r.last_error,
      created_at: r.created_at.toISOString(),
      sent_at: r.sent_at ? r.sent_at.toISOString() : null,
    }));
  }
}
