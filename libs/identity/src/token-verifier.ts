import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { PgListener } from '@sa/db';
import { Unauthorized } from '@sa/errors';
import { ApiTokenEntity } from './api-token.entity';
import { IDENTITY_CHANNEL, parseIdentityChange } from './identity-events';
import { hashTokenSecret, looksLikeToken } from './token-secret';
import { WorkspaceEntity } from './workspace.entity';

export interface TokenVerifierOptions {
  /** How long a verified token and its workspace stay cached (revocation is pushed sooner). */
  cacheTtlMs: number;
  /** How long an unknown secret is remembered as unknown. */
  negativeTtlMs: number;
  maxEntries: number;
  /** How often last_used_at is written (batched, never per request). */
  lastUsedFlushMs: number;
  /** Connection string for the LISTEN connection. */
  databaseUrl: string;
  /** application_name of the LISTEN connection (which edge app it belongs to). */
  listenerName?: string;
}

export interface VerifiedToken {
  token: Pick<ApiTokenEntity, 'id' | 'workspaceId' | 'name' | 'scopes' | 'botIds' | 'expiresAt'>;
  workspace: WorkspaceEntity;
}

type CachedToken = VerifiedToken['token'];

/**
 * Verifies bearer tokens without a database round trip per request: tokens and workspaces are
 * cached by the SHA-256 of the secret, and every change (revocation, workspace update) is pushed
 * by PostgreSQL NOTIFY on `identity_changed` so it takes effect at once on every replica. Each time
 * LISTEN is (re-)established the whole cache is cleared; the TTL bounds staleness in between.
 */
export class TokenVerifier {
  private readonly tokens: LRUCache<string, CachedToken | 'unknown'>;
  private readonly workspaces: LRUCache<string, WorkspaceEntity>;
  private readonly hashByTokenId = new Map<string, string>();
  private readonly lastUsed = new Map<string, Date>();
  private readonly listener: PgListener;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly opts: TokenVerifierOptions,
    private readonly logger: Logger,
  ) {
    this.tokens = new LRUCache({ max: opts.maxEntries, ttl: opts.cacheTtlMs, dispose: (v, hash) => this.forgetHash(v, hash) });
    this.workspaces = new LRUCache({ max: opts.maxEntries, ttl: opts.cacheTtlMs });
    this.listener = new PgListener({
      client: { connectionString: opts.databaseUrl, application_name: opts.listenerName ?? 'gateway-identity-listener' },
      channel: IDENTITY_CHANNEL,
      logger,
      onNotify: (payload) => {
        const change = parseIdentityChange(payload);
        if (change) this.invalidate(change);
      },
      // Whatever was cached while not listening may have missed a notification.
      onListening: () => this.clear(),
    });
  }

  async start(): Promise<void> {
    await this.listener.start();
    this.flushTimer = setInterval(() => void this.flushLastUsed(), this.opts.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flushLastUsed();
    await this.listener.stop();
  }

  get isListening(): boolean {
    return this.listener.listening;
  }

  /** Whether the secret has the shape of an API token (`mgpt_…`); other credentials go elsewhere. */
  accepts(secret: string): boolean {
    return looksLikeToken(secret);
  }

  /** Resolves a bearer secret to its token and workspace, or throws Unauthorized (401). */
  async verify(secret: string, now: Date = new Date()): Promise<VerifiedToken> {
    if (!looksLikeToken(secret)) throw new Unauthorized();
    const hash = hashTokenSecret(secret);
    let token = this.tokens.get(hash);
    if (token === undefined) {
      token = await this.loadToken(hash);
      this.tokens.set(hash, token, token === 'unknown' ? { ttl: this.opts.negativeTtlMs } : undefined);
      if (token !== 'unknown') this.hashByTokenId.set(token.id, hash);
    }
    if (token === 'unknown') throw new Unauthorized();
    if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) throw new Unauthorized('This API token has expired');
    const workspace = await this.workspace(token.workspaceId);
    if (!workspace) throw new Unauthorized();
    this.lastUsed.set(token.id, now);
    return { token, workspace };
  }

  /** Drops everything cached about one token or workspace (also called on NOTIFY). */
  invalidate(change: { kind: 'token' | 'workspace'; id: string }): void {
    if (change.kind === 'workspace') {
      this.workspaces.delete(change.id);
      return;
    }
    const hash = this.hashByTokenId.get(change.id);
    if (hash) this.tokens.delete(hash);
  }

  clear(): void {
    this.tokens.clear();
    this.workspaces.clear();
    this.hashByTokenId.clear();
  }

  private forgetHash(value: CachedToken | 'unknown', hash: string): void {
    if (value !== 'unknown' && this.hashByTokenId.get(value.id) === hash) this.hashByTokenId.delete(value.id);
  }

  private async loadToken(hash: string): Promise<CachedToken | 'unknown'> {
    const row = await this.ds
      .getRepository(ApiTokenEntity)
      .createQueryBuilder('t')
      .select(['t.id', 't.workspaceId', 't.name', 't.scopes', 't.botIds', 't.expiresAt', 't.revokedAt'])
      .where('t.token_hash = :hash', { hash })
      .getOne();
    if (!row || row.revokedAt) return 'unknown';
    return { id: row.id, workspaceId: row.workspaceId, name: row.name, scopes: row.scopes, botIds: row.botIds, expiresAt: row.expiresAt };
  }

  /** A workspace by id, from the same cache (public widget routes resolve it from the bot). */
  workspaceById(id: string): Promise<WorkspaceEntity | null> {
    return this.workspace(id);
  }

  private async workspace(id: string): Promise<WorkspaceEntity | null> {
    const cached = this.workspaces.get(id);
    if (cached) return cached;
    const row = await this.ds.getRepository(WorkspaceEntity).findOneBy({ id });
    if (row) this.workspaces.set(id, row);
    return row;
  }

  private async flushLastUsed(): Promise<void> {
    if (!this.lastUsed.size) return;
    const ids = [...this.lastUsed.keys()];
    const times = ids.map((id) => this.lastUsed.get(id)!.toISOString());
    this.lastUsed.clear();
    try {
      await this.ds.query(
        `UPDATE identity.api_tokens t SET last_used_at = GREATEST(COALESCE(t.last_used_at, v.at), v.at)
           FROM unnest($1::uuid[], $2::timestamptz[]) AS v(id, at) WHERE t.id = v.id`,
        [ids, times],
      );
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not record token last use');
    }
  }
}
