export {
  DEFAULT_OLLAMA_BASE_URL,
  type ModelProviderConfig,
  type ModelProviderSpec,
  OPENAI_BASE_URL,
  REMOTE_MODEL_PROVIDERS,
  type RemoteModelProvider,
  describeModel,
  modelBaseUrl,
  modelProviderConfig,
  openAiClientOptions,
} from './model-provider';
export { modelErrorMessage, modelErrorStatus, modelFailure } from './model-errors';
export { langchainMessages, langchainOllama, langchainOpenAi } from './langchain-packages';
