import { type EnvSource, env, parseConfig } from '@sa/config';
import { modelProviderConfig } from '@sa/llm-config';

/**
 * The embedder settings, spreadable into an app's config shape: EMBEDDINGS_PROVIDER, _BASE_URL,
 * _API_KEY, _MODEL, _TIMEOUT_MS, _MAX_RETRIES and OLLAMA_BASE_URL (@sa/llm-config; the model is
 * required for the remote providers, which keeps the vector id explicit), plus:
 * EMBEDDINGS_DIMENSIONS is the hashing embedder's size (default 384) or, for openai, the
 * `dimensions` request parameter (text-embedding-3 and later); 0 here means "not set" (the variable
 * itself must be ≥ 1).
 */
export const embeddingsConfig = {
  embeddings: modelProviderConfig({ prefix: 'EMBEDDINGS', local: 'hashing', modelVariable: 'EMBEDDINGS_MODEL', timeoutMs: 30000, maxRetries: 2 }),
  embeddingsDimensions: env.int('EMBEDDINGS_DIMENSIONS', 0, { min: 1, max: 16384 }),
  embeddingsBatchSize: env.int('EMBEDDINGS_BATCH_SIZE', 64, { min: 1, max: 2048 }),
};

export type EmbeddingsConfig = ReturnType<typeof loadEmbeddingsConfig>;
export type EmbeddingsProvider = EmbeddingsConfig['embeddings']['provider'];

export const loadEmbeddingsConfig = (source: EnvSource = process.env) => parseConfig(embeddingsConfig, source);
