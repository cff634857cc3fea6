import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '@sa/db';
import type { KbDocumentView, KbPagesView, KbResyncSchedule, KbSourceType, KbStatus } from '@sa/contracts';

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
  /** sha256 of title and text when last indexed (issue 19); null before. */
  content_hash: string | null;
  /** The embedder of its chunks (null before the first index). */
  embedder: string | null;
  resync_schedule: KbResyncSchedule;
  last_synced_at: Date | null;
  next_sync_at: Date | null;
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
  /** Inserted already claimed (`processing`) by this claimant for `leaseMs`: add-qa indexes it inline. */
  claim?: { by: string; leaseMs: number };
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
    resync_schedule: r.resync_schedule,
    last_synced_at: r.last_synced_at?.toISOString() ?? null,
    next_sync_at: r.next_sync_at?.toISOString() ?? null,
    parent_id: r.parent_id,
  };
}

const VIEW_COLUMNS =
  'id, tenant_id, chatbot_id, title, source_url, source_type, status, chunk_count, failure_reason, created_at, parent_id, resync_schedule, last_synced_at, next_sync_at';
/** Every column a worker needs of a document (DocumentRow), qualified by `d.`. */
export const DOCUMENT_COLUMNS =
  'd.id, d.tenant_id, d.chatbot_id, d.title, d.source_url, d.source_type, d.status, d.chunk_count, d.failure_reason, d.content, d.parent_id, d.discover, d.page_quota, d.attempts, d.created_at, d.content_hash, d.embedder, d.resync_schedule, d.last_synced_at, d.next_sync_at';

