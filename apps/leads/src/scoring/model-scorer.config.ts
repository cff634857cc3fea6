import { type EnvSource, env } from '@sa/config';

/** `rules` (the default) scores with lead-scorer.ts alone; `openai` and `ollama` ask a model for structured output. */
export const LEADS_MODEL_PROVIDERS = ['rules', 'openai', 'ollama'] as const;
export type LeadsModelProvider = (typeof LEADS_MODEL_PROVIDERS)[number];

/** How langchain asks for structured output; `auto` leaves the choice to langchain (json_schema for most OpenAI model names). */
export const LEADS_MODEL_METHODS = ['auto', 'functionCalling', 'jsonSchema', 'jsonMode'] as const;
export type LeadsModelMethod = (typeof LEADS_MODEL_METHODS)[number];

export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';

const providerOf = (src: EnvSource) => src['LEADS_MODEL_PROVIDER'] || 'rules';

/** Only the model providers need a model name. */
function modelFor(src: EnvSource, problems: string[]): string | undefined {
  const provider = providerOf(src);
  const model = src['LEADS_MODEL_NAME'] || undefined;
  if (!model && (provider === 'openai' || provider === 'ollama')) problems.push(`LEADS_MODEL_NAME is required when LEADS_MODEL_PROVIDER is ${provider}`);
  return model;
}

/** api.openai.com needs a key; a self-hosted OpenAI-compatible server (LEADS_MODEL_BASE_URL) may not. */
function apiKeyFor(src: EnvSource, problems: string[]): string | undefined {
  const key = src['LEADS_MODEL_API_KEY'] || undefined;
  if (!key && providerOf(src) === 'openai' && !src['LEADS_MODEL_BASE_URL']) {
    problems.push('LEADS_MODEL_API_KEY is required when LEADS_MODEL_PROVIDER is openai and LEADS_MODEL_BASE_URL is not set');
  }
  return key;
}

/**
 * The lead-scoring model settings, spread into the leads config. The scoring runs inside the
 * event consumer's transaction, so LEADS_MODEL_TIMEOUT_MS bounds the whole model call (default
 * 20 s); past it, or on any other model failure, the session is scored by the rules.
 */
export const leadsModelConfig = {
  leadsModelProvider: env.oneOf('LEADS_MODEL_PROVIDER', LEADS_MODEL_PROVIDERS, 'rules'),
  leadsModelBaseUrl: env.optionalUrl('LEADS_MODEL_BASE_URL', ['http', 'https']),
  leadsModelApiKey: apiKeyFor,
  leadsModelName: modelFor,
  leadsModelTimeoutMs: env.int('LEADS_MODEL_TIMEOUT_MS', 20000, { min: 100, max: 600000 }),
  leadsModelMaxRetries: env.int('LEADS_MODEL_MAX_RETRIES', 1, { min: 0, max: 10 }),
  leadsModelMethod: env.oneOf('LEADS_MODEL_METHOD', LEADS_MODEL_METHODS, 'auto'),
  ollamaBaseUrl: env.url('OLLAMA_BASE_URL', DEFAULT_OLLAMA_BASE_URL, ['http', 'https']),
};

export interface LeadsModelConfig {
  leadsModelProvider: LeadsModelProvider;
  leadsModelBaseUrl?: string;
  leadsModelApiKey?: string;
  leadsModelName?: string;
  leadsModelTimeoutMs: number;
  leadsModelMaxRetries: number;
  leadsModelMethod: LeadsModelMethod;
  ollamaBaseUrl: string;
}
