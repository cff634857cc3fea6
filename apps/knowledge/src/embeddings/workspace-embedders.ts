import type { Embeddings } from '@langchain/core/embeddings';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CallerContext, ModelConnectionSpec } from '@sa/contracts';
import { BadRequest } from '@sa/errors';
import { type ConnectionCalls, TEST_TIMEOUT_MS, connectionEmbeddings, describeConnection, explainConnectionFailure } from '@sa/llm-config';
import { RpcClient } from '@sa/messaging';
import type { SecretBox } from '@sa/secret-box';
import { CheckedEmbeddings } from './checked-embeddings';
import type { EmbedderChoice } from './embeddings.factory';
import { EmbeddingsUnavailable } from './embeddings.exception';
import { type WorkspaceEmbedderRow, WorkspaceEmbeddersRepository } from './workspace-embedders.repository';

/** An embedder, and the id its vectors are stored and searched under. */
export interface Embedder {
  /** Read it after embedding: the installation's remote embedder learns its dimension from its first answer. */
  readonly id: string;
  readonly embeddings: Embeddings;
  /** The workspace connection it calls; null: the installation's embedder. */
  readonly connectionId: string | null;
}

/** A workspace's embedding model as stored (one primary-key read). */
export interface EmbeddingState {
  row: WorkspaceEmbedderRow | null;
  /** Changes with every change of model and at the end of every switch. */
  key: string;
}

export interface EmbeddingPlan {
  active: Embedder;
  /** While a switch runs: the model switched to, which new documents are embedded with as well. */
  target: Embedder | null;
}

export interface WorkspaceEmbeddersOptions {
  /** Opens the connections' sealed keys (WEBHOOK_SECRET_KEY, as the bots service seals them). */
  box: SecretBox;
  /** The outbound guard's fetch, timeouts, retries and OLLAMA_BASE_URL (connectionCalls of @sa/llm-config). */
  calls: ConnectionCalls;
  /** Texts per request to a connection (EMBEDDINGS_BATCH_SIZE, as for the installation's embedder). */
  batchSize: number;
}

/** knowledge.chunks.embedder holds at most this many characters. */
const MAX_EMBEDDER_ID = 200;
/** How long a connection's spec is reused: a changed key or model applies within this. */
const SPEC_TTL_MS = 10_000;
/** Connection embedders kept built (connections in use); the least recently used goes first. */
const MAX_BUILT = 100;

/**
 * The id a connection's vectors are stored under: `<kind>:<model>:<dim>@<first 8 characters of
 * the connection id>`, e.g. `openai:text-embedding-3-small:1536@3f2a9c1e`. The model and dimension
 * keep the installation's id format; the connection part keeps two connections with the same model
 * name at different base URLs apart. A model name too long for the column is shortened and
 * completed with a hash of it.
 */
export function connectionEmbedderId(spec: Pick<ModelConnectionSpec, 'id' | 'kind' | 'model'>, dim: number): string {
  const tail = `:${dim}@${spec.id.slice(0, 8)}`;
  const room = MAX_EMBEDDER_ID - spec.kind.length - 1 - tail.length;
  const model = spec.model.length <= room ? spec.model : `${spec.model.slice(0, room - 9)}~${createHash('sha256').update(spec.model).digest('hex').slice(0, 8)}`;
  return `${spec.kind}:${model}${tail}`;
}

/** The dimension in a connection embedder id (NaN when it is none). */
function dimensionOf(embedderId: string): number {
  const m = /:(\d+)@[0-9a-f]{8}$/.exec(embedderId);
  return m ? Number(m[1]) : NaN;
}

/** Whether `embedderId` is what the connection, as it is now, stores its vectors under. */
export function embedsAs(spec: ModelConnectionSpec, embedderId: string | null): boolean {
  return embedderId !== null && connectionEmbedderId(spec, dimensionOf(embedderId)) === embedderId;
}

/**
 * The caller context of the service's own calls for a workspace (ingestion, re-embedding): no
 * token, no scopes, no entitlements. bots.model.spec, the one call made with it, reads only the
 * workspace.
 */
export function serviceContext(tenantId: string, requestId: string): CallerContext {
  return {
    tenantId,
    tokenId: null,
    scopes: [],
    botIds: null,
    requestId,
    entitlements: { plan: 'growth', botSlots: 0, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 0, pagesPerBot: 0, widgetMessagesPerBotPerMonth: 0, webhooks: false },
  };
}

/**
 * Which embedder a workspace's knowledge is searched and indexed with (issue 32, "Models"): the
 * installation's (EMBEDDINGS_*) or the connection the workspace chose, and while a switch runs the
 * target too. A connection's spec comes from the bots service (cached briefly); its client is
 * built once per version of the connection (`updated_at`) with the key opened from its seal then,
 * held by that client only, and wrapped in CheckedEmbeddings like the installation's remote
 * embedder, with explainConnectionFailure's words (never the key) for its failures.
 *
 * A connection whose kind or model was edited after its knowledge was embedded no longer produces
 * the stored vectors: it is refused with a message saying so, rather than mixing vectors.
 */
export class WorkspaceEmbedders {
  private readonly specs = new LRUCache<string, ModelConnectionSpec>({ max: 1000, ttl: SPEC_TTL_MS });
  private readonly built = new LRUCache<string, Embeddings>({ max: MAX_BUILT });
  private readonly installationEmbedder: Embedder;

