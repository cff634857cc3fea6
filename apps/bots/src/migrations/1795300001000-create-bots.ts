import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablesSql } from '@sa/events';

/** Bots, with name uniqueness per workspace (case-insensitive) enforced by the database. */
export class CreateBots1795300001000 implements MigrationInterface {
  name = 'CreateBots1795300001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS bots`);
    await q.query(`
      CREATE TABLE bots.bots (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 30),
        language text NOT NULL,
        slot_kind text NOT NULL CHECK (slot_kind IN ('plan', 'addon', 'vendor')),
        enterprise_plan_tier text NULL CHECK (enterprise_plan_tier IN ('starter', 'growth', 'scale')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE UNIQUE INDEX bots_tenant_name_key ON bots.bots (tenant_id, lower(name))`);
    await q.query(`CREATE INDEX bots_tenant_created_idx ON bots.bots (tenant_id, created_at, id)`);
    for (const sql of outboxTablesSql('bots').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA bots CASCADE`);
  }
}
