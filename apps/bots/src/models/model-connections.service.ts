import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  CallerContext,
  CreateModelConnectionRequest,
  MODEL_CONNECTIONS_MAX,
  ModelConnectionSpec,
  ModelConnectionTestResult,
  ModelConnectionView,
  TestModelConnectionRequest,
  UpdateModelConnectionRequest,
} from '@sa/contracts';
import { DomainError, NotFound, ValidationFailed } from '@sa/errors';
import { type ConnectionCalls, testConnection } from '@sa/llm-config';
import { RpcClient } from '@sa/messaging';
import { SecretBox } from '@sa/secret-box';
import { EvalChangePublisher } from '../behaviour/eval-change.publisher';
import { WIDGET_SECRET_BOX } from '../widget/widget-settings.service';
import { ModelConnectionsRepository, toConnectionSpec, toConnectionView } from './model-connections.repository';

const keyRequired = (kind: string) =>
  new ValidationFailed([{ code: 'required', path: ['body', 'api_key'], message: `A key is required for ${kind === 'anthropic' ? 'Anthropic' : 'api.openai.com'}` }]);

export const MODEL_CONNECTION_CALLS = Symbol('MODEL_CONNECTION_CALLS');

/** Where the provider's own API needs a key: api.openai.com and Anthropic (a self-hosted server may have none). */
function needsKey(kind: string, baseUrl: string | null): boolean {
  return (kind === 'openai' && !baseUrl) || kind === 'anthropic';
}

/**
 * A workspace's model connections (issue 32, "Models"). The key is sealed as it arrives and never
 * leaves this service in plain text: views say only whether one is set, and chat and knowledge
 * get it sealed (bots.model.spec, bots.bot.describe) and open it for the call. The console checks
 * the caller's role (owners and admins change; members read) and writes the audit log.
 */
@Injectable()
export class ModelConnectionsService {
  constructor(
    private readonly repository: ModelConnectionsRepository,
    private readonly rpc: RpcClient,
    @Inject(WIDGET_SECRET_BOX) private readonly box: SecretBox,
    @Inject(MODEL_CONNECTION_CALLS) private readonly calls: ConnectionCalls,
    @Optional() private readonly evalChanges?: EvalChangePublisher,
  ) {}

  /** The connection knowledge embeds with (or is switching to), so the list can say so and delete can refuse. */
  private async embeddingConnections(ctx: CallerContext): Promise<string[]> {
    const settings = await this.rpc.send('knowledge.embedding.get', {}, ctx);
    return [settings.connection_id, settings.status === 'reindexing' ? settings.target_connection_id : null].filter((id): id is string => !!id);
  }

  async list(ctx: CallerContext): Promise<ModelConnectionView[]> {
    const [rows, embedding] = await Promise.all([this.repository.list(ctx.tenantId), this.embeddingConnections(ctx).catch(() => [])]);
    return rows.map((r) => toConnectionView(r, embedding[0] ?? null));
  }

  private async view(ctx: CallerContext, id: string): Promise<ModelConnectionView> {
    const [row, embedding] = await Promise.all([this.repository.mustExist(ctx.tenantId, id), this.embeddingConnections(ctx).catch(() => [])]);
    return toConnectionView(row, embedding[0] ?? null);
  }

  async create(ctx: CallerContext, req: CreateModelConnectionRequest): Promise<ModelConnectionView> {
    const baseUrl = req.base_url ?? null;
    if (needsKey(req.kind, baseUrl) && !req.api_key) throw keyRequired(req.kind);
    if ((await this.repository.count(ctx.tenantId)) >= MODEL_CONNECTIONS_MAX) {
      throw new DomainError('conflict', `A workspace has at most ${MODEL_CONNECTIONS_MAX} model connections`);
    }
    const id = await this.unique(() =>
      this.repository.insert(ctx.tenantId, { name: req.name.trim(), kind: req.kind, base_url: baseUrl, model: req.model.trim(), api_key_sealed: req.api_key ? this.box.seal(req.api_key) : null }),
    );
    return this.view(ctx, id);
  }

