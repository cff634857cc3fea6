import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { ChannelKind } from '@sa/contracts';
import { queryRows } from '@sa/db';

/** A row of channels.connections; `secrets` holds sealed values. */
export interface ConnectionRow {
  id: string;
  tenant_id: string;
  chatbot_id: string;
  kind: ChannelKind;
  name: string;
  settings: Record<string, string>;
  secrets: Record<string, string>;
  enabled: boolean;
  status: 'pending' | 'active' | 'error';
  last_error: string | null;
  last_error_at: Date | null;
  last_inbound_at: Date | null;
  last_outbound_at: Date | null;
  mail_uid_validity: string | null;
  mail_last_uid: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, tenant_id, chatbot_id, kind, name, settings, secrets, enabled, status, last_error, last_error_at, last_inbound_at, last_outbound_at, mail_uid_validity, mail_last_uid, created_at, updated_at';

/** channels.connections. Every method that serves a caller names the tenant. */
@Injectable()
export class ConnectionsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  list(tenantId: string, botId: string): Promise<ConnectionRow[]> {
    return queryRows<ConnectionRow>(this.ds.manager, `SELECT ${COLUMNS} FROM channels.connections WHERE tenant_id = $1 AND chatbot_id = $2 ORDER BY created_at, id`, [tenantId, botId]);
  }

  /** A bot's connection, locked for an update when `m` is a transaction's. */
  async get(tenantId: string, botId: string, id: string, m: EntityManager = this.ds.manager, lock = false): Promise<ConnectionRow | null> {
    const [row] = await queryRows<ConnectionRow>(
      m,
      `SELECT ${COLUMNS} FROM channels.connections WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
      [tenantId, botId, id],
    );
    return row ?? null;
  }

  /** Any connection by id (the webhook route: the provider knows the id only). */
  async byId(id: string, m: EntityManager = this.ds.manager): Promise<ConnectionRow | null> {
    const [row] = await queryRows<ConnectionRow>(m, `SELECT ${COLUMNS} FROM channels.connections WHERE id = $1`, [id]);
    return row ?? null;
  }

  /** Counts a bot's connections under a lock on the bot's first one (concurrent creates serialise on the advisory lock). */
  async countForBot(m: EntityManager, tenantId: string, botId: string): Promise<number> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 35))`, [`${tenantId}:${botId}`]);
    const [row] = await m.query(`SELECT count(*)::int AS n FROM channels.connections WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
    return row.n as number;
  }

  async insert(m: EntityManager, c: { tenantId: string; botId: string; kind: ChannelKind; name: string; settings: Record<string, string>; secrets: Record<string, string> }): Promise<ConnectionRow> {
    const [row] = await queryRows<ConnectionRow>(
      m,
      `INSERT INTO channels.connections (tenant_id, chatbot_id, kind, name, settings, secrets) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb) RETURNING ${COLUMNS}`,
      [c.tenantId, c.botId, c.kind, c.name, JSON.stringify(c.settings), JSON.stringify(c.secrets)],
    );
    return row!;
  }

  async update(
    m: EntityManager,
    id: string,
    c: { name: string; settings: Record<string, string>; secrets: Record<string, string>; enabled: boolean; resetMailbox: boolean },
  ): Promise<ConnectionRow> {
    const [row] = await queryRows<ConnectionRow>(
      m,
      `UPDATE channels.connections
          SET name = $2, settings = $3::jsonb, secrets = $4::jsonb, enabled = $5, updated_at = clock_timestamp(),
              status = CASE WHEN $5 AND NOT enabled THEN 'pending' ELSE status END,
              mail_uid_validity = CASE WHEN $6 THEN NULL ELSE mail_uid_validity END,
              mail_last_uid = CASE WHEN $6 THEN NULL ELSE mail_last_uid END,
              reader_until = CASE WHEN $6 OR NOT $5 THEN NULL ELSE reader_until END
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, c.name, JSON.stringify(c.settings), JSON.stringify(c.secrets), c.enabled, c.resetMailbox],
    );
    return row!;
  }

  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query(`DELETE FROM channels.connections WHERE id = $1`, [id]);
  }

  /** The connection worked (an accepted inbound message, or a delivered reply): active, the error cleared. */
  async markWorked(id: string, what: 'inbound' | 'outbound', m: EntityManager = this.ds.manager): Promise<void> {
    const column = what === 'inbound' ? 'last_inbound_at' : 'last_outbound_at';
    await m.query(`UPDATE channels.connections SET status = 'active', last_error = NULL, ${column} = clock_timestamp() WHERE id = $1`, [id]);
  }

  /** Something failed that people should see (never a credential: callers pass a message written for people). */
  async markError(id: string, message: string): Promise<void> {
    await this.ds.query(`UPDATE channels.connections SET status = 'error', last_error = left($2, 500), last_error_at = clock_timestamp() WHERE id = $1`, [id, message]);
  }
}
