import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { Unauthorized } from '@sa/errors';
import { IdentityChangeFeed, IdentitySignal } from './identity-events';
import { IdentitySource, TokenGrant, WorkspaceFacts } from './identity-source';
import { hashTokenSecret, looksLikeToken } from './token-secret';

export interface TokenVerifierOptions {
  /** How long a verified token and its workspace stay cached (revocation is pushed sooner). */
  cacheTtlMs: number;
  /** How long an unknown secret is remembered as unknown. */
  negativeTtlMs: number;
  maxEntries: number;
  /** How often last use is recorded (batched, never per request). */
  lastUsedFlushMs: number;
}

export interface VerifiedToken {
  token: TokenGrant;
  workspace: WorkspaceFacts;
}

/**
 * Verifies bearer tokens without a round trip per request: tokens and workspaces are cached by
 * the SHA-256 of the secret, and every change (revocation, workspace update) arrives through the
 * feed so it takes effect at once on every replica. Each time the feed (re)connects the whole
 * cache is cleared; the TTL bounds staleness in between.
 *
 * The gateway reads its own database and hears PostgreSQL NOTIFY on `identity_changed`; the MCP
 * server asks the gateway over NATS and hears the changes the gateway relays (identity-events.ts).
 */
export class TokenVerifier {
  private readonly tokens: LRUCache<string, TokenGrant | 'unknown'>;
  private readonly workspaces: LRUCache<string, WorkspaceFacts>;
  private readonly hashByTokenId = new Map<string, string>();
  private readonly lastUsed = new Map<string, Date>();
  private flushTimer: NodeJS.Timeout | null = null;
  /** Bumped by every change heard: a load that was under way meanwhile is not cached. */
  private generation = 0;

  constructor(
    private readonly source: IdentitySource,
    private readonly feed: IdentityChangeFeed,
    private readonly opts: TokenVerifierOptions,
    private readonly logger: Logger,
  ) {
    this.tokens = new LRUCache({ max: opts.maxEntries, ttl: opts.cacheTtlMs, dispose: (v, hash) => this.forgetHash(v, hash) });
    this.workspaces = new LRUCache({ max: opts.maxEntries, ttl: opts.cacheTtlMs });
    feed.subscribe((signal) => this.hear(signal));
  }

  async start(): Promise<void> {
    await this.feed.start();
    this.flushTimer = setInterval(() => void this.flushLastUsed(), this.opts.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flushLastUsed();
    await this.feed.stop();
  }

  get isListening(): boolean {
    return this.feed.listening;
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
    let workspace: WorkspaceFacts | null | undefined;
    if (token === undefined) {
      const generation = this.generation;
      const loaded = await this.source.token(hash);
      token = loaded?.token ?? 'unknown';
      workspace = loaded?.workspace;
      if (generation === this.generation) {
        this.tokens.set(hash, token, token === 'unknown' ? { ttl: this.opts.negativeTtlMs } : undefined);
        if (token !== 'unknown') this.hashByTokenId.set(token.id, hash);
        if (workspace) this.workspaces.set(workspace.id, workspace);
      }
    }
    if (token === 'unknown') throw new Unauthorized();
    if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) throw new Unauthorized('This API token has expired');
    if (workspace === undefined) workspace = await this.workspace(token.workspaceId);
    if (!workspace) throw new Unauthorized();
    this.lastUsed.set(token.id, now);
    return { token, workspace };
  }

  /** Drops everything cached about one token or workspace (also called for each change the feed hears). */
  invalidate(change: { kind: 'token' | 'workspace'; id: string }): void {
    this.generation++;
    if (change.kind === 'workspace') {
      this.workspaces.delete(change.id);
      return;
    }
    const hash = this.hashByTokenId.get(change.id);
    if (hash) this.tokens.delete(hash);
  }

  clear(): void {
    this.generation++;
    this.tokens.clear();
    this.workspaces.clear();
    this.hashByTokenId.clear();
  }

  /** A workspace by id, from the same cache (public widget routes resolve it from the bot). */
  workspaceById(id: string): Promise<WorkspaceFacts | null> {
    return this.workspace(id);
  }

  private hear(signal: IdentitySignal): void {
    if (signal.kind === 'reset') this.clear();
    else this.invalidate(signal);
  }

  private forgetHash(value: TokenGrant | 'unknown', hash: string): void {
    if (value !== 'unknown' && this.hashByTokenId.get(value.id) === hash) this.hashByTokenId.delete(value.id);
  }

  private async workspace(id: string): Promise<WorkspaceFacts | null> {
    const cached = this.workspaces.get(id);
    if (cached) return cached;
    const generation = this.generation;
    const row = await this.source.workspace(id);
    if (row && generation === this.generation) this.workspaces.set(id, row);
    return row;
  }

  private async flushLastUsed(): Promise<void> {
    if (!this.lastUsed.size) return;
    const uses = [...this.lastUsed].map(([id, at]) => ({ id, at }));
    this.lastUsed.clear();
    try {
      await this.source.recordUses(uses);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not record token last use');
    }
  }
}
