import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * leads.leads.created_at in whole milliseconds (timestamptz(3), the default truncated). The API
 * shows a lead's created_at to the millisecond, and the console's keyset cursor (GET …/leads `next`,
 * the CSV export's pages) is that created_at plus the id. With microseconds stored, leads created
 * within one millisecond of the last lead of a page (a batch of turns handled in one go) sorted
 * after it yet compared as not before the cursor: the next page skipped them. Existing values are
 * truncated, not rounded, so created_at never passes updated_at.
 */
export class LeadsCreatedAtMilliseconds1795300020000 implements MigrationInterface {
  name = 'LeadsCreatedAtMilliseconds1795300020000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE leads.leads
        ALTER COLUMN created_at TYPE timestamptz(3) USING date_trunc('milliseconds', created_at),
        ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', clock_timestamp())`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE leads.leads ALTER COLUMN created_at TYPE timestamptz, ALTER COLUMN created_at SET DEFAULT clock_timestamp()`);
  }
}
