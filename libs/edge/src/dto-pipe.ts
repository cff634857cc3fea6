import { PipeTransform } from '@nestjs/common';
import { ValidationFailed } from '@sa/errors';
import { validateDto } from '@sa/messaging';

export type RequestPart = 'body' | 'query' | 'path';

/**
 * Validates a request body, query string or path parameters against a contract DTO: the spec's
 * limits, unknown members rejected, and no NUL characters, unpaired surrogates or Object.prototype
 * member names (validateDto). Failures are 400 `{success:false, error:{name, message, issues}}`
 * with paths such as ["body","name"].
 *
 * The guards run a route's pipes before Nest does (validateRouteInput), so that the checks after
 * validation see valid input; each pipe remembers what it made of a request's object, and Nest's
 * own call then returns the same instance without validating twice.
 */
export class DtoPipe<T extends object> implements PipeTransform<unknown, T | undefined> {
  private readonly done = new WeakMap<object, T>();

  constructor(
    readonly cls: new () => T,
    readonly where: RequestPart,
    /** An absent body is allowed (and gives undefined); a body that is there must be valid. */
    readonly optional = false,
  ) {}

  transform(value: unknown): T | undefined {
    const object = typeof value === 'object' && value !== null ? value : null;
    const known = object && this.done.get(object);
    if (known) return known;
    if (this.optional && (value === undefined || value === null)) return undefined;
    const plain = this.where !== 'body' && (value === undefined || value === null) ? {} : value;
    if (plain === undefined || plain === null) {
      throw new ValidationFailed([{ code: 'required', path: [this.where], message: 'A JSON object body is required (Content-Type: application/json)' }]);
    }
    const validated = validateDto(this.cls, plain, [this.where]);
    if (object) this.done.set(object, validated);
    return validated;
  }
}

export const dto = <T extends object>(cls: new () => T, where: RequestPart, options: { optional?: boolean } = {}) => new DtoPipe(cls, where, options.optional ?? false);
