import { toOpenApi31 } from './openapi-31';

describe('toOpenApi31', () => {
  it('turns nullable into a type array, and gives an enum null as a value', () => {
    expect(toOpenApi31({ type: 'string', format: 'uuid', nullable: true })).toEqual({ type: ['string', 'null'], format: 'uuid' });
    expect(toOpenApi31({ type: 'string', enum: ['a', 'b'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
    expect(toOpenApi31({ type: 'array', items: { type: 'string' }, nullable: true })).toEqual({ type: ['array', 'null'], items: { type: 'string' } });
    expect(toOpenApi31({ type: 'string', nullable: false })).toEqual({ type: 'string' });
  });

  it('makes a nullable reference a choice between it and null', () => {
    expect(toOpenApi31({ $ref: '#/components/schemas/A', nullable: true })).toEqual({ anyOf: [{ $ref: '#/components/schemas/A' }, { type: 'null' }] });
    // What swagger writes for a nullable class-typed member with a description.
    expect(toOpenApi31({ type: 'object', nullable: true, description: 'd', allOf: [{ $ref: '#/components/schemas/A' }] })).toEqual({
      description: 'd',
      anyOf: [{ $ref: '#/components/schemas/A' }, { type: 'null' }],
    });
  });

  it('writes a referenced class with other keywords as $ref beside them (3.1 allows it)', () => {
    expect(toOpenApi31({ description: 'Only in the last frame.', 'x-extension': true, allOf: [{ $ref: '#/components/schemas/E' }] })).toEqual({
      $ref: '#/components/schemas/E',
      description: 'Only in the last frame.',
      'x-extension': true,
    });
    // A real composition stays.
    const two = { allOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] };
    expect(toOpenApi31(two)).toEqual(two);
  });

  it('drops the empty description swagger gives a referenced response, keeps a real one', () => {
    expect(toOpenApi31({ responses: { 400: { description: '', $ref: '#/components/responses/BadRequest' }, 409: { description: 'Taken.', content: {} } } })).toEqual({
      responses: { 400: { $ref: '#/components/responses/BadRequest' }, 409: { description: 'Taken.', content: {} } },
    });
  });

  it('rewrites at every depth and leaves its input alone', () => {
    const doc = { components: { schemas: { A: { type: 'object', properties: { n: { type: 'integer', nullable: true }, nullable: { type: 'boolean' } } } } } };
    const copy = structuredClone(doc);
    expect(toOpenApi31(doc)).toEqual({ components: { schemas: { A: { type: 'object', properties: { n: { type: ['integer', 'null'] }, nullable: { type: 'boolean' } } } } } });
    expect(doc).toEqual(copy);
  });

  it('refuses a nullable schema it cannot say in 3.1', () => {
    expect(() => toOpenApi31({ nullable: true, oneOf: [{ type: 'string' }, { type: 'integer' }] })).toThrow(/one type/);
  });
});
