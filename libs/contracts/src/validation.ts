import type { ValidationError } from 'class-validator';
import type { ValidationIssue } from './errors';
import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';

/** Length in characters (Unicode code points), the unit PostgreSQL's char_length uses too. */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** A string of `min` to `max` characters, counted as code points, not UTF-16 units. */
export function CharLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'charLength',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && charLength(value) >= min && charLength(value) <= max,
        defaultMessage: buildMessage(
          (each) => `${each}$property must be between $constraint1 and $constraint2 characters`,
          options,
        ),
      },
    },
    // The bounds travel as context so issue codes (too_small/too_big) survive a custom message.
    { ...options, context: { constraints: [min, max], ...options?.context } },
  );
}

/** A string with at least one character that is not white space. */
export function NotBlank(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notBlank',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value.trim().length > 0,
        defaultMessage: buildMessage((each) => `${each}$property must not be blank`, options),
      },
    },
    options,
  );
}

/** A BCP 47 language tag such as `en`, `ja-JP` or `fil-PH` (checked with Intl.getCanonicalLocales). */
export function canonicalLanguage(value: string): string | null {
  if (value.length > 35 || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(value)) return null;
  try {
    return Intl.getCanonicalLocales(value)[0] ?? null;
  } catch {
    return null;
  }
}

export function IsLanguageTag(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLanguageTag',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && canonicalLanguage(value) !== null,
        defaultMessage: buildMessage((each) => `${each}$property must be a language code such as en or ja-JP`, options),
      },
    },
    options,
  );
}


const TYPE_CONSTRAINTS = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'isStringMap', 'isIntegerMap', 'isKeyPath', 'nestedValidation']);
const FORMAT_CONSTRAINTS = new Set(['isHttpUrl', 'isUuid', 'isUUID', 'isIso8601', 'isISO8601', 'isUrl', 'isURL', 'isEmail', 'isLanguageTag', 'matches', 'isDateString', 'isCalendarDate']);

function issueCode(constraint: string, value: unknown, constraints: unknown[] | undefined): string {
  if (constraint === 'whitelistValidation') return 'unrecognized_keys';
  if (value === undefined || value === null) return 'required';
  if (TYPE_CONSTRAINTS.has(constraint)) return 'invalid_type';
  if (FORMAT_CONSTRAINTS.has(constraint)) return 'invalid_format';
  if (constraint === 'isIn' || constraint === 'isEnum') return 'invalid_value';
  if (constraint === 'notBlank' || constraint === 'isNotEmpty' || constraint === 'minLength' || constraint === 'min' || constraint === 'arrayMinSize') return 'too_small';
  if (constraint === 'maxLength' || constraint === 'max' || constraint === 'arrayMaxSize') return 'too_big';
  if (constraint === 'charLength' && typeof value === 'string' && constraints) {
    return charLength(value) < Number(constraints[0]) ? 'too_small' : 'too_big';
  }
  return 'invalid_value';
}

/** Flattens class-validator's error tree into the issues of a 400 validation error body. */
export function toValidationIssues(errors: ValidationError[], basePath: (string | number)[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const path = [...basePath, error.property];
    const constraints = error.constraints ?? {};
    const names = Object.keys(constraints);
    if (names.length) {
      // Report the first failing rule of a field only: "is required" says all that matters, in the
      // words of an IsDefined that has its own ("requestedSlot is required when action is reschedule").
      const missing = error.value === undefined || error.value === null;
      const name =
        names.find((n) => n === 'whitelistValidation') ??
        (missing && names.includes('isDefined') && hasCustomMessage('isDefined', constraints['isDefined']) ? 'isDefined' : names[names.length - 1]);
      const code = issueCode(name, error.value, (error.contexts as Record<string, { constraints?: unknown[] }> | undefined)?.[name]?.constraints ?? charLengthBounds(error));
      issues.push({
        code,
        path,
        message: name === 'whitelistValidation' ? `${path.join('.')} is not an accepted field` : missing && !hasCustomMessage(name, constraints[name]) ? `${path.join('.')} is required` : constraints[name],
      });
    }
    if (error.children?.length) issues.push(...toValidationIssues(error.children, path));
  }
  return issues;
}

/** An IsDefined with a message of its own (such as "one of url or text is required") keeps it. */
function hasCustomMessage(constraint: string, message: string): boolean {
  return constraint === 'isDefined' && !message.endsWith('should not be null or undefined');
}

function charLengthBounds(error: ValidationError): unknown[] | undefined {
  const msg = error.constraints?.['charLength'];
  const m = msg ? /between (\d+) and (\d+)/.exec(msg) : null;
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** An absolute http or https URL with a host and no user name or password (WHATWG URL rules). */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0 && !u.username && !u.password;
  } catch {
    return false;
  }
}

export function IsHttpUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isHttpUrl',
      validator: {
        validate: (value: unknown) => isHttpUrl(value),
        defaultMessage: buildMessage((each) => `${each}$property must be an absolute http or https URL without credentials`, options),
      },
    },
    options,
  );
}

/** For query strings: digits-only values become numbers; anything else is left for validation to refuse. */
export const toInt = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value);

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Days in a month of the proleptic Gregorian calendar (month 1-12). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * An ISO 8601 date-time with a UTC offset (Z or ±hh:mm) that names a real calendar date and time:
 * year 0001-9999, a day that the month has (29 February in leap years only), hours 00-23, minutes
 * and seconds 00-59, an offset of at most ±14:00. JavaScript's Date.parse rolls 2026-02-30 over to
 * 2 March and PostgreSQL refuses it (issue 30): neither may decide what a visitor meant.
 */
