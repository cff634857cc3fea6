import { DotKernel, DotKernelI8, WasmMemory, dotKernel, dotKernelI8, wasmMemory } from './dot-kernel';

export interface IndexHit {
  seq: number;
  /** Dot product with the query (cosine similarity for normalised vectors). */
  score: number;
}

/** The index cannot grow that far (WebAssembly memory is at most 4 GiB). */
export class IndexCapacityExceeded extends Error {
  constructor(rows: number, dim: number) {
    super(`an in-memory index of ${rows} vectors of ${dim} dimensions does not fit in 4 GiB`);
    this.name = 'IndexCapacityExceeded';
  }
}

/**
 * How an index holds its vectors: 'f32' exactly (scores are exact dot products), 'int8' scalar
 * quantised, one byte per dimension with a float32 scale per row (issue 36: a quarter of the
 * memory and of the bytes a scan streams; scores are approximate, so the store re-scores the
 * best candidates with the exact vectors from PostgreSQL).
 */
export type IndexPrecision = 'f32' | 'int8';

const PAGE = 65536;
/** The int16 query's largest magnitude: 12 bits keep dot products far from int32 overflow for any dimension below 65,536. */
const QUERY_I16_MAX = 4095;
/** Free rows an index is loaded with, for appends before it has to grow. */
export const LOAD_HEADROOM = 64;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const MAX_PAGES = 65536;
/** Tombstoned rows are compacted away once they are this share of the rows (and > 256). */
const COMPACT_SHARE = 0.25;

/**
 * Exact nearest-neighbour index over the vectors of one (workspace, embedder): one contiguous
 * float32 matrix in a WebAssembly memory of its own, scanned completely by the SIMD kernel for
 * every query, then a bounded heap keeps the best n rows that pass the bot filter. Rows are
 * identified by the chunk's `seq` (knowledge.chunks.seq); deletes tombstone rows, which are
 * compacted away in bulk. Memory: (stride + 1) * 4 bytes per row for the matrix and the score
 * scratch (stride = dimension rounded up to 16) plus ~30 bytes of bookkeeping.
 *
 * A full scan is exact (recall 1) and needs no training, so the index is always current after
 * an append. It costs O(rows x dim) per query: ~7.5 ms for 100,000 x 384 on the dev VM, which
 * meets the 25 ms goal with room for the SQL side.
 *
 * precision 'int8' (large workspaces, issue 36) keeps each row as int8 (value / scale, scale =
 * the row's largest magnitude / 127) plus its float32 scale: (stride + 8) bytes per row with the
 * score scratch (stride = dimension rounded up to 32), 1,000,000 x 384 in 374 MiB instead of
 * ~1.5 GiB, scanned by the int8 SIMD kernel in ~15 ms. Its scores are approximate (error ~1e-3
 * on a cosine), so `exact` is false and the caller re-scores.
 */
export class VectorIndex {
  /** Elements per row (the dimension padded with zeros). */
  readonly stride: number;
  readonly precision: IndexPrecision;
  private readonly rowBytes: number;
  private readonly memory: WasmMemory;
  private readonly kernel: DotKernel | null;
  private readonly kernelI8: DotKernelI8 | null;
  private readonly vectorsOffset: number;
  private i8 = new Int8Array(0);
  private i16 = new Int16Array(0);
  private readonly scratch: Float32Array;
  private capacity = 0;
  private rows = 0;
  private dead = 0;
  private seqs = new Float64Array(0);
  private bots = new Int32Array(0);
  private alive = new Uint8Array(0);
  private readonly rowOfSeq = new Map<number, number>();
  private readonly botSlots = new Map<string, number>();
  private view: Float32Array;
  /** Sum of the seqs of the live rows (compared with knowledge.chunk_index_stamps.seq_sum). */
  seqSum = 0;
  /** Highest seq ever added. */
  maxSeq = 0;

