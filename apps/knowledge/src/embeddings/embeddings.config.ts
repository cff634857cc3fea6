import { type EnvSource, env, parseConfig } from '@sa/config';

export const EMBEDDINGS_PROVIDERS = ['hashing', 'openai', 'ollama'] as const;
export type EmbeddingsProvider = (typeof EMBEDDINGS_PROVIDERS)[number];

export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';

/** Only the remote providers need a model name; requiring it keeps the vector id explicit. */
function modelFor(src: EnvSource, problems: string[]): string | undefined {
  const provider = src['EMBEDDINGS_PROVIDER'] || 'hashing';
  const model = src['EMBEDDINGS_MODEL'] || undefined;
  if (!model && (provider === 'openai' || provider === 'ollama')) problems.push(`EMBEDDINGS_MODEL is required when EMBEDDINGS_PROVIDER is ${provider}`);
  return model;
}

/** api.openai.com needs a key; a self-hosted OpenAI-compatible server (EMBEDDINGS_BASE_URL) may not. */
function apiKeyFor(src: EnvSource, problems: string[]): string | undefined {
  const key = src['EMBEDDINGS_API_KEY'] || undefined;
  if (!key && src['EMBEDDINGS_PROVIDER'] === 'openai' && !src['EMBEDDINGS_BASE_URL']) {
    problems.push('EMBEDDINGS_API_KEY is required when EMBEDDINGS_PROVIDER is openai and EMBEDDINGS_BASE_URL is not set');
  }
  return key;
}

/**
 * The embedder settings, spreadable into an app's config shape. EMBEDDINGS_DIMENSIONS is the
 * hashing embedder's size (default 384) or, for openai, the `dimensions` request parameter
 * (text-embedding-3 and later); 0 here means "not set" (the variable itself must be ≥ 1).
 */
export const embeddingsConfig = {
  embeddingsProvider: env.oneOf('EMBEDDINGS_PROVIDER', EMBEDDINGS_PROVIDERS, 'hashing'),
  embeddingsBaseUrl: env.optionalUrl('EMBEDDINGS_BASE_URL', ['http', 'https']),
  embeddingsApiKey: apiKeyFor,
  embeddingsModel: modelFor,
  embeddingsDimensions: env.int('EMBEDDINGS_DIMENSIONS', 0, { min: 1, max: 16384 }),
  ollamaBaseUrl: env.url('OLLAMA_BASE_URL', DEFAULT_OLLAMA_BASE_URL, ['http', 'https']),
  embeddingsBatchSize: env.int('EMBEDDINGS_BATCH_SIZE', 64, { min: 1, max: 2048 }),
  embeddingsTimeoutMs: env.int('EMBEDDINGS_TIMEOUT_MS', 30000, { min: 100, max: 600000 }),
  embeddingsMaxRetries: env.int('EMBEDDINGS_MAX_RETRIES', 2, { min: 0, max: 10 }),
};

export type EmbeddingsConfig = ReturnType<typeof loadEmbeddingsConfig>;

export const loadEmbeddingsConfig = (source: EnvSource = process.env) => parseConfig(embeddingsConfig, source);
