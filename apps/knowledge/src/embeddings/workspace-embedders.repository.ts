import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { queryRows } from '@sa/db';

/** A row of knowledge.workspace_embedders (see its migration). */
export interface WorkspaceEmbedderRow {
  tenant_id: string;
  active_connection_id: string | null;
  active_embedder: string | null;
  target_connection_id: string | null;
  target_embedder: string | null;
  status: 'ready' | 'reindexing' | 'failed';
  generation: number;
  done: number;
  total: number;
  error: string | null;
  claimed_by: string | null;
  started_at: Date | null;
  completed_at: Date | null;
}

const COLUMNS = `tenant_id, active_connection_id, active_embedder, target_connection_id, target_embedder, status, generation, done, total, error, claimed_by, started_at, completed_at`;
/** The run of generation $2 of workspace $1, claimed by $3. */
const OWN_RUN = `tenant_id = $1 AND generation = $2 AND claimed_by = $3 AND status = 'reindexing'`;
const lease = (param: string) => `clock_timestamp() + make_interval(secs => ${param}::float8 / 1000)`;

/**
 * The workspaces' embedding models and their switches. A switch is claimed by one replica at a
 * time for a lease (FOR UPDATE SKIP LOCKED, renewed while it works, as documents are); every
 * write of a run names its generation, so a run whose model was changed again writes nothing.
 */
