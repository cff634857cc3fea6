import { ApiProperty, ApiPropertyOptions, ApiSchema } from '@nestjs/swagger';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { NULLABLE_CONTEXT, classDocOf, memberDocsOf } from '@sa/contracts';
import { toOpenApi31 } from './openapi-31';

/*
 * The bridge from the contract classes of libs/contracts to @nestjs/swagger: it reads each class's
 * class-validator rules (the ones that validate every request) and its @Doc words, and declares
 * them as @ApiProperty / @ApiSchema metadata, from which SwaggerModule builds the schemas. A type,
 * format, enum or limit is written once, as a validation rule; this file only translates.
 *
 * A rule the bridge does not know fails loudly (UnknownRule): a new validator must be given its
 * JSON Schema here (or be listed as one that has none) before a document can be built.
 */

type Json = Record<string, unknown>;
type Cls = new () => object;

interface RuleMeta {
  type: string;
  name?: string;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
  context?: unknown;
}

/** The JSON Schema a type rule gives a value (or, with `each`, every item of a list). */
const TYPE_RULES: Record<string, Json> = {
  isString: { type: 'string' },
  isInt: { type: 'integer' },
  isNumber: { type: 'number' },
  isBoolean: { type: 'boolean' },
  isUuid: { type: 'string', format: 'uuid' },
  isIso8601: { type: 'string', format: 'date-time' },
  isCalendarDate: { type: 'string', format: 'date' },
  isEmail: { type: 'string', format: 'email' },
  isHttpUrl: { type: 'string', format: 'uri' },
  // A web origin `http(s)://host[:port]` (contracts widget.ts, issue 18).
  isWebOrigin: { type: 'string', format: 'uri' },
  isObject: { type: 'object' },
  isStringMap: { type: 'object', additionalProperties: { type: 'string' } },
  isIntegerMap: { type: 'object', additionalProperties: { type: 'integer' } },
  isKeyPath: { type: 'array', items: { type: ['string', 'integer'] } },
};

/** The JSON Schema keywords a limit rule gives, from its constraints. */
const LIMIT_RULES: Record<string, (c: unknown[]) => Json> = {
  // The minimum 0 is JSON Schema's default, so it is left out.
  charLength: ([min, max]) => ({ ...(Number(min) > 0 ? { minLength: min } : {}), maxLength: max }),
  minLength: ([n]) => ({ minLength: n }),
  maxLength: ([n]) => ({ maxLength: n }),
  min: ([n]) => ({ minimum: n }),
  max: ([n]) => ({ maximum: n }),
  arrayMinSize: ([n]) => ({ minItems: n }),
  arrayMaxSize: ([n]) => ({ maxItems: n }),
  isIn: ([values]) => ({ enum: [...(values as unknown[])] }),
  equals: ([value]) => ({ type: typeof value, const: value }),
  notBlank: () => ({ pattern: '\\S' }),
  matches: ([pattern]) => ({ pattern: pattern instanceof RegExp ? pattern.source : String(pattern) }),
};

/** Rules with nothing to say in JSON Schema (checked by the service alone, and described in words). */
const WORDS_ONLY = new Set(['isLanguageTag', 'isDefined', 'isOptional', 'isTimeIdCursor']);

export class UnknownRule extends Error {}

function rulesOf(cls: Cls): Map<string, RuleMeta[]> {
  const byMember = new Map<string, RuleMeta[]>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false) as RuleMeta[]) {
    byMember.set(rule.propertyName, [...(byMember.get(rule.propertyName) ?? []), rule]);
  }
  return byMember;
}

const isNullableRule = (r: RuleMeta) => r.type === 'conditionalValidation' && (r.context as { nullable?: boolean } | undefined)?.nullable === NULLABLE_CONTEXT.nullable;

/** What a member's rules say: its schema (without nested classes), whether it is required, nullable, a list. */
export interface MemberSchema {
  schema: Json;
  required: boolean;
  nullable: boolean;
  isArray: boolean;
  nested?: () => Cls;
}

