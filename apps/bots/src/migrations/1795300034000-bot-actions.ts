import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A bot's actions (issue 34, first slice: the definitions) and its action settings. The header
 * names are kept in clear (the console lists them); their values only in `headers_sealed`, one
 * JSON object of name → value sealed with the key of webhook signing secrets (SecretBox:
 * `v1:<iv>:<tag>:<ciphertext>`), never in plain text. No settings row: the defaults (3 calls per
 * turn, no built-in actions). The limits repeat the API's; deleting a bot deletes both.
 */
export class BotActions1795300034000 implements MigrationInterface {
  name = 'BotActions1795300034000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bots.actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        chatbot_id uuid NOT NULL REFERENCES bots.bots (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        name text NOT NULL CHECK (name ~ '^[a-zA-Z][a-zA-Z0-9_-]{0,63}$'),
        description text NOT NULL CHECK (char_length(description) BETWEEN 1 AND 1000),
        method text NOT NULL CHECK (method IN ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')),
        url text NOT NULL CHECK (char_length(url) <= 2000 AND url ~* '^https://'),
        parameters jsonb NOT NULL CHECK (jsonb_typeof(parameters) = 'object'),
        header_names text[] NOT NULL DEFAULT '{}' CHECK (cardinality(header_names) <= 20),
        headers_sealed text NULL CHECK (headers_sealed LIKE 'v1:%'),
        confirm boolean NOT NULL,
        verified_only boolean NOT NULL DEFAULT false,
        user_id_param text NULL CHECK (char_length(user_id_param) BETWEEN 1 AND 200),
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK (user_id_param IS NULL OR verified_only),
        CHECK ((cardinality(header_names) = 0) = (headers_sealed IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX actions_bot_name_key ON bots.actions (chatbot_id, lower(name))`);
    await q.query(`CREATE INDEX actions_tenant_bot_idx ON bots.actions (tenant_id, chatbot_id, created_at)`);
    await q.query(`
      CREATE TABLE bots.action_settings (
        chatbot_id uuid PRIMARY KEY REFERENCES bots.bots (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        max_calls_per_turn int NOT NULL DEFAULT 3 CHECK (max_calls_per_turn BETWEEN 1 AND 10),
        builtin_booking boolean NOT NULL DEFAULT false,
        builtin_lead boolean NOT NULL DEFAULT false,
        builtin_handoff boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX action_settings_tenant_idx ON bots.action_settings (tenant_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bots.action_settings`);
    await q.query(`DROP TABLE bots.actions`);
  }
}
