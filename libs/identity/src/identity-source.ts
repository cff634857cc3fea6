import { DataSource } from 'typeorm';
import {
  RecordTokenUseRequest,
  TOKEN_USES_MAX,
  TokenGrantView,
  WorkspaceFactsView,
} from '@sa/contracts';
import { queryRows } from '@sa/db';
import type { RpcClient } from '@sa/messaging';
import { ApiTokenEntity } from './api-token.entity';
import { WorkspaceEntity } from './workspace.entity';

/** A workspace as the edges and services use it: WorkspaceEntity without its bookkeeping columns. */
export type WorkspaceFacts = Pick<
  WorkspaceEntity,
  'id' | 'name' | 'plan' | 'trialEndsAt' | 'billingStatus' | 'enterpriseApi' | 'enterpriseWebhooks' | 'tierSlots' | 'messagesPerMonth' | 'pagesPerBot' | 'botSlots'
>;

/** What a token grants (never its hash or secret). */
export type TokenGrant = Pick<ApiTokenEntity, 'id' | 'workspaceId' | 'name' | 'scopes' | 'botIds' | 'expiresAt'>;

export interface LoadedToken {
  token: TokenGrant;
  /** The token's workspace when the source had it at hand (null: gone); undefined: ask workspace(). */
  workspace?: WorkspaceFacts | null;
}

export interface TokenUseRecord {
  id: string;
  at: Date;
}

/**
 * Where identity is read from. The gateway, which owns schema `identity`, reads its database
 * (DbIdentitySource); every other process asks the gateway over NATS (NatsIdentitySource).
 */
export interface IdentitySource {
  /** The live token with this SHA-256, or null when unknown or revoked (an expired one is returned). */
  token(hash: string): Promise<LoadedToken | null>;
  workspace(id: string): Promise<WorkspaceFacts | null>;
  /** Records when tokens were last used (a time never moves back); resolves to how many were found. */
  recordUses(uses: TokenUseRecord[]): Promise<number>;
}

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

/** The gateway's identity over NATS (identity.* subjects, queue group `gateway`). */
export class NatsIdentitySource implements IdentitySource {
  constructor(private readonly rpc: RpcClient) {}

  async token(hash: string): Promise<LoadedToken | null> {
    const reply = await this.rpc.send('identity.token.verify', { tokenHash: hash });
    if (!reply.token) return null;
    return { token: tokenGrantFromView(reply.token), workspace: reply.workspace ? workspaceFactsFromView(reply.workspace) : null };
  }

  async workspace(id: string): Promise<WorkspaceFacts | null> {
    const reply = await this.rpc.send('identity.workspace.get', { workspaceId: id });
    return reply.workspace ? workspaceFactsFromView(reply.workspace) : null;
  }

  async recordUses(uses: TokenUseRecord[]): Promise<number> {
    let recorded = 0;
    for (let i = 0; i < uses.length; i += TOKEN_USES_MAX) {
      const request: RecordTokenUseRequest = { uses: uses.slice(i, i + TOKEN_USES_MAX).map((u) => ({ id: u.id, at: u.at.toISOString() })) };
      recorded += (await this.rpc.send('identity.token.touch', request)).recorded;
    }
    return recorded;
  }
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const date = (s: string | null): Date | null => (s ? new Date(s) : null);

export function tokenGrantView(t: TokenGrant): TokenGrantView {
  return { id: t.id, workspaceId: t.workspaceId, name: t.name, scopes: t.scopes, botIds: t.botIds, expiresAt: iso(t.expiresAt) };
}

export function tokenGrantFromView(v: TokenGrantView): TokenGrant {
  return { ...v, expiresAt: date(v.expiresAt) };
}

export function workspaceFactsView(w: WorkspaceFacts): WorkspaceFactsView {
  return {
    id: w.id,
    name: w.name,
    plan: w.plan,
    trialEndsAt: iso(w.trialEndsAt),
    billingStatus: w.billingStatus,
    enterpriseApi: w.enterpriseApi,
    enterpriseWebhooks: w.enterpriseWebhooks,
    tierSlots: w.tierSlots,
    messagesPerMonth: w.messagesPerMonth,
    pagesPerBot: w.pagesPerBot,
    botSlots: w.botSlots,
  };
}

export function workspaceFactsFromView(v: WorkspaceFactsView): WorkspaceFacts {
  return { ...v, trialEndsAt: date(v.trialEndsAt) };
}
