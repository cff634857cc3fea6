import 'reflect-metadata';
import { Type, plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateNested, ValidationError, validateSync } from 'class-validator';
import { UpdateBookingBody } from './bookings';
import { CreateBotRequest } from './bots';
import { CallerContext } from './context';
import { IngestKbRequest } from './knowledge';
import { CharLength, IsLanguageTag, NotBlank, canonicalLanguage, charLength, plainJsonIssue, toValidationIssues } from './validation';

// The options every edge validates with (libs/messaging validateDto).
const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false } as const;

function validate<T extends object>(cls: new () => T, plain: object): ValidationError[] {
  return validateSync(plainToInstance(cls, plain), OPTIONS);
}

function issues<T extends object>(cls: new () => T, plain: object, basePath: (string | number)[] = []) {
  return toValidationIssues(validate(cls, plain), basePath);
}

describe('charLength', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['😀', 1], // one code point, two UTF-16 units
    ['👍🏽', 2], // thumbs up + skin tone modifier: two code points
    ['日本語', 3],
    ['𠮷野家', 3], // 𠮷 is outside the BMP
    ['e\u0301', 2], // e + COMBINING ACUTE ACCENT: two code points, one grapheme
    ['a😀b', 3],
  ])('%j has %i characters', (text, expected) => {
    expect(charLength(text)).toBe(expected);
  });

  it('differs from String.length for astral characters', () => {
    const text = '😀'.repeat(30);
    expect(text.length).toBe(60);
    expect(charLength(text)).toBe(30);
  });
});

class Named {
  @CharLength(2, 5) value: string;
}

class Blankable {
  @NotBlank() value: string;
}

class Tagged {
  @IsLanguageTag() value: string;
}

describe('@CharLength', () => {
  it.each([
    ['ab', true],
    ['abcde', true],
    ['a', false],
    ['abcdef', false],
    ['😀😀😀😀😀', true], // 5 code points although 10 UTF-16 units
    ['😀😀😀😀😀😀', false],
    ['日本', true],
    ['e\u0301e\u0301', true], // 4 code points
    ['e\u0301e\u0301e\u0301', false], // 6 code points, 3 graphemes: counted as code points
  ])('%j → valid %s', (value, ok) => {
    expect(validate(Named, { value }).length === 0).toBe(ok);
  });

  it('rejects non-strings', () => {
    expect(validate(Named, { value: 12345 })).toHaveLength(1);
    expect(validate(Named, {})).toHaveLength(1);
  });

  it('names the bounds in its default message', () => {
    const [err] = validate(Named, { value: 'a' });
    expect(err.constraints).toEqual({ charLength: 'value must be between 2 and 5 characters' });
  });
});

describe('@NotBlank', () => {
  it.each([
    ['x', true],
    ['  x  ', true],
    ['', false],
    ['   ', false],
    ['\t\n', false],
    ['\u00a0', false], // no-break space is white space for String.prototype.trim
  ])('%j → valid %s', (value, ok) => {
    expect(validate(Blankable, { value }).length === 0).toBe(ok);
  });

  it('rejects non-strings', () => {
    const [err] = validate(Blankable, { value: 1 });
    expect(err.constraints).toEqual({ notBlank: 'value must not be blank' });
  });
});

describe('@IsLanguageTag', () => {
  it.each(['en', 'ja-JP', 'fil-PH', 'zh-CN', 'sw-KE', 'en-in'])('accepts %s', (value) => {
    expect(validate(Tagged, { value })).toEqual([]);
  });

  it.each(['english!', '', 'e', 'en_US', 'en-', 'en--US', 'en-a-b', 1])('rejects %j', (value) => {
    const [err] = validate(Tagged, { value });
    expect(err.constraints).toEqual({ isLanguageTag: 'value must be a language code such as en or ja-JP' });
  });
});