  async update(ctx: CallerContext, req: UpdateModelConnectionRequest): Promise<ModelConnectionView> {
    const current = await this.repository.mustExist(ctx.tenantId, req.connectionId);
    const moves = (req.model !== undefined && req.model.trim() !== current.model) || (req.base_url !== undefined && req.base_url !== current.base_url);
    // The knowledge's vectors are of this model: another model (or server) means another index, made by switching.
    if (moves && (await this.embeddingConnections(ctx)).includes(req.connectionId)) {
      throw new DomainError('conflict', "The workspace's knowledge is embedded with this connection: add a connection for the other model and switch the embedding model to it");
    }
    const baseUrl = req.base_url !== undefined ? req.base_url : current.base_url;
    // The stored key only ever goes where it was given for: a new address needs it given again.
    if (req.base_url !== undefined && req.base_url !== current.base_url && current.api_key_sealed && req.api_key === undefined) {
      throw new ValidationFailed([{ code: 'required', path: ['body', 'api_key'], message: 'Give the key again with a new base URL: the stored key is never sent to another address' }]);
    }
    const sealed = req.api_key === undefined ? current.api_key_sealed : req.api_key === null ? null : this.box.seal(req.api_key);
    if (needsKey(current.kind, baseUrl) && !sealed) throw keyRequired(current.kind);
    await this.unique(() => this.repository.update(ctx.tenantId, req.connectionId, { name: req.name?.trim() ?? current.name, base_url: baseUrl, model: req.model?.trim() ?? current.model, api_key_sealed: sealed }));
    // Issue 33: the bots answering through this connection may answer differently (a rename alone does not change answers).
    if (baseUrl !== current.base_url || (req.model !== undefined && req.model.trim() !== current.model) || sealed !== current.api_key_sealed) this.evalChanges?.changed(ctx.tenantId, null, 'model');
    return this.view(ctx, req.connectionId);
  }

  /** Refused while the workspace's knowledge is embedded with it (or being switched to it); its bots go back to the installation's model. */
  async delete(ctx: CallerContext, id: string): Promise<{ deleted: true }> {
    await this.repository.mustExist(ctx.tenantId, id);
    if ((await this.embeddingConnections(ctx)).includes(id)) {
      throw new DomainError('conflict', "The workspace's knowledge is embedded with this connection: choose another embedding model first");
    }
    if (!(await this.repository.delete(ctx.tenantId, id))) throw new NotFound('Model connection');
    this.evalChanges?.changed(ctx.tenantId, null, 'model');
    return { deleted: true };
  }

  /** As chat and knowledge call it: the key still sealed. */
  async spec(ctx: CallerContext, id: string): Promise<ModelConnectionSpec> {
    return toConnectionSpec(await this.repository.mustExist(ctx.tenantId, id));
  }

  /** One tiny request to the provider; a refusal is a result, said plainly. */
  async test(ctx: CallerContext, req: TestModelConnectionRequest): Promise<ModelConnectionTestResult> {
    const row = await this.repository.mustExist(ctx.tenantId, req.connectionId);
    const use = req.use ?? 'chat';
    if (use === 'embeddings' && row.kind === 'anthropic') return { ok: false, status: null, message: 'Anthropic has no embeddings API: use an OpenAI-compatible or Ollama connection for embeddings.', latency_ms: 0 };
    const apiKey = row.api_key_sealed ? this.box.open(row.api_key_sealed) : null;
    return testConnection(toConnectionSpec(row), use, { ...this.calls, apiKey });
  }

  /** A second connection with the same name (case-insensitive) is a 409. */
  private async unique<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new DomainError('conflict', 'A model connection with this name already exists');
      throw err;
    }
  }
}