export function isIsoWithOffset(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const m = ISO_WITH_OFFSET.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const offsetHours = m[7] === undefined ? 0 : Number(m[7]);
  const offsetMinutes = m[8] === undefined ? 0 : Number(m[8]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (offsetMinutes > 59 || offsetHours * 60 + offsetMinutes > 14 * 60) return false;
  return true;
}

export function IsIsoDateTimeWithOffset(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isIso8601',
      validator: {
        validate: (value: unknown) => isIsoWithOffset(value),
        defaultMessage: buildMessage((each) => `${each}$property must be an ISO 8601 date-time with a UTC offset, such as 2026-12-01T10:00:00+03:00`, options),
      },
    },
    options,
  );
}

/**
 * A keyset cursor `<date-time>_<uuid>` (the console's lead pages): its time names a real instant by
 * the same rule as every other date-time (isIsoWithOffset), so an impossible date is refused where
 * the caller sent it, not by the service that reads the time.
 */
export function IsTimeIdCursor(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTimeIdCursor',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const at = value.lastIndexOf('_');
          return at > 0 && isIsoWithOffset(value.slice(0, at)) && /^[0-9a-fA-F-]{36}$/.test(value.slice(at + 1));
        },
        defaultMessage: buildMessage((each) => `${each}$property must be the \`next\` cursor of a page`, options),
      },
    },
    options,
  );
}

/**
 * How deeply any payload may nest (objects and arrays; the payload itself is level 1). No contract
 * nests deeper than 3; the public edges refuse bodies beyond their own JSON_MAX_DEPTH (32 by
 * default, at most this) before parsing them.
 */
export const MAX_JSON_DEPTH = 64;

/** NUL (PostgreSQL text and jsonb cannot hold it) or a UTF-16 surrogate not in a pair (not Unicode; PostgreSQL refuses it). */
const UNSTORABLE = /[\u0000\ud800-\udfff]/u;

/**
 * Member names that are also properties of every JavaScript object. class-transformer treats some
 * as the object's type (`constructor`: a TypeError) and silently drops others (`toString`), and
 * `__proto__` replaces a prototype when copied with Object.assign, so they are refused as data.
 */
const RESERVED_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

function textIssue(text: string, path: (string | number)[]): ValidationIssue {
  const where = path.join('.') || 'payload';
  return text.includes('\u0000')
    ? { code: 'invalid_string', path, message: `${where} must not contain NUL characters` }
    : { code: 'invalid_string', path, message: `${where} must not contain unpaired UTF-16 surrogates (it is not valid Unicode text)` };
}

/**
 * The checks every payload passes before its contract is validated, at every edge (REST bodies,
 * query strings and path parameters, widget routes, MCP tool arguments) and in every NATS handler:
 * no string or member name with NUL or an unpaired surrogate, no member name of Object.prototype,
 * and no nesting deeper than `maxDepth`. Iterative, so hostile input cannot exhaust the stack.
 * Returns the first problem as a validation issue, or null.
 */
export function plainJsonIssue(value: unknown, basePath: (string | number)[] = [], maxDepth = MAX_JSON_DEPTH): ValidationIssue | null {
  interface Frame {
    value: unknown;
    depth: number;
    key: string | number | null;
    parent: Frame | null;
  }
  const pathOf = (frame: Frame, extra: (string | number)[] = []): (string | number)[] => {
    const keys: (string | number)[] = [];
    for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) keys.push(f.key);
    return [...basePath, ...keys.reverse(), ...extra];
  };
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return textIssue(v, pathOf(frame));
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (frame.depth > maxDepth) {
      const path = pathOf(frame);
      return { code: 'too_big', path, message: `${path.join('.') || 'payload'} is nested too deeply (at most ${maxDepth} levels)` };
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: frame.depth + 1, key: i, parent: frame });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      if (UNSTORABLE.test(key)) return textIssue(key, pathOf(frame, [key]));
      if (RESERVED_KEYS.has(key)) {
        const path = pathOf(frame, [key]);
        return { code: 'invalid_value', path, message: `${path.join('.')}: "${key}" is not accepted as a member name` };
      }
      stack.push({ value: (v as Record<string, unknown>)[key], depth: frame.depth + 1, key, parent: frame });
    }
  }
  return null;
}

/** An object whose members are all strings (a map of string to string, such as custom form fields). */
export function IsStringMap(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringMap',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string'),
        defaultMessage: buildMessage((each) => `${each}$property must be an object whose values are strings`, options),
      },
    },
    options,
  );
}

/** An object whose members are all integers (a map of string to integer, such as slots per tier). */
export function IsIntegerMap(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isIntegerMap',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => Number.isInteger(v)),
        defaultMessage: buildMessage((each) => `${each}$property must be an object whose values are integers`, options),
      },
    },
    options,
  );
}

/** A calendar date that exists, YYYY-MM-DD (JSON Schema's `date` format). */
export function isCalendarDate(value: string): boolean {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  return !Number.isNaN(at) && new Date(at).toISOString().startsWith(value);
}

/** A calendar date, YYYY-MM-DD (JSON Schema's `date` format). */
export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCalendarDate',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isCalendarDate(value),
        defaultMessage: buildMessage((each) => `${each}$property must be a date such as 2026-03-01`, options),
      },
    },
    options,
  );
}

/** Where in a payload something is: member names and list positions, such as ["body", "name"] or ["items", 0]. */
export function IsKeyPath(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isKeyPath',
      validator: {
        validate: (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string' || Number.isInteger(v)),
        defaultMessage: buildMessage((each) => `${each}$property must be a list of member names and positions`, options),
      },
    },
    options,
  );
}
