import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EnvSource } from '@sa/config';
import { parseSecretKey } from './signing-secret';

/** Where a laptop install keeps its key, relative to the project root (gitignored; `WEBHOOK_SECRET_KEY_FILE` overrides). */
export const LOCAL_SECRET_KEY_FILE = path.join('.data', 'webhook-secret-key');

export interface WebhookSecretKey {
  key: Buffer;
  /** `env`: WEBHOOK_SECRET_KEY; `file`: the local key file, and whether this call created it. */
  source: { kind: 'env' } | { kind: 'file'; path: string; created: boolean };
  /** A config logged or serialised shows where the key came from, never the key. */
  toJSON(): unknown;
}

function secretKey(key: Buffer, source: WebhookSecretKey['source']): WebhookSecretKey {
  return { key, source, toJSON: () => ({ key: '[redacted]', source }) };
}

/** The nearest folder at or above `from` holding a package.json: the repository, or /app in the image. */
export function projectRoot(from = __dirname): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** The local key file: WEBHOOK_SECRET_KEY_FILE, or .data/webhook-secret-key under the project root. */
export function localSecretKeyFile(src: EnvSource, root = projectRoot()): string {
  return path.resolve(root, src['WEBHOOK_SECRET_KEY_FILE'] || LOCAL_SECRET_KEY_FILE);
}

function readKeyFile(file: string): Buffer {
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new Error(`${file} does not hold a webhook secret key (64 hexadecimal characters); if no webhook was created with it, delete it and start again`);
  }
  return Buffer.from(text, 'hex');
}

/**
 * The key in `file`, or a new one (32 random bytes as hex) written there when there is none yet:
 * mode 0600, its folder 0700. The file appears whole (written aside, then linked into place), so
 * two processes starting at once agree on one key.
 */
export function loadOrCreateKeyFile(file: string): { key: Buffer; created: boolean } {
  if (fs.existsSync(file)) return { key: readKeyFile(file), created: false };
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(aside, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(aside, file);
    return { key, created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: readKeyFile(file), created: false }; // another process was first
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

export const PRODUCTION_KEY_REQUIRED =
  'WEBHOOK_SECRET_KEY is required when NODE_ENV=production: 32 random bytes as 64 hexadecimal characters (e.g. `openssl rand -hex 32`) that encrypt webhook signing secrets at rest';

/**
 * The key that encrypts webhook signing secrets (AES-256-GCM) wherever they are written or read:
 * WEBHOOK_SECRET_KEY when set (a malformed one throws); with NODE_ENV=production nothing else
 * (throws: a container must be given its key, not invent one); otherwise the local key file,
 * created on first use. `npm start` passes its key on to the apps it starts.
 */
export function resolveWebhookSecretKey(src: EnvSource, root = projectRoot()): WebhookSecretKey {
  const fromEnv = parseSecretKey(src['WEBHOOK_SECRET_KEY']);
  if (fromEnv) return secretKey(fromEnv, { kind: 'env' });
  if (src['NODE_ENV'] === 'production') throw new Error(PRODUCTION_KEY_REQUIRED);
  const file = localSecretKeyFile(src, root);
  const { key, created } = loadOrCreateKeyFile(file);
  return secretKey(key, { kind: 'file', path: file, created });
}

/** resolveWebhookSecretKey as a config reader: its problem is listed with the others. */
export function webhookSecretKeyConfig(src: EnvSource, problems: string[]): WebhookSecretKey {
  try {
    return resolveWebhookSecretKey(src);
  } catch (err) {
    problems.push((err as Error).message);
    return secretKey(Buffer.alloc(0), { kind: 'env' });
  }
}

/** Where the key came from, for a start-up log line: never the key itself. */
export function describeSecretKey(k: WebhookSecretKey): string {
  if (k.source.kind === 'env') return 'webhook signing secrets are encrypted with WEBHOOK_SECRET_KEY';
  return `webhook signing secrets are encrypted with the key in ${k.source.path}${k.source.created ? ' (created now: keep it, stored secrets cannot be read without it)' : ''}`;
}
