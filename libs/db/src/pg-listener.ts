import { Client, ClientConfig } from 'pg';
import { Logger } from 'pino';
import { DataSourceOptions } from 'typeorm';
import { backoffMs } from '@sa/backoff';
import { quoteIdent } from './data-source';

/**
 * Settings for a dedicated pg Client to the same database as a TypeORM PostgreSQL DataSource
 * (the primary when replication is configured). Pool settings in `extra` are not carried over.
 */
export function pgClientConfig(options: DataSourceOptions, applicationName: string): ClientConfig {
  if (options.type !== 'postgres') throw new Error(`LISTEN needs a PostgreSQL DataSource, not ${options.type}`);
  const creds = options.replication?.master ?? options;
  const extra = (options.extra ?? {}) as { connectionTimeoutMillis?: number };
  const config: ClientConfig = {
    connectionString: creds.url,
    host: creds.host,
    port: creds.port,
    user: creds.username,
    password: creds.password,
    database: creds.database,
    ssl: creds.ssl as ClientConfig['ssl'], // TypeORM hands the same object to pg
    application_name: applicationName,
    connectionTimeoutMillis: options.connectTimeoutMS ?? extra.connectionTimeoutMillis ?? 5000,
    keepAlive: true,
  };
  // Leave unset keys out so pg falls back to its defaults (and the PG* environment variables).
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as ClientConfig;
}

export interface PgListenerOptions {
  client: ClientConfig;
  /** The channel, or several on the one connection. */
  channel: string | string[];
  logger: Logger;
  /** Called for every notification on the channel(s), with its payload and channel. */
  onNotify: (payload: string | undefined, channel: string) => void;
  /** Called each time LISTEN is (re-)established: notifications sent meanwhile were lost. */
  onListening?: () => void;
  /** Delay before reconnecting after a failure; doubles up to maxReconnectDelayMs. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

/**
 * One dedicated connection LISTENing on a channel, reconnected (with backoff) whenever it fails
 * or is terminated. LISTEN needs a session of its own, which a pooled connection cannot give.
 */
export class PgListener {
  private client: Client | null = null;
  private running = false;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;

  private readonly channels: string[];

  constructor(private readonly opts: PgListenerOptions) {
    this.channels = Array.isArray(opts.channel) ? [...opts.channel] : [opts.channel];
    if (this.channels.length === 0) throw new Error('PgListener needs at least one channel');
  }

  get listening(): boolean {
    return this.client !== null;
  }

  /** Resolves after the first attempt; on failure it keeps retrying in the background. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    await this.connecting;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    this.connecting = this.doConnect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async doConnect(): Promise<void> {
    if (!this.running) return;
    const client = new Client(this.opts.client);
    let dropped = false;
    const drop = (err?: unknown): void => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (!this.running) return;
      this.opts.logger.warn({ err, channel: this.channels.join(',') }, 'LISTEN connection lost; reconnecting');
      this.scheduleReconnect();
    };
    // An 'error' event without a listener would crash the process.
    client.on('error', (err) => drop(err));
    client.on('end', () => drop());
    client.on('notification', (n) => {
      if (this.channels.includes(n.channel)) this.opts.onNotify(n.payload, n.channel);
    });
    try {
      await client.connect();
      await client.query(this.channels.map((c) => `LISTEN ${quoteIdent(c)}`).join('; '));
    } catch (err) {
      drop(err);
      return;
    }
    if (dropped) return;
    if (!this.running) {
      dropped = true;
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failures = 0;
    this.opts.onListening?.();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer || !this.running) return;
    this.failures++;
    const delay = backoffMs(this.failures, { baseMs: this.opts.reconnectDelayMs ?? 1000, maxMs: this.opts.maxReconnectDelayMs ?? 30000 });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }
}
