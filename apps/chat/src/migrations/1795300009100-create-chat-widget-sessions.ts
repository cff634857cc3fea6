import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: the visitor widget's own sessions and its per-bot monthly budget.
 *
 * - `chat.widget_sessions`: every session id minted for a visitor of a bot (POST
 *   /widget/v1/bots/{botId}/sessions, or a widget chat without one). The id is an unguessable
 *   secret the visitor's browser holds; a widget call is refused unless its session is listed here
 *   for the bot in the path. Sessions of POST /v1/chat (ids chosen by the developer) never are.
 * - `chat.widget_usage`: widget chat messages counted per bot and calendar month (UTC), apart from
 *   the workspace's chat.usage; a reservation is one conditional upsert, as for chat.usage.
 */
export class CreateChatWidgetSessions1795300009100 implements MigrationInterface {
  name = 'CreateChatWidgetSessions1795300009100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chat.widget_sessions (
        session_id text PRIMARY KEY CHECK (char_length(session_id) BETWEEN 1 AND 120),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`
      CREATE TABLE chat.widget_usage (
        tenant_id uuid NOT NULL,
        chatbot_id uuid NOT NULL,
        month date NOT NULL CHECK (extract(day FROM month) = 1),
        messages integer NOT NULL CHECK (messages >= 0),
        PRIMARY KEY (tenant_id, chatbot_id, month)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chat.widget_usage`);
    await q.query(`DROP TABLE chat.widget_sessions`);
  }
}
