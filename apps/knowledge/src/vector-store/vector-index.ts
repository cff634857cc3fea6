import { DotKernel, WasmMemory, dotKernel, wasmMemory } from './dot-kernel';

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

const PAGE = 65536;
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
 * meets the 25 ms goal with room for the SQL side; an IVF partition would be the next step for
 * workspaces an order of magnitude larger.
 */
export class VectorIndex {
  readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly kernel: DotKernel;
  private readonly vectorsOffset: number;
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
    opts: { initialCapacity?: number; kernel?: 'simd' | 'js' } = {},
  ) {
    if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dimension must be a positive integer (got ${dim})`);
    this.stride = Math.ceil(dim / 16) * 16;
    this.vectorsOffset = Math.ceil((this.stride * 4) / 64) * 64;
    const capacity = Math.max(16, opts.initialCapacity ?? 1024);
    this.memory = wasmMemory(this.pagesFor(capacity));
    this.kernel = dotKernel(this.memory, opts.kernel);
    this.view = new Float32Array(this.memory.buffer);
    this.resize(capacity);
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
  static estimateBytes(rows: number, dim: number): number {
    const stride = Math.ceil(dim / 16) * 16;
    const capacity = Math.max(16, rows + LOAD_HEADROOM);
    const memory = Math.ceil((Math.ceil((stride * 4) / 64) * 64 + capacity * (stride + 1) * 4) / PAGE) * PAGE;
    return memory + capacity * 13 + rows * 40;
  }

  has(seq: number): boolean {
    return this.rowOfSeq.has(seq);
  }

  /** Adds (or replaces) the vector of chunk `seq`; chatbotId null = workspace-wide. */
  add(seq: number, chatbotId: string | null, vector: ArrayLike<number>): void {
    if (vector.length !== this.dim) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dim}`);
    const row = this.rowFor(seq, chatbotId);
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
    const v = this.view;
    for (let i = 0; i < this.dim; i++) v[i] = query[i];
    for (let i = this.dim; i < this.stride; i++) v[i] = 0;
    const scoresOffset = this.scoresOffset();
    this.kernel(0, this.vectorsOffset, this.rows, this.stride, scoresOffset);
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
    for (let i = 0; i < size; i++) out.push({ seq: this.seqs[hr[i]], score: hs[i] });
    return out.sort((a, b) => b.score - a.score || a.seq - b.seq);
  }

  /** Drops the tombstoned rows, keeping the order of the others. */
  compact(): void {
    if (!this.dead) return;
    const v = this.view;
    const base = this.vectorsOffset >> 2;
    let w = 0;
    for (let r = 0; r < this.rows; r++) {
      if (!this.alive[r]) continue;
      if (w !== r) {
        v.copyWithin(base + w * this.stride, base + r * this.stride, base + (r + 1) * this.stride);
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

  private scoresOffset(): number {
    return this.vectorsOffset + this.capacity * this.stride * 4;
  }

  private pagesFor(capacity: number): number {
    const bytes = Math.ceil((this.stride * 4) / 64) * 64 + capacity * (this.stride + 1) * 4;
    const pages = Math.ceil(bytes / PAGE);
    if (pages > MAX_PAGES) throw new IndexCapacityExceeded(capacity, this.dim);
    return pages;
  }

  private resize(capacity: number): void {
    const pages = this.pagesFor(capacity);
    const have = this.memory.buffer.byteLength / PAGE;
    if (pages > have) this.memory.grow(pages - have);
    this.view = new Float32Array(this.memory.buffer);
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
