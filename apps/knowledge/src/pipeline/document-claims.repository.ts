import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '@sa/db';
import { countPages, DOCUMENT_COLUMNS, lockPageQuota, NEXT_SYNC_AT, type DocumentRow } from '../documents/documents.repository';

/** A document a worker may claim ($1: the maximum number of attempts). */
const CLAIMABLE = `d.status = 'queued' OR (d.status = 'processing' AND d.claimed_until < clock_timestamp() AND d.attempts < $1)`;

export interface ClaimedDocument extends DocumentRow {
  claimed_by: string;
}

/**
 * The ingestion queue is the documents table itself. A worker claims one document at a time for
 * a lease (FOR UPDATE SKIP LOCKED, so replicas never take the same one; workspaces take turns),
 * renews the lease while it works, and finishes with ready, failed, a retry later, or a release on shutdown. A worker
 * that dies leaves a lease that expires; the next claim takes the document over.
 */
@Injectable()
export class DocumentClaimsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Queue depth and the age of the oldest document, per waiting status (metrics). */
  async queueStats(): Promise<{ status: 'queued' | 'processing'; count: number; oldest_seconds: number }[]> {
    return queryRows(
      this.ds,
      `SELECT status, count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - min(created_at)), 0)::float8 AS oldest_seconds
         FROM knowledge.documents WHERE status IN ('queued', 'processing') GROUP BY status`,
      [],
    );
  }

  /** Fails documents whose lease expired after their last allowed attempt. Returns how many. */
  async failExhausted(maxAttempts: number): Promise<number> {
    const rows = await queryRows(this.ds, 
      `UPDATE knowledge.documents
          SET status = 'failed', claimed_by = NULL, claimed_until = NULL, finished_at = clock_timestamp(), updated_at = clock_timestamp(),
              failure_reason = 'Processing did not finish after ' || attempts || ' attempts' || COALESCE(': ' || failure_reason, '')
        WHERE status = 'processing' AND claimed_until < clock_timestamp() AND attempts >= $1
        RETURNING id`,
      [maxAttempts],
    );
    return rows.length;
  }

  /**
   * Claims the next claimable document (queued, or processing with an expired lease and attempts
   * left), fairly across workspaces: the oldest one of the workspace whose last claim is the
   * longest ago (never served first; ties by the age of their oldest document). Workspaces with
   * work so take turns, and one workspace's large batch never holds up another's document.
   *
   * Two steps, so that only the document taken is ever locked: the workspaces with a claimable
   * document, in turn order (no locks); then, in that order, the first workspace whose oldest
   * claimable document can still be locked (SKIP LOCKED: a concurrent claim took it) is served.
   * Both steps read documents_tenant_work_idx: the cost grows with the number of workspaces that
   * have work, not with the queue's length.
   */
  async claim(workerId: string, leaseMs: number, maxAttempts = 2_000_000_000): Promise<ClaimedDocument | null> {
    const turns = await queryRows<{ tenant_id: string }>(
      this.ds,
      `WITH RECURSIVE waiting AS (
         (SELECT tenant_id FROM knowledge.documents WHERE status IN ('queued', 'processing') ORDER BY tenant_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.tenant_id FROM knowledge.documents d
                  WHERE d.status IN ('queued', 'processing') AND d.tenant_id > w.tenant_id ORDER BY d.tenant_id LIMIT 1)
           FROM waiting w WHERE w.tenant_id IS NOT NULL
       )
       SELECT w.tenant_id
         FROM waiting w
         LEFT JOIN knowledge.ingestion_turns t ON t.tenant_id = w.tenant_id
        CROSS JOIN LATERAL (
              SELECT d.created_at FROM knowledge.documents d
               WHERE d.tenant_id = w.tenant_id AND (${CLAIMABLE})
               ORDER BY d.created_at LIMIT 1) oldest
        ORDER BY t.served_at NULLS FIRST, oldest.created_at`,
      [maxAttempts],
    );
    for (const { tenant_id } of turns) {
      const doc = await this.claimOf(tenant_id, workerId, leaseMs, maxAttempts);
      if (doc) return doc;
    }
    return null;
  }

  /** Claims the workspace's oldest claimable document and records the workspace as served now. */
  private async claimOf(tenantId: string, workerId: string, leaseMs: number, maxAttempts: number): Promise<ClaimedDocument | null> {
    const [row] = await queryRows<ClaimedDocument>(
      this.ds,
      `WITH next AS (
         SELECT d.id, d.tenant_id FROM knowledge.documents d
          WHERE d.tenant_id = $4 AND (${CLAIMABLE})
          ORDER BY d.created_at
          LIMIT 1
          FOR UPDATE SKIP LOCKED
       ), served AS (
         INSERT INTO knowledge.ingestion_turns AS t (tenant_id, served_at)
         SELECT tenant_id, clock_timestamp() FROM next
         ON CONFLICT (tenant_id) DO UPDATE SET served_at = EXCLUDED.served_at
       )
       UPDATE knowledge.documents d
          SET status = 'processing', claimed_by = $2, claimed_until = clock_timestamp() + make_interval(secs => $3::float8 / 1000),
              attempts = d.attempts + 1, updated_at = clock_timestamp()
         FROM next
        WHERE d.id = next.id
        RETURNING ${DOCUMENT_COLUMNS}, d.claimed_by`,
      [maxAttempts, workerId, leaseMs, tenantId],
    );
    return row ?? null;
  }

  /** Extends the lease; false when the claim was lost (another worker took the document over). */
  async renew(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    const rows = await queryRows(this.ds, 
      `UPDATE knowledge.documents SET claimed_until = clock_timestamp() + make_interval(secs => $3::float8 / 1000)
        WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id`,
      [id, workerId, leaseMs],
    );
    return rows.length > 0;
  }

  /**
   * Ready, with the hash of what was indexed; a scheduled source's next re-sync is counted from now.
   * `contentHash` null keeps the stored one (nothing new was indexed).
   */
  async markReady(id: string, workerId: string, chunkCount: number, embedder: string, contentHash: string | null = null): Promise<boolean> {
    const rows = await queryRows(this.ds, 
      `UPDATE knowledge.documents
          SET status = 'ready', chunk_count = $3, embedder = $4, failure_reason = NULL, claimed_by = NULL, claimed_until = NULL,
              content_hash = COALESCE($5, content_hash), last_synced_at = clock_timestamp(), next_sync_at = ${NEXT_SYNC_AT},
              finished_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id`,
      [id, workerId, chunkCount, embedder, contentHash],
    );
    return rows.length > 0;
  }

  /**
   * Removes a claimed document that vanished from its site (404/410 on a re-sync). Returns false
   * when the claim was lost (then the caller must leave its chunks alone).
   */
  async removeClaimed(id: string, workerId: string): Promise<boolean> {
    const rows = await queryRows(this.ds, `DELETE FROM knowledge.documents WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id`, [id, workerId]);
    return rows.length > 0;
  }

  async markFailed(id: string, workerId: string, reason: string): Promise<boolean> {
    const rows = await queryRows(this.ds, 
      `UPDATE knowledge.documents
          SET status = 'failed', failure_reason = $3, chunk_count = 0, content_hash = NULL, claimed_by = NULL, claimed_until = NULL, next_sync_at = ${NEXT_SYNC_AT},
              finished_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id`,
      [id, workerId, reason.slice(0, 1000)],
    );
    return rows.length > 0;
  }

  /** A transient failure: keep the claim blocked until `delayMs` from now, then any worker retries. */
  async retryLater(id: string, workerId: string, reason: string, delayMs: number): Promise<void> {
    await queryRows(this.ds,
      `UPDATE knowledge.documents
          SET failure_reason = $3, claimed_by = NULL, claimed_until = clock_timestamp() + make_interval(secs => $4::float8 / 1000), updated_at = clock_timestamp()
        WHERE id = $1 AND claimed_by = $2 AND status = 'processing'`,
      [id, workerId, reason.slice(0, 1000), delayMs],
    );
  }

  /** The document as claimed by `workerId` (add-qa's inline indexing), or null when the claim is gone. */
  async getClaimed(id: string, workerId: string): Promise<ClaimedDocument | null> {
    const [row] = await queryRows<ClaimedDocument>(
      this.ds,
      `SELECT ${DOCUMENT_COLUMNS}, d.claimed_by FROM knowledge.documents d WHERE d.id = $1 AND d.claimed_by = $2 AND d.status = 'processing'`,
      [id, workerId],
    );
    return row ?? null;
  }

  /** Hands an unfinished document back on shutdown (not counted as an attempt). */
  async release(id: string, workerId: string): Promise<void> {
    await this.ds.query(
      `UPDATE knowledge.documents
          SET status = 'queued', claimed_by = NULL, claimed_until = NULL, attempts = GREATEST(attempts - 1, 0), updated_at = clock_timestamp()
        WHERE id = $1 AND claimed_by = $2 AND status = 'processing'`,
      [id, workerId],
    );
  }

  /**
   * Queues pages found on a site (sitemap or same-site links) as documents of their own, up to the
   * free page quota of the bot. Returns the number added.
   */
  async addDiscoveredPages(parent: DocumentRow, urls: string[], pageQuota: number): Promise<number> {
    return this.ds.transaction(async (m) => {
      await lockPages(m, parent);
      return this.insertPages(m, parent, urls, await freePages(m, parent, pageQuota));
    });
  }

  /**
   * A crawled source was fetched again (issue 19): its pages become the ones it links now. Pages
   * no longer linked are removed (their ids are returned: the caller deletes their chunks), pages
   * still linked are queued again (a page whose content hash did not change is not re-embedded),
   * new ones are added within the free page quota. A page being processed right now is left alone.
   */
  async syncDiscoveredPages(parent: DocumentRow, urls: string[], pageQuota: number): Promise<{ added: number; requeued: number; removed: string[] }> {
    const linked = new Set(urls);
    return this.ds.transaction(async (m) => {
      await lockPages(m, parent);
      const children = await queryRows<{ id: string; source_url: string; status: string }>(
        m,
        `SELECT id, source_url, status FROM knowledge.documents WHERE parent_id = $1 ORDER BY created_at FOR UPDATE`,
        [parent.id],
      );
      const gone = children.filter((c) => !linked.has(c.source_url) && c.status !== 'processing').map((c) => c.id);
      const removed = gone.length
        ? (await queryRows<{ id: string }>(m, `DELETE FROM knowledge.documents WHERE id = ANY($1::uuid[]) AND status <> 'processing' RETURNING id`, [gone])).map((r) => r.id)
        : [];
      let room = await freePages(m, parent, pageQuota);
      // Failed pages count again once queued: only as many as there is room for.
      const failed = children.filter((c) => linked.has(c.source_url) && c.status === 'failed').slice(0, room);
      room -= failed.length;
      const again = [...children.filter((c) => linked.has(c.source_url) && c.status === 'ready'), ...failed].map((c) => c.id);
      const requeued = again.length
        ? (
            await queryRows(
              m,
              `UPDATE knowledge.documents SET status = 'queued', attempts = 0, failure_reason = NULL, claimed_by = NULL, claimed_until = NULL, updated_at = clock_timestamp()
                WHERE id = ANY($1::uuid[]) AND status IN ('ready', 'failed') RETURNING id`,
              [again],
            )
          ).length
        : 0;
      const known = new Set(children.map((c) => c.source_url));
      const added = await this.insertPages(m, parent, urls.filter((u) => !known.has(u)), room);
      if (requeued) await m.query(`SELECT pg_notify('knowledge_documents', '')`);
      return { added, requeued, removed };
    });
  }

  /** Inserts up to `room` of `urls` this parent has not queued yet as its pages. Returns how many. */
  private async insertPages(m: EntityManager, parent: DocumentRow, urls: string[], room: number): Promise<number> {
    // Only new URLs take room: drop repeats and pages this parent already queued.
    const existing = new Set(
      (await queryRows<{ source_url: string }>(m, `SELECT source_url FROM knowledge.documents WHERE parent_id = $1`, [parent.id])).map((r) => r.source_url),
    );
    const take = [...new Set(urls)].filter((u) => !existing.has(u)).slice(0, Math.max(0, room));
    if (!take.length) return 0;
    const rows = await queryRows(
      m,
      `INSERT INTO knowledge.documents (tenant_id, chatbot_id, title, source_url, source_type, parent_id, discover)
       SELECT $1, $2, left($3 || ' – ' || u, 300), u, 'url', $4, false FROM unnest($5::text[]) AS u
       ON CONFLICT (parent_id, source_url) WHERE parent_id IS NOT NULL DO NOTHING
       RETURNING id`,
      [parent.tenant_id, parent.chatbot_id, parent.title, parent.id, take],
    );
    return rows.length;
  }
}

async function lockPages(m: EntityManager, doc: { tenant_id: string; chatbot_id: string | null }): Promise<void> {
  await lockPageQuota(m, doc.tenant_id, doc.chatbot_id);
}

/** Pages the bot of `doc` may still add under `pageQuota` (documents that did not fail count). */
async function freePages(m: EntityManager, doc: { tenant_id: string; chatbot_id: string | null }, pageQuota: number): Promise<number> {
  return Math.max(0, pageQuota - (await countPages(m, doc.tenant_id, doc.chatbot_id)));
}
