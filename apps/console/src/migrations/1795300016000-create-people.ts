import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People and their access to workspaces (issue 16), owned by the console (role sa_console):
 *
 *  - people.persons: one row per e-mail address (stored lower-case), display name, argon2id
 *    password hash (null until set: a person made by an invitation always has one).
 *  - people.memberships: a person's role in a workspace (owner, admin, member). Workspaces live in
 *    schema `identity` (the gateway's): the id is not a foreign key across schemas.
 *  - people.sessions: server-side sessions; the cookie holds a random id, the row its SHA-256.
 *    Idle expiry moves with last_seen_at; absolute_expires_at never moves.
 *  - people.invitations: single-use, expiring, SHA-256 of the token; accepted_at once used.
 *  - people.password_resets: the same for password resets.
 *  - people.audit_log: every change made through the console or the admin CLI (who, what, when).
 */
export class CreatePeople1795300016000 implements MigrationInterface {
  name = 'CreatePeople1795300016000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS people`);
    await q.query(`
      CREATE TABLE people.persons (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 320 AND email = lower(email)),
        display_name text NOT NULL DEFAULT '' CHECK (char_length(display_name) <= 100),
        password_hash text NULL,
        password_changed_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT persons_email_key UNIQUE (email)
      )`);
    await q.query(`
      CREATE TABLE people.memberships (
        workspace_id uuid NOT NULL,
        person_id uuid NOT NULL REFERENCES people.persons(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (workspace_id, person_id)
      )`);
    await q.query(`CREATE INDEX memberships_person_idx ON people.memberships (person_id)`);
    await q.query(`
      CREATE TABLE people.sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL,
        person_id uuid NOT NULL REFERENCES people.persons(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_seen_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        absolute_expires_at timestamptz NOT NULL,
        CONSTRAINT sessions_token_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX sessions_person_idx ON people.sessions (person_id)`);
    await q.query(`CREATE INDEX sessions_expiry_idx ON people.sessions (absolute_expires_at)`);
    await q.query(`
      CREATE TABLE people.invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 320 AND email = lower(email)),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        token_hash text NOT NULL,
        invited_by uuid NULL REFERENCES people.persons(id) ON DELETE SET NULL,
        invited_by_label text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz NULL,
        CONSTRAINT invitations_token_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX invitations_workspace_idx ON people.invitations (workspace_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE people.password_resets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        person_id uuid NOT NULL REFERENCES people.persons(id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        CONSTRAINT password_resets_token_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX password_resets_person_idx ON people.password_resets (person_id)`);
    await q.query(`
      CREATE TABLE people.audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        workspace_id uuid NULL,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        actor_kind text NOT NULL CHECK (actor_kind IN ('person', 'cli')),
        actor_id uuid NULL,
        actor_label text NOT NULL,
        action text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 100),
        target_kind text NOT NULL,
        target_id text NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb
      )`);
    await q.query(`CREATE INDEX audit_log_workspace_idx ON people.audit_log (workspace_id, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA IF EXISTS people CASCADE`);
  }
}
