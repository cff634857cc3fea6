import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `leads.visitor_messages`: the leads service's own copy of the visitor messages of each chat
 * session, fed by chat.turn.completed (which carries the message of its turn), so lead scoring
 * reads only the leads schema. Only the newest messages of a session that scoring reads are kept
 * (VisitorMessagesRepository.add deletes older ones); a message delivered twice is one row
 * (primary key). Sessions in progress when this table appeared are scored from their later
 * messages on; their leads stay as they were.
 */
export class CreateLeadsVisitorMessages1795300009615 implements MigrationInterface {
  name = 'CreateLeadsVisitorMessages1795300009615';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE leads.visitor_messages (
        tenant_id uuid NOT NULL,
        message_id uuid NOT NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        chatbot_id uuid NULL,
        channel text NOT NULL,
        content text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, message_id)
      )`);
    // A session's messages, newest first (scoring, pruning).
    await q.query(`CREATE INDEX visitor_messages_session_idx ON leads.visitor_messages (tenant_id, session_id, created_at DESC, message_id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE leads.visitor_messages`);
  }
}
