/** Why an outbound request was refused or failed. */
export type GuardErrorCode = 'blocked' | 'timeout' | 'too_large' | 'too_many_redirects' | 'bad_url' | 'network';

/**
 * The only error guardedFetch throws. The message is written for people: it becomes the failure
 * reason of a knowledge document or a webhook delivery, so it says what happened in plain words.
 */
export class GuardError extends Error {
  constructor(
    readonly code: GuardErrorCode,
    message: string,
    /** The URL being fetched when it failed (after redirects, the hop that failed). */
    readonly url?: string,
  ) {
    super(message);
    this.name = 'GuardError';
  }
}

export function isGuardError(err: unknown): err is GuardError {
  return err instanceof GuardError;
}
