import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth as a client for a bot's MCP servers (issue 34, item 3). With `auth = 'oauth'`:
 * `auth_sealed` holds the access token chat uses (`{"type":"oauth","token":…,"expires_at":…}`),
 * null while not connected; `oauth_sealed` holds what only the bots service reads: the
 * dynamically registered client, the refresh token, the discovered authorization server metadata;
 * `oauth_client_secret_sealed` the owner's client secret (all SecretBox, `v1:…`).
 * `oauth_client_id` and `oauth_scope` are the owner's settings (not secret). A started Connect keeps the SHA-256 of its state (the
 * lookup key of the callback, unique), its sealed PKCE verifier, redirect URI and person, and
 * its expiry; a callback clears them, used or not.
 */
export class BotMcpServerOauth1795300034400 implements MigrationInterface {
  name = 'BotMcpServerOauth1795300034400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bots.mcp_servers DROP CONSTRAINT mcp_servers_check`);
    await q.query(`
      ALTER TABLE bots.mcp_servers
        ADD COLUMN oauth_client_id text NULL CHECK (char_length(oauth_client_id) <= 500),
        ADD COLUMN oauth_client_secret_sealed text NULL CHECK (oauth_client_secret_sealed LIKE 'v1:%'),
        ADD COLUMN oauth_scope text NULL CHECK (char_length(oauth_scope) <= 1000),
        ADD COLUMN oauth_sealed text NULL CHECK (oauth_sealed LIKE 'v1:%'),
        ADD COLUMN oauth_issuer text NULL CHECK (char_length(oauth_issuer) <= 2000),
        ADD COLUMN oauth_expires_at timestamptz NULL,
        ADD COLUMN oauth_state_hash text NULL CHECK (oauth_state_hash ~ '^[0-9a-f]{64}$'),
        ADD COLUMN oauth_flow_sealed text NULL CHECK (oauth_flow_sealed LIKE 'v1:%'),
        ADD COLUMN oauth_flow_expires_at timestamptz NULL,
        ADD CONSTRAINT mcp_servers_auth_sealed_kind CHECK (
          (auth = 'none' AND auth_sealed IS NULL) OR (auth = 'bearer' AND auth_sealed IS NOT NULL) OR auth = 'oauth'),
        ADD CONSTRAINT mcp_servers_oauth_only CHECK (
          auth = 'oauth' OR (oauth_client_id IS NULL AND oauth_client_secret_sealed IS NULL AND oauth_scope IS NULL AND oauth_sealed IS NULL AND oauth_issuer IS NULL AND oauth_expires_at IS NULL AND oauth_state_hash IS NULL)),
        ADD CONSTRAINT mcp_servers_oauth_secret_client CHECK (oauth_client_secret_sealed IS NULL OR oauth_client_id IS NOT NULL),
        ADD CONSTRAINT mcp_servers_oauth_flow CHECK ((oauth_state_hash IS NULL) = (oauth_flow_sealed IS NULL) AND (oauth_state_hash IS NULL) = (oauth_flow_expires_at IS NULL))`);
    await q.query(`CREATE UNIQUE INDEX mcp_servers_oauth_state_key ON bots.mcp_servers (oauth_state_hash) WHERE oauth_state_hash IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM bots.mcp_servers WHERE auth = 'oauth'`);
    await q.query(`DROP INDEX bots.mcp_servers_oauth_state_key`);
    await q.query(`
      ALTER TABLE bots.mcp_servers
        DROP CONSTRAINT mcp_servers_auth_sealed_kind, DROP CONSTRAINT mcp_servers_oauth_only, DROP CONSTRAINT mcp_servers_oauth_secret_client, DROP CONSTRAINT mcp_servers_oauth_flow,
        DROP COLUMN oauth_client_id, DROP COLUMN oauth_client_secret_sealed, DROP COLUMN oauth_scope, DROP COLUMN oauth_sealed, DROP COLUMN oauth_issuer, DROP COLUMN oauth_expires_at,
        DROP COLUMN oauth_state_hash, DROP COLUMN oauth_flow_sealed, DROP COLUMN oauth_flow_expires_at,
        ADD CONSTRAINT mcp_servers_check CHECK ((auth = 'none') = (auth_sealed IS NULL))`);
  }
}
