import { BeforeApplicationShutdown, Inject, Injectable, Provider } from '@nestjs/common';
import type { Logger } from 'pino';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from '../config/console.config';
import { FailureCounter, MemoryAttemptStore, MemoryFailureCounter, RedisAttemptStore, RedisFailureCounter, ResetMailLimit, SignInThrottle } from './sign-in-throttle';

/** In Redis (shared by replicas) when REDIS_URL is set, else in this process. */
export function failureCounter(config: ConsoleConfig, logger: Logger, windowSeconds: number): FailureCounter {
  const windowMs = windowSeconds * 1000;
  return config.redisUrl ? new RedisFailureCounter(config.redisUrl, windowMs, logger) : new MemoryFailureCounter(windowMs);
}

/** Sign-in attempts in Redis (shared by replicas) when REDIS_URL is set, else in this process. */
export const signInThrottleProvider: Provider = {
  provide: SignInThrottle,
  inject: [CONSOLE_CONFIG, CONSOLE_LOGGER],
  useFactory: (config: ConsoleConfig, logger: Logger) => {
    const store = config.redisUrl ? new RedisAttemptStore(config.redisUrl, logger) : new MemoryAttemptStore();
    return new SignInThrottle(store, {
      maxPerAccount: config.signInMaxFailuresPerAccount,
      maxPerAddress: config.signInMaxFailuresPerAddress,
      delayMs: config.signInDelaySeconds * 1000,
      maxDelayMs: config.signInMaxDelaySeconds * 1000,
      forgetMs: config.signInFailureWindowSeconds * 1000,
      knownMs: config.signInKnownAddressDays * 86400 * 1000,
      prefix: config.throttlePrefix,
    });
  },
};

/** Password-reset requests per account and per client address (see ResetMailLimit). */
export const resetMailLimitProvider: Provider = {
  provide: ResetMailLimit,
  inject: [CONSOLE_CONFIG, CONSOLE_LOGGER],
  useFactory: (config: ConsoleConfig, logger: Logger) =>
    new ResetMailLimit(failureCounter(config, logger, config.passwordResetWindowSeconds), {
      maxPerAccount: config.passwordResetMaxPerAccount,
      maxPerAddress: config.passwordResetMaxPerAddress,
      prefix: config.throttlePrefix,
    }),
};

@Injectable()
export class SignInThrottleLifecycle implements BeforeApplicationShutdown {
  constructor(
    @Inject(SignInThrottle) private readonly throttle: SignInThrottle,
    @Inject(ResetMailLimit) private readonly resets: ResetMailLimit,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.throttle.close(), this.resets.close()]);
  }
}
