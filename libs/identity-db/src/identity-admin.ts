import { DataSource, EntityManager, In } from 'typeorm';
import { BILLING_STATUSES, BillingStatus, ENTERPRISE_TIERS, PLANS, Plan, SCOPES, Scope, TierSlots, isScope } from '@sa/contracts';
import { ApiTokenEntity } from './api-token.entity';
import { IDENTITY_CHANNEL, IdentityChange, type WorkspaceFacts, generateTokenSecret, hashTokenSecret, tokenHint } from '@sa/identity';
import { WorkspaceEntity } from './workspace.entity';

/** A mistake in what an operator asked for; the CLI prints the message and exits non-zero. */
export class AdminInputError extends Error {}

/** The request named a record that does not exist (in the workspace it was asked for): 404 at an edge. */
export class AdminNotFoundError extends AdminInputError {
  constructor(
    readonly what: 'Workspace' | 'Bot' | 'API token',
    message: string,
  ) {
    super(message);
  }
}

export interface WorkspaceChanges {
  name?: string;
  plan?: Plan;
  trialEndsAt?: Date | null;
  billingStatus?: BillingStatus;
  enterpriseApi?: boolean;
  enterpriseWebhooks?: boolean;
  tierSlots?: Partial<TierSlots>;
  messagesPerMonth?: number | null;
  pagesPerBot?: number | null;
  botSlots?: number | null;
}

export interface CreateTokenInput {
  workspaceId: string;
  scopes: Scope[] | 'all';
  botIds?: string[];
  expiresInSeconds?: number;
  name?: string;
}

export interface TokenSummary {
  id: string;
  name: string;
  hint: string;
  scopes: Scope[];
  bot_ids: string[] | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DEFAULT_TRIAL_DAYS = 14;

/**
 * Which of `ids` are bots of the workspace. Bots are the bots service's data (schema `bots`):
 * the admin CLI asks it over NATS (bots.bot.check).
 */
export type BotDirectory = (workspace: WorkspaceFacts, ids: string[]) => Promise<string[]>;

/**
 * What owners and admins do until a dashboard exists: provision workspaces and manage tokens, in
 * schema `identity` (the gateway's). Every change is announced on `identity_changed` in the same
 * transaction, so gateways drop their cached copy the moment it commits (and relay the change to
 * the other processes that cache identity).
 */
export class IdentityAdmin {
  constructor(
    private readonly ds: DataSource,
    private readonly bots?: BotDirectory,
  ) {}

  async createWorkspace(input: WorkspaceChanges & { name: string; plan: Plan }, trialDays = DEFAULT_TRIAL_DAYS): Promise<WorkspaceEntity> {
    this.checkChanges(input);
    if (!input.name.trim()) throw new AdminInputError('--name must not be empty');
    return this.ds.transaction(async (m) => {
      const w = m.create(WorkspaceEntity, {
        name: input.name,
        plan: input.plan,
        trialEndsAt: input.trialEndsAt !== undefined ? input.trialEndsAt : input.plan === 'growth_trial' ? new Date(Date.now() + trialDays * 86400_000) : null,
        billingStatus: input.billingStatus ?? 'active',
        enterpriseApi: input.enterpriseApi ?? false,
        enterpriseWebhooks: input.enterpriseWebhooks ?? false,
        tierSlots: { starter: 0, growth: 0, scale: 0, ...input.tierSlots },
        messagesPerMonth: input.messagesPerMonth ?? null,
        pagesPerBot: input.pagesPerBot ?? null,
        botSlots: input.botSlots ?? null,
      });
      return m.save(w);
    });
  }

