import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A workspace's model connections (issue 32, "Models"): provider, base URL, model and the key,
 * sealed with the key of webhook signing secrets (SecretBox: `v1:<iv>:<tag>:<ciphertext>`), never
 * in plain text. A bot's behaviour row names the connection it answers through (null: the
 * installation's model) and its temperature; deleting a connection puts its bots back on the
 * installation's model. The limits repeat the API's.
 */
export class ModelConnections1795300022600 implements MigrationInterface {
  name = 'ModelConnections1795300022600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bots.model_connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
        kind text NOT NULL CHECK (kind IN ('openai', 'anthropic', 'ollama')),
        base_url text NULL CHECK (char_length(base_url) BETWEEN 1 AND 2000),
        model text NOT NULL CHECK (char_length(model) BETWEEN 1 AND 200),
        api_key_sealed text NULL CHECK (api_key_sealed LIKE 'v1:%'),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (tenant_id, id)
      )`);
    await q.query(`CREATE UNIQUE INDEX model_connections_tenant_name_key ON bots.model_connections (tenant_id, lower(name))`);
    await q.query(`ALTER TABLE bots.behaviour ADD COLUMN model_connection_id uuid NULL, ADD COLUMN temperature real NULL CHECK (temperature BETWEEN 0 AND 2)`);
    // The connection must be of the bot's own workspace: the foreign key includes the tenant.
    await q.query(`ALTER TABLE bots.behaviour ADD CONSTRAINT behaviour_model_connection_fkey FOREIGN KEY (tenant_id, model_connection_id)
      REFERENCES bots.model_connections (tenant_id, id) ON DELETE SET NULL (model_connection_id)`);
    await q.query(`CREATE INDEX behaviour_model_connection_idx ON bots.behaviour (model_connection_id) WHERE model_connection_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bots.behaviour DROP COLUMN model_connection_id, DROP COLUMN temperature`);
    await q.query(`DROP TABLE bots.model_connections`);
  }
}
