import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { CHAT_LOGGER } from '../chat.tokens';
import { CHAT_CONFIG, ChatConfig } from '../config/chat.config';
import { MessagesRepository } from '../conversations/messages.repository';

/**
 * Issue 36: a chat replica killed while it answers never gives back the messages its turns
 * reserved, and the visitors' streams end with an error. Each replica holds its reservations under
 * its own id, says every CHAT_RESERVATION_SWEEP_MS that it is alive, and gives back the
 * reservations of replicas silent for CHAT_RESERVATION_ORPHAN_MS: a message whose answer died with
 * its replica is not charged. The sweep is idempotent; every replica runs it.
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The name this replica's reservations are held under: new at every start, unless CHAT_REPLICA_ID names it. */
  readonly replicaId: string;
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> = Promise.resolve();

  constructor(
    private readonly messages: MessagesRepository,
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    @Inject(CHAT_LOGGER) private readonly logger: Logger,
  ) {
    this.replicaId = config.replicaId ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  }

  async onApplicationBootstrap(): Promise<void> {
    // Alive before the first turn it reserves for; a failure here is retried by the next sweep.
    await this.messages.heartbeat(this.replicaId).catch((err: Error) => this.logger.warn({ err: err.message }, 'could not record this chat replica as alive'));
    this.timer = setInterval(() => (this.sweeping = this.sweep()), this.config.reservationSweepMs);
    this.timer.unref();
  }

  /** Says this replica is alive, then gives back the orphans of silent ones. Never throws. */
  async sweep(): Promise<void> {
    try {
      await this.messages.heartbeat(this.replicaId);
      const released = await this.messages.releaseOrphans(this.config.reservationOrphanMs);
      if (released) this.logger.info({ released }, 'gave back messages reserved by chat replicas that stopped answering');
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'the reservation sweep failed; the next one tries again');
    }
  }

  /** After the turns ended (ChatTurnService waits for them first): anything still held is given back, and the replica leaves. */
  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
    await this.messages.leave(this.replicaId).catch((err: Error) => this.logger.warn({ err: err.message }, 'could not leave; other replicas give back what this one held'));
  }
}
