import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An action's status text (issue 34): what the visitor sees while it runs ("Checking your order…"),
 * 1 to 80 characters of one line; null: chat's generic text in the reply's language. The limits
 * repeat the API's.
 */
export class BotActionStatusText1795300034300 implements MigrationInterface {
  name = 'BotActionStatusText1795300034300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bots.actions ADD COLUMN status_text text NULL CHECK (char_length(status_text) BETWEEN 1 AND 80 AND status_text !~ '[[:cntrl:]]')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bots.actions DROP COLUMN status_text`);
  }
}
