import type { Embeddings } from '@langchain/core/embeddings';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ModelConnectionSpec, ModelConnectionTestResult, ModelUse } from '@sa/contracts';
import { langchainAnthropic, langchainMessages, langchainOllama, langchainOpenAi } from './langchain-packages';
import { modelErrorMessage, modelErrorStatus } from './model-errors';
import { type ModelProviderConfig, OPENAI_BASE_URL, openAiClientOptions } from './model-provider';

/**
 * A workspace's model connection (issue 32, "Models") made into a langchain client. Unlike the
 * installation's model (CHAT_MODEL_*, EMBEDDINGS_*), its base URL and key come from a workspace
 * user: every call goes through the caller's `fetch`, which is the outbound guard
 * (guardedModelFetch of @sa/net-guard), and the key is passed explicitly, never read from the
 * environment.
 */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** Anthropic requires a reply limit; 1024 tokens is ample for a support answer. */
export const CONNECTION_MAX_TOKENS = 1024;

export interface ConnectionClientOptions {
  /** The connection's key, unsealed for this client only; null: none. */
  apiKey: string | null;
  fetch: typeof fetch;
  /** The wait for the response headers (the guard applies it too). */
  timeoutMs: number;
  maxRetries: number;
  /** Where an ollama connection without a base URL goes (OLLAMA_BASE_URL). */
  ollamaBaseUrl: string;
  temperature?: number;
  maxTokens?: number;
}

/** The URL a connection's calls go to. */
export function connectionBaseUrl(spec: Pick<ModelConnectionSpec, 'kind' | 'base_url'>, ollamaBaseUrl: string): string {
  if (spec.base_url) return spec.base_url;
  return spec.kind === 'anthropic' ? ANTHROPIC_BASE_URL : spec.kind === 'ollama' ? ollamaBaseUrl : OPENAI_BASE_URL;
}

/** For errors and diagnostics: `anthropic (model m at https://…)`; never the key. */
export function describeConnection(spec: Pick<ModelConnectionSpec, 'kind' | 'base_url' | 'model'>, ollamaBaseUrl: string): string {
  return `${spec.kind} (model ${spec.model} at ${connectionBaseUrl(spec, ollamaBaseUrl)})`;
}

/** A streaming chat model for the connection. */
export function connectionChatModel(spec: ModelConnectionSpec, o: ConnectionClientOptions): BaseChatModel {
  const baseUrl = connectionBaseUrl(spec, o.ollamaBaseUrl);
  if (spec.kind === 'anthropic') {
    return new (langchainAnthropic().ChatAnthropic)({
      model: spec.model,
      // The SDK refuses to start without a key; it never falls back to ANTHROPIC_API_KEY when one is given.
      apiKey: o.apiKey ?? 'unused',
      anthropicApiUrl: baseUrl,
      temperature: o.temperature,
      maxTokens: o.maxTokens ?? CONNECTION_MAX_TOKENS,
      maxRetries: o.maxRetries,
      streaming: true,
      clientOptions: { fetch: o.fetch, timeout: o.timeoutMs },
    });
  }
  if (spec.kind === 'ollama') {
    return new (langchainOllama().ChatOllama)({ model: spec.model, baseUrl, temperature: o.temperature, numPredict: o.maxTokens, streaming: true, fetch: o.fetch });
  }
  // The Chat Completions wire format, always (see chat-model.ts in the chat app).
  return new (langchainOpenAi().ChatOpenAICompletions)({ ...openAiOptions(spec, o), temperature: o.temperature, maxTokens: o.maxTokens, streaming: true });
}

/** What every OpenAI client of a connection takes: the model, the key (never the environment's), the timeout, retries, base URL and fetch. */
function openAiOptions(spec: ModelConnectionSpec, o: ConnectionClientOptions) {
  return {
    model: spec.model,
    apiKey: o.apiKey ?? 'unused',
    timeout: o.timeoutMs,
    maxRetries: o.maxRetries,
    configuration: { baseURL: connectionBaseUrl(spec, o.ollamaBaseUrl), fetch: o.fetch },
  };
}

/** An embedder for the connection (openai or ollama: Anthropic has no embeddings API). */
export function connectionEmbeddings(spec: ModelConnectionSpec, o: ConnectionClientOptions & { batchSize?: number }): Embeddings {
  const baseUrl = connectionBaseUrl(spec, o.ollamaBaseUrl);
  if (spec.kind === 'ollama') return new (langchainOllama().OllamaEmbeddings)({ model: spec.model, baseUrl, maxRetries: o.maxRetries, fetch: o.fetch });
  if (spec.kind === 'openai') {
    return new (langchainOpenAi().OpenAIEmbeddings)({
      ...openAiOptions(spec, o),
      batchSize: o.batchSize,
      // As the installation's embedder: floats (not every compatible server speaks base64), newlines kept.
      encodingFormat: 'float',
      stripNewLines: false,
    });
  }
  throw new Error(`a ${spec.kind} connection cannot embed`);
}

/** The first error in the chain of causes with a `code` the outbound guard gives (GuardError), duck-typed across realms. */
function guardCause(err: unknown): { code: string; message: string } | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++, e = (e as { cause?: unknown }).cause) {
    if ((e as { name?: unknown }).name === 'GuardError') return e as { code: string; message: string };
  }
  return null;
}

