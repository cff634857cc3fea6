/*
 * @nestjs/swagger writes some OpenAPI 3.0 idioms that OpenAPI 3.1 (whose schemas are JSON Schema
 * 2020-12) says otherwise. This step rewrites them, and nothing else:
 *
 * - `nullable: true` becomes a type array with "null" (an enum gains null as a value; a reference
 *   becomes `anyOf: [{$ref}, {type: "null"}]`); 3.1 has no `nullable`.
 * - `allOf: [{$ref}]` beside other keywords (how swagger attaches a description to a referenced
 *   class) becomes `$ref` with those keywords, which 3.1 allows.
 * - The empty `description` swagger gives every response is dropped where the response is a
 *   reference (in 3.1 a reference's description would override the component's).
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function nullableToTypeArray(s: Json): Json {
  const { nullable: _nullable, ...rest } = s;
  if (typeof rest.$ref === 'string') {
    const { $ref, ...keywords } = rest;
    return { ...keywords, anyOf: [{ $ref }, { type: 'null' }] };
  }
  if (Array.isArray(rest.allOf) && rest.allOf.length === 1 && rest.type === 'object') {
    const { allOf, type: _type, ...keywords } = rest;
    return { ...keywords, anyOf: [allOf[0], { type: 'null' }] };
  }
  if (typeof rest.type !== 'string') throw new Error(`nullable needs a schema with one type: ${JSON.stringify(s)}`);
  return {
    ...rest,
    type: [rest.type, 'null'],
    ...(Array.isArray(rest.enum) && !rest.enum.includes(null) ? { enum: [...rest.enum, null] } : {}),
  };
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (!isObject(node)) return node;
  let s: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v)]));
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && isObject(s.allOf[0]) && Object.keys(s.allOf[0]).join() === '$ref' && s.nullable !== true) {
    const { allOf, ...keywords } = s;
    s = { $ref: (allOf[0] as Json).$ref, ...keywords };
  }
  if (s.nullable === true) s = nullableToTypeArray(s);
  else if (s.nullable === false) delete s.nullable;
  if (typeof s.$ref === 'string' && s.description === '') delete s.description;
  return s;
}

/** The document (or any part of it) in OpenAPI 3.1 idioms; the input is left unchanged. */
export function toOpenApi31<T>(doc: T): T {
  return rewrite(doc) as T;
}
