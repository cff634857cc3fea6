import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: support tickets from the widget's Support tab (chat.ticket.create). Each one is announced
 * by ticket.created, written to chat.outbox in the transaction that stores the ticket.
 * Index (tenant_id, created_at DESC): a workspace's tickets, newest first.
 */
export class CreateChatTickets1795300007000 implements MigrationInterface {
  name = 'CreateChatTickets1795300007000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chat.tickets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NOT NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
        name text NULL CHECK (char_length(name) <= 200),
        subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
        message text NOT NULL CHECK (char_length(message) BETWEEN 1 AND 5000),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX tickets_tenant_created_idx ON chat.tickets (tenant_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chat.tickets`);
  }
}
