import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablesSql } from '@sa/events';

/**
 * Bookings (spec parts 2 and 3) and the outbox of visitor e-mails.
 *
 * A confirmed booking holds its slot for its bot: the partial unique index
 * bookings_confirmed_slot_key lets at most one confirmed booking per (tenant, bot, slot), so two
 * concurrent confirms (or a reschedule onto a held slot) give exactly one success; the loser's
 * unique violation becomes 409 `conflict` ("slot taken").
 *
 * bookings.emails is written in the transaction of each state change and sent later by the mail
 * worker (claimed with FOR UPDATE SKIP LOCKED).
 */
export class CreateBookings1795300005000 implements MigrationInterface {
  name = 'CreateBookings1795300005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS bookings`);
    await q.query(`
      CREATE TABLE bookings.bookings (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NULL,
        session_id text NULL,
        name text NOT NULL,
        email text NOT NULL,
        phone text NOT NULL,
        notes text NULL,
        requested_slot timestamptz NULL,
        slot_end timestamptz NULL,
        country text NULL,
        time_zone text NULL,
        custom_fields jsonb NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed', 'rejected', 'cancelled')),
        rejection_comment text NULL,
        cancel_comment text NULL,
        confirmed_at timestamptz NULL,
        rejected_at timestamptz NULL,
        cancelled_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX bookings_tenant_created_idx ON bookings.bookings (tenant_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX bookings_tenant_bot_created_idx ON bookings.bookings (tenant_id, chatbot_id, created_at DESC, id DESC)`);
    await q.query(`CREATE UNIQUE INDEX bookings_confirmed_slot_key ON bookings.bookings (tenant_id, chatbot_id, requested_slot) WHERE status = 'confirmed'`);
    await q.query(`
      CREATE TABLE bookings.emails (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        booking_id uuid NOT NULL REFERENCES bookings.bookings(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('confirm', 'reject', 'cancel', 'reschedule')),
        to_address text NOT NULL,
        subject text NOT NULL,
        body_text text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_error text NULL,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        sent_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX emails_pending_idx ON bookings.emails (next_attempt_at, created_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX emails_tenant_idx ON bookings.emails (tenant_id, created_at DESC)`);
    await q.query(`CREATE INDEX emails_booking_idx ON bookings.emails (booking_id, created_at)`);
    await q.query(`
      CREATE FUNCTION bookings.notify_emails() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('bookings_emails', ''); RETURN NULL; END $$`);
    await q.query(`CREATE TRIGGER emails_notify AFTER INSERT ON bookings.emails FOR EACH STATEMENT EXECUTE FUNCTION bookings.notify_emails()`);
    for (const sql of outboxTablesSql('bookings').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of outboxTablesSql('bookings').down) await q.query(sql);
    await q.query(`DROP TABLE IF EXISTS bookings.emails`);
    await q.query(`DROP TABLE IF EXISTS bookings.bookings`);
    await q.query(`DROP FUNCTION IF EXISTS bookings.notify_emails()`);
  }
}
