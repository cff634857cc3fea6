import { MigrationInterface, QueryRunner } from 'typeorm';

/** Identity (owned by the gateway): workspaces with plan and quotas, and hashed API tokens. */
export class CreateIdentity1795300000000 implements MigrationInterface {
  name = 'CreateIdentity1795300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS identity`);
    await q.query(`
      CREATE TABLE identity.workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        plan text NOT NULL CHECK (plan IN ('growth_trial', 'growth', 'scale', 'enterprise')),
        trial_ends_at timestamptz NULL,
        billing_status text NOT NULL DEFAULT 'active' CHECK (billing_status IN ('active', 'past_due', 'canceled')),
        enterprise_api boolean NOT NULL DEFAULT false,
        enterprise_webhooks boolean NOT NULL DEFAULT false,
        tier_slots jsonb NOT NULL DEFAULT '{"starter":0,"growth":0,"scale":0}',
        messages_per_month integer NULL CHECK (messages_per_month >= 0),
        pages_per_bot integer NULL CHECK (pages_per_bot >= 0),
        bot_slots integer NULL CHECK (bot_slots >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE identity.api_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES identity.workspaces(id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash text NOT NULL,
        token_hint text NOT NULL,
        scopes text[] NOT NULL,
        bot_ids uuid[] NULL,
        expires_at timestamptz NULL,
        revoked_at timestamptz NULL,
        last_used_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT api_tokens_token_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX api_tokens_workspace_idx ON identity.api_tokens (workspace_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA identity CASCADE`);
  }
}
