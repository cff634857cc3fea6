import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * First-run setup (issue 31): the setup codes that may create the first owner (SHA-256 of the
 * normalised code; the code itself is never stored), and the one row that says the installation
 * is set up, after which the setup page is gone for good (even if every person is later removed).
 * An installation that already has people when this runs is set up.
 */
export class FirstRunSetup1795300021000 implements MigrationInterface {
  name = 'FirstRunSetup1795300021000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE people.setup_codes (
        code_hash text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE people.installation (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        set_up_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        set_up_by uuid
      )`);
    await q.query(`INSERT INTO people.installation (singleton) SELECT true WHERE EXISTS (SELECT 1 FROM people.persons)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE people.installation`);
    await q.query(`DROP TABLE people.setup_codes`);
  }
}
