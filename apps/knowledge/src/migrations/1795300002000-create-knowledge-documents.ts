import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablesSql } from '@sa/events';

/**
 * Knowledge-base documents and their ingestion queue. A document is claimed by one worker at a
 * time (FOR UPDATE SKIP LOCKED) for a lease; an expired lease is taken over by another worker.
 */
export class CreateKnowledgeDocuments1795300002000 implements MigrationInterface {
  name = 'CreateKnowledgeDocuments1795300002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS knowledge`);
    await q.query(`
      CREATE TABLE knowledge.documents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NULL,
        title text NOT NULL,
        source_url text NULL,
        source_type text NOT NULL CHECK (source_type IN ('url', 'file', 'qa', 'snippet')),
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'ready', 'failed')),
        chunk_count integer NOT NULL DEFAULT 0,
        failure_reason text NULL,
        content text NULL,
        parent_id uuid NULL REFERENCES knowledge.documents(id) ON DELETE SET NULL,
        discover boolean NOT NULL DEFAULT false,
        page_quota integer NULL,
        attempts integer NOT NULL DEFAULT 0,
        claimed_by text NULL,
        claimed_until timestamptz NULL,
        embedder text NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX documents_tenant_created_idx ON knowledge.documents (tenant_id, created_at DESC, id)`);
    await q.query(`CREATE INDEX documents_tenant_bot_idx ON knowledge.documents (tenant_id, chatbot_id) WHERE status <> 'failed'`);
    await q.query(`CREATE INDEX documents_work_idx ON knowledge.documents (created_at) WHERE status IN ('queued', 'processing')`);
    await q.query(`CREATE UNIQUE INDEX documents_child_url_key ON knowledge.documents (parent_id, source_url) WHERE parent_id IS NOT NULL`);
    await q.query(`
      CREATE FUNCTION knowledge.notify_documents() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('knowledge_documents', ''); RETURN NULL; END $$`);
    await q.query(`CREATE TRIGGER documents_notify AFTER INSERT ON knowledge.documents FOR EACH STATEMENT EXECUTE FUNCTION knowledge.notify_documents()`);
    for (const sql of outboxTablesSql('knowledge').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS knowledge.documents CASCADE`);
    await q.query(`DROP FUNCTION IF EXISTS knowledge.notify_documents()`);
  }
}
