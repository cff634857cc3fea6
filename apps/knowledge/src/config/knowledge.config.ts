import { blobStorageConfig } from '@sa/blob-storage';
import { commonConfig, ConfigError, env, parseConfig } from '@sa/config';
import { webhookSecretKeyConfig } from '@sa/secret-box';

export const loadKnowledgeConfig = (source: Record<string, string | undefined> = process.env) => {
  const config = parseConfig(
    {
      ...commonConfig,
      /** Documents processed at once by one replica. */
      concurrency: env.int('KNOWLEDGE_CONCURRENCY', 8, { min: 1, max: 64 }),
      /**
       * Requests one replica sends to one site at once while it crawls (issue 36); a site whose
       * robots.txt sets a Crawl-delay gets one at a time, each that many seconds after the previous one ended (at most 60).
       */
      hostConcurrency: env.int('KNOWLEDGE_HOST_CONCURRENCY', 4, { min: 1, max: 64 }),
      /** How long a claim on a document lasts without a heartbeat before another worker may take it. */
      leaseMs: env.int('KNOWLEDGE_LEASE_MS', 60000, { min: 1000 }),
      /** Claims of one document before it is failed ("did not finish after N attempts"). */
      maxAttempts: env.int('KNOWLEDGE_MAX_ATTEMPTS', 3, { min: 1, max: 20 }),
      pollMs: env.int('KNOWLEDGE_POLL_MS', 1000, { min: 50 }),
      /** How often the re-sync scheduler looks for due sources (0: never); the lease lasts three of these. */
      resyncPollMs: env.int('KNOWLEDGE_RESYNC_POLL_MS', 60000, { min: 0, max: 86_400_000 }),
      /** Due sources queued per look, at most. */
      resyncBatch: env.int('KNOWLEDGE_RESYNC_BATCH', 100, { min: 1, max: 10000 }),
      /** add-qa embeds the pair before it replies, waiting at most this long (then the reply is `processing`). */
      qaInlineMs: env.int('KNOWLEDGE_QA_INLINE_MS', 3000, { min: 0, max: 60000 }),
      // ---- Models per workspace (issue 32): a workspace's own embedding model ----
      /** The key that opens the sealed keys of the workspaces' model connections (WEBHOOK_SECRET_KEY, as the bots service). */
      secretKey: webhookSecretKeyConfig,
      /**
       * Chunks re-embedded per step when a workspace switches models: the step's documents are
       * locked (no re-sync or delete meanwhile) while they are embedded, and progress is saved after
       * it. Requests to the model carry EMBEDDINGS_BATCH_SIZE texts each.
       */
      reembedBatch: env.int('KNOWLEDGE_REEMBED_BATCH', 64, { min: 1, max: 4096 }),
      /** How often a replica looks for switches to run (one it started itself runs at once; this picks up the rest and resumes after a restart). */
      reembedPollMs: env.int('KNOWLEDGE_REEMBED_POLL_MS', 5000, { min: 50, max: 3_600_000 }),
      maxListed: env.int('KB_LIST_LIMIT', 500, { min: 1, max: 5000 }),
      /** Where chunk vectors live: the embedded PostgreSQL default, or Qdrant. */
      vectorStore: env.oneOf('VECTOR_STORE', ['postgres', 'qdrant'] as const, 'postgres'),
      qdrantUrl: env.optionalUrl('QDRANT_URL', ['http', 'https']),
      qdrantApiKey: env.optionalStr('QDRANT_API_KEY'),
      vectorPoolSize: env.int('VECTOR_DB_POOL_SIZE', 4, { min: 1, max: 100 }),
      /** Full-text side of hybrid search: the most rows the query's terms may match before rarer terms only are used. */
      textMatchBudget: env.int('VECTOR_TEXT_MATCH_BUDGET', 400, { min: 10, max: 100000 }),
      // ---- Uploaded files (issue 19): where they are kept, and how much of one is read ----
      ...blobStorageConfig,
      /** Largest uploaded file, in bytes (the console refuses larger uploads with the same number). */
      fileMaxBytes: env.int('KB_FILE_MAX_BYTES', 20 * 1024 * 1024, { min: 1024, max: 1024 * 1024 * 1024 }),
      /** Most characters of text one file may hold. */
      fileMaxChars: env.int('KB_FILE_MAX_CHARS', 2_000_000, { min: 1000 }),
      /** Most pages of a PDF that are read (a longer one fails with a reason). */
      fileMaxPages: env.int('KB_FILE_MAX_PAGES', 1000, { min: 1 }),
      /** Longest the PDF or DOCX reader (a child process) may take for one file, and the V8 heap it may use. */
      fileReadTimeoutMs: env.int('KB_FILE_READ_TIMEOUT_MS', 60000, { min: 1000 }),
      fileReadHeapMb: env.int('KB_FILE_READ_HEAP_MB', 256, { min: 32, max: 4096 }),
      /** Resident memory (read from /proc) at which that reader is killed and the file fails (issue 30). */
      fileReadMaxRssMb: env.int('KB_FILE_READ_MAX_RSS_MB', 384, { min: 96, max: 65536 }),
      /** Most a PDF's or DOCX's compressed parts may inflate to, in MB (more: the file fails, saying so). */
      fileMaxInflatedMb: env.int('KB_FILE_MAX_INFLATED_MB', 256, { min: 1, max: 65536 }),
    },
    source,
  );
  // The heap is part of the resident memory: a memory limit under it would make the heap limit moot.
  if (config.fileReadMaxRssMb <= config.fileReadHeapMb) {
    throw new ConfigError([`KB_FILE_READ_MAX_RSS_MB (${config.fileReadMaxRssMb}) must be above KB_FILE_READ_HEAP_MB (${config.fileReadHeapMb}): the heap is part of the reader's resident memory`]);
  }
  return config;
};

export type KnowledgeConfig = ReturnType<typeof loadKnowledgeConfig>;
export const KNOWLEDGE_CONFIG = Symbol('KNOWLEDGE_CONFIG');
