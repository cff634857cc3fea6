import type { S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from './blob-store';
import { isBlobKey } from './blob-store';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, R2, …); AWS when absent. */
  endpoint?: string;
  /** Path-style addressing (most S3-compatible stores need it). */
  forcePathStyle: boolean;
  /** Explicit credentials; otherwise the AWS SDK's default chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** A prefix put before every key (several deployments in one bucket). */
  prefix: string;
}

/** The AWS SDK, loaded when a store is made: a deployment on the database store never loads it (docs/decisions/operations.md, "Start time"). */
const s3 = () => require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');

/** An S3-compatible bucket through the AWS SDK v3. */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly sdk = s3();

  constructor(private readonly opts: S3BlobStoreOptions) {
    this.client = new this.sdk.S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle,
      credentials: opts.accessKeyId && opts.secretAccessKey ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } : undefined,
    });
  }

  private keyOf(key: string): string {
    if (!isBlobKey(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return this.opts.prefix + key;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(new this.sdk.PutObjectCommand({ Bucket: this.opts.bucket, Key: this.keyOf(key), Body: bytes, ContentType: contentType }));
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const out = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.opts.bucket, Key: this.keyOf(key) }));
      if (!out.Body) return null;
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (err) {
      if (err instanceof this.sdk.NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.keyOf(key) }));
  }
}
