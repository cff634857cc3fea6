import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat: actions in conversations (issue 34).
 *
 * - `chat.widget_sessions.external_user_id`: the visitor's id once the session was identified with a
 *   valid user hash (POST …/identify); only then is the conversation's visitor verified, and only
 *   this value is ever passed as an action's `user_id_param`.
 * - `chat.action_calls`: every call the model made in a turn (custom action, built-in or a remote
 *   MCP server's tool), what became of it (ran, refused, waiting for the visitor, cancelled), its
 *   HTTP status, duration and a truncated result, stored with the turn's assistant message. No
 *   header value is ever in it (they never leave the call).
 * - `chat.pending_actions`: the call a session's last answer waits on (at most one per session), with
 *   the turn's model messages, so the visitor's confirmation resumes exactly that turn. A new
 *   message that does not decide on it replaces it (the call is then recorded as cancelled).
 */
export class ChatActions1795300034100 implements MigrationInterface {
  name = 'ChatActions1795300034100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat.widget_sessions ADD COLUMN external_user_id text NULL CHECK (char_length(external_user_id) BETWEEN 1 AND 200), ADD COLUMN verified_at timestamptz NULL`);
    await q.query(`
      CREATE TABLE chat.action_calls (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        message_id uuid NULL REFERENCES chat.messages (id) ON DELETE CASCADE,
        call_id text NOT NULL CHECK (char_length(call_id) BETWEEN 1 AND 200),
        action_name text NOT NULL CHECK (char_length(action_name) BETWEEN 1 AND 200),
        source text NOT NULL CHECK (source IN ('custom', 'builtin', 'mcp')),
        input jsonb NOT NULL,
        state text NOT NULL CHECK (state IN ('ran', 'refused', 'awaiting_confirmation', 'cancelled')),
        ok boolean NULL,
        http_status integer NULL,
        error text NULL CHECK (char_length(error) <= 100),
        duration_ms integer NOT NULL DEFAULT 0 CHECK (duration_ms >= 0),
        result text NOT NULL DEFAULT '' CHECK (char_length(result) <= 1000),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX action_calls_message_idx ON chat.action_calls (message_id)`);
    await q.query(`CREATE INDEX action_calls_tenant_bot_idx ON chat.action_calls (tenant_id, chatbot_id, created_at)`);
    await q.query(`
      CREATE TABLE chat.pending_actions (
        tenant_id uuid NOT NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        chatbot_id uuid NULL,
        call_id text NOT NULL CHECK (char_length(call_id) BETWEEN 1 AND 200),
        action_name text NOT NULL,
        input jsonb NOT NULL,
        after_tool_result boolean NOT NULL DEFAULT false,
        messages jsonb NOT NULL,
        language text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (tenant_id, session_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chat.pending_actions`);
    await q.query(`DROP TABLE chat.action_calls`);
    await q.query(`ALTER TABLE chat.widget_sessions DROP COLUMN external_user_id, DROP COLUMN verified_at`);
  }
}
