import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { backoffMs } from '@sa/backoff';
import { ClaimLoop } from '@sa/db';
import { counter } from '@sa/metrics';
import { CHANNELS_CONFIG, CHANNELS_LOGGER, ChannelsConfig } from '../config/channels.config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConnectionsService } from '../connections/connections.service';
import { PermanentSendError, RetryableSendError } from '../providers/provider';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { Senders } from './senders';

const sent = counter({ name: 'sa_channel_deliveries_total', help: 'Replies this replica tried to send, by kind and outcome (sent, retried, failed)', labelNames: ['kind', 'outcome'] as const });

/**
 * Sends queued replies (the bot's answers, a person's replies from the console) through their
 * connection's provider, under a lease, one at a time per loop, paced per conversation and per
 * connection (CHANNELS_CONVERSATION_GAP_MS, CHANNELS_CONNECTION_SENDS_PER_SECOND). A provider's 429 or 5xx is tried
 * again after its Retry-After or an exponential backoff (CHANNELS_RETRY_*), up to
 * CHANNELS_SEND_ATTEMPTS; a permanent refusal (a revoked token, an unknown chat) is recorded on
 * the reply and as the connection's last error, for people to see.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly loops: ClaimLoop<DeliveryRow>[];

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly connections: ConnectionsRepository,
    private readonly service: ConnectionsService,
    private readonly senders: Senders,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    @Inject(CHANNELS_LOGGER) private readonly logger: Logger,
  ) {
    this.loops = Array.from(
      { length: Math.max(1, Math.ceil(config.concurrency / 2)) },
      () =>
        new ClaimLoop<DeliveryRow>({
          pollMs: config.pollMs,
          claim: () => this.deliveries.claim(this.workerId, config.leaseMs, { gapMs: config.conversationGapMs, perSecond: config.connectionSendsPerSecond }),
          work: (row) => this.deliver(row),
          onError: (err) => this.logger.warn({ err: err.message }, 'looking for channel replies to send failed; will retry'),
        }),
    );
  }

  onApplicationBootstrap(): void {
    for (const loop of this.loops) loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.stop()));
  }

  wake(): void {
    for (const loop of this.loops) void loop.pump();
  }

  private async deliver(row: DeliveryRow): Promise<boolean> {
    const log = this.logger.child({ delivery_id: row.id, connection_id: row.connection_id, kind: row.kind });
    const conn = await this.connections.byId(row.connection_id);
    if (!conn) return true; // deleted meanwhile: its deliveries went with it
    try {
      const { providerMessageId } = await this.senders.send(row.kind, { id: conn.id, settings: conn.settings, secrets: this.service.openSecrets(conn) }, row.reply_to, row.text);
      await this.deliveries.sent(row.id, this.workerId, providerMessageId);
      await this.connections.markWorked(conn.id, 'outbound');
      sent.inc({ kind: row.kind, outcome: 'sent' });
    } catch (err) {
      const message = err instanceof Error ? err.message : 'unknown error';
      const retryable = err instanceof RetryableSendError || !(err instanceof PermanentSendError);
      if (retryable && row.attempts < this.config.sendAttempts) {
        const backoff = backoffMs(row.attempts, { baseMs: this.config.retryBaseMs, maxMs: this.config.retryMaxMs });
        const wait = err instanceof RetryableSendError && err.retryAfterMs !== null ? Math.max(err.retryAfterMs, backoff) : backoff;
        await this.deliveries.retryLater(row.id, this.workerId, wait, message);
        sent.inc({ kind: row.kind, outcome: 'retried' });
        log.info({ err: message, attempts: row.attempts, retry_in_ms: wait }, 'a channel reply was not taken; it is sent again later');
      } else {
        await this.deliveries.failed(row.id, this.workerId, message);
        await this.connections.markError(conn.id, `A reply could not be sent: ${message}`);
        sent.inc({ kind: row.kind, outcome: 'failed' });
        log.warn({ err: message, attempts: row.attempts }, 'a channel reply could not be sent');
      }
    }
    return true;
  }
}
