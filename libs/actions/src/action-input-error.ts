/**
 * An action call that cannot be made as asked: the input misses a member the URL needs, or the
 * action's URL, method or headers are not usable. The message is written for people and never
 * carries a header value.
 */
export class ActionInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionInputError';
  }
}