describe('canonicalLanguage', () => {
  it.each([
    ['en', 'en'],
    ['ja-JP', 'ja-JP'],
    ['fil-PH', 'fil-PH'],
    ['zh-CN', 'zh-CN'],
    ['sw-KE', 'sw-KE'],
    ['en-in', 'en-IN'],
    ['EN', 'en'],
    ['zh-hant-tw', 'zh-Hant-TW'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalLanguage(input)).toBe(expected);
  });

  it.each(['english!', '', 'e', 'abcd', 'en_US', 'en-US-', 'en--US', 'en-a-b', ' en', 'en '])('rejects %j', (input) => {
    expect(canonicalLanguage(input)).toBeNull();
  });

  it('accepts 35 characters and rejects 36 or more', () => {
    const at35 = 'en-x-abcdefgh-abcdefgh-abcdefgh-abc';
    expect(at35).toHaveLength(35);
    expect(canonicalLanguage(at35)).toBe(at35);
    const at36 = 'en-x-abcdefgh-abcdefgh-abcdefgh-abcd';
    expect(at36).toHaveLength(36);
    expect(canonicalLanguage(at36)).toBeNull();
    expect(canonicalLanguage('en-' + 'abcdefgh-'.repeat(10) + 'x')).toBeNull();
  });
});

class Inner {
  @IsInt() @Min(1) @Max(10) count: number;
  @IsOptional() @IsIn(['a', 'b']) kind?: string;
}

class Outer {
  @IsString() @CharLength(1, 3) label: string;
  @ValidateNested() @Type(() => Inner) inner: Inner;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Inner) items?: Inner[];
}

describe('toValidationIssues', () => {
  it('returns no issues for no errors', () => {
    expect(toValidationIssues([])).toEqual([]);
    expect(issues(CreateBotRequest, { name: 'Support' })).toEqual([]);
  });

  it('reports a missing field as required, once, whatever else it breaks', () => {
    expect(issues(CreateBotRequest, {}, ['body'])).toEqual([{ code: 'required', path: ['body', 'name'], message: 'body.name is required' }]);
    expect(issues(CreateBotRequest, { name: null })).toEqual([{ code: 'required', path: ['name'], message: 'name is required' }]);
    // A rule's own words for a missing member are kept, whatever other rules the member has.
    expect(issues(UpdateBookingBody, { action: 'reschedule' })).toEqual([{ code: 'required', path: ['requestedSlot'], message: 'requestedSlot is required when action is reschedule' }]);
    expect(issues(IngestKbRequest, { title: 'Pricing' })).toEqual([{ code: 'required', path: ['url'], message: 'one of url or text is required' }]);
  });

  it('reports unknown members as unrecognized_keys', () => {
    expect(issues(CreateBotRequest, { name: 'ok', colour: 'red' }, ['body'])).toEqual([
      { code: 'unrecognized_keys', path: ['body', 'colour'], message: 'body.colour is not an accepted field' },
    ]);
  });

  it('reports a wrong type as invalid_type', () => {
    expect(issues(CreateBotRequest, { name: 5 })).toEqual([{ code: 'invalid_type', path: ['name'], message: 'name must be a string' }]);
  });

  it('reports charLength below the minimum as too_small and above the maximum as too_big', () => {
    expect(issues(Outer, { label: '', inner: { count: 1 } })).toEqual([
      { code: 'too_small', path: ['label'], message: 'label must be between 1 and 3 characters' },
    ]);
    expect(issues(Outer, { label: 'abcd', inner: { count: 1 } })).toEqual([
      { code: 'too_big', path: ['label'], message: 'label must be between 1 and 3 characters' },
    ]);
    // Three emoji are three characters: within the limit although six UTF-16 units.
    expect(issues(Outer, { label: '😀😀😀', inner: { count: 1 } })).toEqual([]);
    expect(issues(Outer, { label: '😀😀😀😀', inner: { count: 1 } })[0].code).toBe('too_big');
  });

  it('keeps too_small/too_big for a CharLength with a custom message', () => {
    class Custom {
      @CharLength(2, 4, { message: 'between two and four, please' }) v: string;
    }
    expect(issues(Custom, { v: 'abcdefg' })).toEqual([{ code: 'too_big', path: ['v'], message: 'between two and four, please' }]);
  });

  it('reports the bot name limits (30 characters, not blank)', () => {
    expect(issues(CreateBotRequest, { name: 'x'.repeat(31) })).toEqual([
      { code: 'too_big', path: ['name'], message: 'name must be between 1 and 30 characters' },
    ]);
    expect(issues(CreateBotRequest, { name: '語'.repeat(30) })).toEqual([]);
    expect(issues(CreateBotRequest, { name: '   ' })).toEqual([{ code: 'too_small', path: ['name'], message: 'name must not be blank' }]);
    expect(issues(CreateBotRequest, { name: '' })[0].code).toBe('too_small');
  });

  it('reports isIn as invalid_value and a malformed language as invalid_format', () => {
    expect(issues(CreateBotRequest, { name: 'ok', enterprise_plan_tier: 'platinum' })).toEqual([
      { code: 'invalid_value', path: ['enterprise_plan_tier'], message: 'enterprise_plan_tier must be one of the following values: starter, growth, scale' },
    ]);
    expect(issues(CreateBotRequest, { name: 'ok', language: 'english!' })).toEqual([
      { code: 'invalid_format', path: ['language'], message: 'language must be a language code such as en or ja-JP' },
    ]);
  });

  it('reports min/max as too_small/too_big', () => {
    expect(issues(Outer, { label: 'a', inner: { count: 0 } })).toEqual([
      { code: 'too_small', path: ['inner', 'count'], message: 'count must not be less than 1' },
    ]);
    expect(issues(Outer, { label: 'a', inner: { count: 11 } })).toEqual([
      { code: 'too_big', path: ['inner', 'count'], message: 'count must not be greater than 10' },
    ]);
  });

  it('builds nested paths, including array indices and the base path', () => {
    const result = issues(Outer, { label: 'a', inner: { count: 1, extra: true }, items: [{ count: 1 }, { count: 2, kind: 'z' }] }, ['body']);
    expect(result).toEqual([
      { code: 'unrecognized_keys', path: ['body', 'inner', 'extra'], message: 'body.inner.extra is not an accepted field' },
      { code: 'invalid_value', path: ['body', 'items', '1', 'kind'], message: 'kind must be one of the following values: a, b' },
    ]);
  });

  it('reports every broken field of a caller context under its path', () => {
    const ctx = {
      tenantId: 'not-a-uuid',
      scopes: ['bots:read', 'nope'],
      requestId: 'r-1',
      entitlements: { plan: 'growth', botSlots: -1, tierSlots: {}, messagesPerMonth: 1, pagesPerBot: 1, widgetMessagesPerBotPerMonth: 1, webhooks: 'yes' },
    };
    const result = issues(CallerContext, ctx, ['ctx']);
    expect(result.map((i) => [i.code, i.path.join('.')])).toEqual([
      ['invalid_format', 'ctx.tenantId'],
      ['invalid_value', 'ctx.scopes'],
      ['too_small', 'ctx.entitlements.botSlots'],
      ['invalid_type', 'ctx.entitlements.webhooks'],
    ]);
  });
});

