import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20: what a delivery's claim and outcome cost PostgreSQL.
 *
 *  - `open` (generated: pending or sending) is what the open and finished partial indexes are
 *    about, instead of `status`. A claim (pending -> sending) then changes no indexed column, so it
 *    is a HOT update (no new entry in any of the five indexes) when its page has room, and the
 *    dispatcher's statements, which name a status, can no longer be planned through those indexes:
 *    their plans are made once per connection (see DeliveriesRepository) and stay index lookups by
 *    id whatever the backlog.
 *  - fillfactor 60: room on each page for the claims of the deliveries inserted there.
 *
 * Adding a stored generated column rewrites the table (under an exclusive lock): a deployment with
 * a large delivery log runs it while the dispatchers are stopped. Finished deliveries older than
 * WEBHOOK_LOG_RETENTION_DAYS are deleted, which bounds the table.
 */
export class DeliveriesOpenColumn1795300020100 implements MigrationInterface {
  name = 'DeliveriesOpenColumn1795300020100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhooks.deliveries_open_idx`);
    await q.query(`DROP INDEX webhooks.deliveries_finished_idx`);
    await q.query(`ALTER TABLE webhooks.deliveries ADD COLUMN open boolean GENERATED ALWAYS AS (status IN ('pending', 'sending')) STORED`);
    await q.query(`CREATE INDEX deliveries_open_idx ON webhooks.deliveries (created_at) WHERE open`);
    await q.query(`CREATE INDEX deliveries_finished_idx ON webhooks.deliveries (created_at) WHERE NOT open`);
    await q.query(`ALTER TABLE webhooks.deliveries SET (fillfactor = 60)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.deliveries RESET (fillfactor)`);
    await q.query(`DROP INDEX webhooks.deliveries_open_idx`);
    await q.query(`DROP INDEX webhooks.deliveries_finished_idx`);
    await q.query(`ALTER TABLE webhooks.deliveries DROP COLUMN open`);
    await q.query(`CREATE INDEX deliveries_open_idx ON webhooks.deliveries (created_at) WHERE status IN ('pending', 'sending')`);
    await q.query(`CREATE INDEX deliveries_finished_idx ON webhooks.deliveries (created_at) WHERE status IN ('succeeded', 'failed')`);
  }
}
