import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The embedding model of each workspace (issue 32, "Models"): the installation's embedder
 * (EMBEDDINGS_*) or one of the workspace's model connections, and the switch from one to another.
 * No row: the installation's embedder, nothing to do.
 *
 * - `active_*`: what the searched index was embedded with. A connection's chunks are stored under
 *   `active_embedder` (`openai:<model>:<dim>@<connection id prefix>`); both are null for the
 *   installation's embedder, whose id is read from the environment.
 * - `target_*`, with `status = 'reindexing'`: the switch in progress. A null target connection then
 *   means "to the installation's embedder"; with `ready` there is no target, and with `failed` it
 *   names what could not be switched to (`error` says why).
 * - `generation` grows with every change: a re-embedding run works for one generation and stops
 *   when it moves (the model was changed again). `claimed_by`/`claimed_until`: the replica running
 *   it, under a lease, as documents are claimed.
 * - `done`/`total`: documents re-embedded so far / ready documents with chunks when it started.
 */
export class WorkspaceEmbedders1795300022700 implements MigrationInterface {
  name = 'WorkspaceEmbedders1795300022700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE knowledge.workspace_embedders (
        tenant_id uuid PRIMARY KEY,
        active_connection_id uuid NULL,
        active_embedder text NULL,
        target_connection_id uuid NULL,
        target_embedder text NULL,
        status text NOT NULL DEFAULT 'ready' CHECK (status IN ('ready', 'reindexing', 'failed')),
        generation integer NOT NULL DEFAULT 1,
        done integer NOT NULL DEFAULT 0,
        total integer NOT NULL DEFAULT 0,
        error text NULL,
        claimed_by text NULL,
        claimed_until timestamptz NULL,
        started_at timestamptz NULL,
        completed_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((active_connection_id IS NULL) = (active_embedder IS NULL)),
        CHECK ((target_connection_id IS NULL) = (target_embedder IS NULL))
      )`);
    await q.query(`CREATE INDEX workspace_embedders_reindexing_idx ON knowledge.workspace_embedders (started_at) WHERE status = 'reindexing'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS knowledge.workspace_embedders`);
  }
}
