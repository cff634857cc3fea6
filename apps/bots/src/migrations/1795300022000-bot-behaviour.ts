import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A bot's behaviour (issue 32): instructions for the model, the fallback reply, the answer length
 * and the widget's starter questions. No row: the defaults (no instructions, the translated
 * fallback phrase, normal length, no starter questions). The limits repeat the API's.
 */
export class BotBehaviour1795300022000 implements MigrationInterface {
  name = 'BotBehaviour1795300022000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bots.behaviour (
        chatbot_id uuid PRIMARY KEY REFERENCES bots.bots (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL,
        instructions text NOT NULL DEFAULT '' CHECK (char_length(instructions) <= 4000),
        fallback_reply text NULL CHECK (char_length(fallback_reply) BETWEEN 1 AND 1000),
        answer_length text NOT NULL DEFAULT 'normal' CHECK (answer_length IN ('short', 'normal', 'detailed')),
        starter_questions text[] NOT NULL DEFAULT '{}' CHECK (cardinality(starter_questions) <= 4),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX behaviour_tenant_idx ON bots.behaviour (tenant_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bots.behaviour`);
  }
}
