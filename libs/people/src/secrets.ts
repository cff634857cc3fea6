import { createHash, randomBytes } from 'node:crypto';

/** A random 32-byte secret, base64url (43 characters): session ids, invitation and reset tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a random secret: its SHA-256, lowercase hex. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * The CSRF token of a session (synchronizer token): derived from the session's secret id, so it
 * needs no storage, changes with every sign-in, and the stored hash of the session id (a different
 * SHA-256 input) does not reveal it. Knowing it reveals nothing of the session id.
 */
export function csrfTokenOf(sessionSecret: string): string {
  return createHash('sha256').update(`csrf\0${sessionSecret}`, 'utf8').digest('base64url');
}

/** A secret as a caller sent it is plausible: base64url, 43 characters (checked before any lookup). */
export function isWellFormedSecret(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** The e-mail address as stored and compared: trimmed, lower-case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
