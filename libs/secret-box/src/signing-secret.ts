import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const SIGNING_SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64url (43 characters). */
export function generateSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

const SEALED_PREFIX = 'v1:';
/** The full GCM tag; a shorter (truncated) tag is refused when opening. */
const AUTH_TAG_LENGTH = 16;

/**
 * Parses WEBHOOK_SECRET_KEY: 32 bytes as 64 hexadecimal characters or as base64. Returns null when
 * unset; throws on anything else so a mistyped key is noticed at start, not at the first delivery.
 */
export function parseSecretKey(raw: string | undefined): Buffer | null {
  if (raw === undefined || raw.trim() === '') return null;
  const value = raw.trim();
  // Buffer.from(…, 'base64') skips characters it does not know: refuse them here instead.
  const base64 = /^[A-Za-z0-9+/]+={0,2}$/.test(value) || /^[A-Za-z0-9_-]+$/.test(value);
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : base64 ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes, as 64 hexadecimal characters or as base64');
  return key;
}

/**
 * How signing secrets are kept in webhooks.webhooks.secret. The dispatcher needs the secret itself
 * to sign (a hash would not do), so it is stored sealed with AES-256-GCM under the key
 * (WEBHOOK_SECRET_KEY, or a laptop's local key file): `v1:<iv>:<tag>:<ciphertext>`, base64url.
 * Rows written before encryption at rest hold the secret as issued (`whsec_…`): open() still reads
 * them, and sealPlaintextSecrets encrypts them when a dispatcher starts.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a SecretBox needs a 32-byte key');
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${body.toString('base64url')}`;
  }

  /** True for a secret stored as issued, before encryption at rest. */
  static isPlaintext(stored: string): boolean {
    return stored.startsWith(SIGNING_SECRET_PREFIX);
  }

  /** The secret as issued; throws when it is sealed with a different key. */
  open(stored: string): string {
    if (SecretBox.isPlaintext(stored)) return stored;
    if (!stored.startsWith(SEALED_PREFIX)) throw new Error('unrecognised signing secret format');
    const [iv, tag, body] = stored.slice(SEALED_PREFIX.length).split(':');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv ?? '', 'base64url'), { authTagLength: AUTH_TAG_LENGTH });
      decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body ?? '', 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('the signing secret cannot be decrypted with WEBHOOK_SECRET_KEY (a different key?)');
    }
  }
}
