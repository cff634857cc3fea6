import { SETUP_CODE_MIN_CHARS, generateSetupCode, normaliseSetupCode, setupCodeHash } from './setup-code';

describe('setup codes (first-run setup)', () => {
  it('are 32 Crockford base32 characters in groups of four, different every time', () => {
    const codes = new Set(Array.from({ length: 200 }, generateSetupCode));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{4}(-[0-9ABCDEFGHJKMNPQRSTVWXYZ]{4}){7}$/);
    // Every character of the alphabet turns up (the bits are spread, not biased to a few letters).
    expect(new Set([...codes].join('').replace(/-/g, '')).size).toBe(32);
  });

  it('compare without regard to case, spaces or hyphens, and never equal another code', () => {
    const code = generateSetupCode();
    expect(setupCodeHash(` ${code.toLowerCase().replace(/-/g, ' ')} `)).toBe(setupCodeHash(code));
    expect(setupCodeHash(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(setupCodeHash(code)).not.toBe(setupCodeHash(generateSetupCode()));
    expect(normaliseSetupCode('ab-cd ef')).toBe('ABCDEF');
    expect(normaliseSetupCode(code)).toHaveLength(32);
    expect(SETUP_CODE_MIN_CHARS).toBe(16);
  });
});
