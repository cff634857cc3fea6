import 'reflect-metadata';
import { runService } from '@sa/messaging';
import { AppModule } from './app.module';
import { loadBookingsConfig } from './config/bookings.config';

void runService('bookings', AppModule, loadBookingsConfig()).catch((err: unknown) => {
  process.stderr.write(`bookings failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
