import { Module } from '@nestjs/common';
import { DatabaseModule } from '@sa/db';
import { EventsModule } from '@sa/events';
import { createLogger } from '@sa/logging';
import { OpsModule } from '@sa/ops';
import { MessagingModule } from '@sa/messaging';
import { BookingsHandler } from './bookings/bookings.handler';
import { BookingsRepository } from './bookings/bookings.repository';
import { BookingsService } from './bookings/bookings.service';
import { BOOKINGS_CONFIG, BOOKINGS_LOGGER, MAIL_TRANSPORT, loadBookingsConfig } from './config/bookings.config';
import { MailHandler } from './mail/mail.handler';
import { MailRepository } from './mail/mail.repository';
import { smtpTransport } from './mail/mail.transport';
import { MailWorker } from './mail/mail.worker';

const config = loadBookingsConfig();

/** Bookings: the visitor booking requests, their states (spec part 3) and the visitor e-mails. */
@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'bookings' }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'bookings', connectionName: 'bookings' }),
    OpsModule.forService('bookings', config),
    EventsModule.forService({ schema: 'bookings', natsUrl: config.natsUrl, stream: { name: config.eventsStream, subjectPrefix: config.eventsSubjectPrefix }, relay: true }),
  ],
  controllers: [BookingsHandler, MailHandler],
  providers: [
    { provide: BOOKINGS_CONFIG, useValue: config },
    { provide: BOOKINGS_LOGGER, useValue: createLogger('bookings', { level: config.logLevel }) },
    { provide: MAIL_TRANSPORT, useFactory: () => (config.smtpUrl ? smtpTransport(config.smtpUrl) : null) },
    BookingsRepository,
    BookingsService,
    MailRepository,
    MailWorker,
  ],
})
export class AppModule {}
