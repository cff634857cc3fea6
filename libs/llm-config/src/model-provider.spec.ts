import { ConfigError, parseConfig } from '@sa/config';
import { describeModel, modelBaseUrl, modelProviderConfig, openAiClientOptions } from './model-provider';

const shape = {
  model: modelProviderConfig({ prefix: 'TEST_MODEL', local: 'rules', timeoutMs: 20000, maxRetries: 1 }),
};
const embeddings = {
  model: modelProviderConfig({ prefix: 'EMB', local: 'hashing', modelVariable: 'EMB_MODEL', timeoutMs: 30000, maxRetries: 2 }),
};

function problemsOf(source: Record<string, string>, s: typeof shape | typeof embeddings = shape): string[] {
  try {
    parseConfig(s, source);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('parseConfig did not throw');
}

describe('modelProviderConfig', () => {
  it('defaults to the local provider, with the given timeout and retries and the local Ollama', () => {
    const { model } = parseConfig(shape, {});
    expect(model).toEqual({ provider: 'rules', baseUrl: undefined, apiKey: undefined, model: undefined, timeoutMs: 20000, maxRetries: 1, ollamaBaseUrl: 'http://127.0.0.1:11434' });
    expect(Object.isFrozen(model)).toBe(true);
  });

  it('reads every variable of the prefix, and the model variable given', () => {
    const { model } = parseConfig(shape, {
      TEST_MODEL_PROVIDER: 'openai',
      TEST_MODEL_BASE_URL: 'http://llm.local:8000/v1',
      TEST_MODEL_API_KEY: 'k',
      TEST_MODEL_NAME: 'qwen2.5',
      TEST_MODEL_TIMEOUT_MS: '5000',
      TEST_MODEL_MAX_RETRIES: '0',
      OLLAMA_BASE_URL: 'http://gpu.local:11434',
    });
    expect(model).toEqual({ provider: 'openai', baseUrl: 'http://llm.local:8000/v1', apiKey: 'k', model: 'qwen2.5', timeoutMs: 5000, maxRetries: 0, ollamaBaseUrl: 'http://gpu.local:11434' });
    expect(parseConfig(embeddings, { EMB_PROVIDER: 'ollama', EMB_MODEL: 'nomic-embed-text' }).model).toMatchObject({ provider: 'ollama', model: 'nomic-embed-text' });
  });

  it('collects every problem, named after the variables', () => {
    expect(problemsOf({ TEST_MODEL_PROVIDER: 'openai', TEST_MODEL_TIMEOUT_MS: '10', TEST_MODEL_MAX_RETRIES: '11', OLLAMA_BASE_URL: 'ftp://x' })).toEqual([
      'TEST_MODEL_API_KEY is required when TEST_MODEL_PROVIDER is openai and TEST_MODEL_BASE_URL is not set',
      'TEST_MODEL_NAME is required when TEST_MODEL_PROVIDER is openai',
      'TEST_MODEL_TIMEOUT_MS must be at least 100 (got 10)',
      'TEST_MODEL_MAX_RETRIES must be at most 10 (got 11)',
      'OLLAMA_BASE_URL must use http or https (got "ftp:")',
    ]);
    expect(problemsOf({ TEST_MODEL_PROVIDER: 'anthropic' })).toEqual(['TEST_MODEL_PROVIDER must be one of rules, openai, ollama (got "anthropic")']);
    expect(problemsOf({ TEST_MODEL_PROVIDER: 'ollama', TEST_MODEL_BASE_URL: 'file:///etc' })).toEqual([
      'TEST_MODEL_BASE_URL must use http or https (got "file:")',
      'TEST_MODEL_NAME is required when TEST_MODEL_PROVIDER is ollama',
    ]);
    expect(problemsOf({ EMB_PROVIDER: 'ollama' }, embeddings)).toEqual(['EMB_MODEL is required when EMB_PROVIDER is ollama']);
  });

  it('needs a key only for api.openai.com, a model only for the remote providers', () => {
    expect(parseConfig(shape, { TEST_MODEL_PROVIDER: 'openai', TEST_MODEL_BASE_URL: 'http://127.0.0.1:8080/v1', TEST_MODEL_NAME: 'm' }).model.apiKey).toBeUndefined();
    expect(parseConfig(shape, { TEST_MODEL_PROVIDER: 'ollama', TEST_MODEL_NAME: 'm' }).model.provider).toBe('ollama');
    expect(parseConfig(shape, { TEST_MODEL_PROVIDER: 'rules' }).model.model).toBeUndefined();
  });
});

describe('the client side', () => {
  const config = (source: Record<string, string>) => parseConfig(shape, source).model;

  it('names the model and where it is called', () => {
    expect(describeModel(config({ TEST_MODEL_PROVIDER: 'openai', TEST_MODEL_NAME: 'gpt-4o-mini', TEST_MODEL_API_KEY: 'k' }))).toBe('openai (model gpt-4o-mini at https://api.openai.com/v1)');
    expect(describeModel(config({ TEST_MODEL_PROVIDER: 'openai', TEST_MODEL_NAME: 'm', TEST_MODEL_BASE_URL: 'http://llm.local/v1' }))).toBe('openai (model m at http://llm.local/v1)');
    expect(describeModel(config({ TEST_MODEL_PROVIDER: 'ollama', TEST_MODEL_NAME: 'llama3.2', TEST_MODEL_BASE_URL: 'http://ignored/v1', OLLAMA_BASE_URL: 'http://gpu:11434' }))).toBe(
      'ollama (model llama3.2 at http://gpu:11434)',
    );
    expect(modelBaseUrl(config({}))).toBe('https://api.openai.com/v1');
  });

  it('gives an OpenAI client an explicit key and base URL, never the environment of the SDK', () => {
    expect(openAiClientOptions(config({ TEST_MODEL_PROVIDER: 'openai', TEST_MODEL_NAME: 'm', TEST_MODEL_BASE_URL: 'http://llm.local/v1', TEST_MODEL_TIMEOUT_MS: '5000' }))).toEqual({
      model: 'm',
      apiKey: 'unused',
      timeout: 5000,
      maxRetries: 1,
      configuration: { baseURL: 'http://llm.local/v1' },
    });
    expect(openAiClientOptions(config({ TEST_MODEL_PROVIDER: 'openai', TEST_MODEL_NAME: 'm', TEST_MODEL_API_KEY: 'sk-1' }))).toMatchObject({ apiKey: 'sk-1', configuration: { baseURL: 'https://api.openai.com/v1' } });
  });
});
