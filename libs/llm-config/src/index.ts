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
export { langchainAnthropic, langchainMessages, langchainOllama, langchainOpenAi } from './langchain-packages';
export {
  ANTHROPIC_BASE_URL,
  CONNECTION_MAX_TOKENS,
  type ConnectionClientOptions,
  connectionBaseUrl,
  connectionChatModel,
  connectionEmbeddings,
  describeConnection,
  explainConnectionFailure,
  type InstallationChatOptions,
  installationChatModel,
  TEST_RPC_TIMEOUT_MS,
  TEST_TIMEOUT_MS,
  testConnection,
  withoutKey,
} from './connection-models';
export { type ConnectionCalls, connectionCalls, connectionCallsConfig } from './connection-calls';
