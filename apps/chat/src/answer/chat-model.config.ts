import { type EnvSource, env, parseConfig } from '@sa/config';

export const CHAT_MODEL_PROVIDERS = ['extractive', 'openai', 'ollama'] as const;
export type ChatModelProvider = (typeof CHAT_MODEL_PROVIDERS)[number];

export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';
export const DEFAULT_CHAT_TEMPERATURE = 0.2;

const providerOf = (src: EnvSource) => src['CHAT_MODEL_PROVIDER'] || 'extractive';

/** Only the model providers need a model name. */
function modelFor(src: EnvSource, problems: string[]): string | undefined {
  const provider = providerOf(src);
  const model = src['CHAT_MODEL_NAME'] || undefined;
  if (!model && (provider === 'openai' || provider === 'ollama')) problems.push(`CHAT_MODEL_NAME is required when CHAT_MODEL_PROVIDER is ${provider}`);
  return model;
}

/** api.openai.com needs a key; a self-hosted OpenAI-compatible server (CHAT_MODEL_BASE_URL) may not. */
function apiKeyFor(src: EnvSource, problems: string[]): string | undefined {
  const key = src['CHAT_MODEL_API_KEY'] || undefined;
  if (!key && providerOf(src) === 'openai' && !src['CHAT_MODEL_BASE_URL']) {
    problems.push('CHAT_MODEL_API_KEY is required when CHAT_MODEL_PROVIDER is openai and CHAT_MODEL_BASE_URL is not set');
  }
  return key;
}

/** A decimal between 0 and 2 (the range OpenAI accepts; Ollama's is the same in practice). */
function temperature(src: EnvSource, problems: string[]): number {
  const raw = src['CHAT_MODEL_TEMPERATURE'];
  if (raw === undefined || raw.trim() === '') return DEFAULT_CHAT_TEMPERATURE;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 2) {
    problems.push(`CHAT_MODEL_TEMPERATURE must be a number from 0 to 2 (got "${raw}")`);
    return DEFAULT_CHAT_TEMPERATURE;
  }
  return n;
}

/**
 * The chat model settings, spreadable into the chat app's config shape. `extractive` (the
 * default) uses no model at all: answers quote the knowledge base (extractive-responder.ts).
 * CHAT_MODEL_TIMEOUT_MS bounds the wait for the model's first byte, not the whole streamed answer.
 */
export const chatModelConfig = {
  chatModelProvider: env.oneOf('CHAT_MODEL_PROVIDER', CHAT_MODEL_PROVIDERS, 'extractive'),
  chatModelBaseUrl: env.optionalUrl('CHAT_MODEL_BASE_URL', ['http', 'https']),
  chatModelApiKey: apiKeyFor,
  chatModelName: modelFor,
  chatModelTemperature: temperature,
  chatModelTimeoutMs: env.int('CHAT_MODEL_TIMEOUT_MS', 60000, { min: 100, max: 600000 }),
  chatModelMaxRetries: env.int('CHAT_MODEL_MAX_RETRIES', 1, { min: 0, max: 10 }),
  ollamaBaseUrl: env.url('OLLAMA_BASE_URL', DEFAULT_OLLAMA_BASE_URL, ['http', 'https']),
};

export type ChatModelConfig = ReturnType<typeof loadChatModelConfig>;

export const loadChatModelConfig = (source: EnvSource = process.env) => parseConfig(chatModelConfig, source);