  /**
   * The first-run setup's workspace (issue 31): made with this id, or the one already made with it
   * (the console retries with the same id). Enterprise gets both contract flags, so every plan
   * the setup may give includes API access and webhooks where the plan has them at all.
   */
  async setupWorkspace(id: string, name: string, plan: Plan): Promise<WorkspaceEntity> {
    this.checkId(id, 'workspaceId');
    if (!name.trim()) throw new AdminInputError('the workspace name must not be empty');
    const existing = await this.ds.getRepository(WorkspaceEntity).findOne({ where: { id } });
    if (existing) return existing;
    try {
      return await this.ds.getRepository(WorkspaceEntity).save(
        this.ds.getRepository(WorkspaceEntity).create({
          id,
          name: name.trim(),
          plan,
          trialEndsAt: plan === 'growth_trial' ? new Date(Date.now() + DEFAULT_TRIAL_DAYS * 86400_000) : null,
          billingStatus: 'active',
          enterpriseApi: plan === 'enterprise',
          enterpriseWebhooks: plan === 'enterprise',
          tierSlots: { starter: 0, growth: 0, scale: 0 },
          messagesPerMonth: null,
          pagesPerBot: null,
          botSlots: null,
        }),
      );
    } catch (err) {
      // The same id saved by a concurrent retry: that one stands.
      const again = await this.ds.getRepository(WorkspaceEntity).findOne({ where: { id } });
      if (again) return again;
      throw err;
    }
  }

