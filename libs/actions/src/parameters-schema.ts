import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';

// An action's input parameters are a JSON Schema object written by the bot's owner; the input of
// a call is written by the model (untrusted). Both are checked here with one shared Ajv instance.

/** Largest number of top-level parameters. */
const MAX_PARAMETERS = 30;
/** Largest serialized schema, in bytes (UTF-8). */
const MAX_SCHEMA_BYTES = 16 * 1024;
/** Deepest nesting of objects and arrays; the schema object itself is level 1. */
const MAX_SCHEMA_DEPTH = 8;
/** Compiled validators kept, least recently used forgotten first. */
const MAX_CACHED_VALIDATORS = 500;
/** Errors reported for one input. */
const MAX_INPUT_ERRORS = 10;
/** Longest `pattern` accepted. */
const MAX_PATTERN_LENGTH = 1000;

/** A parameter name: also what a URL placeholder `{name}` may refer to. */
export const PARAMETER_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What a value is, for a message (never the value itself). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** A name or pattern quoted for a message, cut when long. */
function quote(text: string, max = 40): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/** The JSON text of a value, or null when it has none (BigInt, throwing getters, far too large). */
function toJson(value: unknown): string | null {
  try {
    const json = JSON.stringify(value);
    return typeof json === 'string' ? json : null;
  } catch {
    return null;
  }
}

/** Whether JSON nesting goes deeper than `max` levels (stops counting there). */
function deeperThan(value: unknown, max: number, level = 1): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (level > max) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => deeperThan(child, max, level + 1));
}

// Where a schema holds subschemas, as Ajv traverses them (json-schema-traverse); other keywords
// hold data (enum, const, default, examples …) and are not looked into.
const SUBSCHEMA = ['additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas'];

/**
 * Whether a regular expression repeats a group that itself repeats (`(a+)+`, `(\w*x)*`): the
 * classic shape of catastrophic backtracking, which would let one action's input stall the
 * process that validates it. A heuristic: it does not catch every slow pattern.
 */
function hasNestedQuantifier(source: string): boolean {
  const groups: boolean[] = []; // per open group: whether it holds an unbounded quantifier
  let inClass = false;
  let closedGroupRepeats = false; // the group just closed (when the previous token was ')')
  let afterGroup = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      afterGroup = false;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      afterGroup = false;
      continue;
    }
    if (c === '(') {
      groups.push(false);
      afterGroup = false;
      continue;
    }
    if (c === ')') {
      closedGroupRepeats = groups.pop() ?? false;
      if (closedGroupRepeats && groups.length > 0) groups[groups.length - 1] = true;
      afterGroup = true;
      continue;
    }
    const unbounded = c === '*' || c === '+' || (c === '{' && /^\{\d+,\}/.test(source.slice(i, i + 24)));
    if (unbounded) {
      if (afterGroup && closedGroupRepeats) return true;
      if (groups.length > 0) groups[groups.length - 1] = true;
    }
    afterGroup = false;
  }
  return false;
}

