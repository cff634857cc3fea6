import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BotSummary } from '@sa/contracts';
import type { ConnectionCalls } from '@sa/llm-config';
import type { SecretBox } from '@sa/secret-box';
import { createChatModelFromConfig, createConnectionChatModel } from './chat-model';
import type { ChatModelConfig } from './chat-model.config';

/** Models kept built (connections and temperatures in use); the least recently used goes first. */
const MAX_MODELS = 200;

/**
 * The model a bot answers through (issue 32, "Models"): its workspace connection when it has one,
 * else the installation's model (CHAT_MODEL_*, null: extractive), each at the bot's temperature
 * when it set one. Models are built once per connection version (its `updated_at`) and
 * temperature; the key is opened from its seal when the model is built, and held by that model
 * only.
 */
export class BotModels {
  private readonly built = new Map<string, BaseChatModel | null>();

  constructor(
    private readonly installation: BaseChatModel | null,
    private readonly config: ChatModelConfig,
    private readonly box: SecretBox,
    private readonly calls: ConnectionCalls,
  ) {}

  for(bot: Pick<BotSummary, 'model'> | null): BaseChatModel | null {
    const connection = bot?.model?.connection ?? null;
    const temperature = bot?.model?.temperature ?? null;
    if (!connection && temperature === null) return this.installation;
    const key = connection ? `${connection.id} ${connection.updated_at} ${temperature}` : `installation ${temperature}`;
    let model = this.built.get(key);
    if (model === undefined) {
      model = connection
        ? createConnectionChatModel(connection, connection.api_key_sealed ? this.box.open(connection.api_key_sealed) : null, temperature ?? this.config.chatModelTemperature, this.calls)
        : this.installation && createChatModelFromConfig({ ...this.config, chatModelTemperature: temperature! });
    } else {
      this.built.delete(key); // most recently used last
    }
    this.built.set(key, model);
    if (this.built.size > MAX_MODELS) this.built.delete(this.built.keys().next().value!);
    return model;
  }
}
