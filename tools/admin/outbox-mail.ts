import type { SqlRunner } from '@sa/db';

/** Which visitor e-mails `mail list` shows: those of a workspace, of one booking, or both. */
export interface MailFilter {
  workspaceId?: string;
  bookingId?: string;
  status?: 'pending' | 'sent' | 'failed';
  /** Newest first; default 100, at most 1000. */
  limit?: number;
}

export interface MailRecord {
  id: string;
  workspace_id: string;
  booking_id: string;
  kind: string;
  to: string;
  subject: string;
  body_text: string;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The visitor e-mails of bookings.emails (the bookings service's outbox) as JSON-friendly objects,
 * newest first. Pending rows are the ones not sent yet (or never, when SMTP_URL is unset).
 * For the admin CLI: `mail list --workspace ID [--booking ID] [--status S] [--limit N]`.
 */
export async function listMail(ds: SqlRunner, filter: MailFilter): Promise<MailRecord[]> {
  if (!filter.workspaceId && !filter.bookingId) throw new Error('listMail needs a workspace id or a booking id');
  for (const [name, value] of [['workspace', filter.workspaceId], ['booking', filter.bookingId]] as const) {
    if (value !== undefined && !UUID.test(value)) throw new Error(`The ${name} id must be a UUID (got "${value}")`);
  }
  if (filter.status !== undefined && !['pending', 'sent', 'failed'].includes(filter.status)) throw new Error(`status must be pending, sent or failed (got "${String(filter.status)}")`);
  const limit = Math.min(1000, Math.max(1, Math.trunc(filter.limit ?? 100)));
  const rows = (await ds.query(
    `SELECT id, tenant_id, booking_id, kind, to_address, subject, body_text, status, attempts, last_error, created_at, sent_at
       FROM bookings.emails
      WHERE ($1::uuid IS NULL OR tenant_id = $1::uuid) AND ($2::uuid IS NULL OR booking_id = $2::uuid) AND ($3::text IS NULL OR status = $3::text)
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [filter.workspaceId ?? null, filter.bookingId ?? null, filter.status ?? null, limit],
  )) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    id: r['id'] as string,
    workspace_id: r['tenant_id'] as string,
    booking_id: r['booking_id'] as string,
    kind: r['kind'] as string,
    to: r['to_address'] as string,
    subject: r['subject'] as string,
    body_text: r['body_text'] as string,
    status: r['status'] as string,
    attempts: Number(r['attempts']),
    last_error: (r['last_error'] as string | null) ?? null,
    created_at: (r['created_at'] as Date).toISOString(),
    sent_at: r['sent_at'] ? (r['sent_at'] as Date).toISOString() : null,
  }));
}
