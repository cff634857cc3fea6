import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Re-sync of URL sources (issue 19).
 *
 * - `content_hash`: sha256 of the page's title and extracted text when it was last indexed; a
 *   re-fetch that finds the same hash (same embedder) keeps the chunks and embeds nothing.
 * - `resync_schedule` (none | daily | weekly) and `next_sync_at`: the scheduler queues a source
 *   again once `next_sync_at` has passed; `last_synced_at`: when it was last fetched and indexed.
 * - `knowledge.scheduler_leases`: one row per periodic job; the replica holding an unexpired lease
 *   runs the job, so replicas do not run it twice.
 */
export class KnowledgeResync1795300019200 implements MigrationInterface {
  name = 'KnowledgeResync1795300019200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE knowledge.documents
        ADD COLUMN content_hash text NULL,
        ADD COLUMN resync_schedule text NOT NULL DEFAULT 'none' CHECK (resync_schedule IN ('none', 'daily', 'weekly')),
        ADD COLUMN last_synced_at timestamptz NULL,
        ADD COLUMN next_sync_at timestamptz NULL`);
    await q.query(`CREATE INDEX documents_resync_due_idx ON knowledge.documents (next_sync_at) WHERE resync_schedule <> 'none'`);
    await q.query(`
      CREATE TABLE knowledge.scheduler_leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        lease_until timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS knowledge.scheduler_leases`);
    await q.query(`DROP INDEX IF EXISTS knowledge.documents_resync_due_idx`);
    await q.query(`ALTER TABLE knowledge.documents DROP COLUMN content_hash, DROP COLUMN resync_schedule, DROP COLUMN last_synced_at, DROP COLUMN next_sync_at`);
  }
}
