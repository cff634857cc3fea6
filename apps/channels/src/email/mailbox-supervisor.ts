import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { queryRows } from '@sa/db';
import type { OutboundPolicy } from '@sa/net-guard';
import { CHANNELS_CONFIG, CHANNELS_LOGGER, ChannelsConfig } from '../config/channels.config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConnectionsService } from '../connections/connections.service';
import { CHANNELS_OUTBOUND_POLICY } from '../delivery/senders';
import { AnswerWorker } from '../inbound/answer.worker';
import { InboundRepository } from '../inbound/inbound.repository';
import { MailboxReader } from './mailbox-reader';

interface Reading {
  reader: MailboxReader;
  /** The connection's updated_at when the reader started: a change of settings restarts it. */
  version: string;
}

/**
 * Reads the workspace's mailboxes (issue 35): each enabled e-mail connection is read by one
 * replica at a time, the one holding its reader lease in channels.connections (`reader_id`,
 * `reader_until`, renewed every third of CHANNELS_LEASE_MS; a replica that dies lets another take
 * it after the lease). A message is stored in channels.inbound before the mailbox's checkpoint
 * moves past it, so a reader killed at any point reads it again (stored once: the Message-ID is
 * the provider id) and answers it once.
 */
@Injectable()
export class MailboxSupervisor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly readerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly readings = new Map<string, Reading>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private pass: Promise<void> | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly connections: ConnectionsRepository,
    private readonly service: ConnectionsService,
    private readonly inbound: InboundRepository,
    private readonly worker: AnswerWorker,
    @Inject(CHANNELS_OUTBOUND_POLICY) private readonly policy: OutboundPolicy,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    @Inject(CHANNELS_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), Math.max(200, Math.floor(this.config.leaseMs / 3)));
    void this.tick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.pass;
    await Promise.all([...this.readings.keys()].map((id) => this.stopReading(id, true)));
  }

  /** One pass: renew or take leases, start and stop readers. One pass at a time. */
  private tick(): Promise<void> {
    if (this.pass || this.stopping) return this.pass ?? Promise.resolve();
    this.pass = this.reconcile()
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'looking after the mailboxes failed; will retry'))
      .finally(() => (this.pass = null));
    return this.pass;
  }

  private async reconcile(): Promise<void> {
    // Take (or keep) the lease of every enabled mailbox nobody else reads; the rows returned are ours.
    const held = await queryRows<{ id: string; updated_at: Date }>(
      this.ds.manager,
      `UPDATE channels.connections
          SET reader_id = $1, reader_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
        WHERE kind = 'email' AND enabled AND (reader_id = $1 OR reader_until IS NULL OR reader_until < clock_timestamp())
        RETURNING id, updated_at`,
      [this.readerId, this.config.leaseMs],
    );
    const mine = new Map(held.map((r) => [r.id, r.updated_at.toISOString()]));
    for (const [id, reading] of this.readings) {
      if (mine.get(id) !== reading.version) await this.stopReading(id, false);
    }
    for (const [id, version] of mine) {
      if (!this.readings.has(id) && !this.stopping) await this.startReading(id, version);
    }
  }

  private async startReading(id: string, version: string): Promise<void> {
    const conn = await this.connections.byId(id);
    if (!conn) return;
    const log = this.logger.child({ connection_id: id, kind: 'email' });
    const reader = new MailboxReader({
      connection: { id, settings: conn.settings, secrets: this.service.openSecrets(conn) },
      start: conn.mail_uid_validity !== null && conn.mail_last_uid !== null ? { uidValidity: Number(conn.mail_uid_validity), lastUid: Number(conn.mail_last_uid) } : null,
      policy: this.policy,
      pollMs: this.config.mailPollMs,
      checkpoint: async (uidValidity, uid) => {
        await this.ds.query(`UPDATE channels.connections SET mail_uid_validity = $2, mail_last_uid = $3 WHERE id = $1 AND reader_id = $4`, [id, uidValidity, uid, this.readerId]);
      },
      onMessage: async (msg, info) => {
        if (!msg) {
          log.info({ uid: info.uid, problem: info.problem }, 'a mail could not be read as a message; it is not answered');
          return;
        }
        const added = await this.inbound.transaction(async (m) => {
          const n = await this.inbound.store(m, conn, [msg]);
          await this.connections.markWorked(id, 'inbound', m);
          return n;
        });
        if (added) this.worker.wake();
      },
      onSkipped: (info, reason) => log.info({ uid: info.uid, reason }, 'an automated mail (auto-reply, bounce, list) is not answered'),
      onStatus: (status) => {
        if (status.state === 'error') {
          log.warn({ err: status.message, attempt: status.attempt }, 'reading the mailbox failed; retrying');
          void this.connections.markError(id, `Reading the mailbox failed: ${status.message}`).catch(() => undefined);
        } else {
          log.info({ idle: status.idle }, 'reading the mailbox');
          void this.ds
            .query(`UPDATE channels.connections SET status = CASE WHEN last_inbound_at IS NULL THEN 'pending' ELSE 'active' END, last_error = NULL WHERE id = $1 AND status = 'error'`, [id])
            .catch(() => undefined);
        }
      },
    });
    this.readings.set(id, { reader, version });
    reader.start();
  }

  /** Stops a reader; on shutdown its lease is given up, so another replica takes the mailbox at once. */
  private async stopReading(id: string, release: boolean): Promise<void> {
    const reading = this.readings.get(id);
    if (!reading) return;
    this.readings.delete(id);
    await reading.reader.stop();
    if (release) await this.ds.query(`UPDATE channels.connections SET reader_id = NULL, reader_until = NULL WHERE id = $1 AND reader_id = $2`, [id, this.readerId]).catch(() => undefined);
  }
}
