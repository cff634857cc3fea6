import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Handoff e-mails with a cap and a digest (issue 30): each handoff of a workspace is kept as a
 * request (idempotent by the conversation.handoff event's id), and each owner or admin has a
 * window: at most one e-mail per CONSOLE_HANDOFF_MAIL_WINDOW_SECONDS, listing the conversations
 * that asked for a person since the last one. Both live in PostgreSQL, so a restart loses no
 * digest and two console replicas never send the same one twice.
 */
export class HandoffMail1795300018000 implements MigrationInterface {
  name = 'HandoffMail1795300018000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE people.handoff_mail_requests (
        id bigserial PRIMARY KEY,
        workspace_id uuid NOT NULL,
        event_id text UNIQUE,
        session_id text NOT NULL,
        chatbot_id uuid,
        kind text NOT NULL,
        question text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX handoff_mail_requests_workspace ON people.handoff_mail_requests (workspace_id, created_at)`);
    await q.query(`
      CREATE TABLE people.handoff_mail_windows (
        workspace_id uuid NOT NULL,
        person_id uuid NOT NULL,
        sent_at timestamptz NOT NULL,
        covered_id bigint NOT NULL,
        PRIMARY KEY (workspace_id, person_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE people.handoff_mail_windows`);
    await q.query(`DROP TABLE people.handoff_mail_requests`);
  }
}
