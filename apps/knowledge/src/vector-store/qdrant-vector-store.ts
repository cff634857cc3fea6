import { createHash, randomUUID } from 'node:crypto';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { BadRequest } from '@sa/errors';
import { MAX_SEARCH_K, ownChunks, SearchHit, SearchQuery, StoredChunk, StoredPassage, VectorStore } from './vector-store.port';

export interface QdrantVectorStoreOptions {
  /** Prefix of the collections this store owns (default `sa_chunks_`). */
  collectionPrefix?: string;
}

type Filter = Parameters<QdrantClient['query']>[1]['filter'];

interface ChunkPayload {
  tenant_id: string;
  document_id: string;
  chatbot_id: string | null;
  /** true when chatbot_id is null: matched with a plain keyword/bool condition (see search). */
  workspace_wide: boolean;
  embedder: string;
  ordinal: number;
  text: string;
  title: string | null;
  source_url: string | null;
}

/**
 * Qdrant adapter (`@qdrant/js-client-rest`), for production deployments that run Qdrant.
 *
 * - One collection per embedder and dimension, `<prefix><embedder id, sanitised>_<dim>` (plus a
 *   short hash of the id when sanitising changed it), created on first write with cosine
 *   distance, and payload indexes on tenant_id (a tenant index), chatbot_id, workspace_wide,
 *   document_id and embedder. Searching with an embedder therefore never meets other vectors.
 * - Point id = chunk uuid; payload carries the passage (text, title, source URL).
 * - Filters: tenant_id and embedder must match; with a bot id, `should` [chatbot_id = bot,
 *   workspace_wide = true]. Workspace-wide chunks are marked with an explicit boolean instead of
 *   relying on null semantics (Qdrant's is_null matches only an explicit null, is_empty also a
 *   missing field or []; a boolean keeps the condition indexable and unambiguous).
 * - Ranking: Qdrant's vector search only (score = cosine similarity). Full-text fusion is not
 *   done here: the passages' words are not indexed in Qdrant.
 */
export class QdrantVectorStore implements VectorStore {
  private readonly prefix: string;
  private readonly ready = new Map<string, Promise<void>>();

  constructor(
    private readonly client: QdrantClient,
    options: QdrantVectorStoreOptions = {},
  ) {
    this.prefix = options.collectionPrefix ?? 'sa_chunks_';
  }

  /** The collection holding the vectors of `embedder` with `dim` dimensions. */
  collectionName(embedder: string, dim: number): string {
    return `${this.collectionStem(embedder)}_${dim}`;
  }

  private collectionStem(embedder: string): string {
    const clean = embedder.toLowerCase().replace(/[^a-z0-9_-]+/g, '_').slice(0, 100);
    const suffix = clean === embedder ? '' : `_${createHash('sha256').update(embedder).digest('hex').slice(0, 8)}`;
    return `${this.prefix}${clean}${suffix}`;
  }

  async upsert(chunks: StoredChunk[]): Promise<void> {
    const byCollection = new Map<string, { dim: number; points: { id: string; vector: number[]; payload: Record<string, unknown> }[] }>();
    for (const c of chunks) {
      const vector = normalised(c.vector, `chunk ${c.id ?? c.ordinal} of document ${c.documentId}`);
      const name = this.collectionName(c.embedder, vector.length);
      const group = byCollection.get(name) ?? { dim: vector.length, points: [] };
      const payload: ChunkPayload = {
        tenant_id: c.tenantId,
        document_id: c.documentId,
        chatbot_id: c.chatbotId,
        workspace_wide: c.chatbotId === null,
        embedder: c.embedder,
        ordinal: c.ordinal,
        text: c.text,
        title: c.title,
        source_url: c.sourceUrl,
      };
      group.points.push({ id: c.id ?? randomUUID(), vector, payload: payload as unknown as Record<string, unknown> });
      byCollection.set(name, group);
    }
    // An id upserted under another embedder than before must not stay in the old collection.
    const explicitIds = chunks.map((c) => c.id).filter((id): id is string => !!id);
    if (explicitIds.length) {
      for (const name of await this.ownCollections()) {
        if (!byCollection.has(name)) await this.client.delete(name, { wait: true, points: explicitIds });
      }
    }
    for (const [name, group] of byCollection) {
      await this.ensureCollection(name, group.dim);
      for (let i = 0; i < group.points.length; i += 256) {
        await this.client.upsert(name, { wait: true, points: group.points.slice(i, i + 256) });
      }
    }
  }

  async deleteByDocument(tenantId: string, documentId: string): Promise<void> {
    const filter = { must: [match('tenant_id', tenantId), match('document_id', documentId)] };
    for (const name of await this.ownCollections()) await this.client.delete(name, { wait: true, filter });
  }

