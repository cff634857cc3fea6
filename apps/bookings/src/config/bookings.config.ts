import { commonConfig, env, parseConfig } from '@sa/config';

export const DEFAULT_MAIL_FROM = 'Support <no-reply@localhost>';

export const loadBookingsConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      /** SMTP server of the visitor e-mails (smtp:// or smtps://). Unset: e-mails stay pending. */
      smtpUrl: env.optionalUrl('SMTP_URL', ['smtp', 'smtps']),
      mailFrom: env.str('MAIL_FROM', DEFAULT_MAIL_FROM),
      /** Sending attempts of one e-mail before it is marked failed. */
      mailMaxAttempts: env.int('MAIL_MAX_ATTEMPTS', 5, { min: 1, max: 50 }),
      mailPollMs: env.int('MAIL_POLL_MS', 2000, { min: 50 }),
      /** E-mails claimed per round. */
      mailBatch: env.int('MAIL_BATCH', 10, { min: 1, max: 500 }),
    },
    source,
  );

export type BookingsConfig = ReturnType<typeof loadBookingsConfig>;
export const BOOKINGS_CONFIG = Symbol('BOOKINGS_CONFIG');
export const BOOKINGS_LOGGER = Symbol('BOOKINGS_LOGGER');
export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');
