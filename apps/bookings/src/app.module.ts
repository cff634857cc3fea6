import { Module } from '@nestjs/common';
import { MessagingModule } from '@sa/messaging';
import { loadBookingsConfig } from './config/bookings.config';

const config = loadBookingsConfig();

/** Not built yet: the service answers its NATS health ping (bookings.health.ping) and nothing else. */
@Module({
  imports: [MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, service: 'bookings', connectionName: 'bookings' })],
})
export class AppModule {}
