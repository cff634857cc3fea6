import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploaded files (issue 19): a `file` document names its bytes in blob storage (libs/blob-storage)
 * with the name and type it was uploaded with; the worker extracts its text from there.
 */
export class KnowledgeFiles1795300019100 implements MigrationInterface {
  name = 'KnowledgeFiles1795300019100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE knowledge.documents ADD COLUMN storage_key text NULL, ADD COLUMN file_name text NULL, ADD COLUMN content_type text NULL, ADD COLUMN file_size integer NULL`);
    await q.query(`ALTER TABLE knowledge.documents ADD CONSTRAINT documents_file_key_check CHECK (source_type <> 'file' OR storage_key IS NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE knowledge.documents DROP CONSTRAINT IF EXISTS documents_file_key_check`);
    await q.query(`ALTER TABLE knowledge.documents DROP COLUMN storage_key, DROP COLUMN file_name, DROP COLUMN content_type, DROP COLUMN file_size`);
  }
}
