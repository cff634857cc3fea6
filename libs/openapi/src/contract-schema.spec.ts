import 'reflect-metadata';
import { ArrayMaxSize, Equals, IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsPositive, IsString, IsUUID, Max, Min } from 'class-validator';
import { CharLength, Doc, IsStringMap, Nested, NotBlank, Nullable } from '@sa/contracts';
import { UnknownRule, contractJsonSchemas, contractSchemaName, documentContract, memberSchemaOf } from './contract-schema';

@Doc({ name: 'Part', description: 'A nested part.' })
class Part {
  @IsString() label: string;
}

@Doc({ name: 'Sample', description: 'A request of every kind of member.', rules: { anyOf: [{ required: ['a'] }, { required: ['b'] }] } })
class SampleRequest {
  @Doc('A name.') @IsString() @CharLength(1, 30) @NotBlank() name: string;
  @IsOptional() @IsString() @CharLength(0, 500) comment?: string;
  @Doc({ description: 'How many.', default: 50 }) @IsOptional() @IsInt() @Min(1) @Max(200) limit?: number;
  @IsIn(['x', 'y']) kind: 'x' | 'y';
  @IsOptional() @IsUUID() a?: string;
  @IsOptional() @IsISO8601() b?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(3) @IsUUID('all', { each: true }) ids?: string[];
  @IsOptional() @IsStringMap() fields?: Record<string, string>;
  @IsOptional() @Nested(() => Part) part?: Part;
}

class SampleView {
  @Nullable() @IsIn(['positive', 'negative']) feedback: string | null;
  @Equals(true) done: true;
  @Doc({ description: 'Ours.', extension: true }) @Nullable() @IsString() reason: string | null;
  @IsArray() @Nested(() => Part) parts: Part[];
}

describe('memberSchemaOf (class-validator rules → JSON Schema)', () => {
  const m = (member: string) => memberSchemaOf(SampleRequest, member);

  it('translates types, formats, limits and words', () => {
    expect(m('name')).toEqual({ schema: { type: 'string', minLength: 1, maxLength: 30, pattern: '\\S', description: 'A name.' }, required: true, nullable: false, isArray: false });
    // A minimum length of 0 is JSON Schema's default.
    expect(m('comment').schema).toEqual({ type: 'string', maxLength: 500 });
    expect(m('limit')).toEqual({ schema: { type: 'integer', minimum: 1, maximum: 200, description: 'How many.', default: 50 }, required: false, nullable: false, isArray: false });
    expect(m('kind').schema).toEqual({ enum: ['x', 'y'] });
    expect(m('a').schema).toEqual({ type: 'string', format: 'uuid' });
    expect(m('b').schema).toEqual({ type: 'string', format: 'date-time' });
    expect(m('ids')).toEqual({ schema: { type: 'array', maxItems: 3, items: { type: 'string', format: 'uuid' } }, required: false, nullable: false, isArray: true });
    expect(m('fields').schema).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(m('part').nested?.()).toBe(Part);
  });

  it('tells Nullable (present, may be null) from IsOptional (may be absent); an extension is never required', () => {
    expect(memberSchemaOf(SampleView, 'feedback')).toMatchObject({ required: true, nullable: true, schema: { enum: ['positive', 'negative'] } });
    expect(memberSchemaOf(SampleView, 'done').schema).toEqual({ type: 'boolean', const: true });
    expect(memberSchemaOf(SampleView, 'reason')).toMatchObject({ required: false, nullable: true, schema: { type: 'string', 'x-extension': true } });
  });

  it('refuses a rule it has no JSON Schema for, so no limit goes undocumented', () => {
    class Odd {
      @IsPositive() n: number;
    }
    expect(() => memberSchemaOf(Odd, 'n')).toThrow(UnknownRule);
    expect(() => memberSchemaOf(Odd, 'n')).toThrow(/Odd\.n: no JSON Schema is known for the rule isPositive/);
  });
});

describe('documentContract', () => {
  it('names the schema after @Doc, or the class', () => {
    expect(contractSchemaName(SampleRequest)).toBe('Sample');
    expect(contractSchemaName(SampleView)).toBe('SampleView');
  });

  it('refuses a class documented both as a request and as a view', () => {
    class Both {
      @IsString() x: string;
    }
    documentContract(Both, { closed: true });
    expect(() => documentContract(Both, { closed: true })).not.toThrow();
    expect(() => documentContract(Both)).toThrow(/both as a request and as a view/);
  });
});

describe('contractJsonSchemas', () => {
  it('gives self-contained 2020-12 schemas, closed, with the class rules and nested classes inlined', async () => {
    const schemas = await contractJsonSchemas([SampleRequest]);
    const s = schemas.get(SampleRequest)!;
    expect(s).toMatchObject({
      type: 'object',
      description: 'A request of every kind of member.',
      additionalProperties: false,
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
      required: ['name', 'kind'],
    });
    expect(s.properties).toMatchObject({
      name: { type: 'string', minLength: 1, maxLength: 30, pattern: '\\S', description: 'A name.' },
      limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      kind: { type: 'string', enum: ['x', 'y'] },
      ids: { type: 'array', maxItems: 3, items: { type: 'string', format: 'uuid' } },
      part: { type: 'object', description: 'A nested part.', properties: { label: { type: 'string' } }, required: ['label'] },
    });
    expect(JSON.stringify(s)).not.toMatch(/\$ref|nullable/);
  });
});
