import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import { BadRequest } from '@sa/errors';
import { inTransaction } from '@sa/db';
import { documentLexemes, type TextMatch } from '@sa/lexicon';
import { reciprocalRankFusion, RRF_K } from './rrf';
import { lexemeQuery, MAX_LEXEME_TERMS, queryLexemeInputs, queryTerms, websearchOrQuery } from './text-query';
import { IndexCapacityExceeded, IndexHit, IndexPrecision, LOAD_HEADROOM, VectorIndex } from './vector-index';
import { MAX_SEARCH_K, ownChunks, SearchHit, SearchQuery, StoredChunk, StoredPassage, VectorStore } from './vector-store.port';

/** The few logger methods the store uses (pino's signature). */
export interface VectorStoreLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
}

export interface PostgresVectorStoreOptions {
  /** RRF constant (default 60). */
  rrfK?: number;
  /** Weight of the vector ranking in the fusion (default 1). */
  vectorWeight?: number;
  /** Weight of the full-text ranking in the fusion (default 1; 0 = vector ranking only). */
  textWeight?: number;
  /** Candidates taken from each ranking before fusion (default max(4k, 40); never fewer than k). */
  candidates?: number;
  /**
   * Memory the in-process indexes of all workspaces may hold together (default 1 GiB: about
   * 2,400,000 vectors of 384 dimensions quantised, 640,000 exact). Least recently searched indexes
   * are dropped to make room; a workspace whose index alone would exceed it is searched by a
   * (slow) SQL scan instead.
   */
  maxIndexBytes?: number;
  /**
   * Largest index kept exact, in float32 (default 256 MiB, about 170,000 vectors of 384
   * dimensions); a larger workspace gets an int8 quantised index whose best candidates are
   * re-scored with their exact vectors from PostgreSQL (issue 36). 0: always quantised.
   */
  exactIndexMaxBytes?: number;
  /**
   * Candidates of a quantised index re-scored exactly before the vector side's ranking is cut to
   * its `candidates` (default max(3 x candidates, 100)).
   */
  rescoreCandidates?: number;
  /**
   * Full-text work bound: query words are used rarest first while the rows they are estimated to
   * match (PostgreSQL's lexeme statistics x the workspace's chunks) stay within this (default
   * 1500); words too common to fit are left to the vector side. ts_rank_cd has no idf, so this
   * also keeps common words from drowning the informative ones.
   */
  textMatchBudget?: number;
  /** How long lexeme statistics are reused before being read again (default 5 minutes). */
  statsTtlMs?: number;
  /** Rows per query when loading an index (default 4000). */
  loadPageSize?: number;
  /**
   * How the full-text side compares words (TEXT_MATCH, issue 33): 'stems' (default) searches the
   * `lex` column (stems of the chunk's language, English synonyms added to queries); 'surface'
   * searches `tsv`, the words as written. Both columns are always written.
   */
  textMatch?: TextMatch;
  /** 'js' forces the plain JavaScript scan instead of WebAssembly SIMD (tests). */
  kernel?: 'simd' | 'js';
  logger?: VectorStoreLogger;
}

interface Stamp {
  n: number;
  seqSum: number;
  version: number;
  rewrites: number;
}

interface Entry {
  key: string;
  tenantId: string;
  embedder: string;
  /** null: too large to hold, searched in SQL. */
  index: VectorIndex | null;
  version: number;
  rewrites: number;
  /** The load or sync in progress (one at a time per entry). */
  pending: Promise<void> | null;
}

interface LexemeStats {
  at: number;
  /** Share of rows containing each of the most common lexemes. */
  freq: Map<string, number>;
  /** Share assumed for a lexeme not in the list (half the least common listed one). */
  unlisted: number;
  /** Rows of knowledge.chunks (all workspaces) as of the last ANALYZE. */
  rows: number;
}

