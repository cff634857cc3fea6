import { MigrationInterface, QueryRunner } from 'typeorm';
import { scriptBigramsFunctionSql } from '@sa/text-scripts';

/**
 * Chunks of knowledge documents with their embeddings (the embedded vector store's source of
 * truth, see apps/knowledge/src/vector-store/README.md).
 *
 * - `embedding real[]` (no pgvector): the vector, readable and usable from SQL; `embedding_f32`: the
 *   same vector as packed little-endian float32, written together with it by the store, because
 *   the in-process index loads it about ten times faster than real[] text (float4out).
 *   `embedder` + `dim` say which embedder produced the vector; search only compares vectors of
 *   one embedder.
 * - `seq` orders rows by insertion so replicas can fetch what was appended since they loaded.
 * - `tsv`: words of title + text ('simple' config: no stemming, works for every language) plus
 *   character bigrams of scripts written without spaces (CJK, Thai, Lao, Khmer, Myanmar), which
 *   the default parser would keep as one long "word" per run, so full-text matching also works
 *   for them. knowledge.script_bigrams comes from @sa/text-scripts, like the query side (text-query.ts).
 * - `knowledge.chunk_index_stamps`: per (workspace, embedder) counters maintained by statement
 *   triggers in the writing transaction (row count, sum of seq, a change counter and a rewrite
 *   counter): one indexed row to read to know whether an in-process index is still current.
 *
 * document_id has no foreign key: knowledge.documents belongs to another migration; deleting a
 * document deletes its chunks through the vector store (deleteByDocument).
 */
export class CreateKnowledgeChunks1795300003000 implements MigrationInterface {
  name = 'CreateKnowledgeChunks1795300003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS knowledge`);
    // knowledge.script_bigrams(text): the bigrams of the runs of scripts written without spaces.
    await q.query(scriptBigramsFunctionSql('knowledge'));
    await q.query(`
      CREATE TABLE knowledge.chunks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        tenant_id uuid NOT NULL,
        document_id uuid NOT NULL,
        chatbot_id uuid NULL,
        ordinal int NOT NULL DEFAULT 0,
        text text NOT NULL,
        title text NULL,
        source_url text NULL,
        embedder text NOT NULL CHECK (char_length(embedder) BETWEEN 1 AND 200),
        dim int NOT NULL CHECK (dim > 0),
        embedding real[] NOT NULL CHECK (cardinality(embedding) = dim),
        embedding_f32 bytea NOT NULL CHECK (octet_length(embedding_f32) = 4 * dim),
        tsv tsvector GENERATED ALWAYS AS (
          to_tsvector('simple', coalesce(title, '') || ' ' || text)
          || to_tsvector('simple', knowledge.script_bigrams(coalesce(title, '') || ' ' || text))
        ) STORED,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX chunks_seq_key ON knowledge.chunks (seq)`);
    await q.query(`CREATE INDEX chunks_tsv_idx ON knowledge.chunks USING gin (tsv)`);
    await q.query(`CREATE INDEX chunks_tenant_embedder_bot_idx ON knowledge.chunks (tenant_id, embedder, chatbot_id)`);
    await q.query(`CREATE INDEX chunks_tenant_embedder_seq_idx ON knowledge.chunks (tenant_id, embedder, seq)`);
    await q.query(`CREATE INDEX chunks_document_idx ON knowledge.chunks (document_id)`);

    await q.query(`
      CREATE TABLE knowledge.chunk_index_stamps (
        tenant_id uuid NOT NULL,
        embedder text NOT NULL,
        n_chunks bigint NOT NULL DEFAULT 0,
        seq_sum bigint NOT NULL DEFAULT 0,
        version bigint NOT NULL DEFAULT 0,
        rewrites bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant_id, embedder)
      )`);
    await q.query(`
      CREATE FUNCTION knowledge.chunks_stamp_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO knowledge.chunk_index_stamps AS s (tenant_id, embedder, n_chunks, seq_sum, version)
        SELECT tenant_id, embedder, count(*), sum(seq), 1 FROM new_rows GROUP BY tenant_id, embedder
        ON CONFLICT (tenant_id, embedder) DO UPDATE
          SET n_chunks = s.n_chunks + EXCLUDED.n_chunks, seq_sum = s.seq_sum + EXCLUDED.seq_sum, version = s.version + 1;
        RETURN NULL;
      END $fn$`);
    await q.query(`
      CREATE FUNCTION knowledge.chunks_stamp_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        UPDATE knowledge.chunk_index_stamps AS s
           SET n_chunks = s.n_chunks - d.n, seq_sum = s.seq_sum - d.seq_sum, version = s.version + 1
          FROM (SELECT tenant_id, embedder, count(*) AS n, sum(seq) AS seq_sum FROM old_rows GROUP BY tenant_id, embedder) AS d
         WHERE s.tenant_id = d.tenant_id AND s.embedder = d.embedder;
        RETURN NULL;
      END $fn$`);
    // An UPDATE may change vectors in place: readers reload the affected indexes completely.
    await q.query(`
      CREATE FUNCTION knowledge.chunks_stamp_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        UPDATE knowledge.chunk_index_stamps AS s
           SET n_chunks = s.n_chunks - d.n, seq_sum = s.seq_sum - d.seq_sum, version = s.version + 1, rewrites = s.rewrites + 1
          FROM (SELECT tenant_id, embedder, count(*) AS n, sum(seq) AS seq_sum FROM old_rows GROUP BY tenant_id, embedder) AS d
         WHERE s.tenant_id = d.tenant_id AND s.embedder = d.embedder;
        INSERT INTO knowledge.chunk_index_stamps AS s (tenant_id, embedder, n_chunks, seq_sum, version, rewrites)
        SELECT tenant_id, embedder, count(*), sum(seq), 1, 1 FROM new_rows GROUP BY tenant_id, embedder
        ON CONFLICT (tenant_id, embedder) DO UPDATE
          SET n_chunks = s.n_chunks + EXCLUDED.n_chunks, seq_sum = s.seq_sum + EXCLUDED.seq_sum, version = s.version + 1, rewrites = s.rewrites + 1;
        RETURN NULL;
      END $fn$`);
    await q.query(`
      CREATE FUNCTION knowledge.chunks_stamp_truncate() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        UPDATE knowledge.chunk_index_stamps SET n_chunks = 0, seq_sum = 0, version = version + 1, rewrites = rewrites + 1;
        RETURN NULL;
      END $fn$`);
    await q.query(`CREATE TRIGGER chunks_stamp_insert AFTER INSERT ON knowledge.chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge.chunks_stamp_insert()`);
    await q.query(`CREATE TRIGGER chunks_stamp_delete AFTER DELETE ON knowledge.chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge.chunks_stamp_delete()`);
    await q.query(
      `CREATE TRIGGER chunks_stamp_update AFTER UPDATE ON knowledge.chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge.chunks_stamp_update()`,
    );
    await q.query(`CREATE TRIGGER chunks_stamp_truncate AFTER TRUNCATE ON knowledge.chunks FOR EACH STATEMENT EXECUTE FUNCTION knowledge.chunks_stamp_truncate()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE knowledge.chunk_index_stamps`);
    await q.query(`DROP TABLE knowledge.chunks`);
    await q.query(`DROP FUNCTION knowledge.chunks_stamp_insert(), knowledge.chunks_stamp_delete(), knowledge.chunks_stamp_update(), knowledge.chunks_stamp_truncate()`);
    await q.query(`DROP FUNCTION knowledge.script_bigrams(text)`);
  }
}
