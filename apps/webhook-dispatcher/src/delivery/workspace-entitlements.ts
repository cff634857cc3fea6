import type { Logger } from 'pino';
import { IdentityChangeFeed, IdentitySource, hasWebhooks } from '@sa/identity';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

interface Entry {
  enabled: boolean;
  at: number;
  /** The feed epoch it was read in: a reset (changes may have been missed) makes it stale. */
  epoch: number;
}

/**
 * Whether a workspace gets webhook deliveries (spec part 1 rule 4: the Scale plan, or webhooks in
 * an active enterprise contract), cached per workspace. Identity is the gateway's: the plan is
 * asked of it over NATS (identity.workspace.get), and the changes it relays (identity.changes)
 * drop the entry at once. An entry lives a minute at most, and is trusted only while the feed is
 * listening and has not been reset since; when the gateway cannot answer, an entry younger than
 * a minute is used rather than failing a delivery (a change it missed cannot be older than that).
 */
export class WorkspaceEntitlements {
  private readonly cache = new Map<string, Entry>();
  /** Resets heard (the feed reconnected, or a gateway did). */
  private epoch = 0;
  /** Workspace changes and resets heard: an answer that crossed one is not cached. */
  private heard = 0;

  constructor(
    private readonly identity: Pick<IdentitySource, 'workspace'>,
    private readonly feed: IdentityChangeFeed,
    private readonly logger: Logger,
  ) {
    feed.subscribe((signal) => {
      if (signal.kind === 'token') return;
      this.heard++;
      if (signal.kind === 'reset') this.epoch++;
      else this.cache.delete(signal.id);
    });
  }

  start(): Promise<void> {
    return this.feed.start();
  }

  stop(): Promise<void> {
    return this.feed.stop();
  }

  async webhooksEnabled(workspaceId: string, now = Date.now()): Promise<boolean> {
    const hit = this.cache.get(workspaceId);
    const young = hit !== undefined && now - hit.at < CACHE_TTL_MS;
    if (young && hit.epoch === this.epoch && this.feed.listening) return hit.enabled;
    const [epoch, heard] = [this.epoch, this.heard];
    let enabled: boolean;
    try {
      const facts = await this.identity.workspace(workspaceId);
      enabled = facts !== null && hasWebhooks(facts);
    } catch (err) {
      if (!young || !this.cache.has(workspaceId)) throw err;
      this.logger.warn({ err: (err as Error).message, tenant_id: workspaceId }, "the workspace's plan could not be checked; using the one read less than a minute ago");
      return hit.enabled;
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    // A change heard while asking: cache nothing, the next call asks again.
    if (heard === this.heard) this.cache.set(workspaceId, { enabled, at: now, epoch });
    return enabled;
  }
}
