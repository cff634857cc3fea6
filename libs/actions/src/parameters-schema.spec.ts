import { cachedValidatorCount, validateActionInput, validateParametersSchema } from './parameters-schema';

const orderSchema = {
  type: 'object',
  properties: {
    order_id: { type: 'string', minLength: 1, description: 'The order number' },
    quantity: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['open', 'shipped'] },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['order_id'],
};

function properties(count: number): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string' }]));
}

describe('validateParametersSchema', () => {
  it('accepts a good schema, one without properties, and local references', () => {
    expect(validateParametersSchema(orderSchema)).toEqual([]);
    expect(validateParametersSchema({ type: 'object' })).toEqual([]);
    expect(validateParametersSchema({ type: 'object', properties: properties(30) })).toEqual([]);
    expect(
      validateParametersSchema({
        type: 'object',
        definitions: { id: { type: 'string', pattern: '^[A-Z]{2}-\\d+$' } },
        properties: { order_id: { $ref: '#/definitions/id' } },
      }),
    ).toEqual([]);
  });

  it('refuses what is not a JSON object, without throwing', () => {
    expect(validateParametersSchema(null)).toEqual(['The parameters schema must be a JSON object (got null)']);
    expect(validateParametersSchema([])).toEqual(['The parameters schema must be a JSON object (got an array)']);
    expect(validateParametersSchema('{"type":"object"}')).toEqual(['The parameters schema must be a JSON object (got a string)']);
    expect(validateParametersSchema(42)).toEqual(['The parameters schema must be a JSON object (got a number)']);
    expect(validateParametersSchema(undefined)).toEqual(['The parameters schema must be a JSON object (got nothing)']);
    expect(validateParametersSchema(new Date())).toEqual(['The parameters schema must be a JSON object (got an object)']);
    expect(validateParametersSchema({ type: 'object', big: BigInt(1) })).toEqual(['The parameters schema must be plain JSON']);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic['self'] = cyclic;
    expect(validateParametersSchema(cyclic)).toEqual(['The parameters schema must be plain JSON']);
  });

  it('requires "type": "object"', () => {
    expect(validateParametersSchema({ type: 'string' })).toEqual(['The parameters schema must have "type": "object"']);
    expect(validateParametersSchema({ properties: {} })).toEqual(['The parameters schema must have "type": "object"']);
  });

  it('allows at most 30 properties', () => {
    expect(validateParametersSchema({ type: 'object', properties: properties(31) })).toEqual(['There are 31 parameters; at most 30 are allowed']);
  });

  it('requires properties to be an object', () => {
    expect(validateParametersSchema({ type: 'object', properties: [] })).toEqual(['"properties" must be an object (got an array)']);
  });

  it('refuses bad parameter names', () => {
    const errors = validateParametersSchema({ type: 'object', properties: { 'order-id': {}, '1st': {}, ok_name: {}, ['x'.repeat(65)]: {}, 'a b': {} } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Parameter names must start with a letter or _/);
    expect(errors[0]).toContain('"order-id"');
    expect(errors[0]).toContain('"1st"');
    expect(errors[0]).toContain('"a b"');
    expect(errors[0]).toContain(`"${'x'.repeat(40)}…"`);
    expect(errors[0]).not.toContain('ok_name');
    expect(validateParametersSchema({ type: 'object', properties: { ['y'.repeat(64)]: {}, _private: {} } })).toEqual([]);
  });

  it('refuses a "required" that is not a list of the parameters', () => {
    expect(validateParametersSchema({ ...orderSchema, required: 'order_id' })).toEqual(['"required" must be a list of parameter names']);
    expect(validateParametersSchema({ ...orderSchema, required: ['order_id', 7] })).toEqual(['"required" must be a list of parameter names']);
    expect(validateParametersSchema({ ...orderSchema, required: ['order_id', 'customer'] })).toEqual(['"required" names "customer", which is not a parameter']);
    expect(validateParametersSchema({ type: 'object', required: ['a', 'b'] })).toEqual(['"required" names "a", "b", which are not parameters']);
  });

  it('refuses references outside the schema, and $id', () => {
    expect(validateParametersSchema({ type: 'object', properties: { a: { $ref: 'https://evil.example/schema.json' } } })).toEqual([
      '#/properties/a: $ref "https://evil.example/schema.json" points outside the schema; only local references (#/…) are allowed',
    ]);
    expect(validateParametersSchema({ type: 'object', properties: { a: { type: 'array', items: { anyOf: [{ $ref: 'other.json#/x' }] } } } })).toEqual([
      '#/properties/a/items/anyOf/0: $ref "other.json#/x" points outside the schema; only local references (#/…) are allowed',
    ]);
    expect(validateParametersSchema({ type: 'object', $id: 'https://example.com/s' })).toEqual(['#: $id is not supported']);
    // A data keyword (enum, default …) may hold anything: it is not a reference.
    expect(validateParametersSchema({ type: 'object', properties: { a: { enum: [{ $ref: 'https://x' }] } } })).toEqual([]);
  });

  it('refuses patterns that can backtrack exponentially', () => {
    for (const pattern of ['^(a+)+$', '(\\w*x)*', '((ab)*c)+', '(x+){2,}']) {
      const errors = validateParametersSchema({ type: 'object', properties: { a: { type: 'string', pattern } } });
      expect(errors).toEqual([expect.stringMatching(/^#\/properties\/a\/pattern: the pattern .* repeats a group that itself repeats/)]);
    }
    expect(validateParametersSchema({ type: 'object', patternProperties: { '^(a*)*$': {} } })).toHaveLength(1);
    for (const pattern of ['^[A-Z]{2}-\\d+$', '^(foo|bar)+$', '(a+)?b', '\\(a+\\)+', '[(a+)]+', '^\\d{3}(-\\d{4})*$']) {
      expect(validateParametersSchema({ type: 'object', properties: { a: { type: 'string', pattern } } })).toEqual([]);
    }
  });

  it('refuses what Ajv cannot compile', () => {
    expect(validateParametersSchema({ type: 'object', properties: { a: 5 } })).toEqual([expect.stringMatching(/^The parameters schema is not valid JSON Schema: schema is invalid: .*properties\/a must be object,boolean/)]);
    expect(validateParametersSchema({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } })).toEqual([expect.stringMatching(/^The parameters schema is not valid JSON Schema: Invalid regular expression/)]);
    expect(validateParametersSchema({ type: 'object', properties: { a: { $ref: '#/definitions/missing' } } })).toEqual([expect.stringMatching(/can't resolve reference #\/definitions\/missing/)]);
  });

  it('refuses huge and deep schemas', () => {
    const huge = { type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(17 * 1024) } } };
    expect(validateParametersSchema(huge)).toEqual(['The parameters schema is 18 KiB; at most 16 KiB is allowed']);
    expect(validateParametersSchema({ type: 'object', description: 'y'.repeat(20 * 1024 * 1024) })).toEqual(['The parameters schema is 20481 KiB; at most 16 KiB is allowed']);
    // Levels: schema 1, properties 2, a 3, properties 4, b 5, properties 6, c 7, items 8.
    const deepest = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'array', items: { type: 'string' } } } } } } } };
    expect(validateParametersSchema(deepest)).toEqual([]);
    const tooDeep = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'array', items: { enum: [[1]] } } } } } } } };
    expect(validateParametersSchema(tooDeep)).toEqual(['The parameters schema is nested more than 8 levels deep']);
  });
});

