import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The mail outbox also carries e-mails to people (issue 16: invitations and password resets,
 * queued over NATS by the console with bookings.email.send): they belong to no booking, and a
 * password reset to no workspace. Their body holds a single-use link, which the mail worker
 * erases once the e-mail is sent or has failed for good.
 */
export class PersonEmails1795300016200 implements MigrationInterface {
  name = 'PersonEmails1795300016200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bookings.emails ALTER COLUMN booking_id DROP NOT NULL`);
    await q.query(`ALTER TABLE bookings.emails ALTER COLUMN tenant_id DROP NOT NULL`);
    await q.query(`ALTER TABLE bookings.emails DROP CONSTRAINT emails_kind_check`);
    await q.query(`ALTER TABLE bookings.emails ADD CONSTRAINT emails_kind_check CHECK (kind IN ('confirm', 'reject', 'cancel', 'reschedule', 'invitation', 'password_reset'))`);
    // A visitor e-mail is about a booking of a workspace; an e-mail to a person about none.
    await q.query(`
      ALTER TABLE bookings.emails ADD CONSTRAINT emails_booking_check CHECK (
        (kind IN ('invitation', 'password_reset') AND booking_id IS NULL)
        OR (kind NOT IN ('invitation', 'password_reset') AND booking_id IS NOT NULL AND tenant_id IS NOT NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM bookings.emails WHERE kind IN ('invitation', 'password_reset')`);
    await q.query(`ALTER TABLE bookings.emails DROP CONSTRAINT emails_booking_check`);
    await q.query(`ALTER TABLE bookings.emails DROP CONSTRAINT emails_kind_check`);
    await q.query(`ALTER TABLE bookings.emails ADD CONSTRAINT emails_kind_check CHECK (kind IN ('confirm', 'reject', 'cancel', 'reschedule'))`);
    await q.query(`ALTER TABLE bookings.emails ALTER COLUMN tenant_id SET NOT NULL`);
    await q.query(`ALTER TABLE bookings.emails ALTER COLUMN booking_id SET NOT NULL`);
  }
}
