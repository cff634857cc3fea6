import type { ModelConnection, ModelKind } from '../api/types';

/**
 * The providers of model connections (issue 32) as people read them. The contracts lib's
 * MODEL_KINDS sits beside class-validator decorators, which the browser bundle does not load.
 */
export const MODEL_PROVIDERS: readonly { kind: ModelKind; label: string; baseUrl: string; modelExample: string; baseUrlExample: string }[] = [
  { kind: 'openai', label: 'OpenAI-compatible', baseUrl: 'https://api.openai.com/v1', modelExample: 'gpt-4o-mini', baseUrlExample: 'https://openrouter.ai/api/v1' },
  { kind: 'anthropic', label: 'Anthropic', baseUrl: 'https://api.anthropic.com', modelExample: 'claude-haiku-4-5', baseUrlExample: 'https://api.anthropic.com' },
  { kind: 'ollama', label: 'Ollama', baseUrl: "the installation's Ollama", modelExample: 'llama3.2', baseUrlExample: 'http://ollama:11434' },
];

/** Kinds that can embed: Anthropic has no embeddings API. */
export const EMBEDDING_KINDS: readonly ModelKind[] = ['openai', 'ollama'];

export const MODEL_CONNECTION_NAME_MAX = 80;
export const MODEL_NAME_MAX = 200;
export const MODEL_BASE_URL_MAX = 2000;
export const MODEL_API_KEY_MAX = 1000;
export const TEMPERATURE_MAX = 2;

function provider(kind: ModelKind) {
  return MODEL_PROVIDERS.find((p) => p.kind === kind) ?? MODEL_PROVIDERS[0]!;
}

export function providerLabel(kind: ModelKind): string {
  return provider(kind).label;
}

/** What an empty base URL means for a provider. */
export function defaultBaseUrl(kind: ModelKind): string {
  return provider(kind).baseUrl;
}

export function modelExample(kind: ModelKind): string {
  return provider(kind).modelExample;
}

export function baseUrlExample(kind: ModelKind): string {
  return provider(kind).baseUrlExample;
}

/** The description under a "Base URL" field. */
export function baseUrlHint(kind: ModelKind): string {
  const own = kind === 'openai' ? ' For Azure, OpenRouter, Groq, vLLM or LM Studio, their OpenAI-compatible address.' : '';
  return `Empty: ${defaultBaseUrl(kind)}.${own} A private address needs the operator's permission (OUTBOUND_ALLOW_CIDRS).`;
}

/** A connection in the model pickers: its name, provider and model. */
export function connectionLabel(c: Pick<ModelConnection, 'name' | 'kind' | 'model'>): string {
  return `${c.name} (${providerLabel(c.kind)}, ${c.model})`;
}

export const asModelKind = (v: string): ModelKind => (v === 'anthropic' || v === 'ollama' ? v : 'openai');
