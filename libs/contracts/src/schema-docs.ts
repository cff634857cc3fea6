import { Type } from 'class-transformer';
import { IsObject, ValidateIf, ValidateNested } from 'class-validator';

/*
 * What a contract class says about itself beyond its validation rules: the words of the API
 * documents. Types, formats, enums and limits come from the class-validator decorators alone
 * (libs/openapi turns them into the OpenAPI schemas), so a limit is written once. Framework-free:
 * the contracts lib may not import NestJS.
 */

/** Words for one member of a contract class. */
export interface MemberDoc {
  description?: string;
  examples?: readonly unknown[];
  /** The value the service uses when the member is omitted. */
  default?: unknown;
  /** Not in the API specification: a member this implementation adds (marked `x-extension`). */
  extension?: boolean;
}

/** Words for a contract class as a whole. */
export interface ClassDoc {
  /** Its schema name in the API documents (default: the class name). */
  name?: string;
  description?: string;
  /**
   * JSON Schema keywords (anyOf, if/then) for a rule across members that the class states with
   * ValidateIf, such as "one of url or text". Tests check both say the same.
   */
  rules?: Record<string, unknown>;
}

/** What the registry knows about a member: its words, and the class of a nested value. */
export interface MemberMeta extends MemberDoc {
  /** The class of the member's value, or of its items (declared with @Nested). */
  nested?: () => new () => object;
}

interface Entry {
  doc?: ClassDoc;
  members: Map<string, MemberMeta>;
}

const registry = new WeakMap<object, Entry>();

function entryOf(cls: object): Entry {
  let entry = registry.get(cls);
  if (!entry) registry.set(cls, (entry = { members: new Map() }));
  return entry;
}

function addMember(cls: object, key: string, meta: MemberMeta): void {
  const members = entryOf(cls).members;
  members.set(key, { ...members.get(key), ...meta });
}

/**
 * Documents a contract class (`@Doc({ name: 'Bot', description })`) or one of its members
 * (`@Doc('Search text')` or `@Doc({ description, default, extension })`).
 */
export function Doc(doc: string | (MemberDoc & ClassDoc)): ClassDecorator & PropertyDecorator {
  const d = typeof doc === 'string' ? { description: doc } : doc;
  return ((target: object, key?: string | symbol) => {
    if (key === undefined) {
      entryOf(target).doc = { ...entryOf(target).doc, ...d };
      return;
    }
    const { name: _name, rules: _rules, ...member } = d;
    addMember(target.constructor, String(key), member);
  }) as ClassDecorator & PropertyDecorator;
}

/** Marks the ValidateIf of @Nullable in class-validator's metadata (its `context`). */
export const NULLABLE_CONTEXT = { nullable: true } as const;

/**
 * The member is always present and may be JSON null (a field of a view such as `notes: string |
 * null`): its other rules apply unless it is null. A ValidateIf whose context marks it, so the
 * documents can tell it from IsOptional and other conditions.
 */
export function Nullable(): PropertyDecorator {
  return ValidateIf((_o, value) => value !== null, { context: NULLABLE_CONTEXT });
}

/** The member holds an object of `cls` (or, with @IsArray, a list of them), validated as such. */
export function Nested(cls: () => new () => object): PropertyDecorator {
  return (target, key) => {
    // ValidateNested also takes an array of such objects: a member declared as one object must be one (400 otherwise).
    // (The declared type is known when reflect-metadata is loaded, as in every service; without it, nothing is added.)
    const declared = typeof Reflect.getMetadata === 'function' ? Reflect.getMetadata('design:type', target, key) : Array;
    if (declared !== Array) IsObject()(target, key);
    ValidateNested()(target, key);
    Type(cls)(target, key);
    addMember(target.constructor, String(key), { nested: cls });
  };
}

/** The class and its ancestors, the farthest first. */
function lineage(cls: object): object[] {
  const chain: object[] = [];
  for (let c: object | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  return chain;
}

/**
 * The class's words: its own name and description (a subclass is another schema), and the rules
 * across members of it and its ancestors (the members are inherited, so are their rules).
 */
export function classDocOf(cls: object): ClassDoc {
  const own = registry.get(cls)?.doc ?? {};
  const rules = Object.assign({}, ...lineage(cls).map((c) => registry.get(c)?.doc?.rules ?? {})) as Record<string, unknown>;
  return { ...(own.name ? { name: own.name } : {}), ...(own.description ? { description: own.description } : {}), ...(Object.keys(rules).length ? { rules } : {}) };
}

/** The words of every member of the class, its ancestors' first; a subclass may override them. */
export function memberDocsOf(cls: object): Map<string, MemberMeta> {
  const chain = lineage(cls);
  const out = new Map<string, MemberMeta>();
  for (const c of chain) for (const [key, meta] of registry.get(c)?.members ?? []) out.set(key, { ...out.get(key), ...meta });
  return out;
}
