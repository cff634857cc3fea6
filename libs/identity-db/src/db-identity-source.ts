import { DataSource } from 'typeorm';
import { queryRows } from '@sa/db';
import type { IdentitySource, LoadedToken, TokenUseRecord, WorkspaceFacts } from '@sa/identity';
import { ApiTokenEntity } from './api-token.entity';
import { WorkspaceEntity } from './workspace.entity';

/** Schema `identity` itself: for the gateway only (its owner), and the admin CLI acting for it. */
export class DbIdentitySource implements IdentitySource {
  constructor(private readonly ds: DataSource) {}

  async token(hash: string): Promise<LoadedToken | null> {
    const row = await this.ds
      .getRepository(ApiTokenEntity)
      .createQueryBuilder('t')
      .select(['t.id', 't.workspaceId', 't.name', 't.scopes', 't.botIds', 't.expiresAt', 't.revokedAt'])
      .where('t.token_hash = :hash', { hash })
      .getOne();
    if (!row || row.revokedAt) return null;
    return { token: { id: row.id, workspaceId: row.workspaceId, name: row.name, scopes: row.scopes, botIds: row.botIds, expiresAt: row.expiresAt } };
  }

  workspace(id: string): Promise<WorkspaceFacts | null> {
    return this.ds.getRepository(WorkspaceEntity).findOneBy({ id });
  }

  async recordUses(uses: TokenUseRecord[]): Promise<number> {
    if (!uses.length) return 0;
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `UPDATE identity.api_tokens t SET last_used_at = GREATEST(COALESCE(t.last_used_at, v.at), v.at)
         FROM unnest($1::uuid[], $2::timestamptz[]) AS v(id, at) WHERE t.id = v.id RETURNING t.id`,
      [uses.map((u) => u.id), uses.map((u) => u.at.toISOString())],
    );
    return rows.length;
  }
}
