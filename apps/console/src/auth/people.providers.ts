import { Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PeopleAdmin } from '@sa/people';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';

/** PeopleAdmin over the console's own pool (schema `people`), with the console's expiries. */
export const peopleAdminProvider: Provider = {
  provide: PeopleAdmin,
  inject: [getDataSourceToken(), CONSOLE_CONFIG],
  useFactory: (ds: DataSource, config: ConsoleConfig) =>
    new PeopleAdmin(ds, {
      sessionIdleSeconds: config.sessionIdleSeconds,
      sessionAbsoluteSeconds: config.sessionAbsoluteSeconds,
      invitationTtlSeconds: config.invitationTtlSeconds,
      passwordResetTtlSeconds: config.passwordResetTtlSeconds,
    }),
};
