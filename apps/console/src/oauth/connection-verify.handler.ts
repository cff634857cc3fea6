import { BeforeApplicationShutdown, Controller, Inject } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { SCOPES, Scope, VerifyConnectionTokenReply, VerifyConnectionTokenRequest } from '@sa/contracts';
import { RpcClient, RpcHandler } from '@sa/messaging';
import { CONSOLE_LOGGER } from '../config/console.config';

const TOUCH_EVERY_MS = 30_000;

interface Row {
  payload: { grantId?: string; scope?: string; aud?: string | string[]; exp?: number };
  expires_at: Date | null;
  connection_id: string | null;
  workspace_id: string | null;
  client_name: string | null;
  scopes: string[] | null;
  bot_ids: string[] | null;
}

/**
 * console.connection.verify (queue group `console`): an OAuth access token, by the SHA-256 of its
 * value (the adapter stores ids only so), to its connection and workspace. Null for an unknown,
 * expired or consumed token, a token whose grant has no connection, or a revoked connection.
 * last_used_at is written in batches (every 30 s at most per connection).
 */
@Controller()
export class ConnectionVerifyHandler implements BeforeApplicationShutdown {
  private readonly used = new Map<string, Date>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(getDataSourceToken()) private readonly ds: DataSource,
    private readonly rpc: RpcClient,
    @Inject(CONSOLE_LOGGER) private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), TOUCH_EVERY_MS);
    this.timer.unref();
  }

  @RpcHandler('console.connection.verify')
  async verify(req: VerifyConnectionTokenRequest): Promise<VerifyConnectionTokenReply> {
    const none: VerifyConnectionTokenReply = { token: null, workspace: null, audience: null };
    const rows: Row[] = await this.ds.query(
      `SELECT a.payload, a.expires_at, c.id AS connection_id, c.workspace_id, c.client_name, c.scopes, c.bot_ids
         FROM people.oauth_artifacts a
         LEFT JOIN people.oauth_connections c ON c.grant_id = a.grant_id AND c.revoked_at IS NULL
        WHERE a.key_hash = $1 AND a.model = 'AccessToken' AND a.consumed_at IS NULL
          AND (a.expires_at IS NULL OR a.expires_at > clock_timestamp())
          AND EXISTS (SELECT 1 FROM people.oauth_artifacts g WHERE g.model = 'Grant' AND g.key_hash = encode(sha256(convert_to(a.grant_id, 'UTF8')), 'hex')
                      AND (g.expires_at IS NULL OR g.expires_at > clock_timestamp()))`,
      [req.tokenHash],
    );
    const row = rows[0];
    if (!row || !row.connection_id || !row.workspace_id) return none;
    const audience = Array.isArray(row.payload.aud) ? (row.payload.aud.length === 1 ? row.payload.aud[0]! : null) : (row.payload.aud ?? null);
    const tokenScopes = new Set((row.payload.scope ?? '').split(' '));
    const scopes = (row.scopes ?? []).filter((s): s is Scope => tokenScopes.has(s) && (SCOPES as readonly string[]).includes(s));
    const reply = await this.rpc.send('identity.workspace.get', { workspaceId: row.workspace_id });
    this.used.set(row.connection_id, new Date());
    return {
      token: {
        id: row.connection_id,
        workspaceId: row.workspace_id,
        name: row.client_name ?? '',
        scopes,
        botIds: row.bot_ids,
        expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
      },
      workspace: reply.workspace,
      audience,
    };
  }

  private async flush(): Promise<void> {
    if (!this.used.size) return;
    const uses = [...this.used.entries()];
    this.used.clear();
    try {
      await this.ds.query(
        `UPDATE people.oauth_connections c SET last_used_at = greatest(coalesce(c.last_used_at, u.at), u.at)
           FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE c.id = u.id`,
        [uses.map(([id]) => id), uses.map(([, at]) => at.toISOString())],
      );
    } catch (err) {
      this.logger.warn({ err }, 'oauth: last_used_at not recorded');
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
