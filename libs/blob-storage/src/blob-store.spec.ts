import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FilesystemBlobStore, isBlobKey, isKnowledgeFileKeyOf, knowledgeFileKey } from './blob-store';
import { createBlobStore } from './blob-storage.config';
import { S3BlobStore } from './s3-blob-store';

const T = '11111111-1111-4111-8111-111111111111';

describe('FilesystemBlobStore', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'blobs-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('puts, gets and deletes bytes by key, leaving no temporary file', async () => {
    const store = new FilesystemBlobStore(dir);
    const key = knowledgeFileKey(T);
    expect(await store.get(key)).toBeNull();
    await store.put(key, Buffer.from([0, 1, 2, 255]), 'application/pdf');
    expect(await store.get(key)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(readdirSync(path.join(dir, 'kb', T))).toEqual([key.split('/')[2]]);
    await store.put(key, Buffer.from('v2'), 'text/plain');
    expect((await store.get(key))!.toString()).toBe('v2');
    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    await expect(store.delete(key)).resolves.toBeUndefined();
  });

  it('refuses keys that could leave its directory', async () => {
    const store = new FilesystemBlobStore(dir);
    for (const key of ['../etc/passwd', '/abs', 'kb/../x', 'kb//x', 'kb/./x', '']) {
      expect(isBlobKey(key)).toBe(false);
      await expect(store.get(key)).rejects.toThrow('invalid blob key');
    }
  });
});

describe('knowledge file keys', () => {
  it('belong to one workspace', () => {
    const key = knowledgeFileKey(T);
    expect(key).toMatch(new RegExp(`^kb/${T}/[0-9a-f-]{36}$`));
    expect(isKnowledgeFileKeyOf(key, T)).toBe(true);
    expect(isKnowledgeFileKeyOf(key, '22222222-2222-4222-8222-222222222222')).toBe(false);
    expect(isKnowledgeFileKeyOf(`kb/${T}/a/b`, T)).toBe(false);
    expect(isKnowledgeFileKeyOf(`kb/${T}/../x`, T)).toBe(false);
  });
});

describe('createBlobStore', () => {
  const base = { blobDir: 'x', s3Region: 'eu-west-1', s3ForcePathStyle: true, s3Prefix: '' };
  it('chooses the directory by default and S3 by configuration (which needs a bucket)', () => {
    expect(createBlobStore({ ...base, blobStore: 'filesystem' })).toBeInstanceOf(FilesystemBlobStore);
    expect(createBlobStore({ ...base, blobStore: 's3', s3Bucket: 'kb', s3Endpoint: 'http://127.0.0.1:9000' })).toBeInstanceOf(S3BlobStore);
    expect(() => createBlobStore({ ...base, blobStore: 's3' })).toThrow('BLOB_STORE=s3 needs S3_BUCKET');
  });
});