describe('plainJsonIssue', () => {
  const nest = (levels: number): unknown => {
    let v: unknown = 'x';
    for (let i = 1; i < levels; i++) v = [v];
    return [v];
  };

  it('accepts ordinary JSON, emoji pairs included', () => {
    expect(plainJsonIssue({ a: ['b', 1, true, null, { c: 'd 😀 𠮷' }] }, ['body'])).toBeNull();
  });

  it('counts the payload as level 1 and refuses the first level past the limit', () => {
    expect(plainJsonIssue(nest(4), [], 4)).toBeNull();
    expect(plainJsonIssue(nest(5), ['body'], 4)).toEqual({ code: 'too_big', path: ['body', 0, 0, 0, 0], message: 'body.0.0.0.0 is nested too deeply (at most 4 levels)' });
  });

  it('stops at the limit on a million levels (no recursion, no stack overflow)', () => {
    expect(plainJsonIssue(nest(1_000_000), [], 32)?.code).toBe('too_big');
  });

  it('reports the path of a bad string or member name', () => {
    expect(plainJsonIssue({ a: [{ b: 'ok' }, { c: 'x\ud800' }] }, ['body'])).toEqual({
      code: 'invalid_string',
      path: ['body', 'a', 1, 'c'],
      message: 'body.a.1.c must not contain unpaired UTF-16 surrogates (it is not valid Unicode text)',
    });
    expect(plainJsonIssue({ m: { 'k\u0000': 'v' } }, ['query'])).toEqual({ code: 'invalid_string', path: ['query', 'm', 'k\u0000'], message: 'query.m.k\u0000 must not contain NUL characters' });
    expect(plainJsonIssue(JSON.parse('{"m":{"__proto__":{"x":1}}}'), ['body'])).toEqual(expect.objectContaining({ code: 'invalid_value', path: ['body', 'm', '__proto__'] }));
  });
});
