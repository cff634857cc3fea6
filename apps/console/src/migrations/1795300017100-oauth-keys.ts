import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The authorization server's own keys (interaction cookie keys, signing keys), shared by every
 * console replica: the first replica to start writes them, the others read the same row, so an
 * interaction begun on one replica finishes on another.
 */
export class OauthKeys1795300017100 implements MigrationInterface {
  name = 'OauthKeys1795300017100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE people.oauth_keys (
        name text PRIMARY KEY,
        value jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE people.oauth_keys`);
  }
}
