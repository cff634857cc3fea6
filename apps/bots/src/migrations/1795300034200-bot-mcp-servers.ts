import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Remote MCP servers as sources of a bot's actions (issue 34, item 3). The credentials are kept
 * only in `auth_sealed`, a JSON object (`{"type":"bearer","token":…}`) sealed with the key of
 * action header values (SecretBox: `v1:…`); none with `auth = 'none'`. The tools of the last
 * successful sync are one JSON array, each with its flags (confirm, verified_only, enabled);
 * `skipped` lists what that sync left out and why. The limits repeat the API's; deleting a bot
 * deletes its servers.
 */
export class BotMcpServers1795300034200 implements MigrationInterface {
  name = 'BotMcpServers1795300034200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bots.mcp_servers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        chatbot_id uuid NOT NULL REFERENCES bots.bots (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        name text NOT NULL CHECK (name ~ '^[a-zA-Z][a-zA-Z0-9-]{0,19}$'),
        -- The API takes https only; http is there for tests against a local server (the service's allowHttp).
        url text NOT NULL CHECK (char_length(url) <= 2000 AND url ~* '^https?://'),
        auth text NOT NULL CHECK (auth IN ('none', 'bearer', 'oauth')),
        auth_sealed text NULL CHECK (auth_sealed LIKE 'v1:%'),
        tools jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tools) = 'array' AND jsonb_array_length(tools) <= 50),
        skipped jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(skipped) = 'array'),
        last_synced_at timestamptz NULL,
        error text NULL CHECK (char_length(error) <= 1000),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((auth = 'none') = (auth_sealed IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX mcp_servers_bot_name_key ON bots.mcp_servers (chatbot_id, lower(name))`);
    await q.query(`CREATE INDEX mcp_servers_tenant_bot_idx ON bots.mcp_servers (tenant_id, chatbot_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bots.mcp_servers`);
  }
}
