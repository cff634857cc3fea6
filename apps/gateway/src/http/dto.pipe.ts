import { PipeTransform } from '@nestjs/common';
import { ValidationFailed } from '@sa/errors';
import { validateDto } from '@sa/messaging';

/**
 * Validates a request body, query string or path parameters against a contract DTO: the spec's
 * limits, unknown members rejected, and no NUL characters, unpaired surrogates or Object.prototype
 * member names (validateDto). Failures are 400 `{success:false, error:{name, message, issues}}`
 * with paths such as ["body","name"].
 */
export class DtoPipe<T extends object> implements PipeTransform<unknown, T> {
  constructor(
    private readonly cls: new () => T,
    private readonly where: 'body' | 'query' | 'path',
  ) {}

  transform(value: unknown): T {
    const plain = this.where !== 'body' && (value === undefined || value === null) ? {} : value;
    if (plain === undefined || plain === null) {
      throw new ValidationFailed([{ code: 'required', path: [this.where], message: 'A JSON object body is required (Content-Type: application/json)' }]);
    }
    return validateDto(this.cls, plain, [this.where]);
  }
}

export const dto = <T extends object>(cls: new () => T, where: 'body' | 'query' | 'path') => new DtoPipe(cls, where);