  /**
   * No transactions in Qdrant: the new points are upserted first (chunk ids derive from document
   * and position, so most overwrite the old ones in place), then the document's other points go.
   * Searches in between see old and new chunks side by side, never a document without any.
   */
  async replaceDocument(tenantId: string, documentId: string, chunks: StoredChunk[]): Promise<void> {
    ownChunks(tenantId, documentId, chunks);
    const withIds = chunks.map((c) => ({ ...c, id: c.id ?? randomUUID() }));
    await this.upsert(withIds);
    const keep = withIds.map((c) => c.id);
    const filter = { must: [match('tenant_id', tenantId), match('document_id', documentId)], must_not: keep.length ? [{ has_id: keep }] : [] };
    for (const name of await this.ownCollections()) await this.client.delete(name, { wait: true, filter: filter as NonNullable<Filter> });
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    if (!Number.isInteger(q.k) || q.k < 1 || q.k > MAX_SEARCH_K) throw new BadRequest(`k must be an integer from 1 to ${MAX_SEARCH_K} (got ${q.k})`);
    const vector = normalised(q.vector, 'the query vector');
    const name = this.collectionName(q.embedder, vector.length);
    if (!(await this.client.collectionExists(name)).exists) return [];
    const must: object[] = [match('tenant_id', q.tenantId), match('embedder', q.embedder)];
    if (q.chatbotId !== null) must.push({ should: [match('chatbot_id', q.chatbotId), { key: 'workspace_wide', match: { value: true } }] });
    const res = await this.client.query(name, { query: vector, filter: { must } as Filter, limit: q.k, with_payload: true });
    return res.points.map((p) => {
      const payload = p.payload as unknown as ChunkPayload;
      return {
        chunkId: String(p.id),
        documentId: payload.document_id,
        text: payload.text,
        title: payload.title ?? null,
        sourceUrl: payload.source_url ?? null,
        score: p.score,
        vectorScore: p.score,
      };
    });
  }

  async count(tenantId: string): Promise<number> {
    let total = 0;
    for (const name of await this.ownCollections()) {
      total += (await this.client.count(name, { filter: { must: [match('tenant_id', tenantId)] }, exact: true })).count;
    }
    return total;
  }

  async passages(tenantId: string, embedder: string, documentIds: string[]): Promise<StoredPassage[]> {
    if (!documentIds.length) return [];
    const stem = `${this.collectionStem(embedder)}_`;
    const filter = { must: [match('tenant_id', tenantId), match('embedder', embedder), { key: 'document_id', match: { any: documentIds } }] } as NonNullable<Filter>;
    const out: StoredPassage[] = [];
    for (const name of (await this.ownCollections()).filter((n) => n.startsWith(stem) && /^\d+$/.test(n.slice(stem.length)))) {
      let offset: string | number | undefined;
      do {
        const page = await this.client.scroll(name, { filter, limit: 256, offset, with_payload: true, with_vector: false });
        for (const p of page.points) {
          const payload = p.payload as unknown as ChunkPayload;
          out.push({ id: String(p.id), documentId: payload.document_id, chatbotId: payload.chatbot_id ?? null, ordinal: payload.ordinal, text: payload.text, title: payload.title ?? null, sourceUrl: payload.source_url ?? null });
        }
        const next = page.next_page_offset;
        offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
      } while (offset !== undefined);
    }
    return out.sort((a, b) => (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : a.ordinal - b.ordinal));
  }

  async deleteEmbedders(tenantId: string, keep: string[]): Promise<void> {
    const filter = { must: [match('tenant_id', tenantId)], must_not: keep.length ? [{ key: 'embedder', match: { any: keep } }] : [] };
    for (const name of await this.ownCollections()) await this.client.delete(name, { wait: true, filter: filter as NonNullable<Filter> });
  }

  private async ownCollections(): Promise<string[]> {
    const res = await this.client.getCollections();
    return res.collections.map((c) => c.name).filter((n) => n.startsWith(this.prefix));
  }

  /** Creates the collection and its payload indexes once (per process; idempotent across replicas). */
  private ensureCollection(name: string, dim: number): Promise<void> {
    let p = this.ready.get(name);
    if (!p) {
      p = this.createCollection(name, dim);
      p.catch(() => this.ready.delete(name));
      this.ready.set(name, p);
    }
    return p;
  }

  private async createCollection(name: string, dim: number): Promise<void> {
    if (!(await this.client.collectionExists(name)).exists) {
      try {
        await this.client.createCollection(name, { vectors: { size: dim, distance: 'Cosine' } });
      } catch (err) {
        // Another replica created it first.
        if (!(await this.client.collectionExists(name)).exists) throw err;
      }
    }
    await this.client.createPayloadIndex(name, { field_name: 'tenant_id', field_schema: { type: 'keyword', is_tenant: true }, wait: true });
    for (const field of ['chatbot_id', 'document_id', 'embedder']) {
      await this.client.createPayloadIndex(name, { field_name: field, field_schema: 'keyword', wait: true });
    }
    await this.client.createPayloadIndex(name, { field_name: 'workspace_wide', field_schema: 'bool', wait: true });
  }
}

function match(key: string, value: string): { key: string; match: { value: string } } {
  return { key, match: { value } };
}

function normalised(v: ArrayLike<number>, what: string): number[] {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  if (!v.length || !Number.isFinite(sum) || sum === 0) throw new BadRequest(`${what}: the vector must be non-empty, finite and not all zeros`);
  const inv = 1 / Math.sqrt(sum);
  return Array.from(v, (x) => x * inv);
}
