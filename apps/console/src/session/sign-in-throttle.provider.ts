import { BeforeApplicationShutdown, Inject, Injectable, Provider } from '@nestjs/common';
import type { Logger } from 'pino';
import { CONSOLE_CONFIG, CONSOLE_LOGGER, ConsoleConfig } from '../config/console.config';
import { MemoryFailureCounter, RedisFailureCounter, SignInThrottle } from './sign-in-throttle';

/** In Redis (shared by replicas) when REDIS_URL is set, else in this process. */
export const signInThrottleProvider: Provider = {
  provide: SignInThrottle,
  inject: [CONSOLE_CONFIG, CONSOLE_LOGGER],
  useFactory: (config: ConsoleConfig, logger: Logger) => {
    const windowMs = config.signInFailureWindowSeconds * 1000;
    const counter = config.redisUrl ? new RedisFailureCounter(config.redisUrl, windowMs, logger) : new MemoryFailureCounter(windowMs);
    return new SignInThrottle(counter, { maxPerAccount: config.signInMaxFailuresPerAccount, maxPerAddress: config.signInMaxFailuresPerAddress, prefix: config.throttlePrefix });
  },
};

@Injectable()
export class SignInThrottleLifecycle implements BeforeApplicationShutdown {
  constructor(@Inject(SignInThrottle) private readonly throttle: SignInThrottle) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.throttle.close();
  }
}