  constructor(
    readonly dim: number,
    opts: { initialCapacity?: number; kernel?: 'simd' | 'js'; precision?: IndexPrecision } = {},
  ) {
    if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dimension must be a positive integer (got ${dim})`);
    this.precision = opts.precision ?? 'f32';
    const layout = VectorIndex.layout(dim, this.precision);
    this.stride = layout.stride;
    this.rowBytes = layout.rowBytes;
    this.vectorsOffset = layout.vectorsOffset;
    this.scratch = new Float32Array(dim);
    const capacity = Math.max(16, opts.initialCapacity ?? 1024);
    this.memory = wasmMemory(this.pagesFor(capacity));
    this.kernel = this.precision === 'f32' ? dotKernel(this.memory, opts.kernel) : null;
    this.kernelI8 = this.precision === 'int8' ? dotKernelI8(this.memory, opts.kernel) : null;
    this.view = new Float32Array(this.memory.buffer);
    this.resize(capacity);
  }

  /** Whether search scores are exact dot products (else approximate: re-score the candidates). */
  get exact(): boolean {
    return this.precision === 'f32';
  }

  /**
   * Row geometry: stride in elements, bytes per row (vector + scale + score scratch), and where
   * the vectors start (after the query, 64-byte aligned).
   */
  private static layout(dim: number, precision: IndexPrecision): { stride: number; rowBytes: number; perRow: number; vectorsOffset: number } {
    if (precision === 'int8') {
      const stride = Math.ceil(dim / 32) * 32;
      return { stride, rowBytes: stride, perRow: stride + 8, vectorsOffset: Math.ceil((stride * 2) / 64) * 64 };
    }
    const stride = Math.ceil(dim / 16) * 16;
    return { stride, rowBytes: stride * 4, perRow: (stride + 1) * 4, vectorsOffset: Math.ceil((stride * 4) / 64) * 64 };
  }

  /** Live vectors. */
  get size(): number {
    return this.rows - this.dead;
  }

  /** Bytes held: the WebAssembly memory plus the per-row bookkeeping. */
  get bytes(): number {
    return this.memory.buffer.byteLength + this.capacity * 13 + this.rowOfSeq.size * 40;
  }

  /** Bytes an index of `rows` vectors of `dim` dimensions will hold once loaded (see `bytes`). */
  static estimateBytes(rows: number, dim: number, precision: IndexPrecision = 'f32'): number {
    const { perRow, vectorsOffset } = VectorIndex.layout(dim, precision);
    const capacity = Math.max(16, rows + LOAD_HEADROOM);
    const memory = Math.ceil((vectorsOffset + capacity * perRow) / PAGE) * PAGE;
    return memory + capacity * 13 + rows * 40;
  }

  has(seq: number): boolean {
    return this.rowOfSeq.has(seq);
  }

  /** Adds (or replaces) the vector of chunk `seq`; chatbotId null = workspace-wide. */
  add(seq: number, chatbotId: string | null, vector: ArrayLike<number>): void {
    if (vector.length !== this.dim) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dim}`);
    const row = this.rowFor(seq, chatbotId);
    if (this.precision === 'int8') {
      this.quantiseRow(row, vector);
      return;
    }
    const at = (this.vectorsOffset >> 2) + row * this.stride;
    const v = this.view;
    for (let i = 0; i < this.dim; i++) v[at + i] = vector[i];
    for (let i = this.dim; i < this.stride; i++) v[at + i] = 0;
  }

  /**
   * Like add, with the vector as packed little-endian float32 bytes (knowledge.chunks.embedding_f32):
   * copied straight into the matrix.
   */
  addPacked(seq: number, chatbotId: string | null, bytes: Uint8Array): void {
    if (bytes.length !== this.dim * 4) throw new RangeError(`packed vector has ${bytes.length} bytes, the index needs ${this.dim * 4}`);
    if (!LITTLE_ENDIAN) {
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      this.add(seq, chatbotId, Array.from({ length: this.dim }, (_, i) => dv.getFloat32(i * 4, true)));
      return;
    }
    if (this.precision === 'int8') {
      // Through an aligned scratch copy: the bytes may sit at any offset of their buffer.
      new Uint8Array(this.scratch.buffer).set(bytes);
      this.add(seq, chatbotId, this.scratch);
      return;
    }
    const row = this.rowFor(seq, chatbotId);
    const at = this.vectorsOffset + row * this.stride * 4;
    const u8 = new Uint8Array(this.view.buffer);
    u8.set(bytes, at);
    u8.fill(0, at + bytes.length, at + this.stride * 4);
  }

  /** Removes chunk `seq`; false when it is not in the index. */
  remove(seq: number): boolean {
    const row = this.rowOfSeq.get(seq);
    if (row === undefined) return false;
    this.rowOfSeq.delete(seq);
    this.alive[row] = 0;
    this.dead++;
    this.seqSum -= seq;
    if (this.dead > 256 && this.dead > this.rows * COMPACT_SHARE) this.compact();
    return true;
  }

  /** The seqs of the live rows. */
  liveSeqs(): number[] {
    return [...this.rowOfSeq.keys()];
  }

  /**
   * The n rows with the highest dot product with `query` (length dim), best first. chatbotId:
   * null = every row; a bot id = that bot's rows and the workspace-wide ones.
   */
  search(query: ArrayLike<number>, n: number, chatbotId: string | null): IndexHit[] {
    if (query.length !== this.dim) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dim}`);
    if (n < 1 || this.rows === this.dead) return [];
    const scoresOffset = this.scoresOffset();
    let scale = 1;
    if (this.kernelI8) {
      scale = this.quantiseQuery(query);
      this.kernelI8(0, this.vectorsOffset, this.rows, this.stride, this.scalesOffset(), scoresOffset);
    } else {
      const v = this.view;
      for (let i = 0; i < this.dim; i++) v[i] = query[i];
      for (let i = this.dim; i < this.stride; i++) v[i] = 0;
      (this.kernel as DotKernel)(0, this.vectorsOffset, this.rows, this.stride, scoresOffset);
    }
    const scores = this.view;
    const s0 = scoresOffset >> 2;
    const filter = chatbotId !== null;
    const slot = filter ? this.slotOf(chatbotId, false) : -1;
    // Min-heap of the best n (score, row).
    const hs = new Float64Array(n);
    const hr = new Int32Array(n);
    let size = 0;
    const { alive, bots } = this;
    for (let r = 0; r < this.rows; r++) {
      if (!alive[r]) continue;
      if (filter && bots[r] !== -1 && bots[r] !== slot) continue;
      const s = scores[s0 + r];
      if (size < n) {
        let i = size++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (hs[p] <= s) break;
          hs[i] = hs[p];
          hr[i] = hr[p];
          i = p;
        }
        hs[i] = s;
        hr[i] = r;
      } else if (s > hs[0]) {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= size) break;
          const c = l + 1 < size && hs[l + 1] < hs[l] ? l + 1 : l;
          if (hs[c] >= s) break;
          hs[i] = hs[c];
          hr[i] = hr[c];
          i = c;
        }
        hs[i] = s;
        hr[i] = r;
      }
    }
    const out: IndexHit[] = [];
    for (let i = 0; i < size; i++) out.push({ seq: this.seqs[hr[i]], score: hs[i] * scale });
    return out.sort((a, b) => b.score - a.score || a.seq - b.seq);
  }

  /** Drops the tombstoned rows, keeping the order of the others. */
  compact(): void {
    if (!this.dead) return;
    const u8 = new Uint8Array(this.memory.buffer);
    const base = this.vectorsOffset;
    const rb = this.rowBytes;
    const scales = this.scalesOffset() >> 2;
    let w = 0;
    for (let r = 0; r < this.rows; r++) {
      if (!this.alive[r]) continue;
      if (w !== r) {
        u8.copyWithin(base + w * rb, base + r * rb, base + (r + 1) * rb);
        if (this.precision === 'int8') this.view[scales + w] = this.view[scales + r];
        this.seqs[w] = this.seqs[r];
        this.bots[w] = this.bots[r];
        this.alive[w] = 1;
        this.rowOfSeq.set(this.seqs[w], w);
      }
      w++;
    }
    this.alive.fill(0, w, this.rows);
    this.rows = w;
    this.dead = 0;
  }

  /** The row of `seq` (a new one when absent), with its bot set. */
  private rowFor(seq: number, chatbotId: string | null): number {
    let row = this.rowOfSeq.get(seq);
    if (row === undefined) {
      if (this.rows === this.capacity) this.resize(Math.max(this.capacity + 1, Math.ceil(this.capacity * 1.5)));
      row = this.rows++;
      this.rowOfSeq.set(seq, row);
      this.seqs[row] = seq;
      this.alive[row] = 1;
      this.seqSum += seq;
      if (seq > this.maxSeq) this.maxSeq = seq;
    }
    this.bots[row] = chatbotId === null ? -1 : this.slotOf(chatbotId, true);
    return row;
  }

  private slotOf(chatbotId: string, create: boolean): number {
    let slot = this.botSlots.get(chatbotId);
    if (slot === undefined) {
      if (!create) return -2; // no row has this bot: only workspace-wide rows pass
      slot = this.botSlots.size;
      this.botSlots.set(chatbotId, slot);
    }
    return slot;
  }

  /** int8: the row as value / scale (scale = largest magnitude / 127), its scale beside. */
  private quantiseRow(row: number, vector: ArrayLike<number>): void {
    let max = 0;
    for (let i = 0; i < this.dim; i++) {
      const a = Math.abs(vector[i]);
      if (a > max) max = a;
    }
    const scale = max / 127;
    const inv = max > 0 ? 127 / max : 0;
    const at = this.vectorsOffset + row * this.rowBytes;
    const q = this.i8;
    for (let i = 0; i < this.dim; i++) q[at + i] = Math.round(vector[i] * inv);
    q.fill(0, at + this.dim, at + this.rowBytes);
    this.view[(this.scalesOffset() >> 2) + row] = scale;
  }

  /** int8: the query as int16 at offset 0; returns its scale. */
  private quantiseQuery(query: ArrayLike<number>): number {
    let max = 0;
    for (let i = 0; i < this.dim; i++) {
      const a = Math.abs(query[i]);
      if (a > max) max = a;
    }
    const inv = max > 0 ? QUERY_I16_MAX / max : 0;
    const q = this.i16;
    for (let i = 0; i < this.dim; i++) q[i] = Math.round(query[i] * inv);
    q.fill(0, this.dim, this.stride);
    return max > 0 ? max / QUERY_I16_MAX : 0;
  }

  /** int8: the rows' scales (float32), after the vectors. */
  private scalesOffset(capacity = this.capacity): number {
    return this.vectorsOffset + capacity * this.rowBytes;
  }

  private scoresOffset(): number {
    return this.scalesOffset() + (this.precision === 'int8' ? this.capacity * 4 : 0);
  }

  private pagesFor(capacity: number): number {
    const bytes = this.vectorsOffset + capacity * VectorIndex.layout(this.dim, this.precision).perRow;
    const pages = Math.ceil(bytes / PAGE);
    if (pages > MAX_PAGES) throw new IndexCapacityExceeded(capacity, this.dim);
    return pages;
  }

  private resize(capacity: number): void {
    const pages = this.pagesFor(capacity);
    const have = this.memory.buffer.byteLength / PAGE;
    if (pages > have) this.memory.grow(pages - have);
    if (this.precision === 'int8' && this.rows) {
      // The scales follow the vectors: move them to where the larger matrix ends.
      const from = this.scalesOffset();
      new Uint8Array(this.memory.buffer).copyWithin(this.scalesOffset(capacity), from, from + this.rows * 4);
    }
    this.view = new Float32Array(this.memory.buffer);
    this.i8 = new Int8Array(this.memory.buffer);
    this.i16 = new Int16Array(this.memory.buffer, 0, this.stride);
    const grow = <T extends Float64Array | Int32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old.subarray(0, Math.min(old.length, capacity)));
      return next;
    };
    this.seqs = grow(this.seqs, (n) => new Float64Array(n));
    this.bots = grow(this.bots, (n) => new Int32Array(n));
    this.alive = grow(this.alive, (n) => new Uint8Array(n));
    this.capacity = capacity;
  }
}
