import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { PgListener } from '@sa/db';
import { IDENTITY_CHANNEL, hasWebhooks, loadAccessFacts, parseIdentityChange } from '@sa/identity';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Whether a workspace gets webhook deliveries (spec part 1 rule 4: the Scale plan, or webhooks in
 * an active enterprise contract), cached per workspace. Identity changes are pushed by NOTIFY on
 * `identity_changed` (as for the gateway's token cache); the cache is cleared whenever LISTEN is
 * (re-)established, and an entry lives a minute at most.
 */
export class WorkspaceEntitlements {
  private readonly cache = new Map<string, { enabled: boolean; at: number }>();
  private readonly listener: PgListener;

  constructor(
    private readonly ds: DataSource,
    databaseUrl: string,
    logger: Logger,
  ) {
    this.listener = new PgListener({
      client: { connectionString: databaseUrl, application_name: 'webhook-dispatcher-identity-listener' },
      channel: IDENTITY_CHANNEL,
      logger,
      onNotify: (payload) => {
        const change = parseIdentityChange(payload);
        if (change?.kind === 'workspace') this.cache.delete(change.id);
      },
      onListening: () => this.cache.clear(),
    });
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  async webhooksEnabled(workspaceId: string, now = Date.now()): Promise<boolean> {
    const hit = this.cache.get(workspaceId);
    if (hit && now - hit.at < CACHE_TTL_MS && this.listener.listening) return hit.enabled;
    const facts = await loadAccessFacts(this.ds, workspaceId);
    const enabled = facts !== null && hasWebhooks(facts);
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(workspaceId, { enabled, at: now });
    return enabled;
  }
}