function checkPattern(pattern: string, where: string, errors: string[]): void {
  if (pattern.length > MAX_PATTERN_LENGTH) errors.push(`${where}: the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  else if (hasNestedQuantifier(pattern)) errors.push(`${where}: the pattern ${quote(pattern)} repeats a group that itself repeats, which can take exponential time; write it without the nesting`);
}

/** References and ids that Ajv would resolve, and patterns it would run, in every subschema. */
function checkSubschemas(node: unknown, where: string, errors: string[]): void {
  if (!isPlainObject(node)) return;
  const ref = node['$ref'];
  if (typeof ref === 'string' && !ref.startsWith('#')) errors.push(`${where}: $ref ${quote(ref, 80)} points outside the schema; only local references (#/…) are allowed`);
  if (typeof node['$id'] === 'string') errors.push(`${where}: $id is not supported`);
  if (typeof node['pattern'] === 'string') checkPattern(node['pattern'], `${where}/pattern`, errors);
  for (const key of SUBSCHEMA) checkSubschemas(node[key], `${where}/${key}`, errors);
  const items = node['items'];
  if (Array.isArray(items)) items.forEach((s, i) => checkSubschemas(s, `${where}/items/${i}`, errors));
  else checkSubschemas(items, `${where}/items`, errors);
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((s, i) => checkSubschemas(s, `${where}/${key}/${i}`, errors));
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (!isPlainObject(map)) continue;
    for (const [name, s] of Object.entries(map)) {
      if (key === 'patternProperties') checkPattern(name, `${where}/patternProperties`, errors);
      checkSubschemas(s, `${where}/${key}/${name}`, errors);
    }
  }
}

let sharedAjv: Ajv | undefined;

function ajv(): Ajv {
  // logger: false, because unknown formats and keywords are ignored quietly: nothing is logged here.
  return (sharedAjv ??= new Ajv({ strict: false, allErrors: true, logger: false }));
}

/** Compiled validators by the schema's JSON, most recently used last. */
const validators = new Map<string, ValidateFunction>();

/** The validator of a schema that passed every check before (by its JSON), if still kept. */
function cachedValidator(json: string): ValidateFunction | undefined {
  const cached = validators.get(json);
  if (cached) {
    validators.delete(json);
    validators.set(json, cached);
  }
  return cached;
}

/** Compiles a schema that passed the other checks, and keeps its validator; the reason when it does not compile. */
function compiledValidator(json: string): ValidateFunction | string {
  const schema = JSON.parse(json) as Record<string, unknown>;
  let validate: ValidateFunction;
  try {
    validate = ajv().compile(schema);
  } catch (err) {
    ajv().removeSchema(schema); // Ajv may have kept a half-compiled entry
    const reason = err instanceof Error ? err.message : String(err);
    return reason.length > 300 ? `${reason.slice(0, 300)}…` : reason;
  }
  validators.set(json, validate);
  if (validators.size > MAX_CACHED_VALIDATORS) {
    const [oldestJson, oldest] = validators.entries().next().value as [string, ValidateFunction];
    validators.delete(oldestJson);
    ajv().removeSchema(oldest.schema as object); // Ajv keeps every compiled schema otherwise
  }
  return validate;
}

/** Checks the schema in its JSON form; the errors, or the validator when there are none. */
function checkSchema(schema: unknown): { errors: string[] } | { validate: ValidateFunction } {
  if (!isPlainObject(schema)) return { errors: [`The parameters schema must be a JSON object (got ${describeValue(schema)})`] };
  const json = toJson(schema);
  if (json === null) return { errors: ['The parameters schema must be plain JSON'] };
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_SCHEMA_BYTES) return { errors: [`The parameters schema is ${Math.ceil(bytes / 1024)} KiB; at most ${MAX_SCHEMA_BYTES / 1024} KiB is allowed`] };
  const cached = cachedValidator(json);
  if (cached) return { validate: cached };
  const parsed: unknown = JSON.parse(json);
  if (!isPlainObject(parsed)) return { errors: [`The parameters schema must be a JSON object (got ${describeValue(parsed)})`] };
  if (deeperThan(parsed, MAX_SCHEMA_DEPTH)) return { errors: [`The parameters schema is nested more than ${MAX_SCHEMA_DEPTH} levels deep`] };

  const errors: string[] = [];
  if (parsed['type'] !== 'object') errors.push('The parameters schema must have "type": "object"');
  const properties = parsed['properties'];
  let names: string[] = [];
  if (properties !== undefined) {
    if (!isPlainObject(properties)) {
      errors.push(`"properties" must be an object (got ${describeValue(properties)})`);
    } else {
      names = Object.keys(properties);
      if (names.length > MAX_PARAMETERS) errors.push(`There are ${names.length} parameters; at most ${MAX_PARAMETERS} are allowed`);
      const bad = names.filter((n) => !PARAMETER_NAME.test(n));
      if (bad.length > 0) {
        const shown = bad.slice(0, 5).map((n) => quote(n)).join(', ');
        errors.push(`Parameter names must start with a letter or _ and hold only letters, digits and _ (at most 64): ${shown}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}`);
      }
    }
  }
  const required = parsed['required'];
  if (required !== undefined) {
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) {
      errors.push('"required" must be a list of parameter names');
    } else {
      const unknown = (required as string[]).filter((r) => !names.includes(r));
      if (unknown.length > 0) errors.push(`"required" names ${unknown.slice(0, 5).map((n) => quote(n)).join(', ')}, which ${unknown.length === 1 ? 'is not a parameter' : 'are not parameters'}`);
    }
  }
  checkSubschemas(parsed, '#', errors);
  if (errors.length > 0) return { errors };

  const compiled = compiledValidator(json);
  if (typeof compiled === 'string') return { errors: [`The parameters schema is not valid JSON Schema: ${compiled}`] };
  return { validate: compiled };
}

/**
 * Checks an action's parameters schema (written by the bot's owner): a JSON Schema object with
 * "type": "object", at most 30 well-named properties, "required" naming only those, at most
 * 16 KiB and 8 levels deep, no reference outside itself, and compiling with Ajv. Returns the
 * problems in plain words; none when it is fine. Never throws.
 */
export function validateParametersSchema(schema: unknown): string[] {
  const checked = checkSchema(schema);
  return 'errors' in checked ? checked.errors : [];
}

function pathOf(instancePath: string, member?: string): string {
  const segments = instancePath === '' ? [] : instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (member !== undefined) segments.push(member);
  let path = '';
  for (const segment of segments) path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  return path;
}

function formatError(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') return `${pathOf(e.instancePath, String(params['missingProperty']))}: is required`;
  if (e.keyword === 'additionalProperties') return `${pathOf(e.instancePath, String(params['additionalProperty']))}: is not allowed`;
  const where = pathOf(e.instancePath) || 'input';
  if (e.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    const allowed = params['allowedValues'].map((v) => JSON.stringify(v)).join(', ');
    return `${where}: must be one of ${allowed.length > 200 ? `${allowed.slice(0, 200)}…` : allowed}`;
  }
  return `${where}: ${e.message ?? 'is not valid'}`;
}

/**
 * Checks a call's input (written by the model, untrusted) against the action's parameters
 * schema. The errors are short, e.g. "order_id: must be string". A schema that is not valid
 * gives errors too. Never throws.
 */
export function validateActionInput(schema: unknown, input: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; errors: string[] } {
  const checked = checkSchema(schema);
  if ('errors' in checked) return { ok: false, errors: checked.errors.map((e) => `the action's parameters schema is not usable: ${e}`) };
  if (!isPlainObject(input)) return { ok: false, errors: [`input: must be an object (got ${describeValue(input)})`] };
  const { validate } = checked;
  if (validate(input)) return { ok: true, value: input };
  const errors = [...new Set((validate.errors ?? []).map(formatError))];
  if (errors.length === 0) return { ok: false, errors: ['input: is not valid'] };
  if (errors.length > MAX_INPUT_ERRORS) return { ok: false, errors: [...errors.slice(0, MAX_INPUT_ERRORS), `… and ${errors.length - MAX_INPUT_ERRORS} more`] };
  return { ok: false, errors };
}

/** For tests: how many compiled validators are kept. */
export function cachedValidatorCount(): number {
  return validators.size;
}
