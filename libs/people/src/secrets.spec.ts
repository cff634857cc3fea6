import { csrfTokenOf, isWellFormedSecret, normalizeEmail, randomSecret, sha256Hex } from './secrets';
import { verifyPassword, hashPassword } from './passwords';

describe('secrets', () => {
  it('makes 32-byte base64url secrets, stored as SHA-256; the CSRF token is another derivation', () => {
    const a = randomSecret();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomSecret()).not.toBe(a);
    expect(isWellFormedSecret(a)).toBe(true);
    expect(isWellFormedSecret(`${a}x`)).toBe(false);
    expect(isWellFormedSecret(undefined)).toBe(false);
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(csrfTokenOf(a)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenOf(a)).toBe(csrfTokenOf(a));
    expect(csrfTokenOf(a)).not.toBe(csrfTokenOf(randomSecret()));
    expect(Buffer.from(csrfTokenOf(a), 'base64url').toString('hex')).not.toBe(sha256Hex(a));
  });

  it('compares e-mail addresses trimmed and lower-case', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('verifies argon2id passwords; no hash or a corrupt one is never a match', async () => {
    const h = await hashPassword('correct horse battery staple');
    expect(h.startsWith('$argon2id$')).toBe(true);
    expect(await verifyPassword(h, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(h, 'correct horse battery stapl')).toBe(false);
    expect(await verifyPassword(null, 'anything at all')).toBe(false);
    expect(await verifyPassword('not a hash', 'anything at all')).toBe(false);
  });
});
