import { createHash } from 'node:crypto';
import { Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ConnectionParams, ConnectionView, Scope, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { NotFound } from '@sa/errors';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute } from '../auth/console-route.decorator';
import { ApiList, ApiView, ApiWorkspaceErrors } from '../openapi/console-responses';

interface ConnectionRow {
  id: string;
  client_id: string;
  client_name: string;
  grant_id: string;
  person_id: string | null;
  email: string | null;
  display_name: string | null;
  scopes: string[];
  bot_ids: string[] | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const SELECT = `
  SELECT c.id, c.client_id, c.client_name, c.grant_id, c.person_id, p.email, p.display_name, c.scopes, c.bot_ids,
         c.created_at, c.last_used_at, c.revoked_at
    FROM people.oauth_connections c
    LEFT JOIN people.persons p ON p.id = c.person_id`;

const sha256Hex = (v: string): string => createHash('sha256').update(v, 'utf8').digest('hex');
const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

function viewOf(r: ConnectionRow): ConnectionView {
  return {
    id: r.id,
    client_id: r.client_id,
    client_name: r.client_name,
    approved_by: r.person_id ? { person_id: r.person_id, email: r.email ?? '', display_name: r.display_name ?? '' } : null,
    scopes: r.scopes as Scope[],
    bot_ids: r.bot_ids,
    created_at: iso(r.created_at)!,
    last_used_at: iso(r.last_used_at),
    revoked_at: iso(r.revoked_at),
  };
}

/**
 * Connections (issue 17): the MCP clients people allowed through OAuth (one per "Allow" on the
 * consent page, people.oauth_connections). Everyone reads the list; owners and admins revoke.
 * Revoking marks the connection and deletes every artifact of its OAuth grant (access and refresh
 * tokens, codes, the grant): the MCP server asks the console about each request's token
 * (console.connection.verify, no cache), so its next request is 401 on every replica, and the
 * client cannot refresh.
 */
@ApiTags('Connections')
@Controller('api/workspaces/:workspaceId/connections')
export class ConnectionsController {
  constructor(
    @Inject(getDataSourceToken()) private readonly ds: DataSource,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listConnections', summary: 'List connections', description: 'Every MCP client allowed through OAuth in this workspace, revoked ones included, newest first.' })
  @ApiList('The connections, newest first.', ConnectionView)
  @ApiWorkspaceErrors()
  async list(@Param(dto(WorkspaceParams, 'path')) params: WorkspaceParams): Promise<{ data: ConnectionView[] }> {
    const rows: ConnectionRow[] = await this.ds.query(`${SELECT} WHERE c.workspace_id = $1 ORDER BY c.created_at DESC, c.id`, [params.workspaceId]);
    return { data: rows.map(viewOf) };
  }

  @Post(':connectionId/revoke')
  @HttpCode(200)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'revokeConnection',
    summary: 'Revoke a connection',
    description: "Its access tokens answer 401 at the MCP server at once and it cannot refresh; the client must be allowed again. Revoking a revoked connection changes nothing.",
  })
  @ApiView(200, 'The revoked connection.', ConnectionView)
  @ApiWorkspaceErrors()
  async revoke(@ConsoleCaller() caller: ConsoleCallerInfo, @Param(dto(ConnectionParams, 'path')) params: ConnectionParams): Promise<ConnectionView> {
    const { row, changed } = await this.ds.transaction(async (tx: EntityManager) => {
      const [updated]: ConnectionRow[] = await tx.query(
        `UPDATE people.oauth_connections SET revoked_at = clock_timestamp() WHERE id = $1 AND workspace_id = $2 AND revoked_at IS NULL RETURNING grant_id`,
        [params.connectionId, params.workspaceId],
      );
      // The grant's artifacts go in any case (also on a repeated revoke: nothing of it may survive).
      const [found]: ConnectionRow[] = await tx.query(`${SELECT} WHERE c.id = $1 AND c.workspace_id = $2`, [params.connectionId, params.workspaceId]);
      // Tokens and codes carry the grant's id; the Grant itself is stored under the hash of that id.
      if (found) {
        await tx.query(`DELETE FROM people.oauth_artifacts WHERE grant_id = $1 OR (model = 'Grant' AND key_hash = $2)`, [found.grant_id, sha256Hex(found.grant_id)]);
      }
      return { row: found, changed: updated !== undefined };
    });
    if (!row) throw new NotFound('Connection');
    const view = viewOf(row);
    if (changed) await this.audit.record(caller, 'connection.revoked', 'connection', view.id, { client_id: view.client_id, client_name: view.client_name, scopes: view.scopes, bot_ids: view.bot_ids });
    return view;
  }
}
