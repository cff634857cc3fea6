import { type EnvSource, env } from '@sa/config';

/**
 * One model provider setting, read the same way for every model the services use: the chat model
 * (CHAT_MODEL_*), the lead-scoring model (LEADS_MODEL_*) and the embedder (EMBEDDINGS_*). Each has
 * a local choice that needs no network and no model (extractive, rules, hashing), and the two
 * remote ones: `openai` (the OpenAI API or any OpenAI-compatible server) and `ollama`.
 */
export const REMOTE_MODEL_PROVIDERS = ['openai', 'ollama'] as const;
export type RemoteModelProvider = (typeof REMOTE_MODEL_PROVIDERS)[number];

export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';
/** Where `openai` goes when no base URL is set. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ModelProviderSpec<L extends string> {
  /** The variables' prefix: `CHAT_MODEL` reads CHAT_MODEL_PROVIDER, CHAT_MODEL_BASE_URL, CHAT_MODEL_API_KEY … */
  prefix: string;
  /** The local provider, which is the default. */
  local: L;
  /** The variable that names the model; `<prefix>_NAME` unless given. */
  modelVariable?: string;
  /** Defaults of `<prefix>_TIMEOUT_MS` (100 to 600000) and `<prefix>_MAX_RETRIES` (0 to 10). */
  timeoutMs: number;
  maxRetries: number;
}

export interface ModelProviderConfig<L extends string = string> {
  readonly provider: L | RemoteModelProvider;
  /** `<prefix>_BASE_URL`: an OpenAI-compatible server instead of api.openai.com. */
  readonly baseUrl?: string;
  readonly apiKey?: string;
  /** Set whenever the provider is remote (the config requires it). */
  readonly model?: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  /** OLLAMA_BASE_URL, shared by every model. */
  readonly ollamaBaseUrl: string;
}

/**
 * A reader for parseConfig (@sa/config): one member of an app's config shape that reads the
 * provider's variables and adds every problem to the one ConfigError (an unknown provider, a
 * remote provider without a model, api.openai.com without a key, a base URL that is not http(s),
 * numbers out of range).
 */
export function modelProviderConfig<L extends string>(spec: ModelProviderSpec<L>): (src: EnvSource, problems: string[]) => ModelProviderConfig<L> {
  const v = (suffix: string) => `${spec.prefix}_${suffix}`;
  const modelVariable = spec.modelVariable ?? v('NAME');
  const readers = {
    provider: env.oneOf<L | RemoteModelProvider>(v('PROVIDER'), [spec.local, ...REMOTE_MODEL_PROVIDERS], spec.local),
    baseUrl: env.optionalUrl(v('BASE_URL'), ['http', 'https']),
    apiKey: env.optionalStr(v('API_KEY')),
    model: env.optionalStr(modelVariable),
    timeoutMs: env.int(v('TIMEOUT_MS'), spec.timeoutMs, { min: 100, max: 600000 }),
    maxRetries: env.int(v('MAX_RETRIES'), spec.maxRetries, { min: 0, max: 10 }),
    ollamaBaseUrl: env.url('OLLAMA_BASE_URL', DEFAULT_OLLAMA_BASE_URL, ['http', 'https']),
  };
  return (src, problems) => {
    const provider = readers.provider(src, problems);
    const baseUrl = readers.baseUrl(src, problems);
    // api.openai.com needs a key; a self-hosted OpenAI-compatible server (<prefix>_BASE_URL) may not.
    const apiKey = readers.apiKey(src, problems);
    if (!apiKey && src[v('PROVIDER')] === 'openai' && !src[v('BASE_URL')]) problems.push(`${v('API_KEY')} is required when ${v('PROVIDER')} is openai and ${v('BASE_URL')} is not set`);
    // Only the remote providers need a model name.
    const model = readers.model(src, problems);
    const remote = (REMOTE_MODEL_PROVIDERS as readonly string[]).includes(src[v('PROVIDER')] ?? '');
    if (!model && remote) problems.push(`${modelVariable} is required when ${v('PROVIDER')} is ${src[v('PROVIDER')]}`);
    return Object.freeze({
      provider,
      baseUrl,
      apiKey,
      model,
      timeoutMs: readers.timeoutMs(src, problems),
      maxRetries: readers.maxRetries(src, problems),
      ollamaBaseUrl: readers.ollamaBaseUrl(src, problems),
    });
  };
}

/** The base URL a remote provider is called at. */
export function modelBaseUrl(config: ModelProviderConfig): string {
  return config.provider === 'ollama' ? config.ollamaBaseUrl : (config.baseUrl ?? OPENAI_BASE_URL);
}

/** For log lines and errors: `openai (model m at http://…)`. */
export function describeModel(config: ModelProviderConfig): string {
  return `${config.provider} (model ${config.model} at ${modelBaseUrl(config)})`;
}

/**
 * The options every langchain OpenAI client (chat or embeddings) takes from the config: the model,
 * the key, the timeout and retries, and the base URL, always explicit.
 */
export function openAiClientOptions(config: ModelProviderConfig): { model: string; apiKey: string; timeout: number; maxRetries: number; configuration: { baseURL: string } } {
  return {
    model: config.model ?? '',
    // A self-hosted server without auth still needs some key: the SDK refuses to start without
    // one, and it must never fall back to a stray OPENAI_API_KEY (or OPENAI_BASE_URL) in the environment.
    apiKey: config.apiKey ?? 'unused',
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    configuration: { baseURL: modelBaseUrl(config) },
  };
}
