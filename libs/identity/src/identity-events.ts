import type { NatsConnection, Status, Subscription } from 'nats';
import type { Logger } from 'pino';
import { IDENTITY_CHANGES_SUBJECT, IdentityChangeMessage } from '@sa/contracts';

/** PostgreSQL NOTIFY channel on which identity changes are announced (to the gateway, which relays them). */
export const IDENTITY_CHANNEL = 'identity_changed';

export type IdentityChange = { kind: 'token'; id: string } | { kind: 'workspace'; id: string };

/** A change, or `reset`: changes may have been missed, so everything cached may be stale. */
export type IdentitySignal = IdentityChangeMessage;

export function parseIdentityChange(payload: string | undefined): IdentityChange | null {
  try {
    const v = JSON.parse(payload ?? '') as IdentityChange;
    return (v.kind === 'token' || v.kind === 'workspace') && typeof v.id === 'string' ? v : null;
  } catch {
    return null;
  }
}

function parseIdentitySignal(payload: string): IdentitySignal | null {
  try {
    if ((JSON.parse(payload) as { kind?: unknown })?.kind === 'reset') return { kind: 'reset' };
  } catch {
    return null;
  }
  return parseIdentityChange(payload);
}

/**
 * Where a cache of identity hears of changes. `reset` is sent each time the feed (re)connects,
 * since whatever changed while it was away was not heard.
 */
export interface IdentityChangeFeed {
  readonly listening: boolean;
  subscribe(receiver: (signal: IdentitySignal) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A feed's receivers (the NATS feed here, the gateway's PostgreSQL feed in libs/identity-db). */
export abstract class IdentityFeedBase {
  private readonly receivers: ((signal: IdentitySignal) => void)[] = [];

  subscribe(receiver: (signal: IdentitySignal) => void): void {
    this.receivers.push(receiver);
  }

  protected emit(signal: IdentitySignal): void {
    for (const r of this.receivers) r(signal);
  }
}

/**
 * The changes the gateway relays on IDENTITY_CHANGES_SUBJECT: the feed of every process that
 * caches identity without owning it. Not listening while NATS is disconnected; `reset` once the
 * subscription is back.
 */
export class NatsIdentityFeed extends IdentityFeedBase implements IdentityChangeFeed {
  private sub: Subscription | null = null;
  private connected = false;
  private statusStop: (() => void) | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {
    super();
  }

  get listening(): boolean {
    return this.sub !== null && this.connected && !this.nc.isClosed();
  }

  async start(): Promise<void> {
    if (this.sub) return;
    // nats.js's status iterator can be stopped (its interface does not say so).
    const status = this.nc.status() as AsyncIterable<Status> & { stop?: () => void };
    this.statusStop = () => status.stop?.();
    void (async () => {
      for await (const s of status) {
        if (s.type === 'disconnect') this.connected = false;
        else if (s.type === 'reconnect') {
          this.connected = true;
          this.emit({ kind: 'reset' });
        }
      }
    })().catch((err: unknown) => this.logger.warn({ err }, 'identity change feed: NATS status stream failed'));
    this.sub = this.nc.subscribe(IDENTITY_CHANGES_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        const signal = parseIdentitySignal(Buffer.from(msg.data).toString('utf8'));
        if (signal) this.emit(signal);
      },
    });
    await this.nc.flush();
    this.connected = true;
    this.emit({ kind: 'reset' });
  }

  async stop(): Promise<void> {
    this.statusStop?.();
    this.statusStop = null;
    const sub = this.sub;
    this.sub = null;
    if (sub && !this.nc.isClosed()) sub.unsubscribe();
  }
}

/** The gateway's side: relays every change (and reset) its feed hears to NATS, for every other process. */
export function relayIdentityChanges(feed: IdentityChangeFeed, nc: NatsConnection, logger: Logger): void {
  feed.subscribe((signal) => {
    try {
      if (!nc.isClosed()) nc.publish(IDENTITY_CHANGES_SUBJECT, JSON.stringify(signal));
    } catch (err) {
      logger.warn({ err, kind: signal.kind }, 'could not relay an identity change to NATS');
    }
  });
}
