import { TOKEN_PREFIX, generateTokenSecret, hashTokenSecret, looksLikeToken, tokenHint } from './token-secret';

const FORMAT = /^mgpt_[A-Za-z0-9_-]{43}$/;

describe('generateTokenSecret', () => {
  it('is mgpt_ followed by 43 base64url characters', () => {
    for (let i = 0; i < 200; i++) expect(generateTokenSecret()).toMatch(FORMAT);
    expect(TOKEN_PREFIX).toBe('mgpt_');
  });

  it('encodes exactly 32 random bytes', () => {
    const bytes = Buffer.from(generateTokenSecret().slice(TOKEN_PREFIX.length), 'base64url');
    expect(bytes).toHaveLength(32);
  });

  it('never repeats', () => {
    const secrets = new Set(Array.from({ length: 5000 }, () => generateTokenSecret()));
    expect(secrets.size).toBe(5000);
  });

  it('uses the whole alphabet over many secrets (not a fixed or low-entropy source)', () => {
    const seen = new Set(Array.from({ length: 500 }, () => generateTokenSecret().slice(5)).join(''));
    // 64 symbols of base64url; 500 × 43 characters see all of them with overwhelming probability.
    expect(seen.size).toBe(64);
  });
});

describe('hashTokenSecret', () => {
  it('is the lowercase hex SHA-256 of the secret', () => {
    // FIPS 180-2 test vectors.
    expect(hashTokenSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashTokenSecret('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes UTF-8 and is deterministic', () => {
    expect(hashTokenSecret('é')).toBe(hashTokenSecret('\u00e9'));
    expect(hashTokenSecret('é')).not.toBe(hashTokenSecret('e\u0301'));
    const secret = generateTokenSecret();
    expect(hashTokenSecret(secret)).toBe(hashTokenSecret(secret));
    expect(hashTokenSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashTokenSecret(secret)).not.toBe(hashTokenSecret(generateTokenSecret()));
  });
});

describe('looksLikeToken', () => {
  const good = 'mgpt_' + 'A'.repeat(20) + 'z_-9'.repeat(5) + 'abc';

  it('accepts generated secrets and anything of the same shape', () => {
    expect(good).toHaveLength(48);
    expect(looksLikeToken(good)).toBe(true);
    expect(looksLikeToken(generateTokenSecret())).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['the prefix alone', 'mgpt_'],
    ['one character short', good.slice(0, -1)],
    ['one character long', good + 'a'],
    ['another prefix', 'sk_' + good.slice(5) + 'ab'],
    ['an upper-case prefix', 'MGPT_' + good.slice(5)],
    ['standard base64 (+)', good.slice(0, -1) + '+'],
    ['standard base64 (/)', good.slice(0, -1) + '/'],
    ['padding', good.slice(0, -1) + '='],
    ['a trailing newline', good + '\n'],
    ['a leading space', ' ' + good],
    ['the Bearer scheme', 'Bearer ' + good],
    ['non-ASCII', good.slice(0, -1) + 'é'],
  ])('rejects %s', (_label, value) => {
    expect(looksLikeToken(value)).toBe(false);
  });
});

describe('tokenHint', () => {
  it('shows the prefix and four characters of the secret, never more', () => {
    const secret = generateTokenSecret();
    const hint = tokenHint(secret);
    expect(hint).toBe(`${secret.slice(0, 9)}…`);
    expect(hint.startsWith('mgpt_')).toBe(true);
    expect(secret.includes(hint.slice(0, -1))).toBe(true);
    expect(hint.length).toBe(10);
  });
});
