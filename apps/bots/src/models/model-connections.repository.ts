import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ModelConnectionSpec, ModelConnectionView, ModelKind } from '@sa/contracts';
import { NotFound } from '@sa/errors';

/** A stored connection: the view's members and the sealed key, never opened here. */
export interface ModelConnectionRow {
  id: string;
  name: string;
  kind: ModelKind;
  base_url: string | null;
  model: string;
  api_key_sealed: string | null;
  created_at: Date;
  updated_at: Date;
  bots: number;
}

export function toConnectionView(r: ModelConnectionRow, embeddingConnectionId: string | null): ModelConnectionView {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    base_url: r.base_url,
    model: r.model,
    has_key: r.api_key_sealed !== null,
    bots: r.bots,
    embeddings: r.id === embeddingConnectionId,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export function toConnectionSpec(r: Pick<ModelConnectionRow, 'id' | 'kind' | 'base_url' | 'model' | 'api_key_sealed' | 'updated_at'>): ModelConnectionSpec {
  return { id: r.id, kind: r.kind, base_url: r.base_url, model: r.model, api_key_sealed: r.api_key_sealed, updated_at: new Date(r.updated_at).toISOString() };
}

const COLUMNS = `c.id, c.name, c.kind, c.base_url, c.model, c.api_key_sealed, c.created_at, c.updated_at,
  (SELECT count(*)::int FROM bots.behaviour h WHERE h.model_connection_id = c.id) AS bots`;

/** bots.model_connections: every statement takes the tenant id. */
@Injectable()
export class ModelConnectionsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  list(tenantId: string): Promise<ModelConnectionRow[]> {
    return this.ds.query(`SELECT ${COLUMNS} FROM bots.model_connections c WHERE c.tenant_id = $1 ORDER BY c.created_at, c.id`, [tenantId]);
  }

  async find(tenantId: string, id: string): Promise<ModelConnectionRow | null> {
    const rows: ModelConnectionRow[] = await this.ds.query(`SELECT ${COLUMNS} FROM bots.model_connections c WHERE c.tenant_id = $1 AND c.id = $2`, [tenantId, id]);
    return rows[0] ?? null;
  }

  async mustExist(tenantId: string, id: string): Promise<ModelConnectionRow> {
    const row = await this.find(tenantId, id);
    if (!row) throw new NotFound('Model connection');
    return row;
  }

  async count(tenantId: string): Promise<number> {
    const [r]: { n: number }[] = await this.ds.query(`SELECT count(*)::int AS n FROM bots.model_connections WHERE tenant_id = $1`, [tenantId]);
    return r!.n;
  }

  async insert(tenantId: string, c: { name: string; kind: ModelKind; base_url: string | null; model: string; api_key_sealed: string | null }): Promise<string> {
    const [r]: { id: string }[] = await this.ds.query(
      `INSERT INTO bots.model_connections (tenant_id, name, kind, base_url, model, api_key_sealed) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [tenantId, c.name, c.kind, c.base_url, c.model, c.api_key_sealed],
    );
    return r!.id;
  }

  async update(tenantId: string, id: string, c: { name: string; base_url: string | null; model: string; api_key_sealed: string | null }): Promise<void> {
    await this.ds.query(
      `UPDATE bots.model_connections SET name = $3, base_url = $4, model = $5, api_key_sealed = $6, updated_at = clock_timestamp() WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, c.name, c.base_url, c.model, c.api_key_sealed],
    );
  }

  /** Deletes it; its bots go back to the installation's model (ON DELETE SET NULL). */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const [, n]: [unknown, number] = await this.ds.query(`DELETE FROM bots.model_connections WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return n > 0;
  }
}
