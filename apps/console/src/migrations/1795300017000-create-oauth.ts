import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP OAuth (issue 17), owned by the console (role sa_console; the grants come from
 * provisionServiceRoles, which re-grants every table of schema `people` on each run):
 *
 *  - people.oauth_artifacts: the authorization server's (oidc-provider's) storage. One row per
 *    artifact (authorization code, access token, refresh token, grant, interaction, session,
 *    registered client …). The artifact id is stored only as its SHA-256 (`key_hash`, hex of
 *    sha256(model + ':' + id)); the payload never holds an id that is a secret. `grant_id` and
 *    `uid` are indexed for revokeByGrantId and findByUid; `consumed_at` marks a used code or a
 *    rotated refresh token.
 *  - people.oauth_connections: one row per consent ("Allow"), keyed by the oidc-provider grant it
 *    created (`grant_id`, unique): the workspace, the person who approved, the client, the scopes
 *    and bots granted; revoked_at once revoked in the console.
 */
export class CreateOauth1795300017000 implements MigrationInterface {
  name = 'CreateOauth1795300017000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE people.oauth_artifacts (
        key_hash text PRIMARY KEY CHECK (key_hash ~ '^[0-9a-f]{64}$'),
        model text NOT NULL CHECK (char_length(model) BETWEEN 1 AND 64),
        grant_id text NULL,
        uid text NULL,
        payload jsonb NOT NULL,
        expires_at timestamptz NULL,
        consumed_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX oauth_artifacts_grant_idx ON people.oauth_artifacts (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`CREATE INDEX oauth_artifacts_uid_idx ON people.oauth_artifacts (uid) WHERE uid IS NOT NULL`);
    await q.query(`CREATE INDEX oauth_artifacts_expiry_idx ON people.oauth_artifacts (expires_at) WHERE expires_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE people.oauth_connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        person_id uuid NULL REFERENCES people.persons(id) ON DELETE SET NULL,
        client_id text NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 2048),
        client_name text NOT NULL CHECK (char_length(client_name) <= 200),
        redirect_host text NOT NULL CHECK (char_length(redirect_host) <= 300),
        grant_id text NOT NULL,
        scopes text[] NOT NULL,
        bot_ids uuid[] NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_used_at timestamptz NULL,
        revoked_at timestamptz NULL,
        CONSTRAINT oauth_connections_grant_id_key UNIQUE (grant_id)
      )`);
    await q.query(`CREATE INDEX oauth_connections_workspace_idx ON people.oauth_connections (workspace_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS people.oauth_connections`);
    await q.query(`DROP TABLE IF EXISTS people.oauth_artifacts`);
  }
}
