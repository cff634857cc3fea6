import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { McpAuthKind, McpServerSpec, McpServerView, McpSkippedToolView, mcpToolName } from '@sa/contracts';

/** A tool as stored (the view's tool less `model_name`, which follows from the names). */
export interface StoredMcpTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  confirm: boolean;
  verified_only: boolean;
  enabled: boolean;
}

/** A stored MCP server: credentials sealed (never opened here but for a sync), its tools with their flags. */
export interface McpServerRow {
  id: string;
  chatbot_id: string;
  name: string;
  url: string;
  auth: McpAuthKind;
  auth_sealed: string | null;
  tools: StoredMcpTool[];
  skipped: McpSkippedToolView[];
  last_synced_at: Date | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What a create or a change writes. */
export type McpServerFields = Pick<McpServerRow, 'name' | 'url' | 'auth' | 'auth_sealed' | 'tools' | 'skipped' | 'last_synced_at' | 'error'>;

const iso = (d: Date | string): string => new Date(d).toISOString();

export function toMcpServerView(r: McpServerRow): McpServerView {
  return {
    id: r.id,
    bot_id: r.chatbot_id,
    name: r.name,
    url: r.url,
    auth: r.auth,
    has_token: r.auth_sealed !== null,
    tools: r.tools.map((t) => ({
      name: t.name,
      model_name: mcpToolName(r.name, t.name),
      description: t.description,
      input_schema: t.input_schema,
      confirm: t.confirm,
      verified_only: t.verified_only,
      enabled: t.enabled,
    })),
    skipped: r.skipped,
    last_synced_at: r.last_synced_at ? iso(r.last_synced_at) : null,
    error: r.error,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** For chat: the enabled tools only, the credentials still sealed. */
export function toMcpServerSpec(r: McpServerRow): McpServerSpec {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    auth_sealed: r.auth_sealed,
    tools: r.tools
      .filter((t) => t.enabled)
      .map((t) => ({ name: t.name, model_name: mcpToolName(r.name, t.name), description: t.description, input_schema: t.input_schema, confirm: t.confirm, verified_only: t.verified_only })),
    updated_at: iso(r.updated_at),
  };
}

const COLUMNS = `s.id, s.chatbot_id, s.name, s.url, s.auth, s.auth_sealed, s.tools, s.skipped, s.last_synced_at, s.error, s.created_at, s.updated_at`;

/** The tools of the bot's other servers that are on: the cap counts across servers. */
async function enabledElsewhere(tx: EntityManager, tenantId: string, botId: string, exceptId: string): Promise<number> {
  const [{ n }]: { n: number }[] = await tx.query(
    `SELECT coalesce(sum((SELECT count(*) FROM jsonb_array_elements(s.tools) t WHERE (t->>'enabled')::boolean)), 0)::int AS n
     FROM bots.mcp_servers s WHERE s.tenant_id = $1 AND s.chatbot_id = $2 AND s.id <> $3`,
    [tenantId, botId, exceptId],
  );
  return n;
}

/**
 * bots.mcp_servers: every statement takes the tenant id and the bot's id. Writes that count
 * (servers per bot, enabled tools per bot) lock the bot's row first, so two at once cannot both
 * pass a cap.
 */
@Injectable()
export class McpServersRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async botExists(tenantId: string, botId: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(`SELECT 1 FROM bots.bots WHERE id = $1 AND tenant_id = $2`, [botId, tenantId]);
    return rows.length > 0;
  }

  list(tenantId: string, botId: string): Promise<McpServerRow[]> {
    return this.ds.query(`SELECT ${COLUMNS} FROM bots.mcp_servers s WHERE s.tenant_id = $1 AND s.chatbot_id = $2 ORDER BY s.created_at, s.id`, [tenantId, botId]);
  }

  async find(tenantId: string, botId: string, id: string): Promise<McpServerRow | null> {
    const rows: McpServerRow[] = await this.ds.query(`SELECT ${COLUMNS} FROM bots.mcp_servers s WHERE s.tenant_id = $1 AND s.chatbot_id = $2 AND s.id = $3`, [tenantId, botId, id]);
    return rows[0] ?? null;
  }

  /** Inserts a server unless the bot has `max` already (null); undefined: no such bot of the tenant. */
  async insert(tenantId: string, botId: string, f: McpServerFields, max: number): Promise<string | null | undefined> {
    return this.ds.transaction(async (tx) => {
      const bot: unknown[] = await tx.query(`SELECT 1 FROM bots.bots WHERE id = $1 AND tenant_id = $2 FOR UPDATE`, [botId, tenantId]);
      if (!bot.length) return undefined;
      const [{ n }]: { n: number }[] = await tx.query(`SELECT count(*)::int AS n FROM bots.mcp_servers WHERE tenant_id = $1 AND chatbot_id = $2`, [tenantId, botId]);
      if (n >= max) return null;
      const [r]: { id: string }[] = await tx.query(
        `INSERT INTO bots.mcp_servers (chatbot_id, tenant_id, name, url, auth, auth_sealed, tools, skipped, last_synced_at, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10) RETURNING id`,
        [botId, tenantId, f.name, f.url, f.auth, f.auth_sealed, JSON.stringify(f.tools), JSON.stringify(f.skipped), f.last_synced_at, f.error],
      );
      return r!.id;
    });
  }

  /**
   * Changes a server under the bot's lock: `change` gets the row as stored now and the number of
   * enabled tools of the bot's other servers, and returns what to write (or throws). False: no
   * such server.
   */
  async change(tenantId: string, botId: string, id: string, change: (row: McpServerRow, enabledOnOtherServers: number) => McpServerFields): Promise<boolean> {
    return this.ds.transaction(async (tx) => {
      const bot: unknown[] = await tx.query(`SELECT 1 FROM bots.bots WHERE id = $1 AND tenant_id = $2 FOR UPDATE`, [botId, tenantId]);
      if (!bot.length) return false;
      const rows: McpServerRow[] = await tx.query(`SELECT ${COLUMNS} FROM bots.mcp_servers s WHERE s.tenant_id = $1 AND s.chatbot_id = $2 AND s.id = $3`, [tenantId, botId, id]);
      if (!rows[0]) return false;
      const f = change(rows[0], await enabledElsewhere(tx, tenantId, botId, id));
      await tx.query(
        `UPDATE bots.mcp_servers SET name = $4, url = $5, auth = $6, auth_sealed = $7, tools = $8::jsonb, skipped = $9::jsonb, last_synced_at = $10, error = $11,
           updated_at = clock_timestamp()
         WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3`,
        [tenantId, botId, id, f.name, f.url, f.auth, f.auth_sealed, JSON.stringify(f.tools), JSON.stringify(f.skipped), f.last_synced_at, f.error],
      );
      return true;
    });
  }

  /** Deletes a server; the row as it was, or null when there was none. */
  async delete(tenantId: string, botId: string, id: string): Promise<McpServerRow | null> {
    const [rows]: [McpServerRow[], number] = await this.ds.query(
      `DELETE FROM bots.mcp_servers s WHERE s.tenant_id = $1 AND s.chatbot_id = $2 AND s.id = $3 RETURNING ${COLUMNS}`,
      [tenantId, botId, id],
    );
    return rows[0] ?? null;
  }
}
