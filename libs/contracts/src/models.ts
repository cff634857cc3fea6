import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { Doc, Nullable } from './schema-docs';
import { CharLength, IsHttpUrl, NotBlank } from './validation';

/**
 * A workspace's model connections (issue 32, "Models"): the providers its bots answer through and
 * its knowledge is embedded with, instead of the installation's one model from the environment.
 * The bots service keeps them; the key is sealed (SecretBox, the key of webhook signing secrets)
 * and leaves the bots service only sealed, to chat and knowledge, which unseal it per call.
 */
export const MODEL_KINDS = ['openai', 'anthropic', 'ollama'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];
/** Kinds that can embed (Anthropic has no embeddings API). */
export const EMBEDDING_MODEL_KINDS: readonly ModelKind[] = ['openai', 'ollama'];
export const MODEL_CONNECTION_NAME_MAX = 80;
export const MODEL_NAME_MAX = 200;
export const MODEL_BASE_URL_MAX = 2000;
export const MODEL_API_KEY_MAX = 1000;
export const MODEL_CONNECTIONS_MAX = 20;
export const MODEL_TEMPERATURE_MAX = 2;
/** What a connection is tried for: a chat model gets a one-word chat, an embedding model one short text. */
export const MODEL_USES = ['chat', 'embeddings'] as const;
export type ModelUse = (typeof MODEL_USES)[number];

@Doc({ name: 'ModelConnection', description: 'A provider connection of the workspace. The key is write-only: only whether one is set is shown.' })
export class ModelConnectionView {
  @IsUUID() id: string;
  @Doc('Shown in the model pickers. User text: render it as text.') @IsString() name: string;
  @Doc('openai: the OpenAI API or any OpenAI-compatible server (Azure, OpenRouter, Groq, vLLM, LM Studio); anthropic; ollama.') @IsIn(MODEL_KINDS) kind: ModelKind;
  @Doc("Null: the provider's own (https://api.openai.com/v1, https://api.anthropic.com, or the installation's OLLAMA_BASE_URL).") @Nullable() @IsString() base_url: string | null;
  @Doc("The provider's model name, e.g. gpt-4o-mini, claude-haiku-4-5, llama3.2.") @IsString() model: string;
  @Doc('Whether a key is stored. The key itself is never returned.') @IsBoolean() has_key: boolean;
  @Doc('Bots answering through it.') @IsInt() bots: number;
  @Doc("Whether the workspace's knowledge is embedded with it.") @IsBoolean() embeddings: boolean;
  @IsISO8601() created_at: string;
  @IsISO8601() updated_at: string;
}

@Doc({ name: 'ModelConnectionCreate', description: 'A new connection. Unknown members are rejected (400).' })
export class CreateModelConnectionBody {
  @Doc(`1 to ${MODEL_CONNECTION_NAME_MAX} characters.`) @IsString() @CharLength(1, MODEL_CONNECTION_NAME_MAX) @NotBlank() name: string;
  @IsIn(MODEL_KINDS) kind: ModelKind;
  @Doc("http or https; left out: the provider's own. A private address (a local Ollama) needs the operator's OUTBOUND_ALLOW_CIDRS.")
  @IsOptional()
  @Nullable()
  @IsString()
  @CharLength(1, MODEL_BASE_URL_MAX)
  @IsHttpUrl()
  base_url?: string | null;
  @Doc(`1 to ${MODEL_NAME_MAX} characters.`) @IsString() @CharLength(1, MODEL_NAME_MAX) @NotBlank() model: string;
  @Doc('Write-only: stored encrypted, never shown again. Required for api.openai.com and Anthropic.') @IsOptional() @IsString() @CharLength(1, MODEL_API_KEY_MAX) @NotBlank() api_key?: string;
}

