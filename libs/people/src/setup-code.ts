import { createHash, randomBytes } from 'node:crypto';

/** Crockford's base32: no I, L, O or U, so a code read aloud or copied by hand survives. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The fewest letters and digits a setup code chosen by an operator (CONSOLE_SETUP_CODE) may have. */
export const SETUP_CODE_MIN_CHARS = 16;

/** A new setup code: 160 random bits as 32 characters in groups of four (`K7QM-3XPA-…`). */
export function generateSetupCode(): string {
  const bytes = randomBytes(20);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out.match(/.{1,4}/g)!.join('-');
}

/** What is compared: letters and digits only, upper case (a pasted code with spaces, hyphens or in lower case still works). */
export function normaliseSetupCode(code: string): string {
  return code.normalize('NFKC').toUpperCase().replace(/[^0-9A-Z]/g, '');
}

/** What is stored: the SHA-256 of the normalised code (160 random bits need no slow hash). */
export function setupCodeHash(code: string): string {
  return createHash('sha256').update(normaliseSetupCode(code), 'utf8').digest('hex');
}

/**
 * Whether the installation still waits for its first owner: never set up (people.installation
 * empty) and no person at all (the admin CLI may have made one). One row, column `needed`.
 */
export const SETUP_NEEDED_SQL = `SELECT NOT EXISTS (SELECT 1 FROM people.installation) AND NOT EXISTS (SELECT 1 FROM people.persons) AS needed`;