const DEFAULT_MAX_INDEX_BYTES = 1024 ** 3;
const DEFAULT_EXACT_INDEX_MAX_BYTES = 256 * 1024 ** 2;
const INSERT_BATCH = 500;
/** Raw column values (strings): the load path parses them itself. */
const RAW_TYPES = { getTypeParser: () => (value: string) => value } as unknown as QueryConfig['types'];
/** Extra fused candidates fetched in case some were deleted since the index saw them. */
const FETCH_SLACK = 10;

/**
 * The embedded vector store: PostgreSQL (knowledge.chunks) is the source of truth; searches run
 * against an in-process exact index per (workspace, embedder), fused with PostgreSQL full-text
 * ranking by reciprocal rank fusion. See README.md beside this file for the design.
 */
export class PostgresVectorStore implements VectorStore {
  private readonly entries = new Map<string, Entry>();
  private readonly rrfK: number;
  private readonly vectorWeight: number;
  private readonly textWeight: number;
  private readonly maxIndexBytes: number;
  private readonly exactIndexMaxBytes: number;
  private readonly loadPageSize: number;
  private readonly textMatch: TextMatch;
  private lexemeStats: LexemeStats | null = null;
  private lexemeStatsPending: Promise<LexemeStats> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresVectorStoreOptions = {},
  ) {
    this.rrfK = options.rrfK ?? RRF_K;
    this.vectorWeight = options.vectorWeight ?? 1;
    this.textWeight = options.textWeight ?? 1;
    this.maxIndexBytes = options.maxIndexBytes ?? DEFAULT_MAX_INDEX_BYTES;
    this.exactIndexMaxBytes = options.exactIndexMaxBytes ?? DEFAULT_EXACT_INDEX_MAX_BYTES;
    this.loadPageSize = options.loadPageSize ?? 4000;
    this.textMatch = options.textMatch ?? 'stems';
  }

  async upsert(chunks: StoredChunk[]): Promise<void> {
    const byTenant = new Map<string, StoredChunk[]>();
    for (const c of chunks) {
      const list = byTenant.get(c.tenantId) ?? [];
      list.push(c);
      byTenant.set(c.tenantId, list);
    }
    for (const [tenantId, list] of byTenant) {
      const rows = list.map((c) => ({ chunk: c, vector: normalised(c.vector, `chunk ${c.id ?? c.ordinal} of document ${c.documentId}`) }));
      const deleted = await this.transaction(async (db) => {
        const ids = list.map((c) => c.id).filter((id): id is string => !!id);
        const removed = ids.length ? (await db.query(`DELETE FROM knowledge.chunks WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING seq, embedder`, [tenantId, ids])).rows : [];
        for (let i = 0; i < rows.length; i += INSERT_BATCH) await this.insertBatch(db, tenantId, rows.slice(i, i + INSERT_BATCH));
        return removed as { seq: string; embedder: string }[];
      });
      this.forgetLocally(tenantId, deleted);
    }
  }

  async deleteByDocument(tenantId: string, documentId: string): Promise<void> {
    const res = await this.pool.query(`DELETE FROM knowledge.chunks WHERE tenant_id = $1 AND document_id = $2 RETURNING seq, embedder`, [tenantId, documentId]);
    this.forgetLocally(tenantId, res.rows);
  }

  async replaceDocument(tenantId: string, documentId: string, chunks: StoredChunk[]): Promise<void> {
    ownChunks(tenantId, documentId, chunks);
    const rows = chunks.map((c) => ({ chunk: c, vector: normalised(c.vector, `chunk ${c.id ?? c.ordinal} of document ${c.documentId}`) }));
    const deleted = await this.transaction(async (db) => {
      const removed = (await db.query(`DELETE FROM knowledge.chunks WHERE tenant_id = $1 AND document_id = $2 RETURNING seq, embedder`, [tenantId, documentId])).rows;
      for (let i = 0; i < rows.length; i += INSERT_BATCH) await this.insertBatch(db, tenantId, rows.slice(i, i + INSERT_BATCH));
      return removed as { seq: string; embedder: string }[];
    });
    this.forgetLocally(tenantId, deleted);
  }

  async count(tenantId: string): Promise<number> {
    const res = await this.pool.query(`SELECT coalesce(sum(n_chunks), 0)::text AS n FROM knowledge.chunk_index_stamps WHERE tenant_id = $1`, [tenantId]);
    return Number(res.rows[0].n);
  }

  async passages(tenantId: string, embedder: string, documentIds: string[]): Promise<StoredPassage[]> {
    if (!documentIds.length) return [];
    const res = await this.pool.query(
      `SELECT id, document_id AS "documentId", chatbot_id AS "chatbotId", ordinal, text, title, source_url AS "sourceUrl"
         FROM knowledge.chunks WHERE tenant_id = $1 AND embedder = $2 AND document_id = ANY($3::uuid[]) ORDER BY document_id, ordinal`,
      [tenantId, embedder, documentIds],
    );
    return res.rows;
  }

  async deleteEmbedders(tenantId: string, keep: string[]): Promise<void> {
    await this.pool.query(`DELETE FROM knowledge.chunks WHERE tenant_id = $1 AND embedder <> ALL($2::text[])`, [tenantId, keep]);
    // Whole indexes go: this process drops them now (other replicas see the stamps change).
    for (const [key, entry] of this.entries) if (entry.tenantId === tenantId && !keep.includes(entry.embedder)) this.entries.delete(key);
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    if (!Number.isInteger(q.k) || q.k < 1 || q.k > MAX_SEARCH_K) throw new BadRequest(`k must be an integer from 1 to ${MAX_SEARCH_K} (got ${q.k})`);
    if (!q.vector.length) throw new BadRequest('the query vector is empty');
    const n = Math.max(q.k, this.options.candidates ?? Math.max(4 * q.k, 40));
    const terms = this.textWeight > 0 ? await this.selectiveTerms(q, await this.queryWords(q.text ?? '')) : [];
    // The full-text query runs in PostgreSQL while this process scans the vectors.
    const textPromise = terms.length ? this.textCandidates(q, terms, n) : Promise.resolve([]);
    textPromise.catch(() => undefined);
    const query = normalisedOrNull(q.vector);
    const vectorHits = query && this.vectorWeight > 0 ? await this.vectorCandidates(q, query, n) : [];
    const textHits = await textPromise;

    const fused = reciprocalRankFusion(
      [
        { ids: vectorHits.map((h) => h.seq), weight: this.vectorWeight },
        { ids: textHits.map((h) => h.seq), weight: this.textWeight },
      ],
      this.rrfK,
    ).slice(0, q.k + FETCH_SLACK);
    if (!fused.length) return [];
    const vectorScore = new Map(vectorHits.map((h) => [h.seq, h.score]));
    const textRank = new Map(textHits.map((h) => [h.seq, h.rank]));
    const rows = await this.pool.query(
      `SELECT seq::text AS seq, id, document_id, text, title, source_url FROM knowledge.chunks
        WHERE tenant_id = $1 AND embedder = $2 AND seq = ANY($3::bigint[]) AND ($4::uuid IS NULL OR chatbot_id IS NULL OR chatbot_id = $4)`,
      [q.tenantId, q.embedder, fused.map((f) => f.id), q.chatbotId],
    );
    const bySeq = new Map<number, Record<string, string | null>>(rows.rows.map((r) => [Number(r.seq), r]));
    const hits: SearchHit[] = [];
    for (const f of fused) {
      const r = bySeq.get(f.id);
      if (!r) continue; // deleted since the index saw it
      const hit: SearchHit = { chunkId: r.id as string, documentId: r.document_id as string, text: r.text as string, title: r.title, sourceUrl: r.source_url, score: f.score };
      const vs = vectorScore.get(f.id);
      if (vs !== undefined) hit.vectorScore = vs;
      const tr = textRank.get(f.id);
      if (tr !== undefined) hit.textRank = tr;
      hits.push(hit);
      if (hits.length === q.k) break;
    }
    return hits;
  }

  /** Bytes held by the in-process indexes (for metrics and tests). */
  indexBytes(): number {
    let total = 0;
    for (const e of this.entries.values()) total += e.index?.bytes ?? 0;
    return total;
  }

  /** Drops every in-process index (they reload on the next search). */
  clearIndexes(): void {
    this.entries.clear();
  }

  /** Loads (or refreshes) the index of a workspace and embedder ahead of its first search. */
  async warm(tenantId: string, embedder: string, dim: number): Promise<void> {
    await this.currentIndex(tenantId, embedder, dim);
  }

  // -- full-text side ---------------------------------------------------------------------------

  /**
   * The query's full-text terms: its words as written ('surface'), or the lexemes of `lex`
   * ('stems'), which PostgreSQL makes with the configurations of the languages the query may be
   * in (one round trip), plus the stems made in Node and the bigrams.
   */
  private async queryWords(text: string): Promise<string[]> {
    if (this.textMatch === 'surface' || !text.trim()) return queryTerms(text);
    const inputs = queryLexemeInputs(text);
    const res = await this.pool.query(
      `SELECT DISTINCT l FROM unnest($1::text[], $2::text[]) AS p(cfg, t), unnest(tsvector_to_array(to_tsvector(p.cfg::regconfig, p.t))) AS l`,
      [inputs.pg.map((p) => p.config), inputs.pg.map((p) => p.text)],
    );
    return lexemeQuery(
      res.rows.map((r) => r.l as string),
      inputs.extra,
    );
  }

  /** The query's terms, rarest first, as many as fit the textMatchBudget (possibly none). */
  private async selectiveTerms(q: SearchQuery, terms: string[]): Promise<string[]> {
    if (!terms.length) return terms;
    const stats = await this.currentLexemeStats();
    const budget = this.options.textMatchBudget ?? 1500;
    const held = this.entries.get(`${q.tenantId}\u0000${q.embedder}`)?.index?.size;
    const rows = held ?? stats.rows;
    const ranked = terms
      .map((t) => ({ t, f: stats.freq.get(t) ?? stats.unlisted }))
      .sort((a, b) => a.f - b.f)
      .slice(0, MAX_LEXEME_TERMS);
    const out: string[] = [];
    let expected = 0;
    for (const { t, f } of ranked) {
      if (expected + f * rows > budget) break;
      expected += f * rows;
      out.push(t);
    }
    return out;
  }

  /** pg_stats' most common lexemes of knowledge.chunks.tsv, cached; refreshed in the background. */
  private async currentLexemeStats(): Promise<LexemeStats> {
    const ttl = this.options.statsTtlMs ?? 300000;
    const cached = this.lexemeStats;
    if (cached && Date.now() - cached.at < ttl) return cached;
    if (!this.lexemeStatsPending) {
      this.lexemeStatsPending = this.readLexemeStats().finally(() => {
        this.lexemeStatsPending = null;
      });
      this.lexemeStatsPending.catch(() => undefined);
    }
    if (cached) return cached; // stale while the refresh runs
    return this.lexemeStatsPending;
  }

  private async readLexemeStats(): Promise<LexemeStats> {
    const res = await this.pool.query({
      text: `SELECT (SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'knowledge.chunks'::regclass) AS rows,
                    s.most_common_elems::text AS elems, s.most_common_elem_freqs::text AS freqs
               FROM (SELECT 1) AS one
               LEFT JOIN pg_stats s ON s.schemaname = 'knowledge' AND s.tablename = 'chunks' AND s.attname = $1`,
      values: [this.textMatch === 'stems' ? 'lex' : 'tsv'],
      types: RAW_TYPES,
    });
    const r = res.rows[0] ?? {};
    const freq = new Map<string, number>();
    const elems = r.elems ? parsePgTextArray(r.elems as string) : [];
    const freqs = r.freqs ? parsePgTextArray(r.freqs as string).map(Number) : [];
    elems.forEach((e, i) => freq.set(e, freqs[i]));
    // most_common_elem_freqs ends with the minimum and maximum frequency and the null share.
    const least = freqs.length > elems.length ? freqs[elems.length] : 0;
    const stats = { at: Date.now(), freq, unlisted: least / 2, rows: Number(r.rows ?? 0) };
    this.lexemeStats = stats;
    return stats;
  }

  private async textCandidates(q: SearchQuery, terms: string[], n: number): Promise<{ seq: number; rank: number }[]> {
    if (this.textMatch === 'stems') {
      const stemmed = await this.pool.query(
        `SELECT c.seq::text AS seq, ts_rank_cd(c.lex, $3::tsquery, 1) AS rank
           FROM knowledge.chunks c
          WHERE c.tenant_id = $1 AND c.embedder = $2 AND c.lex @@ $3::tsquery AND ($4::uuid IS NULL OR c.chatbot_id IS NULL OR c.chatbot_id = $4)
          ORDER BY rank DESC, c.seq
          LIMIT $5`,
        [q.tenantId, q.embedder, orTsquery(terms), q.chatbotId, n],
      );
      return stemmed.rows.map((r) => ({ seq: Number(r.seq), rank: Number(r.rank) }));
    }
    const res = await this.pool.query(
      `SELECT c.seq::text AS seq, ts_rank_cd(c.tsv, tq.q, 1) AS rank
         FROM knowledge.chunks c, websearch_to_tsquery('simple', $3) AS tq(q)
        WHERE c.tenant_id = $1 AND c.embedder = $2 AND c.tsv @@ tq.q AND ($4::uuid IS NULL OR c.chatbot_id IS NULL OR c.chatbot_id = $4)
        ORDER BY rank DESC, c.seq
        LIMIT $5`,
      [q.tenantId, q.embedder, websearchOrQuery(terms), q.chatbotId, n],
    );
    return res.rows.map((r) => ({ seq: Number(r.seq), rank: Number(r.rank) }));
  }

  // -- vector side ------------------------------------------------------------------------------

  private async vectorCandidates(q: SearchQuery, query: Float32Array, n: number): Promise<IndexHit[]> {
    const index = await this.currentIndex(q.tenantId, q.embedder, query.length);
    if (index?.exact) return index.search(query, n, q.chatbotId);
    if (index) return this.rescored(q, query, index.search(query, Math.max(n, this.options.rescoreCandidates ?? Math.max(3 * n, 100)), q.chatbotId), n);
    // Too large to hold in memory: exact scan in SQL (slow; see maxIndexBytes).
    const res = await this.pool.query(
      `SELECT c.seq::text AS seq, (SELECT sum(a * b) FROM unnest(c.embedding, $3::real[]) AS t(a, b)) AS score
         FROM knowledge.chunks c
        WHERE c.tenant_id = $1 AND c.embedder = $2 AND c.dim = $4 AND ($5::uuid IS NULL OR c.chatbot_id IS NULL OR c.chatbot_id = $5)
        ORDER BY score DESC, c.seq
        LIMIT $6`,
      [q.tenantId, q.embedder, Array.from(query), query.length, q.chatbotId, n],
    );
    return res.rows.map((r) => ({ seq: Number(r.seq), score: Number(r.score) }));
  }

  /**
   * The best n of a quantised index's candidates by their exact cosine: the float32 vectors of
   * those few rows are read from PostgreSQL (by seq, ~0.2 MB for 120 rows of 384 dimensions), which
   * costs a round trip but keeps the ranking exact among them while the index holds 1 byte per
   * dimension. A candidate deleted meanwhile is simply absent.
   */
  private async rescored(q: SearchQuery, query: Float32Array, candidates: IndexHit[], n: number): Promise<IndexHit[]> {
    if (!candidates.length) return [];
    const res = await this.pool.query({
      text: `SELECT seq, encode(embedding_f32, 'base64') AS v FROM knowledge.chunks
              WHERE tenant_id = $1 AND embedder = $2 AND dim = $3 AND seq = ANY($4::bigint[])`,
      values: [q.tenantId, q.embedder, query.length, candidates.map((c) => c.seq)],
      types: RAW_TYPES,
    });
    const v = new Float32Array(query.length);
    const bytes = new Uint8Array(v.buffer);
    const hits: IndexHit[] = [];
    for (const r of res.rows as { seq: string; v: string }[]) {
      bytes.set(Buffer.from(r.v, 'base64'));
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i] * query[i];
      hits.push({ seq: Number(r.seq), score: s });
    }
    return hits.sort((a, b) => b.score - a.score || a.seq - b.seq).slice(0, n);
  }

  /**
   * The index of (tenant, embedder), current as of the stamp read now: loaded on first use,
   * brought up to date incrementally when the stamp moved, null when it is too large to hold.
   */
  private async currentIndex(tenantId: string, embedder: string, dim: number): Promise<VectorIndex | null> {
    const key = `${tenantId}\u0000${embedder}`;
    for (;;) {
      let entry = this.entries.get(key);
      if (entry?.pending) {
        await entry.pending.catch(() => undefined);
        continue;
      }
      const stamp = await this.readStamp(tenantId, embedder);
      entry = this.entries.get(key);
      if (entry?.pending) continue;
      if (!entry) {
        entry = { key, tenantId, embedder, index: null, version: -1, rewrites: -1, pending: null };
        this.entries.set(key, entry);
      } else {
        // Most recently used last.
        this.entries.delete(key);
        this.entries.set(key, entry);
      }
      if (entry.index && entry.index.dim !== dim) {
        throw new BadRequest(`the query vector has ${dim} dimensions; the chunks of embedder ${embedder} have ${entry.index.dim}`);
      }
      if (entry.version === stamp.version && entry.rewrites === stamp.rewrites) return entry.index;
      const current = entry;
      // An exact index that appends have grown well past its size limit is reloaded quantised.
      const outgrown = !!entry.index?.exact && VectorIndex.estimateBytes(stamp.n, dim) > this.exactIndexMaxBytes * 1.25;
      const work = (entry.version < 0 || entry.rewrites !== stamp.rewrites || !entry.index || outgrown ? this.load(current, stamp, dim) : this.sync(current, stamp)).finally(() => {
        current.pending = null;
      });
      entry.pending = work;
      try {
        await work;
      } catch (err) {
        this.entries.delete(key);
        throw err;
      }
      return current.index;
    }
  }

  private async load(entry: Entry, stamp: Stamp, dim: number): Promise<void> {
    const precision: IndexPrecision = VectorIndex.estimateBytes(stamp.n, dim) <= this.exactIndexMaxBytes ? 'f32' : 'int8';
    const needed = VectorIndex.estimateBytes(stamp.n, dim, precision);
    if (needed > this.maxIndexBytes) {
      if (entry.index !== null || entry.version < 0) {
        this.options.logger?.warn(
          { tenant_id: entry.tenantId, embedder: entry.embedder, chunks: stamp.n, needed_bytes: needed, max_index_bytes: this.maxIndexBytes },
          'vector index too large for the memory budget: searching this workspace with a SQL scan (slow)',
        );
      }
      entry.index = null;
      entry.version = stamp.version;
      entry.rewrites = stamp.rewrites;
      return;
    }
    this.evictFor(needed, entry);
    // A reload: searches wait for it anyway, so the old index goes first rather than doubling the
    // memory held while the new one fills (1,000,000 x 384 quantised: 424 MiB each).
    entry.index = null;
    const started = Date.now();
    let index: VectorIndex;
    try {
      index = new VectorIndex(dim, { initialCapacity: stamp.n + LOAD_HEADROOM, kernel: this.options.kernel, precision });
      await this.appendRows(entry, index, 0);
    } catch (err) {
      if (!(err instanceof IndexCapacityExceeded)) throw err;
      entry.index = null;
      entry.version = stamp.version;
      entry.rewrites = stamp.rewrites;
      return;
    }
    entry.index = index;
    entry.version = stamp.version;
    entry.rewrites = stamp.rewrites;
    if (index.size > 1000) {
      this.options.logger?.info({ tenant_id: entry.tenantId, embedder: entry.embedder, chunks: index.size, bytes: index.bytes, precision, ms: Date.now() - started }, 'vector index loaded');
    }
  }

  /** Appends what was inserted since, and reconciles when the counts still differ. */
  private async sync(entry: Entry, stamp: Stamp): Promise<void> {
    const index = entry.index as VectorIndex;
    await this.appendRows(entry, index, index.maxSeq);
    if (index.size !== stamp.n || index.seqSum !== stamp.seqSum) await this.reconcile(entry, index);
    entry.version = stamp.version;
    entry.rewrites = stamp.rewrites;
  }

  /** Compares the index with the seqs in PostgreSQL: drops the gone, loads the missing. */
  private async reconcile(entry: Entry, index: VectorIndex): Promise<void> {
    const res = await this.pool.query({
      text: `SELECT seq FROM knowledge.chunks WHERE tenant_id = $1 AND embedder = $2 AND dim = $3`,
      values: [entry.tenantId, entry.embedder, index.dim],
      types: RAW_TYPES,
    });
    const inDb = new Set<number>(res.rows.map((r) => Number(r.seq)));
    for (const seq of index.liveSeqs()) if (!inDb.has(seq)) index.remove(seq);
    const missing = [...inDb].filter((s) => !index.has(s));
    for (let i = 0; i < missing.length; i += this.loadPageSize) {
      const page = await this.pool.query({
        text: `SELECT seq, chatbot_id, dim, encode(embedding_f32, 'base64') AS v FROM knowledge.chunks
                WHERE tenant_id = $1 AND embedder = $2 AND seq = ANY($3::bigint[])`,
        values: [entry.tenantId, entry.embedder, missing.slice(i, i + this.loadPageSize)],
        types: RAW_TYPES,
      });
      this.addRows(entry, index, page.rows);
    }
  }

  /** Loads the rows with seq > afterSeq, in pages, in seq order. */
  private async appendRows(entry: Entry, index: VectorIndex, afterSeq: number): Promise<void> {
    let after = afterSeq;
    for (;;) {
      const page = await this.pool.query({
        text: `SELECT seq, chatbot_id, dim, encode(embedding_f32, 'base64') AS v FROM knowledge.chunks
                WHERE tenant_id = $1 AND embedder = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
        values: [entry.tenantId, entry.embedder, after, this.loadPageSize],
        types: RAW_TYPES,
      });
      this.addRows(entry, index, page.rows);
      if (page.rows.length < this.loadPageSize) return;
      after = Number(page.rows[page.rows.length - 1].seq);
    }
  }

  private addRows(entry: Entry, index: VectorIndex, rows: { seq: string; chatbot_id: string | null; dim: string; v: string }[]): void {
    let skipped = 0;
    for (const r of rows) {
      if (Number(r.dim) !== index.dim) {
        skipped++;
        continue;
      }
      index.addPacked(Number(r.seq), r.chatbot_id, Buffer.from(r.v, 'base64'));
    }
    if (skipped) {
      this.options.logger?.warn({ tenant_id: entry.tenantId, embedder: entry.embedder, skipped, dim: index.dim }, 'chunks whose vector dimension differs from the query were left out of the index');
    }
  }

  private async readStamp(tenantId: string, embedder: string): Promise<Stamp> {
    const res = await this.pool.query({
      text: `SELECT n_chunks, seq_sum, version, rewrites FROM knowledge.chunk_index_stamps WHERE tenant_id = $1 AND embedder = $2`,
      values: [tenantId, embedder],
      types: RAW_TYPES,
    });
    const r = res.rows[0];
    return r ? { n: Number(r.n_chunks), seqSum: Number(r.seq_sum), version: Number(r.version), rewrites: Number(r.rewrites) } : { n: 0, seqSum: 0, version: 0, rewrites: 0 };
  }

  /** Drops least recently used indexes until `needed` more bytes fit in the budget. */
  private evictFor(needed: number, keep: Entry): void {
    let held = this.indexBytes() - (keep.index?.bytes ?? 0);
    for (const e of this.entries.values()) {
      if (held + needed <= this.maxIndexBytes) return;
      if (e === keep || e.pending || !e.index) continue;
      held -= e.index.bytes;
      this.entries.delete(e.key);
    }
  }

  /** Rows this process deleted are certainly gone: tombstone them in the cached indexes now. */
  private forgetLocally(tenantId: string, rows: { seq: string; embedder: string }[]): void {
    for (const r of rows) this.entries.get(`${tenantId}\u0000${r.embedder}`)?.index?.remove(Number(r.seq));
  }

  // -- writes -----------------------------------------------------------------------------------

  private async insertBatch(db: PoolClient, tenantId: string, rows: { chunk: StoredChunk; vector: Float32Array }[]): Promise<void> {
    // The language and stems of each chunk (@sa/lexicon; migration 1795300033100 explains `lex`).
    const lexemes = rows.map((r) => documentLexemes(`${r.chunk.title ?? ''} ${r.chunk.text}`));
    await db.query(
      `INSERT INTO knowledge.chunks (id, tenant_id, document_id, chatbot_id, ordinal, text, title, source_url, embedder, dim, embedding, embedding_f32, language, lex)
       SELECT u.id, $1, u.document_id, u.chatbot_id, u.ordinal, u.text, u.title, u.source_url, u.embedder, cardinality(u.e::real[]), u.e::real[], decode(u.b, 'base64'), u.language,
              to_tsvector(u.cfg::regconfig, coalesce(u.title, '') || ' ' || u.text) || to_tsvector('simple', u.extra)
                || to_tsvector('simple', knowledge.script_bigrams(coalesce(u.title, '') || ' ' || u.text))
         FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
           AS u(id, document_id, chatbot_id, ordinal, text, title, source_url, embedder, e, b, language, cfg, extra)`,
      [
        tenantId,
        rows.map((r) => r.chunk.id ?? randomUUID()),
        rows.map((r) => r.chunk.documentId),
        rows.map((r) => r.chunk.chatbotId),
        rows.map((r) => r.chunk.ordinal),
        rows.map((r) => r.chunk.text),
        rows.map((r) => r.chunk.title),
        rows.map((r) => r.chunk.sourceUrl),
        rows.map((r) => r.chunk.embedder),
        rows.map((r) => `{${Array.from(r.vector, (x) => x.toPrecision(9)).join(',')}}`),
        rows.map((r) => packLE(r.vector).toString('base64')),
        lexemes.map((l) => l.language),
        lexemes.map((l) => l.pgConfig),
        lexemes.map((l) => l.extra),
      ],
    );
  }

  private transaction<T>(fn: (db: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }
}

/** The vector scaled to length 1, as float32; throws on empty, non-finite or zero vectors. */
function normalised(v: ArrayLike<number>, what: string): Float32Array {
  const out = normalisedOrNull(v);
  if (!out) throw new BadRequest(`${what}: the vector must be non-empty, finite and not all zeros`);
  return out;
}

function normalisedOrNull(v: ArrayLike<number>): Float32Array | null {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  if (!v.length || !Number.isFinite(sum) || sum === 0) return null;
  const inv = 1 / Math.sqrt(sum);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

/** Elements of a one-dimensional PostgreSQL array in text form ({a,"b c",...}). */
export function parsePgTextArray(text: string): string[] {
  const out: string[] = [];
  let i = text.indexOf('{') + 1;
  while (i > 0 && i < text.length && text[i] !== '}') {
    let value = '';
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') i++;
        value += text[i++];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '}') value += text[i++];
    }
    out.push(value);
    if (text[i] === ',') i++;
  }
  return out;
}

/** Lexemes joined with OR, in tsquery's own syntax (quoted: taken as they are, not parsed again). */
function orTsquery(lexemes: readonly string[]): string {
  return lexemes.map((l) => `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' | ');
}

function packLE(v: Float32Array): Buffer {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i], i * 4);
  return buf;
}
