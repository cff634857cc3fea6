import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: the handoff queue (issue 19).
 *
 * - `chat.handoffs`: one row per session that asked for a person (the visitor's button, a message
 *   asking for one, or the model's [HANDOFF]). States: `requested` (in the queue), `taken` (a person
 *   answers; the bot stays silent for the session), `released` (handed back: the bot answers again;
 *   a later request puts the session back in the queue).
 * - `chat.messages.author_kind` / `author_label`: a reply a person wrote (role `assistant`,
 *   author_kind `person`, their name as label); NULL for the bot's and the visitor's messages.
 */
export class CreateChatHandoffs1795300019300 implements MigrationInterface {
  name = 'CreateChatHandoffs1795300019300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chat.handoffs (
        tenant_id uuid NOT NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        chatbot_id uuid NULL,
        channel text NOT NULL,
        state text NOT NULL CHECK (state IN ('requested', 'taken', 'released')),
        kind text NOT NULL CHECK (kind IN ('explicit', 'detected')),
        reason text NULL CHECK (char_length(reason) <= 500),
        question text NULL,
        requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        taken_by_id uuid NULL,
        taken_by_label text NULL CHECK (char_length(taken_by_label) <= 200),
        taken_at timestamptz NULL,
        released_at timestamptz NULL,
        PRIMARY KEY (tenant_id, session_id),
        CHECK ((state = 'taken') = (taken_by_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX handoffs_open_idx ON chat.handoffs (tenant_id, requested_at) WHERE state <> 'released'`);
    await q.query(`ALTER TABLE chat.messages ADD COLUMN author_kind text NULL CHECK (author_kind IN ('person'))`);
    await q.query(`ALTER TABLE chat.messages ADD COLUMN author_label text NULL CHECK (char_length(author_label) <= 200)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat.messages DROP COLUMN author_label`);
    await q.query(`ALTER TABLE chat.messages DROP COLUMN author_kind`);
    await q.query(`DROP TABLE chat.handoffs`);
  }
}
