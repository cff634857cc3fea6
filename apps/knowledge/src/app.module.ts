import { Module } from '@nestjs/common';
import { BLOB_STORE, createBlobStore } from '@sa/blob-storage';
import { DatabaseModule } from '@sa/db';
import { createLogger } from '@sa/logging';
import { connectionCalls } from '@sa/llm-config';
import { MessagingModule, RpcClient } from '@sa/messaging';
import { OpsModule } from '@sa/ops';
import { outboundPolicyFromEnv } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
import { KNOWLEDGE_CONFIG, loadKnowledgeConfig } from './config/knowledge.config';
import { DocumentsHandler } from './documents/documents.handler';
import { DocumentsRepository } from './documents/documents.repository';
import { DocumentsService } from './documents/documents.service';
import { EvalChangePublisher } from './documents/eval-change.publisher';
import { ResyncScheduler } from './documents/resync.scheduler';
import { EmbeddingSettingsHandler } from './embeddings/embedding-settings.handler';
import { EmbeddingSettingsService } from './embeddings/embedding-settings.service';
import { loadEmbeddingsConfig } from './embeddings/embeddings.config';
import { type EmbedderChoice, createEmbeddings } from './embeddings/embeddings.factory';
import { ReembedWorker } from './embeddings/reembed.worker';
import { WorkspaceEmbedders } from './embeddings/workspace-embedders';
import { WorkspaceEmbeddersRepository } from './embeddings/workspace-embedders.repository';
import { KnowledgeFileReader } from './files/knowledge-file-reader';
import { KnowledgeFilesHandler } from './files/knowledge-files.handler';
import { KnowledgeFilesRepository } from './files/knowledge-files.repository';
import { KnowledgeFilesService } from './files/knowledge-files.service';
import { EMBEDDER, KNOWLEDGE_LOGGER, OUTBOUND_POLICY } from './knowledge.tokens';
import { DocumentClaimsRepository } from './pipeline/document-claims.repository';
import { DocumentProcessor } from './pipeline/document-processor';
import { IngestionWorker } from './pipeline/ingestion.worker';
import { SearchHandler } from './retrieval/search.handler';
import { SearchService } from './retrieval/search.service';
import { vectorStoreProviders } from './vector-store/vector-store.provider';

const config = loadKnowledgeConfig();

/** Knowledge base: documents, the ingestion pipeline, retrieval for chat. */
@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'knowledge' }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'knowledge', connectionName: 'knowledge' }),
    OpsModule.forService('knowledge', config),
  ],
  controllers: [DocumentsHandler, SearchHandler, KnowledgeFilesHandler, EmbeddingSettingsHandler],
  providers: [
    { provide: KNOWLEDGE_CONFIG, useValue: config },
    { provide: KNOWLEDGE_LOGGER, useValue: createLogger('knowledge', { level: config.logLevel }) },
    { provide: EMBEDDER, useFactory: () => createEmbeddings() },
    { provide: OUTBOUND_POLICY, useFactory: () => outboundPolicyFromEnv() },
    WorkspaceEmbeddersRepository,
    {
      // Issue 32: a workspace's own embedding model; its calls go through the outbound guard (OUTBOUND_*, MODEL_CONNECTION_*).
      provide: WorkspaceEmbedders,
      inject: [EMBEDDER, WorkspaceEmbeddersRepository, RpcClient],
      useFactory: (installation: EmbedderChoice, repository: WorkspaceEmbeddersRepository, rpc: RpcClient) =>
        new WorkspaceEmbedders(installation, repository, rpc, { box: new SecretBox(config.secretKey.key), calls: connectionCalls(), batchSize: loadEmbeddingsConfig().embeddingsBatchSize }),
    },
    EmbeddingSettingsService,
    ReembedWorker,
    ...vectorStoreProviders,
    DocumentsRepository,
    DocumentsService,
    // Issue 33: knowledge changes start automatic evaluation runs (evaluations.change).
    EvalChangePublisher,
    DocumentClaimsRepository,
    DocumentProcessor,
    IngestionWorker,
    ResyncScheduler,
    SearchService,
    { provide: BLOB_STORE, useFactory: () => createBlobStore(config) },
    KnowledgeFilesRepository,
    KnowledgeFilesService,
    KnowledgeFileReader,
  ],
})
export class AppModule {}
