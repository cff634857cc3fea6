import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '@sa/db';
import type { DocumentRow } from '../documents/documents.repository';

export interface NewFileDocument {
  tenantId: string;
  chatbotId: string | null;
  title: string;
  storageKey: string;
  fileName: string;
  contentType: string;
  size: number;
}

export interface StoredFile {
  storage_key: string;
  file_name: string;
  content_type: string | null;
}

const VIEW_COLUMNS = 'id, tenant_id, chatbot_id, title, source_url, source_type, status, chunk_count, failure_reason, created_at';

/** `file` documents and deleting documents. Every read and write names the tenant. */
@Injectable()
export class KnowledgeFilesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insertFile(m: EntityManager, d: NewFileDocument): Promise<DocumentRow> {
    const [row] = await queryRows<DocumentRow>(
      m,
      `INSERT INTO knowledge.documents (tenant_id, chatbot_id, title, source_type, storage_key, file_name, content_type, file_size)
       VALUES ($1, $2, $3, 'file', $4, $5, $6, $7) RETURNING ${VIEW_COLUMNS}`,
      [d.tenantId, d.chatbotId, d.title, d.storageKey, d.fileName, d.contentType, d.size],
    );
    return row;
  }

  /** The stored file of a `file` document (the worker reads it), or null. */
  async fileOf(tenantId: string, documentId: string): Promise<StoredFile | null> {
    const [row] = await queryRows<StoredFile>(
      this.ds,
      `SELECT storage_key, file_name, content_type FROM knowledge.documents WHERE tenant_id = $1 AND id = $2 AND storage_key IS NOT NULL`,
      [tenantId, documentId],
    );
    return row ?? null;
  }

  async exists(tenantId: string, documentId: string): Promise<boolean> {
    const rows = await queryRows(this.ds, `SELECT 1 FROM knowledge.documents WHERE tenant_id = $1 AND id = $2`, [tenantId, documentId]);
    return rows.length > 0;
  }

  async find(tenantId: string, documentId: string): Promise<{ id: string; chatbot_id: string | null } | null> {
    const [row] = await queryRows<{ id: string; chatbot_id: string | null }>(
      this.ds,
      `SELECT id, chatbot_id FROM knowledge.documents WHERE tenant_id = $1 AND id = $2`,
      [tenantId, documentId],
    );
    return row ?? null;
  }

  /** The document and the pages discovered from it (a crawled site goes as a whole). */
  async withDescendants(tenantId: string, documentId: string): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `WITH RECURSIVE tree AS (
         SELECT id FROM knowledge.documents WHERE tenant_id = $1 AND id = $2
         UNION
         SELECT d.id FROM knowledge.documents d JOIN tree t ON d.parent_id = t.id WHERE d.tenant_id = $1
       ) SELECT id FROM tree`,
      [tenantId, documentId],
    );
    return rows.map((r) => r.id);
  }

  /** Deletes the documents (and the pages discovered from them); returns the blob keys they held. */
  async deleteTree(tenantId: string, documentId: string): Promise<{ ids: string[]; storageKeys: string[] }> {
    const rows = await queryRows<{ id: string; storage_key: string | null }>(
      this.ds,
      `WITH RECURSIVE tree AS (
         SELECT id FROM knowledge.documents WHERE tenant_id = $1 AND id = $2
         UNION
         SELECT d.id FROM knowledge.documents d JOIN tree t ON d.parent_id = t.id WHERE d.tenant_id = $1
       )
       DELETE FROM knowledge.documents d USING tree WHERE d.id = tree.id AND d.tenant_id = $1
       RETURNING d.id, d.storage_key`,
      [tenantId, documentId],
    );
    return { ids: rows.map((r) => r.id), storageKeys: rows.flatMap((r) => (r.storage_key ? [r.storage_key] : [])) };
  }
}
