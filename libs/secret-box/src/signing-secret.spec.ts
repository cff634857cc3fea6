import { randomBytes } from 'node:crypto';
import { SIGNING_SECRET_PREFIX, SecretBox, generateSigningSecret, parseSecretKey } from './signing-secret';

const SECRET_FORMAT = /^whsec_[A-Za-z0-9_-]{43}$/;
const key = () => randomBytes(32);

describe('generateSigningSecret', () => {
  it('is whsec_ and 32 random bytes in base64url', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(SECRET_FORMAT);
    expect(secret.startsWith(SIGNING_SECRET_PREFIX)).toBe(true);
    expect(Buffer.from(secret.slice(SIGNING_SECRET_PREFIX.length), 'base64url')).toHaveLength(32);
  });

  it('never repeats', () => {
    const secrets = Array.from({ length: 200 }, generateSigningSecret);
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const s of secrets) expect(s).toMatch(SECRET_FORMAT);
  });
});

describe('SecretBox', () => {
  it('seals with a key, and opens what it sealed', () => {
    const box = new SecretBox(key());
    const secret = generateSigningSecret();
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice(SIGNING_SECRET_PREFIX.length));
    expect(box.open(sealed)).toBe(secret);
  });

  it('uses a fresh IV each time: the same secret seals differently', () => {
    const box = new SecretBox(key());
    const secret = generateSigningSecret();
    const [a, b] = [box.seal(secret), box.seal(secret)];
    expect(a).not.toBe(b);
    expect(box.open(a)).toBe(secret);
    expect(box.open(b)).toBe(secret);
  });

  it('opens with another box holding the same key (another process)', () => {
    const k = key();
    const secret = generateSigningSecret();
    expect(new SecretBox(Buffer.from(k)).open(new SecretBox(k).seal(secret))).toBe(secret);
  });

  it('always seals: there is no box without a key', () => {
    expect(() => new SecretBox(null as unknown as Buffer)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow('a SecretBox needs a 32-byte key');
    const secret = generateSigningSecret();
    expect(new SecretBox(key()).seal(secret)).toMatch(/^v1:/);
  });

  it('passes a plain secret through (stored before encryption at rest), and says it is one', () => {
    const secret = generateSigningSecret();
    expect(new SecretBox(key()).open(secret)).toBe(secret);
    expect(SecretBox.isPlaintext(secret)).toBe(true);
    expect(SecretBox.isPlaintext(new SecretBox(key()).seal(secret))).toBe(false);
  });

  it('refuses to open with a different key, without showing the secret', () => {
    const secret = generateSigningSecret();
    const sealed = new SecretBox(key()).seal(secret);
    let message = '';
    try {
      new SecretBox(key()).open(sealed);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/cannot be decrypted with WEBHOOK_SECRET_KEY/);
    expect(message).not.toContain(secret);
  });

  it('refuses a tampered ciphertext, a truncated tag and a mangled value', () => {
    const k = key();
    const box = new SecretBox(k);
    const [iv, tag, body] = box.seal(generateSigningSecret()).slice(3).split(':');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open(`v1:${iv}:${tag}:${flipped.toString('base64url')}`)).toThrow(/cannot be decrypted/);
    const shortTag = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.open(`v1:${iv}:${shortTag}:${body}`)).toThrow(/cannot be decrypted/);
    expect(() => box.open('v1:')).toThrow(/cannot be decrypted/);
    expect(() => box.open(`v1:${iv}`)).toThrow(/cannot be decrypted/);
  });

  it('refuses a value in neither format', () => {
    expect(() => new SecretBox(key()).open('hunter2')).toThrow(/unrecognised signing secret format/);
    expect(() => new SecretBox(key()).open('')).toThrow(/unrecognised signing secret format/);
  });
});

describe('parseSecretKey', () => {
  const bytes = randomBytes(32);

  it('reads 64 hexadecimal characters, in either case', () => {
    expect(parseSecretKey(bytes.toString('hex'))).toEqual(bytes);
    expect(parseSecretKey(bytes.toString('hex').toUpperCase())).toEqual(bytes);
  });

  it('reads base64 and base64url, with or without padding, ignoring surrounding space', () => {
    expect(parseSecretKey(bytes.toString('base64'))).toEqual(bytes);
    expect(parseSecretKey(bytes.toString('base64').replace(/=+$/, ''))).toEqual(bytes);
    expect(parseSecretKey(bytes.toString('base64url'))).toEqual(bytes);
    expect(parseSecretKey(`  ${bytes.toString('hex')}\n`)).toEqual(bytes);
  });

  it('is null when unset or blank', () => {
    expect(parseSecretKey(undefined)).toBeNull();
    expect(parseSecretKey('')).toBeNull();
    expect(parseSecretKey('   ')).toBeNull();
  });

  it.each([
    ['16 bytes of hex', randomBytes(16).toString('hex')],
    ['63 hexadecimal characters', randomBytes(32).toString('hex').slice(1)],
    ['48 bytes of base64', randomBytes(48).toString('base64')],
    ['31 bytes of base64', randomBytes(31).toString('base64')],
    ['a pass phrase', 'correct horse battery staple'],
    ['base64 with stray characters', `${randomBytes(32).toString('base64')}!!`],
    ['base64 with a space inside', `${randomBytes(16).toString('base64')} ${randomBytes(16).toString('base64')}`],
  ])('refuses %s', (_what, raw) => {
    expect(() => parseSecretKey(raw)).toThrow('WEBHOOK_SECRET_KEY must be 32 bytes, as 64 hexadecimal characters or as base64');
  });
});
