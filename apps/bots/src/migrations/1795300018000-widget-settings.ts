import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A bot's visitor-widget settings (issue 18): the origins its widget routes accept, its look, and
 * its identity secret, sealed with the webhook secrets' key (`v1:<iv>:<tag>:<ciphertext>`). No row:
 * the defaults (every origin, the default look, no secret).
 */
export class WidgetSettings1795300018000 implements MigrationInterface {
  name = 'WidgetSettings1795300018000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bots.widget_settings (
        chatbot_id uuid PRIMARY KEY REFERENCES bots.bots (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        allowed_origins text[] NOT NULL DEFAULT '{}' CHECK (cardinality(allowed_origins) <= 20),
        color text NOT NULL CHECK (color ~ '^#[0-9a-f]{6}$'),
        position text NOT NULL CHECK (position IN ('right', 'left')),
        greeting text NULL CHECK (char_length(greeting) BETWEEN 1 AND 300),
        launcher_text text NULL CHECK (char_length(launcher_text) BETWEEN 1 AND 40),
        identity_secret text NULL,
        identity_secret_created_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX widget_settings_tenant_idx ON bots.widget_settings (tenant_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bots.widget_settings`);
  }
}
