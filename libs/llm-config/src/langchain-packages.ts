/**
 * langchain's provider packages and message classes, loaded when a model is configured or first
 * called rather than at every start, where they were a third of a service's load time
 * (docs/decisions/operations.md, "Start time"). Node caches each module: later calls cost a lookup.
 */
export const langchainOpenAi = () => require('@langchain/openai') as typeof import('@langchain/openai');
export const langchainOllama = () => require('@langchain/ollama') as typeof import('@langchain/ollama');
export const langchainMessages = () => require('@langchain/core/messages') as typeof import('@langchain/core/messages');
export const langchainAnthropic = () => require('@langchain/anthropic') as typeof import('@langchain/anthropic');
