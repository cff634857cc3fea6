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

/**
 * A stored MCP server: credentials sealed (never opened here but for a sync or an OAuth step), its
 * tools with their flags. With OAuth: `auth_sealed` is the access token as chat gets it (null: not
 * connected), `oauth_sealed` the client secret or registered client, refresh token and discovered
 * metadata (this service only), and a started Connect's state hash, sealed verifier and expiry.
 */
export interface McpServerRow {
  id: string;
  tenant_id: string;
  chatbot_id: string;
  name: string;
  url: string;
  auth: McpAuthKind;
  auth_sealed: string | null;
  tools: StoredMcpTool[];
  skipped: McpSkippedToolView[];
  last_synced_at: Date | null;
  error: string | null;
  oauth_client_id: string | null;
  oauth_client_secret_sealed: string | null;
  oauth_scope: string | null;
  oauth_sealed: string | null;
  oauth_issuer: string | null;
  oauth_expires_at: Date | null;
  oauth_state_hash: string | null;
  oauth_flow_sealed: string | null;
  oauth_flow_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The OAuth members of a row: its settings, its connection, a started Connect. */
export const NO_OAUTH = {
  oauth_client_id: null,
  oauth_client_secret_sealed: null,
  oauth_scope: null,
  oauth_sealed: null,
  oauth_issuer: null,
  oauth_expires_at: null,
  oauth_state_hash: null,
  oauth_flow_sealed: null,
  oauth_flow_expires_at: null,
} as const;
export type McpOAuthFields = { -readonly [K in keyof typeof NO_OAUTH]: McpServerRow[K] };

/** What a create or a change writes. */
export type McpServerFields = Pick<McpServerRow, 'name' | 'url' | 'auth' | 'auth_sealed' | 'tools' | 'skipped' | 'last_synced_at' | 'error'> & McpOAuthFields;

const iso = (d: Date | string): string => new Date(d).toISOString();

export function toMcpServerView(r: McpServerRow): McpServerView {
  return {
    id: r.id,
    bot_id: r.chatbot_id,
    name: r.name,
    url: r.url,
    auth: r.auth,
    has_token: r.auth_sealed !== null,
    oauth:
      r.auth === 'oauth'
        ? {
            client_id: r.oauth_client_id,
            has_client_secret: r.oauth_client_secret_sealed !== null,
            scope: r.oauth_scope,
            authorization_server: r.oauth_issuer,
            token_expires_at: r.auth_sealed !== null && r.oauth_expires_at ? iso(r.oauth_expires_at) : null,
          }
        : null,
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

const COLUMNS = `s.id, s.tenant_id, s.chatbot_id, s.name, s.url, s.auth, s.auth_sealed, s.tools, s.skipped, s.last_synced_at, s.error,
  s.oauth_client_id, s.oauth_client_secret_sealed, s.oauth_scope, s.oauth_sealed, s.oauth_issuer, s.oauth_expires_at, s.oauth_state_hash, s.oauth_flow_sealed, s.oauth_flow_expires_at,
  s.created_at, s.updated_at`;

const OAUTH_COLUMNS = Object.keys(NO_OAUTH).join(', ');
const oauthValues = (f: McpOAuthFields): unknown[] => (Object.keys(NO_OAUTH) as (keyof McpOAuthFields)[]).map((k) => f[k]);

/** Writes every field of a server (the row exists, the caller holds its lock or the bot's). */
async function write(tx: EntityManager, tenantId: string, botId: string, id: string, f: McpServerFields): Promise<void> {
  const oauthSet = Object.keys(NO_OAUTH)
    .map((k, i) => `${k} = $${12 + i}`)
    .join(', ');
  await tx.query(
    `UPDATE bots.mcp_servers SET name = $4, url = $5, auth = $6, auth_sealed = $7, tools = $8::jsonb, skipped = $9::jsonb, last_synced_at = $10, error = $11, ${oauthSet},
       updated_at = clock_timestamp()
     WHERE tenant_id = $1 AND chatbot_id = $2 AND id = $3`,
    [tenantId, botId, id, f.name, f.url, f.auth, f.auth_sealed, JSON.stringify(f.tools), JSON.stringify(f.skipped), f.last_synced_at, f.error, ...oauthValues(f)],
  );
}

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
        `INSERT INTO bots.mcp_servers (chatbot_id, tenant_id, name, url, auth, auth_sealed, tools, skipped, last_synced_at, error, ${OAUTH_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id`,
        [botId, tenantId, f.name, f.url, f.auth, f.auth_sealed, JSON.stringify(f.tools), JSON.stringify(f.skipped), f.last_synced_at, f.error, ...oauthValues(f)],
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
      await write(tx, tenantId, botId, id, f);
      return true;
    });
  }

  /**
   * An OAuth step under the server's row lock (a refresh, so that two at once never spend the
   * same refresh token; the lock is held while `step` talks to the authorization server, within
   * its deadline). `step` gets the row as stored now and returns what to write (null: nothing)
   * and its result. Null: no such server.
   */
  async lockedOAuth<T>(tenantId: string, botId: string, id: string, step: (row: McpServerRow) => Promise<{ write: Partial<McpServerFields> | null; result: T }>): Promise<{ result: T } | null> {
    return this.ds.transaction(async (tx) => {
      const rows: McpServerRow[] = await tx.query(`SELECT ${COLUMNS} FROM bots.mcp_servers s WHERE s.tenant_id = $1 AND s.chatbot_id = $2 AND s.id = $3 FOR UPDATE`, [tenantId, botId, id]);
      const row = rows[0];
      if (!row) return null;
      const { write: changes, result } = await step(row);
      if (changes) await write(tx, tenantId, botId, id, { ...row, ...changes });
      return { result };
    });
  }

  /**
   * The server a callback's state belongs to, by the state's SHA-256 alone: the callback comes
   * without a workspace, and the state (256 random bits, never stored) is the capability. Only
   * the row's keys and the sealed flow come back; the caller checks the person before anything.
   */
  async findFlow(stateHash: string): Promise<Pick<McpServerRow, 'id' | 'tenant_id' | 'chatbot_id' | 'oauth_flow_sealed' | 'oauth_flow_expires_at'> | null> {
    const rows = await this.ds.query(
      `SELECT s.id, s.tenant_id, s.chatbot_id, s.oauth_flow_sealed, s.oauth_flow_expires_at FROM bots.mcp_servers s WHERE s.oauth_state_hash = $1`,
      [stateHash],
    );
    return rows[0] ?? null;
  }

  /**
   * Spends a started Connect: its state hash, sealed flow and expiry are cleared and returned with
   * the row, whatever comes next (single use). Null: the server has no flow with this state.
   */
  async takeFlow(tenantId: string, botId: string, id: string, stateHash: string): Promise<McpServerRow | null> {
    return this.ds.transaction(async (tx) => {
      const rows: McpServerRow[] = await tx.query(
        `SELECT ${COLUMNS} FROM bots.mcp_servers s WHERE s.tenant_id = $1 AND s.chatbot_id = $2 AND s.id = $3 AND s.oauth_state_hash = $4 FOR UPDATE`,
        [tenantId, botId, id, stateHash],
      );
      if (!rows[0]) return null;
      await tx.query(`UPDATE bots.mcp_servers SET oauth_state_hash = NULL, oauth_flow_sealed = NULL, oauth_flow_expires_at = NULL WHERE id = $1`, [id]);
      return rows[0];
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
