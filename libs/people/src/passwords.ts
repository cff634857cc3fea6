import { Algorithm, hash, verify } from '@node-rs/argon2';

/**
 * argon2id with OWASP's first recommended set (19 MiB, 2 passes, 1 lane): about 30-60 ms on a
 * laptop core. The PHC string carries the parameters, so a later change still verifies old hashes.
 */
export const ARGON2_OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

let dummy: Promise<string> | null = null;

/**
 * Checks a password against a stored hash. With no hash (unknown e-mail, no password set) a dummy
 * hash is verified instead, so both answers take about as long and timing tells nothing.
 */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('not the password of anyone: timing equaliser');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
