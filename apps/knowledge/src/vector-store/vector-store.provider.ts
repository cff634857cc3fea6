import { Inject, Injectable, OnApplicationShutdown, Provider } from '@nestjs/common';
import { Pool } from 'pg';
import type { Logger } from 'pino';
import { textMatchFromEnv } from '@sa/lexicon';
import { KNOWLEDGE_CONFIG, KnowledgeConfig } from '../config/knowledge.config';
import { KNOWLEDGE_LOGGER } from '../knowledge.tokens';
import { PostgresVectorStore } from './postgres-vector-store';
import { QdrantVectorStore } from './qdrant-vector-store';
import { VECTOR_STORE, VectorStore } from './vector-store.port';

const VECTOR_POOL = Symbol('VECTOR_POOL');

/** The vector store chosen by VECTOR_STORE: PostgreSQL (default, hybrid ranking) or Qdrant. */
export const vectorStoreProviders: Provider[] = [
  {
    provide: VECTOR_POOL,
    inject: [KNOWLEDGE_CONFIG, KNOWLEDGE_LOGGER],
    useFactory: (config: KnowledgeConfig, logger: Logger) => {
      if (config.vectorStore !== 'postgres') return null;
      const pool = new Pool({ connectionString: config.databaseUrl, max: config.vectorPoolSize, application_name: 'knowledge-vectors' });
      // An idle client whose connection dropped (database restart): the next query reconnects.
      // Without a listener the 'error' event would end the process.
      pool.on('error', (err) => logger.warn({ err: err.message }, 'an idle vector-store connection was lost'));
      return pool;
    },
  },
  {
    provide: VECTOR_STORE,
    inject: [KNOWLEDGE_CONFIG, VECTOR_POOL, KNOWLEDGE_LOGGER],
    useFactory: (config: KnowledgeConfig, pool: Pool | null, logger: Logger): VectorStore => {
      if (config.vectorStore === 'qdrant') {
        if (!config.qdrantUrl) throw new Error('VECTOR_STORE=qdrant needs QDRANT_URL');
        // Loaded only for a Qdrant store, not at every start (docs/decisions/operations.md, "Start time").
        const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');
        return new QdrantVectorStore(new QdrantClient({ url: config.qdrantUrl, apiKey: config.qdrantApiKey }));
      }
      // A pino logger has the (obj, msg) methods the store logs with.
      return new PostgresVectorStore(pool!, { logger, textMatchBudget: config.textMatchBudget, textMatch: textMatchFromEnv() });
    },
  },
];

@Injectable()
export class VectorPoolCloser implements OnApplicationShutdown {
  constructor(@Inject(VECTOR_POOL) private readonly pool: Pool | null) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.end().catch(() => undefined);
  }
}

vectorStoreProviders.push(VectorPoolCloser);