@Injectable()
export class WorkspaceEmbeddersRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async get(tenantId: string): Promise<WorkspaceEmbedderRow | null> {
    const [row] = await queryRows<WorkspaceEmbedderRow>(this.ds, `SELECT ${COLUMNS} FROM knowledge.workspace_embedders WHERE tenant_id = $1`, [tenantId]);
    return row ?? null;
  }

  /** What a switch has to re-embed: the ready documents with chunks. */
  async countReindexable(tenantId: string): Promise<number> {
    const [row] = await queryRows<{ n: number }>(this.ds, `SELECT count(*)::int AS n FROM knowledge.documents WHERE tenant_id = $1 AND status = 'ready' AND chunk_count > 0`, [tenantId]);
    return row.n;
  }

  /** Starts a switch to `target` (connection null: the installation's embedder), replacing any switch in progress. */
  async startSwitch(tenantId: string, target: { connectionId: string | null; embedder: string | null }, total: number): Promise<WorkspaceEmbedderRow> {
    const [row] = await queryRows<WorkspaceEmbedderRow>(
      this.ds,
      `INSERT INTO knowledge.workspace_embedders AS w (tenant_id, target_connection_id, target_embedder, status, total, started_at)
       VALUES ($1, $2, $3, 'reindexing', $4, clock_timestamp())
       ON CONFLICT (tenant_id) DO UPDATE
          SET target_connection_id = EXCLUDED.target_connection_id, target_embedder = EXCLUDED.target_embedder, status = 'reindexing',
              generation = w.generation + 1, done = 0, total = EXCLUDED.total, error = NULL, claimed_by = NULL, claimed_until = NULL,
              started_at = EXCLUDED.started_at, updated_at = clock_timestamp()
       RETURNING ${COLUMNS}`,
      [tenantId, target.connectionId, target.embedder, total],
    );
    return row;
  }

  /** Drops a switch in progress or failed: the active model stays. */
  async cancel(tenantId: string): Promise<WorkspaceEmbedderRow | null> {
    const [row] = await queryRows<WorkspaceEmbedderRow>(
      this.ds,
      `UPDATE knowledge.workspace_embedders
          SET target_connection_id = NULL, target_embedder = NULL, status = 'ready', generation = generation + 1, done = 0, total = 0, error = NULL,
              claimed_by = NULL, claimed_until = NULL, updated_at = clock_timestamp()
        WHERE tenant_id = $1
        RETURNING ${COLUMNS}`,
      [tenantId],
    );
    return row ?? null;
  }

  /** Claims the switch waiting longest that no replica holds (or whose holder's lease ran out). */
  async claim(workerId: string, leaseMs: number): Promise<WorkspaceEmbedderRow | null> {
    const [row] = await queryRows<WorkspaceEmbedderRow>(
      this.ds,
      `WITH next AS (
         SELECT tenant_id AS claimed FROM knowledge.workspace_embedders
          WHERE status = 'reindexing' AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
          ORDER BY started_at
          LIMIT 1
          FOR UPDATE SKIP LOCKED
       )
       UPDATE knowledge.workspace_embedders w
          SET claimed_by = $1, claimed_until = ${lease('$2')}, updated_at = clock_timestamp()
         FROM next
        WHERE w.tenant_id = next.claimed
        RETURNING ${COLUMNS}`,
      [workerId, leaseMs],
    );
    return row ?? null;
  }

  /** Extends the lease and counts `done` more documents; false when the run is no longer this one's. */
  async progress(tenantId: string, generation: number, workerId: string, leaseMs: number, done = 0): Promise<boolean> {
    const rows = await queryRows(
      this.ds,
      `UPDATE knowledge.workspace_embedders SET done = LEAST(done + $5, total), claimed_until = ${lease('$4')}, updated_at = clock_timestamp()
        WHERE ${OWN_RUN} RETURNING tenant_id`,
      [tenantId, generation, workerId, leaseMs, done],
    );
    return rows.length > 0;
  }

  /**
   * The switch: the target becomes the active model in one transaction, and the documents record
   * the new embedder (so a re-sync of an unchanged page does not embed it again). False when the
   * run is no longer this one's.
   */
  async complete(tenantId: string, generation: number, workerId: string, from: string, to: string): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const rows = await queryRows(
        m,
        `UPDATE knowledge.workspace_embedders
            SET active_connection_id = target_connection_id, active_embedder = target_embedder, target_connection_id = NULL, target_embedder = NULL,
                status = 'ready', done = total, error = NULL, claimed_by = NULL, claimed_until = NULL, completed_at = clock_timestamp(), updated_at = clock_timestamp()
          WHERE ${OWN_RUN} RETURNING tenant_id`,
        [tenantId, generation, workerId],
      );
      if (!rows.length) return false;
      await m.query(`UPDATE knowledge.documents SET embedder = $3 WHERE tenant_id = $1 AND embedder = $2`, [tenantId, from, to]);
      return true;
    });
  }

  /** The switch failed: the active model stays, with the reason. False when the run is no longer this one's. */
  async fail(tenantId: string, generation: number, workerId: string, error: string): Promise<boolean> {
    const rows = await queryRows(
      this.ds,
      `UPDATE knowledge.workspace_embedders SET status = 'failed', error = $4, claimed_by = NULL, claimed_until = NULL, updated_at = clock_timestamp()
        WHERE ${OWN_RUN} RETURNING tenant_id`,
      [tenantId, generation, workerId, error.slice(0, 2000)],
    );
    return rows.length > 0;
  }

  /** Hands the run back (shutdown, or a failure that is not the model's): any replica resumes it. */
  async release(tenantId: string, generation: number, workerId: string): Promise<void> {
    await this.ds.query(`UPDATE knowledge.workspace_embedders SET claimed_by = NULL, claimed_until = NULL WHERE ${OWN_RUN}`, [tenantId, generation, workerId]);
  }

  /** Ready documents with chunks after `afterId`, in id order (a run's keyset walk). */
  async reindexable(tenantId: string, afterId: string, limit: number): Promise<{ id: string; chunk_count: number }[]> {
    return queryRows(
      this.ds,
      `SELECT id, chunk_count FROM knowledge.documents WHERE tenant_id = $1 AND status = 'ready' AND chunk_count > 0 AND id > $2 ORDER BY id LIMIT $3`,
      [tenantId, afterId, limit],
    );
  }

  /**
   * Runs `fn` with those of `ids` that are still ready locked: no worker can claim them (a claim
   * skips locked rows, a re-sync or a delete waits) until `fn` has written their new chunks.
   */
  async withReadyLocked<T>(tenantId: string, ids: string[], fn: (locked: string[]) => Promise<T>): Promise<T> {
    return this.ds.transaction(async (m) => {
      const rows = await queryRows<{ id: string }>(m, `SELECT id FROM knowledge.documents WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND status = 'ready' ORDER BY id FOR UPDATE`, [tenantId, ids]);
      return fn(rows.map((r) => r.id));
    });
  }
}