/** Translates the class-validator rules (and @Doc words) of one member into JSON Schema. */
export function memberSchemaOf(cls: Cls, member: string): MemberSchema {
  const rules = rulesOf(cls).get(member) ?? [];
  const doc = memberDocsOf(cls).get(member) ?? {};
  const value: Json = {};
  const items: Json = {};
  let isArray = false;
  let required = true;
  let nullable = false;
  for (const rule of rules) {
    const name = rule.name ?? '';
    if (rule.type === 'conditionalValidation') {
      if (isNullableRule(rule)) nullable = true;
      else required = false;
      continue;
    }
    if (rule.type === 'nestedValidation' || rule.type === 'whitelistValidation' || rule.type === 'isDefined') continue;
    if (name === 'isArray') {
      isArray = true;
      continue;
    }
    const target = rule.each ? items : value;
    if (name in TYPE_RULES) Object.assign(target, TYPE_RULES[name]);
    else if (name in LIMIT_RULES) Object.assign(target, LIMIT_RULES[name](rule.constraints ?? []));
    else if (!WORDS_ONLY.has(name)) throw new UnknownRule(`${cls.name}.${member}: no JSON Schema is known for the rule ${name || rule.type}`);
  }
  if (Object.keys(items).length) isArray = true;
  // A member this implementation adds beyond the spec is never required of other implementations.
  if (doc.extension) required = false;
  // A list's limits on length (minItems …) stay on the list; the rest describe its items.
  const schema: Json = isArray ? { type: 'array', ...pick(value, ['minItems', 'maxItems']), ...(Object.keys(items).length ? { items } : {}) } : value;
  if (doc.description !== undefined) schema.description = doc.description;
  if (doc.default !== undefined) schema.default = doc.default;
  if (doc.examples !== undefined) schema.examples = [...doc.examples];
  if (doc.extension) schema['x-extension'] = true;
  return { schema, required, nullable, isArray, ...(doc.nested ? { nested: doc.nested } : {}) };
}

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

/** The members of a contract class: every member with a rule or a @Doc, in declaration order. */
export function membersOf(cls: Cls): string[] {
  return [...new Set([...rulesOf(cls).keys(), ...memberDocsOf(cls).keys()])];
}

/** A contract class's schema name in the documents: its @Doc name, or the class name. */
export function contractSchemaName(cls: abstract new (...args: never[]) => object): string {
  return classDocOf(cls).name ?? cls.name;
}

export interface ContractOptions {
  /** A request: unknown members are refused (validateDto forbids them), so `additionalProperties: false`. */
  closed?: boolean;
}

const documented = new WeakMap<Cls, boolean>();

/**
 * Declares the swagger metadata of a contract class (and of the classes it nests) from its
 * class-validator rules and @Doc words. Idempotent: each class is documented once.
 */
export function documentContract(cls: Cls, options: ContractOptions = {}): void {
  if (documented.has(cls)) {
    if (documented.get(cls) !== !!options.closed) throw new Error(`${cls.name} is documented both as a request and as a view`);
    return;
  }
  documented.set(cls, !!options.closed);
  const classDoc = classDocOf(cls);
  ApiSchema({
    name: contractSchemaName(cls),
    ...(classDoc.description ? { description: classDoc.description } : {}),
    ...(options.closed ? { additionalProperties: false } : {}),
    ...classDoc.rules,
  } as { name: string })(cls);
  for (const member of membersOf(cls)) {
    const m = memberSchemaOf(cls, member);
    const options: Json = { ...m.schema, required: m.required, ...(m.nullable ? { nullable: true } : {}) };
    if (m.nested) {
      const nestedCls = m.nested();
      documentContract(nestedCls, { closed: false });
      delete options.items;
      Object.assign(options, { type: () => nestedCls, isArray: m.isArray });
    }
    ApiProperty(options as ApiPropertyOptions)(cls.prototype, member);
  }
}

/** Replaces `#/components/schemas/X` references with the schemas themselves (the classes do not recurse). */
function inlineRefs(node: unknown, schemas: Record<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, schemas));
  if (typeof node !== 'object' || node === null) return node;
  const { $ref, ...rest } = node as Json;
  const inlined = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inlineRefs(v, schemas)]));
  if (typeof $ref !== 'string') return inlined;
  const target = schemas[$ref.replace('#/components/schemas/', '')];
  if (!target) throw new Error(`unresolved ${$ref}`);
  return { ...(inlineRefs(target, schemas) as Json), ...inlined };
}

@Module({})
class NoRoutes {}

/**
 * Self-contained JSON Schemas (2020-12) of request contracts, for callers that take the contracts
 * outside HTTP, such as the MCP tools' input schemas. SwaggerModule builds them, from the same
 * metadata as the OpenAPI documents, as the components of a document without routes.
 */
export async function contractJsonSchemas(classes: Cls[]): Promise<Map<Cls, Json>> {
  for (const cls of classes) documentContract(cls, { closed: true });
  const app = await NestFactory.create(NoRoutes, new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    const doc = SwaggerModule.createDocument(app, new DocumentBuilder().setOpenAPIVersion('3.1.0').build(), { extraModels: classes });
    const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>;
    return new Map(classes.map((cls) => [cls, toOpenApi31(inlineRefs(schemas[contractSchemaName(cls)], schemas) as Json)]));
  } finally {
    await app.getHttpAdapter().close();
  }
}
