import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: a message reserved by a replica that dies is given back (issue 36). A turn counts its
 * message against a quota when it starts (chat.usage / chat.widget_usage) and settles it when it
 * is stored; a replica killed in between never gives it back, and the visitor would be charged for
 * an answer that ended with an error. Each reservation is now a row naming the replica that holds
 * it; every replica says it is alive in chat.replicas, and any replica gives back the reservations
 * of one that has been silent too long.
 */
export class ChatTurnReservations1795300036100 implements MigrationInterface {
  name = 'ChatTurnReservations1795300036100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chat.turn_reservations (
        turn_id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        chatbot_id uuid,
        bucket text NOT NULL CHECK (bucket IN ('workspace', 'widget')),
        month date NOT NULL,
        holder text NOT NULL,
        reserved_at timestamptz NOT NULL DEFAULT now(),
        CHECK (bucket = 'workspace' OR chatbot_id IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX chat_turn_reservations_holder ON chat.turn_reservations (holder, reserved_at)`);
    await q.query(`
      CREATE TABLE chat.replicas (
        id text PRIMARY KEY,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS chat.replicas`);
    await q.query(`DROP TABLE IF EXISTS chat.turn_reservations`);
  }
}