  constructor(
    private readonly installation: EmbedderChoice,
    private readonly repository: WorkspaceEmbeddersRepository,
    private readonly rpc: RpcClient,
    private readonly options: WorkspaceEmbeddersOptions,
  ) {
    this.installationEmbedder = {
      get id() {
        return installation.id;
      },
      embeddings: installation.embeddings,
      connectionId: null,
    };
  }

  async state(tenantId: string): Promise<EmbeddingState> {
    const row = await this.repository.get(tenantId);
    return { row, key: row ? `${row.generation}:${row.status}` : 'none' };
  }

  /** The id of the searched index as stored, without calling anything. */
  activeId(row: WorkspaceEmbedderRow | null): string {
    return row?.active_embedder ?? this.installation.id;
  }

  /** The installation's embedder id, its dimension asked for once if it is not known yet. */
  async installationId(): Promise<string> {
    await this.installation.resolveDimensions();
    return this.installation.id;
  }

  active(state: EmbeddingState, ctx: CallerContext): Promise<Embedder> {
    return this.embedderOf(ctx, state.row?.active_connection_id ?? null, state.row?.active_embedder ?? null);
  }

  target(row: WorkspaceEmbedderRow, ctx: CallerContext): Promise<Embedder> {
    return this.embedderOf(ctx, row.target_connection_id, row.target_embedder);
  }

  /**
   * What a document is indexed with: while a switch runs, both models. A target that cannot be
   * reached fails the document for now (it is retried): stored without its target chunks, it would
   * be missing from the new index.
   */
  async plan(state: EmbeddingState, ctx: CallerContext): Promise<EmbeddingPlan> {
    const row = state.row;
    return { active: await this.active(state, ctx), target: row?.status === 'reindexing' ? await this.target(row, ctx) : null };
  }

  /** The embedders whose chunks the workspace needs now: the active one, and while a switch runs its target. */
  async indexIds(state: EmbeddingState): Promise<string[]> {
    const row = state.row;
    const ids = [row?.active_embedder ?? (await this.installationId())];
    if (row?.status === 'reindexing') ids.push(row.target_embedder ?? (await this.installationId()));
    return ids;
  }

  /** The connection as the bots service has it now (NotFound for one that is not the workspace's). */
  async spec(ctx: CallerContext, connectionId: string, fresh = false): Promise<ModelConnectionSpec> {
    const key = `${ctx.tenantId}:${connectionId}`;
    const cached = fresh ? undefined : this.specs.get(key);
    if (cached) return cached;
    const spec = await this.rpc.send('bots.model.spec', { connectionId }, ctx);
    this.specs.set(key, spec);
    return spec;
  }

  /** One short text embedded by the connection: the id its vectors will be stored under, or why not (400, in plain words). */
  async probe(spec: ModelConnectionSpec): Promise<string> {
    const apiKey = this.openKey(spec);
    let vector: unknown;
    try {
      // Bounded like "Test connection": the console waits TEST_RPC_TIMEOUT_MS for the answer.
      const limit = Math.min(this.options.calls.timeoutMs, TEST_TIMEOUT_MS);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${limit} ms`)), limit)));
      try {
        vector = await Promise.race([connectionEmbeddings(spec, { ...this.options.calls, timeoutMs: limit, apiKey, maxRetries: 0 }).embedQuery('dimension probe'), late]);
      } finally {
        clearTimeout(timer);
      }
    } catch (err) {
      throw new BadRequest(explainConnectionFailure(err, apiKey).message);
    }
    if (!Array.isArray(vector) || !vector.length || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new BadRequest('The provider answered without a vector.');
    return connectionEmbedderId(spec, vector.length);
  }

  private async embedderOf(ctx: CallerContext, connectionId: string | null, storedId: string | null): Promise<Embedder> {
    if (!connectionId || !storedId) return this.installationEmbedder;
    const spec = await this.spec(ctx, connectionId);
    if (!embedsAs(spec, storedId)) {
      throw new EmbeddingsUnavailable(
        `the connection now calls ${describeConnection(spec, this.options.calls.ollamaBaseUrl)}, not the model the knowledge was embedded with (${storedId}); choose it again as the embedding model to re-embed the knowledge`,
      );
    }
    const dim = dimensionOf(storedId);
    const key = `${spec.id} ${spec.updated_at} ${dim}`;
    let embeddings = this.built.get(key);
    if (!embeddings) {
      embeddings = this.build(spec, dim);
      this.built.set(key, embeddings);
    }
    return { id: storedId, embeddings, connectionId };
  }

  private build(spec: ModelConnectionSpec, dim: number): Embeddings {
    const apiKey = this.openKey(spec);
    const { calls, batchSize } = this.options;
    return new CheckedEmbeddings(connectionEmbeddings(spec, { ...calls, apiKey, batchSize }), {
      describe: describeConnection(spec, calls.ollamaBaseUrl),
      dimensions: dim,
      batchSize,
      explain: (err) => explainConnectionFailure(err, apiKey).message,
    });
  }

  private openKey(spec: ModelConnectionSpec): string | null {
    if (!spec.api_key_sealed) return null;
    try {
      return this.options.box.open(spec.api_key_sealed);
    } catch {
      throw new EmbeddingsUnavailable("the connection's key cannot be decrypted with WEBHOOK_SECRET_KEY (is it the bots service's key?)");
    }
  }
}
