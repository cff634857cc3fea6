import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Object-storage-shaped storage for uploaded files: bytes under a key, put once, read, deleted.
 * The console puts an upload; the knowledge service reads it to extract its text and deletes it
 * with its document. Adapters: a directory (default) and an S3-compatible bucket.
 */
export interface BlobStore {
  /** Stores `bytes` under `key` (replacing what was there). */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes under `key`, or null when there is nothing. */
  get(key: string): Promise<Buffer | null>;
  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** A key is slash-separated plain names: no `..`, no leading slash, nothing a path could escape with. */
export function isBlobKey(key: string): boolean {
  return key.length <= 512 && KEY.test(key) && !key.split('/').some((p) => p === '..' || p === '.');
}

function checkKey(key: string): void {
  if (!isBlobKey(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
}

/** The key of a new knowledge file of a workspace: `kb/<workspace>/<uuid>`. */
export function knowledgeFileKey(tenantId: string): string {
  return `kb/${tenantId}/${randomUUID()}`;
}

/** Whether `key` is a knowledge file of this workspace (a key from a message is never trusted blindly). */
export function isKnowledgeFileKeyOf(key: string, tenantId: string): boolean {
  return isBlobKey(key) && key.startsWith(`kb/${tenantId}/`) && key.split('/').length === 3;
}

/** Files under a directory, one file per key (written to a temporary name, then renamed: never half-written). */
export class FilesystemBlobStore implements BlobStore {
  constructor(private readonly dir: string) {}

  private pathOf(key: string): string {
    checkKey(key);
    return path.join(this.dir, ...key.split('/'));
  }

  async put(key: string, bytes: Buffer, _contentType?: string): Promise<void> {
    const file = this.pathOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
    await fs.writeFile(tmp, bytes, { mode: 0o600 });
    await fs.rename(tmp, file);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }
}
