import type { Logger } from 'pino';
import { PgListener } from '@sa/db';
import { IDENTITY_CHANNEL, IdentityChangeFeed, IdentityFeedBase, parseIdentityChange } from '@sa/identity';

/** LISTEN on `identity_changed`: the gateway's feed (the owner's database). */
export class PgIdentityFeed extends IdentityFeedBase implements IdentityChangeFeed {
  private readonly listener: PgListener;

  constructor(databaseUrl: string, logger: Logger, applicationName = 'gateway-identity-listener') {
    super();
    this.listener = new PgListener({
      client: { connectionString: databaseUrl, application_name: applicationName },
      channel: IDENTITY_CHANNEL,
      logger,
      onNotify: (payload) => {
        const change = parseIdentityChange(payload);
        if (change) this.emit(change);
      },
      onListening: () => this.emit({ kind: 'reset' }),
    });
  }

  get listening(): boolean {
    return this.listener.listening;
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }
}
