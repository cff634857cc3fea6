import { PipeTransform } from '@nestjs/common';
import { ValidationFailed } from '@sa/errors';
import { validateDto } from '@sa/messaging';

function findNul(value: unknown, path: (string | number)[]): (string | number)[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], [...path, i]);
      if (hit) return hit;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const hit = findNul(v, [...path, k]);
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * Validates a request body or query string against a contract DTO: the spec's limits, unknown
 * members rejected, and no NUL characters (PostgreSQL cannot store them). Failures are 400
 * `{success:false, error:{name, message, issues}}` with paths such as ["body","name"].
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
    const nul = findNul(plain, [this.where]);
    if (nul) throw new ValidationFailed([{ code: 'invalid_string', path: nul, message: `${nul.join('.')} must not contain NUL characters` }]);
    return validateDto(this.cls, plain, [this.where]);
  }
}

export const dto = <T extends object>(cls: new () => T, where: 'body' | 'query' | 'path') => new DtoPipe(cls, where);
