import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair ingestion across workspaces: when each workspace last had a document claimed. The claim
 * takes the oldest claimable document of the workspace served least recently, so one workspace's
 * large batch cannot hold up another's single document.
 */
export class CreateKnowledgeIngestionTurns1795300009400 implements MigrationInterface {
  name = 'CreateKnowledgeIngestionTurns1795300009400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE knowledge.ingestion_turns (
        tenant_id uuid PRIMARY KEY,
        served_at timestamptz NOT NULL
      )`);
    // The claim walks the workspaces that have work, and each one's oldest document, through this.
    await q.query(`CREATE INDEX documents_tenant_work_idx ON knowledge.documents (tenant_id, created_at) WHERE status IN ('queued', 'processing')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS knowledge.documents_tenant_work_idx`);
    await q.query(`DROP TABLE IF EXISTS knowledge.ingestion_turns`);
  }
}