/** The provider's words without the key, should it echo it back. */
export function withoutKey(text: string, apiKey: string | null): string {
  return apiKey && apiKey.length >= 4 ? text.split(apiKey).join('[key]') : text;
}

/**
 * What a failed call to a connection was, in plain words for the Models page: a refused key, an
 * unknown model, a blocked or unreachable address, a timeout, or the provider's own message.
 */
export function explainConnectionFailure(err: unknown, apiKey: string | null): { status: number | null; message: string } {
  const status = modelErrorStatus(err) ?? null;
  // langchain appends a link to its own troubleshooting page: not the provider's words.
  const said = withoutKey(modelErrorMessage(err), apiKey).replace(/\s*Troubleshooting URL: \S+\s*/g, ' ').trim();
  const guard = guardCause(err);
  if (guard?.code === 'blocked') return { status: null, message: `Blocked by the outbound policy: ${guard.message}. A private address (a local Ollama) needs the operator's OUTBOUND_ALLOW_CIDRS, and a port other than 80 or 443 OUTBOUND_ALLOWED_PORTS.` };
  if (guard?.code === 'timeout') return { status: null, message: `No answer in time: ${guard.message}.` };
  if (guard) return { status: null, message: `Unreachable: ${withoutKey(guard.message, apiKey)}.` };
  if (status === 401 || status === 403) return { status, message: `The provider refused the key (HTTP ${status}): ${said}` };
  if (status === 404) return { status, message: `The provider does not know this model, or the base URL is wrong (HTTP 404): ${said}` };
  if (status === 429) return { status, message: `The provider is rate-limiting this key (HTTP 429): ${said}` };
  if (status) return { status, message: `The provider answered HTTP ${status}: ${said}` };
  return { status: null, message: `Unreachable: ${said}` };
}

/** How long "Test connection" waits for the provider (the console waits a little longer for the answer: TEST_RPC_TIMEOUT_MS). */
export const TEST_TIMEOUT_MS = 20_000;
export const TEST_RPC_TIMEOUT_MS = TEST_TIMEOUT_MS + 5_000;

/**
 * One tiny request to the connection ("Test connection"): a chat model is asked for one word, an
 * embedding model embeds one short text. A refusal is a result, not a thrown error.
 */
export async function testConnection(spec: ModelConnectionSpec, use: ModelUse, o: ConnectionClientOptions): Promise<ModelConnectionTestResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const limit = Math.min(o.timeoutMs, TEST_TIMEOUT_MS);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), limit);
  // The whole test is bounded (a server may send headers and then nothing); the guard closes what is left.
  const late = new Promise<ModelConnectionTestResult>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve({ ok: false, status: null, message: `No answer in time: nothing within ${limit} ms.`, latency_ms: elapsed() }), { once: true }),
  );
  const attempt = async (): Promise<ModelConnectionTestResult> => {
    const options = { ...o, timeoutMs: limit, maxRetries: 0 };
    if (use === 'embeddings') {
      const vector = await connectionEmbeddings(spec, options).embedQuery('connection test');
      if (!Array.isArray(vector) || vector.length === 0) return { ok: false, status: 200, message: 'The provider answered without a vector.', latency_ms: elapsed() };
      return { ok: true, status: 200, message: `Connected: ${spec.model} embeds into ${vector.length} dimensions.`, latency_ms: elapsed() };
    }
    const { HumanMessage } = langchainMessages();
    const model = connectionChatModel(spec, { ...options, maxTokens: 5, temperature: 0 });
    // Streamed, as answers are (invoke() on a streaming ChatOpenAICompletions never settles).
    for await (const chunk of await model.stream([new HumanMessage('Reply with the single word OK.')], { signal: abort.signal })) void chunk;
    return { ok: true, status: 200, message: `Connected: ${spec.model} answered.`, latency_ms: elapsed() };
  };
  try {
    return await Promise.race([attempt(), late]);
  } catch (err) {
    return { ok: false, ...explainConnectionFailure(err, o.apiKey), latency_ms: elapsed() };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** What shapes one client of the installation's chat model. */
export interface InstallationChatOptions {
  temperature: number;
  maxTokens?: number;
  /** Ollama's HTTP calls (ChatOllama takes a fetch; the OpenAI SDK has its own timeout). */
  ollamaFetch?: typeof fetch;
}

/**
 * A streaming client of the installation's chat model (CHAT_MODEL_*), or null when the provider is
 * local (extractive: no model). The Chat Completions wire format always: ChatOpenAI would switch
 * some model names to the Responses API, which OpenAI-compatible servers (vLLM, llama.cpp,
 * LiteLLM …) do not speak. Stream it: invoke() on a streaming ChatOpenAICompletions never settles.
 */
export function installationChatModel(settings: ModelProviderConfig, o: InstallationChatOptions): BaseChatModel | null {
  if (settings.provider === 'openai') return new (langchainOpenAi().ChatOpenAICompletions)({ ...openAiClientOptions(settings), temperature: o.temperature, maxTokens: o.maxTokens, streaming: true });
  if (settings.provider === 'ollama') return new (langchainOllama().ChatOllama)({ model: settings.model, baseUrl: settings.ollamaBaseUrl, temperature: o.temperature, numPredict: o.maxTokens, streaming: true, fetch: o.ollamaFetch });
  return null;
}
