import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: the passages behind each answer (issue 32, "Why this answer").
 *
 * - `chat.messages.passages`: on the bot's answers, the knowledge passages it was given, best
 *   first: a JSON array of {document_id, title, chunk, score, text, source_url}, each text clipped
 *   to 1000 characters (MESSAGE_PASSAGE_TEXT_MAX). An empty array: the turn had no passages. NULL:
 *   the visitor's messages, replies a person wrote, and answers stored before this migration.
 *   Read only by the console's transcript for owners and admins (chat.conversation.transcript); the
 *   public API's ChatMessage never carries it.
 */
export class ChatMessagePassages1795300021500 implements MigrationInterface {
  name = 'ChatMessagePassages1795300021500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat.messages ADD COLUMN passages jsonb NULL CHECK (passages IS NULL OR jsonb_typeof(passages) = 'array')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat.messages DROP COLUMN passages`);
  }
}
