import { BadRequest } from '@sa/errors';

/**
 * The knowledge service's vector store port: chunks of documents with their embeddings, and
 * retrieval of the passages nearest to a query. Adapters: PostgresVectorStore (embedded default,
 * hybrid vector + full-text ranking) and QdrantVectorStore (production option). Behaviour every
 * adapter must have is pinned by vector-store.contract.ts.
 *
 * Vectors are compared by cosine similarity; adapters normalise them. A chunk records the
 * embedder that produced it (`embedder`, e.g. `hashing-v1-384`, the dimension is its vector's
 * length) and a search only ever compares vectors of the embedder it names.
 */
export const VECTOR_STORE = Symbol('VECTOR_STORE');

export interface StoredChunk {
  /** Chunk id (uuid); generated when absent. Upserting an existing id replaces that chunk. */
  id?: string;
  tenantId: string;
  documentId: string;
  /** The bot the document is attached to; null = workspace-wide (available to every bot). */
  chatbotId: string | null;
  ordinal: number;
  text: string;
  title: string | null;
  sourceUrl: string | null;
  embedder: string;
  vector: number[] | Float32Array;
}

export interface SearchQuery {
  tenantId: string;
  /**
   * A bot id: that bot's chunks plus the workspace-wide ones (chatbot_id null).
   * null: every chunk of the workspace, whichever bot it is attached to.
   */
  chatbotId: string | null;
  /** Only chunks embedded by this embedder are compared with `vector`. */
  embedder: string;
  vector: number[] | Float32Array;
  /** The query's text, for the full-text side of hybrid ranking (may be empty). */
  text: string;
  /** How many hits at most (1..MAX_SEARCH_K). */
  k: number;
}

export interface SearchHit {
  chunkId: string;
  documentId: string;
  text: string;
  title: string | null;
  sourceUrl: string | null;
  /** The adapter's final score; hits come in descending order of it. */
  score: number;
  /** Cosine similarity to the query vector, when the chunk was among the vector candidates. */
  vectorScore?: number;
  /** Full-text rank, when the chunk matched the query's words. */
  textRank?: number;
}

/** A stored chunk without its vector: what re-embedding it with another embedder needs. */
export type StoredPassage = Omit<StoredChunk, 'id' | 'tenantId' | 'embedder' | 'vector'> & { id: string };

export interface VectorStore {
  upsert(chunks: StoredChunk[]): Promise<void>;
  deleteByDocument(tenantId: string, documentId: string): Promise<void>;
  /**
   * The document's chunks become exactly `chunks` (all of that document, this tenant). Readers see
   * the old chunks or the new ones, never a document without chunks: PostgreSQL replaces them in
   * one transaction; Qdrant (no transactions) writes the new points first, then removes the rest.
   */
  replaceDocument(tenantId: string, documentId: string, chunks: StoredChunk[]): Promise<void>;
  search(q: SearchQuery): Promise<SearchHit[]>;
  /** Chunks of the workspace, every embedder. */
  count(tenantId: string): Promise<number>;
  /** The chunks of `embedder` of these documents of the workspace, by document and ordinal. */
  passages(tenantId: string, embedder: string, documentIds: string[]): Promise<StoredPassage[]>;
  /** Removes the workspace's chunks of every embedder but those in `keep` (an index replaced by a switch of model). */
  deleteEmbedders(tenantId: string, keep: string[]): Promise<void>;
}

export const MAX_SEARCH_K = 100;

/** replaceDocument's chunks must all be of the document it replaces. */
export function ownChunks(tenantId: string, documentId: string, chunks: StoredChunk[]): void {
  if (chunks.some((c) => c.tenantId !== tenantId || c.documentId !== documentId)) throw new BadRequest(`replaceDocument: every chunk must be of document ${documentId} of its workspace`);
}
