import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '@sa/blob-storage';
import { extractFileText } from '@sa/doc-text';
import { DomainError } from '@sa/errors';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { PermanentFailure, TransientFailure } from '../pipeline/failures';
import { KnowledgeFilesRepository } from './knowledge-files.repository';

/** What the ingestion worker needs for `file` documents: their text, and whether they still exist. */
@Injectable()
export class KnowledgeFileReader {
  constructor(
    private readonly files: KnowledgeFilesRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(KNOWLEDGE_CONFIG) private readonly config: KnowledgeConfig,
  ) {}

  /** The text of a `file` document: its bytes from blob storage through libs/doc-text. */
  async text(doc: { id: string; tenant_id: string }): Promise<{ text: string; title: string | null }> {
    const file = await this.files.fileOf(doc.tenant_id, doc.id);
    if (!file) throw new PermanentFailure('The document has no stored file');
    let bytes: Buffer | null;
    try {
      bytes = await this.blobs.get(file.storage_key);
    } catch (err) {
      throw new TransientFailure(`The stored file could not be read: ${(err as Error).message}`);
    }
    if (!bytes) throw new PermanentFailure('The uploaded file is no longer stored');
    try {
      const out = await extractFileText(
        { bytes, fileName: file.file_name, contentType: file.content_type ?? undefined },
        {
          maxBytes: this.config.fileMaxBytes,
          maxChars: this.config.fileMaxChars,
          maxPages: this.config.fileMaxPages,
          timeoutMs: this.config.fileReadTimeoutMs,
          maxHeapMb: this.config.fileReadHeapMb,
          maxRssMb: this.config.fileReadMaxRssMb,
          maxInflatedBytes: this.config.fileMaxInflatedMb * 1024 * 1024,
        },
      );
      return { text: out.text, title: out.title };
    } catch (err) {
      if (err instanceof DomainError) throw new PermanentFailure(err.message);
      throw err;
    }
  }

  /** False once the document was deleted (a worker that wrote its chunks then takes them out again). */
  stillExists(doc: { id: string; tenant_id: string }): Promise<boolean> {
    return this.files.exists(doc.tenant_id, doc.id);
  }
}
