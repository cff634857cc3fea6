/**
 * The parameters of an action as the form builder shows them (one row per property) and as the
 * API takes them (a JSON Schema object). The builder shows only flat schemas: properties of type
 * string, number, integer or boolean with an optional description; anything else is edited as JSON.
 * The API checks the schema; nothing here re-implements its rules.
 */
export const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

export interface ParameterRow {
  /** A stable React key, not sent. */
  key: number;
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
}

export type JsonSchema = Record<string, unknown>;

let nextKey = 1;
export const newRowKey = (): number => nextKey++;

export const emptyParameter = (): ParameterRow => ({ key: newRowKey(), name: '', type: 'string', description: '', required: false });

export const EMPTY_SCHEMA: JsonSchema = { type: 'object', properties: {} };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isParameterType = (v: unknown): v is ParameterType => typeof v === 'string' && (PARAMETER_TYPES as readonly string[]).includes(v);

/** `{type:'object', properties:{…}, required:[…]}` of the rows (a row's name trimmed; `required` only when some are). */
export function schemaOf(rows: ParameterRow[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const row of rows) {
    const name = row.name.trim();
    properties[name] = row.description.trim() ? { type: row.type, description: row.description.trim() } : { type: row.type };
    if (row.required) required.push(name);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}

/**
 * The builder's rows of a schema, or why the builder cannot show it (nested objects, arrays,
 * enums, formats … are kept as JSON rather than silently dropped).
 */
export function rowsOf(schema: unknown): { rows: ParameterRow[] } | { reason: string } {
  if (!isObject(schema) || schema['type'] !== 'object') return { reason: 'it is not an object schema ("type": "object")' };
  const extra = Object.keys(schema).filter((k) => !['type', 'properties', 'required'].includes(k));
  if (extra.length) return { reason: `it uses ${extra.map((k) => `"${k}"`).join(', ')}` };
  const properties = schema['properties'] ?? {};
  if (!isObject(properties)) return { reason: '"properties" is not an object' };
  const required = schema['required'] ?? [];
  if (!Array.isArray(required) || !required.every((r) => typeof r === 'string' && r in properties)) return { reason: '"required" is not a list of its properties' };
  const rows: ParameterRow[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property) || !isParameterType(property['type'])) return { reason: `"${name}" is not a string, number, integer or boolean` };
    const other = Object.keys(property).filter((k) => k !== 'type' && k !== 'description');
    if (other.length) return { reason: `"${name}" uses ${other.map((k) => `"${k}"`).join(', ')}` };
    const description = property['description'] ?? '';
    if (typeof description !== 'string') return { reason: `the description of "${name}" is not text` };
    rows.push({ key: newRowKey(), name, type: property['type'], description, required: (required as string[]).includes(name) });
  }
  return { rows };
}

/** The JSON text's schema, or what is wrong with it. */
export function parseSchema(text: string): { schema: JsonSchema } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!isObject(value)) return { error: 'The parameters must be a JSON object, e.g. {"type": "object", "properties": {}}.' };
  return { schema: value };
}

/** The names of a schema's string properties (the choices of "Visitor ID parameter"). */
export function stringParameters(schema: unknown): string[] {
  if (!isObject(schema) || !isObject(schema['properties'])) return [];
  return Object.entries(schema['properties'])
    .filter(([, p]) => isObject(p) && p['type'] === 'string')
    .map(([name]) => name);
}

/** Sample input for "Test action": each property with an empty value of its type. */
export function sampleInput(schema: unknown): string {
  if (!isObject(schema) || !isObject(schema['properties'])) return '{}';
  const sample: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(schema['properties'])) {
    const type = isObject(p) ? p['type'] : undefined;
    sample[name] = type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : type === 'object' ? {} : type === 'array' ? [] : '';
  }
  return JSON.stringify(sample, null, 2);
}