  async updateWorkspace(id: string, changes: WorkspaceChanges): Promise<WorkspaceEntity> {
    this.checkId(id, '--id');
    this.checkChanges(changes);
    return this.ds.transaction(async (m) => {
      const w = await m.findOne(WorkspaceEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!w) throw new AdminInputError(`no workspace with id ${id}`);
      const { tierSlots, ...rest } = changes;
      Object.assign(w, Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)));
      if (tierSlots) w.tierSlots = { ...w.tierSlots, ...tierSlots };
      if (changes.plan === 'growth_trial' && !w.trialEndsAt && changes.trialEndsAt === undefined) w.trialEndsAt = new Date(Date.now() + DEFAULT_TRIAL_DAYS * 86400_000);
      const saved = await m.save(w);
      await this.announce(m, { kind: 'workspace', id });
      return saved;
    });
  }

  async getWorkspace(id: string): Promise<WorkspaceEntity | null> {
    this.checkId(id, '--id');
    return this.ds.getRepository(WorkspaceEntity).findOneBy({ id });
  }

  /** Creates a token; the returned secret is the only time it exists outside the caller. */
  async createToken(input: CreateTokenInput): Promise<{ id: string; token: string; summary: TokenSummary }> {
    this.checkId(input.workspaceId, '--workspace');
    const scopes = input.scopes === 'all' ? [...SCOPES] : input.scopes;
    if (!scopes.length) throw new AdminInputError('--scopes must name at least one scope');
    const bad = scopes.filter((s) => !isScope(s));
    if (bad.length) throw new AdminInputError(`unknown scope(s): ${bad.join(', ')} (known: ${SCOPES.join(', ')})`);
    if (input.expiresInSeconds !== undefined && (!Number.isInteger(input.expiresInSeconds) || input.expiresInSeconds <= 0)) {
      throw new AdminInputError('--expires-in must be a positive whole number of seconds');
    }
    const botIds = input.botIds ? [...new Set(input.botIds)] : undefined;
    if (botIds && !botIds.length) throw new AdminInputError('--bots must name at least one bot id');
    botIds?.forEach((b) => this.checkId(b, '--bots'));
    const ws = await this.ds.getRepository(WorkspaceEntity).findOneBy({ id: input.workspaceId });
    if (!ws) throw new AdminNotFoundError('Workspace', `no workspace with id ${input.workspaceId}`);
    if (botIds) {
      if (!this.bots) throw new AdminInputError('--bots cannot be checked here (no bots service to ask)');
      const found = new Set(await this.bots(ws, botIds));
      const foreign = botIds.filter((b) => !found.has(b));
      if (foreign.length) throw new AdminNotFoundError('Bot', `not bots of workspace ${ws.id}: ${foreign.join(', ')}`);
    }
    const secret = generateTokenSecret();
    const token = await this.ds.getRepository(ApiTokenEntity).save(
      this.ds.getRepository(ApiTokenEntity).create({
        workspaceId: ws.id,
        name: input.name?.trim() || 'API token',
        tokenHash: hashTokenSecret(secret),
        tokenHint: tokenHint(secret),
        scopes: [...new Set(scopes)],
        botIds: botIds ?? null,
        expiresAt: input.expiresInSeconds ? new Date(Date.now() + input.expiresInSeconds * 1000) : null,
      }),
    );
    return { id: token.id, token: secret, summary: toSummary(token) };
  }

  /** Revokes a token (of `workspaceId` only, when given: another workspace's is not found). Idempotent. */
  async revokeToken(id: string, workspaceId?: string): Promise<TokenSummary> {
    this.checkId(id, '--id');
    if (workspaceId !== undefined) this.checkId(workspaceId, '--workspace');
    return this.ds.transaction(async (m) => {
      const token = await m.findOneBy(ApiTokenEntity, workspaceId === undefined ? { id } : { id, workspaceId });
      if (!token) throw new AdminNotFoundError('API token', `no token with id ${id}${workspaceId ? ` in workspace ${workspaceId}` : ''}`);
      if (!token.revokedAt) {
        token.revokedAt = new Date();
        await m.update(ApiTokenEntity, { id }, { revokedAt: token.revokedAt });
      }
      await this.announce(m, { kind: 'token', id });
      return toSummary(token);
    });
  }

  async listTokens(workspaceId: string): Promise<TokenSummary[]> {
    this.checkId(workspaceId, '--workspace');
    const ws = await this.ds.getRepository(WorkspaceEntity).findOneBy({ id: workspaceId });
    if (!ws) throw new AdminNotFoundError('Workspace', `no workspace with id ${workspaceId}`);
    const rows = await this.ds.getRepository(ApiTokenEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC' } });
    return rows.map(toSummary);
  }

  async tokensByIds(ids: string[]): Promise<ApiTokenEntity[]> {
    return this.ds.getRepository(ApiTokenEntity).findBy({ id: In(ids) });
  }

  private async announce(m: EntityManager, change: IdentityChange): Promise<void> {
    await m.query('SELECT pg_notify($1, $2)', [IDENTITY_CHANNEL, JSON.stringify(change)]);
  }

  private checkId(id: string, flag: string): void {
    if (!UUID.test(id)) throw new AdminInputError(`${flag} must be a uuid (got "${id}")`);
  }

  private checkChanges(c: WorkspaceChanges): void {
    if (c.plan !== undefined && !PLANS.includes(c.plan)) throw new AdminInputError(`--plan must be one of ${PLANS.join(', ')}`);
    if (c.billingStatus !== undefined && !BILLING_STATUSES.includes(c.billingStatus)) throw new AdminInputError(`--status must be one of ${BILLING_STATUSES.join(', ')}`);
    if (c.trialEndsAt && Number.isNaN(c.trialEndsAt.getTime())) throw new AdminInputError('--trial-ends must be an ISO 8601 date-time');
    for (const [tier, n] of Object.entries(c.tierSlots ?? {})) {
      if (!(ENTERPRISE_TIERS as readonly string[]).includes(tier)) throw new AdminInputError(`unknown tier "${tier}" (known: ${ENTERPRISE_TIERS.join(', ')})`);
      if (!Number.isInteger(n) || (n as number) < 0) throw new AdminInputError(`tier slots for ${tier} must be a whole number ≥ 0`);
    }
    for (const [flag, v] of [['--messages-per-month', c.messagesPerMonth], ['--pages-per-bot', c.pagesPerBot], ['--bot-slots', c.botSlots]] as const) {
      if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 0)) throw new AdminInputError(`${flag} must be a whole number ≥ 0`);
    }
  }
}

export function toSummary(t: ApiTokenEntity): TokenSummary {
  return {
    id: t.id,
    name: t.name,
    hint: t.tokenHint,
    scopes: t.scopes,
    bot_ids: t.botIds,
    expires_at: t.expiresAt?.toISOString() ?? null,
    revoked_at: t.revokedAt?.toISOString() ?? null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
    created_at: t.createdAt.toISOString(),
  };
}
