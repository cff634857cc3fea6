import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { KbDocumentView, KbSourceType, KbStatus } from '@sa/contracts';

export interface DocumentRow {
  id: string;
  tenant_id: string;
  chatbot_id: string | null;
  title: string;
  source_url: string | null;
  source_type: KbSourceType;
  status: KbStatus;
  chunk_count: number;
  failure_reason: string | null;
  content: string | null;
  parent_id: string | null;
  discover: boolean;
  page_quota: number | null;
  attempts: number;
  created_at: Date;
}

export interface NewDocument {
  tenantId: string;
  chatbotId: string | null;
  title: string;
  sourceUrl: string | null;
  sourceType: KbSourceType;
  content: string | null;
  parentId?: string | null;
  discover?: boolean;
  /** The bot's page quota when the document was queued, for pages it discovers. */
  pageQuota?: number | null;
}

export function toDocumentView(r: DocumentRow): KbDocumentView {
  return {
    id: r.id,
    title: r.title,
    source_url: r.source_url,
    source_type: r.source_type,
    status: r.status,
    chunk_count: r.chunk_count,
    chatbot_id: r.chatbot_id,
    created_at: r.created_at.toISOString(),
    failure_reason: r.failure_reason,
  };
}

const VIEW_COLUMNS = 'id, tenant_id, chatbot_id, title, source_url, source_type, status, chunk_count, failure_reason, created_at';

/** Documents of the knowledge base. Every read and write names the tenant. */
@Injectable()
export class DocumentsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /** Serialises quota checks of one bot (or of the workspace-wide documents) for the transaction. */
  async lockQuota(m: EntityManager, tenantId: string, chatbotId: string | null): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7302))`, [`${tenantId}:${chatbotId ?? '*'}`]);
  }

  /** Pages that count toward the quota: every document of the bot that did not fail. */
  async countPages(m: EntityManager, tenantId: string, chatbotId: string | null): Promise<number> {
    const [row] = await m.query(
      `SELECT count(*)::int AS n FROM knowledge.documents WHERE tenant_id = $1 AND chatbot_id IS NOT DISTINCT FROM $2 AND status <> 'failed'`,
      [tenantId, chatbotId],
    );
    return row.n;
  }

  /** Pages per bot of a workspace, counted as countPages counts them (bots with none are absent). */
  async pagesPerBot(tenantId: string): Promise<{ bot_id: string; pages: number }[]> {
    const rows: { bot_id: string; pages: number }[] = await this.ds.query(
      `SELECT chatbot_id AS bot_id, count(*)::int AS pages FROM knowledge.documents
        WHERE tenant_id = $1 AND chatbot_id IS NOT NULL AND status <> 'failed' GROUP BY chatbot_id ORDER BY chatbot_id`,
      [tenantId],
    );
    return rows.map((r) => ({ bot_id: r.bot_id, pages: Number(r.pages) }));
  }

  async insert(m: EntityManager, d: NewDocument): Promise<DocumentRow> {
    const [row] = await m.query(
      `INSERT INTO knowledge.documents (tenant_id, chatbot_id, title, source_url, source_type, content, parent_id, discover, page_quota)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${VIEW_COLUMNS}`,
      [d.tenantId, d.chatbotId, d.title, d.sourceUrl, d.sourceType, d.content, d.parentId ?? null, d.discover ?? false, d.pageQuota ?? null],
    );
    return row;
  }

  /** Newest first; only `chatbotId`'s documents when given. */
  async list(tenantId: string, chatbotId: string | undefined, limit: number): Promise<DocumentRow[]> {
    return this.ds.query(
      `SELECT ${VIEW_COLUMNS} FROM knowledge.documents
        WHERE tenant_id = $1 AND ($2::uuid IS NULL OR chatbot_id = $2::uuid)
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [tenantId, chatbotId ?? null, limit],
    );
  }
}
