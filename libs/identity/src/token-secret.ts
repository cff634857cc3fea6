import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'mgpt_';
const TOKEN_PATTERN = /^mgpt_[A-Za-z0-9_-]{43}$/;

/** `mgpt_` followed by 32 random bytes in base64url (43 characters). */
export function generateTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The stored form of a token: lowercase hex SHA-256 of the whole secret. */
export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Cheap shape check before any lookup, so garbage never reaches the cache or the database. */
export function looksLikeToken(secret: string): boolean {
  return TOKEN_PATTERN.test(secret);
}

export function tokenHint(secret: string): string {
  return `${secret.slice(0, TOKEN_PREFIX.length + 4)}…`;
}
