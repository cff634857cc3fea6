import { type EnvSource, parseConfig } from '@sa/config';
import { modelProviderConfig } from '@sa/llm-config';

export const DEFAULT_CHAT_TEMPERATURE = 0.2;

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
 * The chat model settings, spreadable into the chat app's config shape: CHAT_MODEL_PROVIDER,
 * _BASE_URL, _API_KEY, _NAME, _TIMEOUT_MS, _MAX_RETRIES and OLLAMA_BASE_URL (@sa/llm-config), plus
 * CHAT_MODEL_TEMPERATURE. `extractive` (the default) uses no model at all: answers quote the
 * knowledge base (extractive-responder.ts). CHAT_MODEL_TIMEOUT_MS bounds the wait for the model's
 * first byte, not the whole streamed answer.
 */
export const chatModelConfig = {
  chatModel: modelProviderConfig({ prefix: 'CHAT_MODEL', local: 'extractive', timeoutMs: 60000, maxRetries: 1 }),
  chatModelTemperature: temperature,
};

export type ChatModelConfig = ReturnType<typeof loadChatModelConfig>;

export const loadChatModelConfig = (source: EnvSource = process.env) => parseConfig(chatModelConfig, source);
