import type { Embeddings } from '@langchain/core/embeddings';
import { describeModel, langchainOllama, langchainOpenAi, openAiClientOptions } from '@sa/llm-config';
import { CheckedEmbeddings } from './checked-embeddings';
import { type EmbeddingsConfig, type EmbeddingsProvider, loadEmbeddingsConfig } from './embeddings.config';
import { HashingEmbeddings } from './hashing-embeddings';

/** The configured embedder and the names recorded with every vector it produces. */
export interface EmbedderChoice {
  readonly provider: EmbeddingsProvider;
  readonly model: string;
  readonly embeddings: Embeddings;
  /**
   * `provider:model:dimensions`, e.g. `hashing:hashing-v1:384` or `openai:text-embedding-3-small:1536`.
   * A remote provider's dimension is learned from its first answer and reads `?` until then.
   */
  readonly id: string;
  /** Known up front for hashing (and when EMBEDDINGS_DIMENSIONS is set); otherwise null until the first answer. */
  readonly dimensions: number | null;
  /** The dimension, embedding a short probe text if no answer has been seen yet (e.g. at boot, to size a collection). */
  resolveDimensions(): Promise<number>;
}

/** Reads EMBEDDINGS_* from the environment (or `source`) and builds the embedder; bad config throws a ConfigError. */
export function createEmbeddings(source?: Record<string, string | undefined>): EmbedderChoice {
  return createEmbeddingsFromConfig(loadEmbeddingsConfig(source));
}

export function createEmbeddingsFromConfig(config: EmbeddingsConfig): EmbedderChoice {
  const settings = config.embeddings;
  if (settings.provider === 'hashing') {
    const embeddings = new HashingEmbeddings({ dimensions: config.embeddingsDimensions || undefined });
    return {
      provider: 'hashing',
      model: embeddings.model,
      embeddings,
      id: `hashing:${embeddings.model}:${embeddings.dimensions}`,
      dimensions: embeddings.dimensions,
      resolveDimensions: async () => embeddings.dimensions,
    };
  }
  const provider = settings.provider;
  const model = settings.model!; // required for remote providers by the config
  const inner = provider === 'openai' ? openai(config) : ollama(config);
  const embeddings = new CheckedEmbeddings(inner, {
    describe: describeModel(settings),
    dimensions: config.embeddingsDimensions || null,
    batchSize: config.embeddingsBatchSize,
  });
  return {
    provider,
    model,
    embeddings,
    get id() {
      return `${provider}:${model}:${embeddings.dimensions ?? '?'}`;
    },
    get dimensions() {
      return embeddings.dimensions;
    },
    resolveDimensions: async () => embeddings.dimensions ?? (await embeddings.embedQuery('dimension probe')).length,
  };
}

function openai(config: EmbeddingsConfig): Embeddings {
  return new (langchainOpenAi().OpenAIEmbeddings)({
    ...openAiClientOptions(config.embeddings),
    dimensions: config.embeddingsDimensions || undefined,
    batchSize: config.embeddingsBatchSize,
    // Floats, not the SDK's default base64: not every OpenAI-compatible server speaks base64.
    encodingFormat: 'float',
    // Newlines carry structure; stripping them was advice for first-generation models.
    stripNewLines: false,
  });
}

function ollama(config: EmbeddingsConfig): Embeddings {
  const { model, ollamaBaseUrl, maxRetries, timeoutMs } = config.embeddings;
  return new (langchainOllama().OllamaEmbeddings)({
    model,
    baseUrl: ollamaBaseUrl,
    maxRetries,
    onFailedAttempt: noRetryOnClientError,
    // OllamaEmbeddings has no timeout option, so its fetch gets one.
    fetch: (input, init) => fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) }),
  });
}

/**
 * Ollama's errors carry `status_code`, which langchain's default retry policy does not read, so
 * "model not found" (404) would be retried: a client error is final (but 408 and 429 are not).
 */
function noRetryOnClientError(error: unknown): void {
  const status = (error as { status_code?: unknown } | null)?.status_code;
  if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429) throw error;
}
