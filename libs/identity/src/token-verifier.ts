import { Client } from 'pg';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
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
}

export interface VerifiedToken {
  token: Pick<ApiTokenEntity, 'id' | 'workspaceId' | 'name' | 'scopes' | 'botIds' | 'expiresAt'>;
  workspace: WorkspaceEntity;
}

type CachedToken = VerifiedToken['token'];

/**
 * Verifies bearer tokens without a database round trip per request: tokens and workspaces are
 * cached by the SHA-256 of the secret, and every change (revocation, workspace update) is pushed
 * by PostgreSQL NOTIFY on `identity_changed` so it takes effect at once on every replica. If the
 * LISTEN connection drops, the whole cache is cleared and the TTL bounds staleness.
 */
export class TokenVerifier {
  private readonly tokens: LRUCache<string, CachedToken | 'unknown'>;
  private readonly workspaces: LRUCache<string, WorkspaceEntity>;
  private readonly hashByTokenId = new Map<string, string>();
  private readonly lastUsed = new Map<string, Date>();
  private listener: Client | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private listening = false;

  constructor(
    private readonly ds: DataSource,
    private readonly opts: TokenVerifierOptions,
    private readonly logger: Logger,
  ) {
    this.tokens = new LRUCache({ max: opts.maxEntries, ttl: opts.cacheTtlMs, dispose: (v, hash) => this.forgetHash(v, hash) });
    this.workspaces = new LRUCache({ max: opts.maxEntries, ttl: opts.cacheTtlMs });
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.listen();
    this.flushTimer = setInterval(() => void this.flushLastUsed(), this.opts.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.flushLastUsed();
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  get isListening(): boolean {
    return this.listening;
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

  private async workspace(id: string): Promise<WorkspaceEntity | null> {
    const cached = this.workspaces.get(id);
    if (cached) return cached;
    const row = await this.ds.getRepository(WorkspaceEntity).findOneBy({ id });
    if (row) this.workspaces.set(id, row);
    return row;
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.opts.databaseUrl, application_name: 'gateway-identity-listener' });
    client.on('notification', (msg) => {
      const change = parseIdentityChange(msg.payload);
      if (change) this.invalidate(change);
    });
    client.on('error', (err) => {
      this.logger.warn({ err: err.message }, 'identity LISTEN connection failed; clearing the token cache and reconnecting');
      this.onListenerLost();
    });
    client.on('end', () => this.onListenerLost());
    try {
      await client.connect();
      await client.query(`LISTEN ${IDENTITY_CHANNEL}`);
      this.listener = client;
      this.listening = true;
      // Anything cached before the listener was up may have missed a notification.
      this.clear();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'identity LISTEN connection could not start; retrying');
      await client.end().catch(() => undefined);
      this.onListenerLost();
    }
  }

  private onListenerLost(): void {
    this.listening = false;
    this.clear();
    this.listener = null;
    if (this.stopped || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped) void this.listen();
    }, 1000);
    this.reconnectTimer.unref();
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
