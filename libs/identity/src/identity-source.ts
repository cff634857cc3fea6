import {
  RecordTokenUseRequest,
  TOKEN_USES_MAX,
  TokenGrantView,
  WorkspaceFactsView,
} from '@sa/contracts';
import type { RpcClient } from '@sa/messaging';

/**
 * A workspace as the edges and services use it: its view on the wire (libs/contracts) with a
 * Date for the trial's end. libs/identity-db's WorkspaceEntity implements it.
 */
export interface WorkspaceFacts extends Omit<WorkspaceFactsView, 'trialEndsAt'> {
  trialEndsAt: Date | null;
}

/** What a token grants (never its hash or secret): its view with a Date for the expiry. libs/identity-db's ApiTokenEntity implements it. */
export interface TokenGrant extends Omit<TokenGrantView, 'expiresAt'> {
  expiresAt: Date | null;
}

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