@Doc({ name: 'ModelConnectionUpdate', description: 'A change; members left out stay as they are. `api_key: null` removes the key. Unknown members are rejected (400).' })
export class UpdateModelConnectionBody {
  @IsOptional() @IsString() @CharLength(1, MODEL_CONNECTION_NAME_MAX) @NotBlank() name?: string;
  @IsOptional() @Nullable() @IsString() @CharLength(1, MODEL_BASE_URL_MAX) @IsHttpUrl() base_url?: string | null;
  @IsOptional() @IsString() @CharLength(1, MODEL_NAME_MAX) @NotBlank() model?: string;
  @IsOptional() @Nullable() @IsString() @CharLength(1, MODEL_API_KEY_MAX) @NotBlank() api_key?: string | null;
}

@Doc({ name: 'ModelConnectionTest', description: 'What to try the connection for.' })
export class TestModelConnectionBody {
  @Doc('chat (default): one tiny chat request; embeddings: one short text embedded.') @IsOptional() @IsIn(MODEL_USES) use?: ModelUse;
}

@Doc({ name: 'ModelConnectionTestResult', description: "The outcome of one tiny request to the provider. A refusal is a result (ok false), not an error of this API." })
export class ModelConnectionTestResult {
  @IsBoolean() ok: boolean;
  @Doc("The provider's HTTP status; null when none came (unreachable, blocked, timed out).") @Nullable() @IsInt() status: number | null;
  @Doc('What happened, for people: "Connected: …" or why not (bad key, unknown model, unreachable, blocked by the outbound policy).') @IsString() message: string;
  @IsInt() latency_ms: number;
}

/** What chat and knowledge receive to call a connection's model: the key still sealed. */
export interface ModelConnectionSpec {
  id: string;
  kind: ModelKind;
  base_url: string | null;
  model: string;
  /** SecretBox-sealed; null: no key. */
  api_key_sealed: string | null;
  /** Changes whenever the connection does: a cache key. */
  updated_at: string;
}

export class ModelConnectionIdRequest {
  @IsUUID() connectionId: string;
}
export class CreateModelConnectionRequest extends CreateModelConnectionBody {}
export class UpdateModelConnectionRequest extends UpdateModelConnectionBody {
  @IsUUID() connectionId: string;
}
export class TestModelConnectionRequest extends TestModelConnectionBody {
  @IsUUID() connectionId: string;
}
export class ListModelConnectionsRequest {}

/** The workspace's embedding model and the state of its index (knowledge). */
@Doc({ name: 'EmbeddingSettings', description: "The workspace's embedding model. Changing it re-embeds the knowledge in the background; the old index answers until the new one is complete." })
export class EmbeddingSettingsView {
  @Doc("The connection the knowledge is embedded with; null: the installation's default embedder.") @Nullable() @IsUUID() connection_id: string | null;
  @Doc('Which embedder produced the index searched now, e.g. hashing:hashing-v1:384.') @IsString() embedder: string;
  @Doc('ready: nothing to do; reindexing: a new index is being filled; failed: the last change could not complete (see error), the old index still answers.')
  @IsIn(['ready', 'reindexing', 'failed'])
  status: 'ready' | 'reindexing' | 'failed';
  @Doc('The connection being switched to while reindexing (or that failed); null: the default embedder or none.') @Nullable() @IsUUID() target_connection_id: string | null;
  @Doc('Documents embedded with the new model so far, and how many there are.') @IsInt() done: number;
  @IsInt() total: number;
  @Nullable() @IsString() error: string | null;
  @Nullable() @IsISO8601() started_at: string | null;
  @Nullable() @IsISO8601() completed_at: string | null;
}

@Doc({ name: 'EmbeddingSettingsUpdate', description: 'Switch the embedding model. Unknown members are rejected (400).' })
export class UpdateEmbeddingSettingsBody {
  @Doc("An openai or ollama connection of the workspace; null: the installation's default embedder.") @Nullable() @IsUUID() connection_id: string | null;
}
export class UpdateEmbeddingSettingsRequest extends UpdateEmbeddingSettingsBody {}
export class EmbeddingSettingsRequest {}

/** A bot's model choice (beside its behaviour): a connection of the workspace or the installation default, and a temperature. */
export interface BotModelChoice {
  /** Null: the installation's chat model (CHAT_MODEL_*). */
  model_connection_id: string | null;
  /** 0 to 2; null: the installation's CHAT_MODEL_TEMPERATURE. */
  temperature: number | null;
}

