import { env } from '@sa/config';
import { type ModelProviderConfig, modelProviderConfig } from '@sa/llm-config';

/** How langchain asks for structured output; `auto` leaves the choice to langchain (json_schema for most OpenAI model names). */
export const LEADS_MODEL_METHODS = ['auto', 'functionCalling', 'jsonSchema', 'jsonMode'] as const;
export type LeadsModelMethod = (typeof LEADS_MODEL_METHODS)[number];

/**
 * The lead-scoring model settings, spread into the leads config: LEADS_MODEL_PROVIDER, _BASE_URL,
 * _API_KEY, _NAME, _TIMEOUT_MS, _MAX_RETRIES and OLLAMA_BASE_URL (@sa/llm-config), plus
 * LEADS_MODEL_METHOD. `rules` (the default) scores with lead-scorer.ts alone; `openai` and
 * `ollama` ask a model for structured output. The scoring runs inside the event consumer's
 * transaction, so LEADS_MODEL_TIMEOUT_MS bounds the whole model call (default 20 s); past it, or
 * on any other model failure, the session is scored by the rules.
 */
export const leadsModelConfig = {
  leadsModel: modelProviderConfig({ prefix: 'LEADS_MODEL', local: 'rules', timeoutMs: 20000, maxRetries: 1 }),
  leadsModelMethod: env.oneOf('LEADS_MODEL_METHOD', LEADS_MODEL_METHODS, 'auto'),
};

export interface LeadsModelConfig {
  leadsModel: ModelProviderConfig<'rules'>;
  leadsModelMethod: LeadsModelMethod;
}
