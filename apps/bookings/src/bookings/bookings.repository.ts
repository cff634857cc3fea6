import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { BookingStatus, BookingView } from '@sa/contracts';
import { queryRows } from '@sa/db';
import type { EmailKind } from './booking-rules';

export interface BookingRow {
  id: string;
  tenant_id: string;
  chatbot_id: string | null;
  session_id: string | null;
  name: string;
  email: string;
  phone: string;
  notes: string | null;
  requested_slot: Date | null;
  slot_end: Date | null;
  country: string | null;
  time_zone: string | null;
  custom_fields: Record<string, string> | null;
  status: BookingStatus;
  rejection_comment: string | null;
  confirmed_at: Date | null;
  rejected_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
}

export interface NewBooking {
  tenantId: string;
  chatbotId: string;
  sessionId: string | null;
  name: string;
  email: string;
  phone: string;
  notes: string | null;
  requestedSlot: string | null;
  country: string | null;
  timeZone: string | null;
  customFields: Record<string, string> | null;
}

/** Columns a state change may set (anything left out is kept). */
export interface BookingChange {
  status: BookingStatus;
  requestedSlot?: Date;
  slotEnd?: Date | null;
  rejectionComment?: string | null;
  cancelComment?: string | null;
  confirmedAt?: true;
  rejectedAt?: true;
  cancelledAt?: true;
}

export interface NewEmail {
  tenantId: string;
  bookingId: string;
  kind: EmailKind;
  to: string;
  subject: string;
  text: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toBookingView(r: BookingRow): BookingView {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    chatbot_id: r.chatbot_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    notes: r.notes,
    requested_slot: iso(r.requested_slot),
    country: r.country,
    time_zone: r.time_zone,
    custom_fields: r.custom_fields,
    status: r.status,
    rejection_comment: r.rejection_comment,
    confirmed_at: iso(r.confirmed_at),
    rejected_at: iso(r.rejected_at),
    cancelled_at: iso(r.cancelled_at),
    created_at: r.created_at.toISOString(),
  };
}

const COLUMNS = `id, tenant_id, chatbot_id, session_id, name, email, phone, notes, requested_slot, slot_end, country, time_zone,
  custom_fields, status, rejection_comment, confirmed_at, rejected_at, cancelled_at, created_at`;

export const CONFIRMED_SLOT_INDEX = 'bookings_confirmed_slot_key';

/** Bookings and their e-mail outbox. Every read and write names the tenant. */
@Injectable()
export class BookingsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  async insert(m: EntityManager, b: NewBooking): Promise<BookingRow> {
    const [row] = await queryRows<BookingRow>(
      m,
      `INSERT INTO bookings.bookings (tenant_id, chatbot_id, session_id, name, email, phone, notes, requested_slot, country, time_zone, custom_fields)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [b.tenantId, b.chatbotId, b.sessionId, b.name, b.email, b.phone, b.notes, b.requestedSlot, b.country, b.timeZone, b.customFields ? JSON.stringify(b.customFields) : null],
    );
    return row!;
  }

  /** Newest first. `botIds` (a restricted token's bots) limits the result to those bots. */
  list(q: { tenantId: string; status?: BookingStatus; chatbotId?: string; botIds?: string[] | null; limit: number }): Promise<BookingRow[]> {
    return queryRows<BookingRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM bookings.bookings
        WHERE tenant_id = $1
          AND ($2::text IS NULL OR status = $2::text)
          AND ($3::uuid IS NULL OR chatbot_id = $3::uuid)
          AND ($4::uuid[] IS NULL OR chatbot_id = ANY($4::uuid[]))
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [q.tenantId, q.status ?? null, q.chatbotId ?? null, q.botIds ?? null, q.limit],
    );
  }

  async get(tenantId: string, id: string): Promise<BookingRow | undefined> {
    const [row] = await queryRows<BookingRow>(this.ds, `SELECT ${COLUMNS} FROM bookings.bookings WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return row;
  }

  /** The booking, locked until the transaction ends: concurrent changes of it serialise. */
  async lock(m: EntityManager, tenantId: string, id: string): Promise<BookingRow | undefined> {
    const [row] = await queryRows<BookingRow>(m, `SELECT ${COLUMNS} FROM bookings.bookings WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, id]);
    return row;
  }

  async change(m: EntityManager, tenantId: string, id: string, c: BookingChange): Promise<BookingRow> {
    const sets = ['status = $3', 'updated_at = clock_timestamp()'];
    const params: unknown[] = [tenantId, id, c.status];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (c.requestedSlot !== undefined) set('requested_slot', c.requestedSlot);
    if (c.slotEnd !== undefined) set('slot_end', c.slotEnd);
    if (c.rejectionComment !== undefined) set('rejection_comment', c.rejectionComment);
    if (c.cancelComment !== undefined) set('cancel_comment', c.cancelComment);
    if (c.confirmedAt) sets.push('confirmed_at = clock_timestamp()');
    if (c.rejectedAt) sets.push('rejected_at = clock_timestamp()');
    if (c.cancelledAt) sets.push('cancelled_at = clock_timestamp()');
    const [row] = await queryRows<BookingRow>(m, `UPDATE bookings.bookings SET ${sets.join(', ')} WHERE tenant_id = $1 AND id = $2 RETURNING ${COLUMNS}`, params);
    return row!;
  }

  async addEmail(m: EntityManager, e: NewEmail): Promise<string> {
    const [row] = await queryRows<{ id: string }>(
      m,
      `INSERT INTO bookings.emails (tenant_id, booking_id, kind, to_address, subject, body_text) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [e.tenantId, e.bookingId, e.kind, e.to, e.subject, e.text],
    );
    return row!.id;
  }
}
