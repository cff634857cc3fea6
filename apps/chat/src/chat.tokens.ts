export const CHAT_LOGGER = Symbol('CHAT_LOGGER');
/** The configured langchain chat model, or null for the extractive default. */
export const CHAT_MODEL = Symbol('CHAT_MODEL');
/** BotModels: the model each bot answers through (its workspace connection or the installation's). */
export const BOT_MODELS = Symbol('BOT_MODELS');
