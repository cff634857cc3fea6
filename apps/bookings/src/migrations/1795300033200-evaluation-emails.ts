import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The mail outbox also carries the e-mail owners and admins get when an evaluation run of a bot
 * passes fewer cases than its gate (issue 33, kind `evaluation`, queued by the console with
 * bookings.email.send): an e-mail to a person of a workspace, about no booking.
 */
export class EvaluationEmails1795300033200 implements MigrationInterface {
  name = 'EvaluationEmails1795300033200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bookings.emails DROP CONSTRAINT emails_booking_check`);
    await q.query(`ALTER TABLE bookings.emails DROP CONSTRAINT emails_kind_check`);
    await q.query(`ALTER TABLE bookings.emails ADD CONSTRAINT emails_kind_check CHECK (kind IN ('confirm', 'reject', 'cancel', 'reschedule', 'invitation', 'password_reset', 'handoff', 'evaluation'))`);
    await q.query(`
      ALTER TABLE bookings.emails ADD CONSTRAINT emails_booking_check CHECK (
        (kind IN ('invitation', 'password_reset', 'handoff', 'evaluation') AND booking_id IS NULL)
        OR (kind NOT IN ('invitation', 'password_reset', 'handoff', 'evaluation') AND booking_id IS NOT NULL AND tenant_id IS NOT NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM bookings.emails WHERE kind = 'evaluation'`);
    await q.query(`ALTER TABLE bookings.emails DROP CONSTRAINT emails_booking_check`);
    await q.query(`ALTER TABLE bookings.emails DROP CONSTRAINT emails_kind_check`);
    await q.query(`ALTER TABLE bookings.emails ADD CONSTRAINT emails_kind_check CHECK (kind IN ('confirm', 'reject', 'cancel', 'reschedule', 'invitation', 'password_reset', 'handoff'))`);
    await q.query(`
      ALTER TABLE bookings.emails ADD CONSTRAINT emails_booking_check CHECK (
        (kind IN ('invitation', 'password_reset', 'handoff') AND booking_id IS NULL)
        OR (kind NOT IN ('invitation', 'password_reset', 'handoff') AND booking_id IS NOT NULL AND tenant_id IS NOT NULL))`);
  }
}
