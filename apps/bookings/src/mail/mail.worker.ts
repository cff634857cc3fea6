import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { backoffMs } from '@sa/backoff';
import { PgListener } from '@sa/db';
import { BOOKINGS_CONFIG, BOOKINGS_LOGGER, BookingsConfig, MAIL_TRANSPORT } from '../config/bookings.config';
import { MailRepository } from './mail.repository';
import { MailTransport } from './mail.transport';

/** Wait before the next attempt of an e-mail: 5 s, 10 s, 20 s … capped at 10 minutes. */
export const MAIL_RETRY_BACKOFF = { baseMs: 5000, maxMs: 600_000 };

/**
 * Sends the visitor e-mails of bookings.emails through SMTP. One e-mail at a time per
 * transaction: the row is claimed (FOR UPDATE SKIP LOCKED, so replicas never send the same row at
 * once), sent, and marked sent in the transaction that holds the claim. A crash between the SMTP
 * acceptance and the commit leaves the row pending, so it may be sent once more; every message
 * carries `Message-ID: <email-id@support-agent>` so a receiver can drop the duplicate.
 * Without SMTP_URL there is no transport and the worker does not run: e-mails stay pending.
 */
@Injectable()
export class MailWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private listener: PgListener | null = null;
  private poller: NodeJS.Timeout | null = null;
  private stopping = false;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;

  constructor(
    private readonly mail: MailRepository,
    @Inject(BOOKINGS_CONFIG) private readonly config: BookingsConfig,
    @Inject(BOOKINGS_LOGGER) private readonly logger: Logger,
    @Optional() @Inject(MAIL_TRANSPORT) private readonly transport: MailTransport | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.transport) {
      this.logger.info('SMTP_URL is not set: visitor e-mails are kept pending in bookings.emails');
      return;
    }
    this.listener = new PgListener({
      client: { connectionString: this.config.databaseUrl, application_name: 'bookings-mail-listener' },
      channel: 'bookings_emails',
      logger: this.logger,
      onNotify: () => void this.pump(),
      onListening: () => void this.pump(),
    });
    await this.listener.start();
    this.poller = setInterval(() => void this.pump(), this.config.mailPollMs);
    void this.pump();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.poller) clearInterval(this.poller);
    await this.listener?.stop();
    await this.pumping;
    this.transport?.close();
  }

  /** Sends due e-mails until none is left (or the batch is done). */
  pump(): Promise<void> {
    if (this.stopping || !this.transport) return Promise.resolve();
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.pumpAgain = false;
          for (let i = 0; i < this.config.mailBatch && !this.stopping; i++) {
            if (!(await this.sendOne())) break;
          }
        } while (this.pumpAgain && !this.stopping);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'sending e-mails failed; will retry');
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  /** Claims, sends and records one e-mail; false when none was due. */
  async sendOne(): Promise<boolean> {
    const transport = this.transport;
    if (!transport) return false;
    return this.mail.transaction(async (m) => {
      const email = await this.mail.claim(m);
      if (!email) return false;
      const log = this.logger.child({ email_id: email.id, booking_id: email.booking_id, tenant_id: email.tenant_id });
      try {
        await transport.send({ from: this.config.mailFrom, to: email.to_address, subject: email.subject, text: email.body_text, messageId: `<${email.id}@support-agent>` });
        await this.mail.markSent(m, email.id);
        log.info({ kind: email.kind }, 'visitor e-mail sent');
      } catch (err) {
        const attempts = email.attempts + 1;
        const final = attempts >= this.config.mailMaxAttempts;
        const reason = err instanceof Error ? err.message : String(err);
        await this.mail.markAttemptFailed(m, email.id, reason, final, backoffMs(attempts, MAIL_RETRY_BACKOFF));
        log.warn({ attempts, final, reason }, final ? 'visitor e-mail failed for good' : 'visitor e-mail will be retried');
      }
      return true;
    });
  }
}
