export { BLOB_STORE, type BlobStore, FilesystemBlobStore, isBlobKey, isKnowledgeFileKeyOf, knowledgeFileKey } from './blob-store';
export { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store';
export { type BlobStorageSettings, blobStorageConfig, createBlobStore } from './blob-storage.config';