/** Documents of the knowledge base. Every read and write names the tenant. */
@Injectable()
export class DocumentsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /** Serialises quota checks of one bot (or of the workspace-wide documents) for the transaction. */
  lockQuota(m: EntityManager, tenantId: string, chatbotId: string | null): Promise<void> {
    return lockPageQuota(m, tenantId, chatbotId);
  }

  /** Pages that count toward the quota: every document of the bot that did not fail. */
  countPages(m: EntityManager, tenantId: string, chatbotId: string | null): Promise<number> {
    return countPages(m, tenantId, chatbotId);
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
      `INSERT INTO knowledge.documents (tenant_id, chatbot_id, title, source_url, source_type, content, parent_id, discover, page_quota, status, claimed_by, claimed_until, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $10::text IS NULL THEN 'queued' ELSE 'processing' END, $10::text,
               CASE WHEN $10::text IS NULL THEN NULL ELSE clock_timestamp() + make_interval(secs => $11::float8 / 1000) END, CASE WHEN $10::text IS NULL THEN 0 ELSE 1 END)
       RETURNING ${VIEW_COLUMNS}`,
      [d.tenantId, d.chatbotId, d.title, d.sourceUrl, d.sourceType, d.content, d.parentId ?? null, d.discover ?? false, d.pageQuota ?? null, d.claim?.by ?? null, d.claim?.leaseMs ?? 0],
    );
    return row;
  }

  /** One document of the workspace, or null. */
  async get(tenantId: string, id: string): Promise<DocumentRow | null> {
    const [row] = await this.ds.query(`SELECT ${VIEW_COLUMNS} FROM knowledge.documents WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return row ?? null;
  }

  /** The document locked for the transaction (re-sync decides on its current status). */
  async lockDocument(m: EntityManager, tenantId: string, id: string): Promise<DocumentRow | null> {
    const [row] = await m.query(`SELECT ${VIEW_COLUMNS}, page_quota FROM knowledge.documents WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, id]);
    return row ?? null;
  }

  /**
   * Queues a source again (re-sync): its chunks stay searchable until the worker replaces them.
   * A scheduled source's next run is counted from now, so a slow sync is not queued twice.
   */
  async requeue(m: EntityManager, id: string, pageQuota: number | null): Promise<DocumentRow> {
    const [row] = await queryRows<DocumentRow>(
      m,
      `UPDATE knowledge.documents
          SET status = 'queued', attempts = 0, failure_reason = NULL, claimed_by = NULL, claimed_until = NULL, page_quota = COALESCE($2, page_quota),
              next_sync_at = ${NEXT_SYNC_AT}, updated_at = clock_timestamp()
        WHERE id = $1 RETURNING ${VIEW_COLUMNS}`,
      [id, pageQuota],
    );
    await m.query(`SELECT pg_notify('knowledge_documents', '')`);
    return row;
  }

  /** Sets how often a source is re-synced; its next run counts from its last sync (or from now). */
  async setSchedule(tenantId: string, id: string, schedule: KbResyncSchedule): Promise<DocumentRow | null> {
    const [row] = await queryRows<DocumentRow>(
      this.ds,
      `UPDATE knowledge.documents
          SET resync_schedule = $3::text,
              next_sync_at = CASE $3::text WHEN 'daily' THEN COALESCE(last_synced_at, clock_timestamp()) + interval '1 day'
                                           WHEN 'weekly' THEN COALESCE(last_synced_at, clock_timestamp()) + interval '7 days' END,
              updated_at = clock_timestamp()
        WHERE tenant_id = $1 AND id = $2 RETURNING ${VIEW_COLUMNS}`,
      [tenantId, id, schedule],
    );
    return row ?? null;
  }

  /** Scheduled sources whose next run has come and that are not being synced now, oldest due first. */
  async dueSources(limit: number): Promise<{ id: string; tenant_id: string; chatbot_id: string | null }[]> {
    return this.ds.query(
      `SELECT id, tenant_id, chatbot_id FROM knowledge.documents
        WHERE resync_schedule <> 'none' AND next_sync_at <= clock_timestamp() AND status IN ('ready', 'failed')
        ORDER BY next_sync_at LIMIT $1`,
      [limit],
    );
  }

  /** A due source that cannot be queued now (no room in the quota) waits for its next run. */
  async postpone(id: string): Promise<void> {
    await this.ds.query(`UPDATE knowledge.documents SET next_sync_at = ${NEXT_SYNC_AT}, updated_at = clock_timestamp() WHERE id = $1`, [id]);
  }

  /**
   * Takes or renews the lease of a periodic job for `ms`; false while another holder's lease runs.
   * The one replica holding it runs the job, so replicas do not run it twice.
   */
  async takeLease(name: string, holder: string, ms: number): Promise<boolean> {
    const rows = await queryRows(
      this.ds,
      `INSERT INTO knowledge.scheduler_leases AS l (name, holder, lease_until) VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3::float8 / 1000))
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until
        WHERE l.lease_until < clock_timestamp() OR l.holder = EXCLUDED.holder
       RETURNING holder`,
      [name, holder, ms],
    );
    return rows.length > 0;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.ds.query(`DELETE FROM knowledge.scheduler_leases WHERE name = $1 AND holder = $2`, [name, holder]);
  }

  /**
   * Newest first, the documents added (text, files, Q&A, URL sources) before the pages found on
   * crawled sites: a site of more pages than `limit` still lists its source (and its progress, issue
   * 36). Only `chatbotId`'s documents when given.
   */
  async list(tenantId: string, chatbotId: string | undefined, limit: number): Promise<DocumentRow[]> {
    return this.ds.query(
      `SELECT ${VIEW_COLUMNS} FROM knowledge.documents
        WHERE tenant_id = $1 AND ($2::uuid IS NULL OR chatbot_id = $2::uuid)
        ORDER BY parent_id IS NOT NULL, created_at DESC, id DESC LIMIT $3`,
      [tenantId, chatbotId ?? null, limit],
    );
  }

  /** The pages found on each of these sources, by status (sources without pages are left out). */
  async pageProgress(tenantId: string, sourceIds: string[]): Promise<Map<string, KbPagesView>> {
    if (!sourceIds.length) return new Map();
    const rows = await queryRows<{ parent_id: string; found: number; ready: number; failed: number }>(
      this.ds,
      `SELECT parent_id, count(*)::int AS found,
              count(*) FILTER (WHERE status = 'ready')::int AS ready,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM knowledge.documents
        WHERE tenant_id = $1 AND parent_id = ANY($2::uuid[])
        GROUP BY parent_id`,
      [tenantId, sourceIds],
    );
    return new Map(rows.map((r) => [r.parent_id, { found: r.found, ready: r.ready, failed: r.failed }]));
  }
}

/** When a scheduled source is due next, counted from now (NULL without a schedule). */
export const NEXT_SYNC_AT = `CASE resync_schedule WHEN 'daily' THEN clock_timestamp() + interval '1 day' WHEN 'weekly' THEN clock_timestamp() + interval '7 days' END`;

/** Serialises quota checks of one bot (or of the workspace-wide documents) for the transaction. */
export async function lockPageQuota(m: EntityManager, tenantId: string, chatbotId: string | null): Promise<void> {
  await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7302))`, [`${tenantId}:${chatbotId ?? '*'}`]);
}

/** Pages that count toward the quota: every document of the bot that did not fail. */
export async function countPages(m: EntityManager, tenantId: string, chatbotId: string | null): Promise<number> {
  const [row] = await m.query(
    `SELECT count(*)::int AS n FROM knowledge.documents WHERE tenant_id = $1 AND chatbot_id IS NOT DISTINCT FROM $2 AND status <> 'failed'`,
    [tenantId, chatbotId],
  );
  return row.n;
}
