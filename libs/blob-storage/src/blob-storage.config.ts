import * as path from 'node:path';
import { env } from '@sa/config';
import { BlobStore, FilesystemBlobStore } from './blob-store';
import { S3BlobStore } from './s3-blob-store';

/** The environment of blob storage, shared by the apps that put, read and delete files (console, knowledge). */
export const blobStorageConfig = {
  /** Where uploaded files are kept: a directory (default) or an S3-compatible bucket. */
  blobStore: env.oneOf('BLOB_STORE', ['filesystem', 's3'] as const, 'filesystem'),
  /** The directory of the filesystem store; every replica of the console and knowledge must see the same one. */
  blobDir: env.str('BLOB_DIR', '.data/blobs'),
  s3Bucket: env.optionalStr('S3_BUCKET'),
  s3Region: env.str('S3_REGION', 'us-east-1'),
  s3Endpoint: env.optionalUrl('S3_ENDPOINT', ['http', 'https']),
  s3ForcePathStyle: env.bool('S3_FORCE_PATH_STYLE', true),
  s3AccessKeyId: env.optionalStr('S3_ACCESS_KEY_ID'),
  s3SecretAccessKey: env.optionalStr('S3_SECRET_ACCESS_KEY'),
  s3Prefix: env.str('S3_PREFIX', ''),
};

export interface BlobStorageSettings {
  blobStore: 'filesystem' | 's3';
  blobDir: string;
  s3Bucket?: string;
  s3Region: string;
  s3Endpoint?: string;
  s3ForcePathStyle: boolean;
  s3AccessKeyId?: string;
  s3SecretAccessKey?: string;
  s3Prefix: string;
}

/** The store the settings choose. S3 needs S3_BUCKET. */
export function createBlobStore(c: BlobStorageSettings): BlobStore {
  if (c.blobStore === 's3') {
    if (!c.s3Bucket) throw new Error('BLOB_STORE=s3 needs S3_BUCKET');
    return new S3BlobStore({ bucket: c.s3Bucket, region: c.s3Region, endpoint: c.s3Endpoint, forcePathStyle: c.s3ForcePathStyle, accessKeyId: c.s3AccessKeyId, secretAccessKey: c.s3SecretAccessKey, prefix: c.s3Prefix });
  }
  return new FilesystemBlobStore(path.resolve(c.blobDir));
}