describe('validateActionInput', () => {
  it('accepts valid input and returns it', () => {
    const input = { order_id: 'A-1', quantity: 2, tags: ['x'] };
    expect(validateActionInput(orderSchema, input)).toEqual({ ok: true, value: input });
  });

  it('reports short errors with the member path', () => {
    const result = validateActionInput(orderSchema, { order_id: 5, quantity: 0, status: 'lost', address: { town: 'Paris' }, tags: ['ok', 3] });
    expect(result).toEqual({
      ok: false,
      errors: [
        'order_id: must be string',
        'quantity: must be >= 1',
        'status: must be one of "open", "shipped"',
        'address.city: is required',
        'address.town: is not allowed',
        'tags[1]: must be string',
      ],
    });
    expect(validateActionInput(orderSchema, {})).toEqual({ ok: false, errors: ['order_id: is required'] });
  });

  it('requires the input to be an object', () => {
    expect(validateActionInput(orderSchema, null)).toEqual({ ok: false, errors: ['input: must be an object (got null)'] });
    expect(validateActionInput(orderSchema, ['A-1'])).toEqual({ ok: false, errors: ['input: must be an object (got an array)'] });
    expect(validateActionInput(orderSchema, 'A-1')).toEqual({ ok: false, errors: ['input: must be an object (got a string)'] });
  });

  it('reports an unusable schema instead of throwing', () => {
    expect(validateActionInput({ type: 'object', properties: { a: { $ref: 'https://evil.example/' } } }, { a: 1 })).toEqual({
      ok: false,
      errors: [`the action's parameters schema is not usable: #/properties/a: $ref "https://evil.example/" points outside the schema; only local references (#/…) are allowed`],
    });
    expect(validateActionInput('nope', {})).toEqual({ ok: false, errors: ["the action's parameters schema is not usable: The parameters schema must be a JSON object (got a string)"] });
  });

  it('caps the number of errors', () => {
    const schema = { type: 'object', properties: properties(20) };
    const input = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, i]));
    const result = validateActionInput(schema, input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(11);
    expect(result.errors[0]).toBe('p0: must be string');
    expect(result.errors[10]).toBe('… and 10 more');
  });

  it('keeps at most 500 compiled validators, and a schema changed after use is validated as it is now', () => {
    for (let i = 0; i < 520; i++) {
      validateActionInput({ type: 'object', properties: { [`n${i}`]: { type: 'string' } } }, {});
    }
    expect(cachedValidatorCount()).toBe(500);
    const schema: { type: string; properties: Record<string, unknown> } = { type: 'object', properties: { a: { type: 'string' } } };
    expect(validateActionInput(schema, { a: 1 }).ok).toBe(false);
    schema.properties['a'] = { type: 'number' };
    expect(validateActionInput(schema, { a: 1 }).ok).toBe(true);
  });
});
