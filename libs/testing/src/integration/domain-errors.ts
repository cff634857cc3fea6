import 'reflect-metadata';
import { DomainError } from '@sa/errors';

/**
 * The code of the DomainError `promise` rejects with, for tests of a service's refusals
 * (`expect(await domainErrorCode(service.update(...))).toBe('not_found')`). A promise that
 * resolves, or rejects with anything else, fails the test with what happened instead.
 */
export async function domainErrorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  throw new Error('expected a DomainError, but the call succeeded');
}
