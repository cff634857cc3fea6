import { simdAvailable } from './dot-kernel';
import { VectorIndex } from './vector-index';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function unit(dim: number, r: () => number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = r() - 0.5;
    n += v[i] * v[i];
  }
  for (let i = 0; i < dim; i++) v[i] /= Math.sqrt(n);
  return v;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Exact top-n by brute force over the live vectors passing the filter. */
function bruteForce(vectors: Map<number, { v: Float32Array; bot: string | null }>, q: Float32Array, n: number, bot: string | null): number[] {
  return [...vectors.entries()]
    .filter(([, e]) => bot === null || e.bot === null || e.bot === bot)
    .map(([seq, e]) => ({ seq, s: dot(e.v, q) }))
    .sort((a, b) => b.s - a.s || a.seq - b.seq)
    .slice(0, n)
    .map((x) => x.seq);
}

describe('VectorIndex', () => {
  it('runs the WebAssembly SIMD kernel on this Node', () => {
    expect(simdAvailable()).toBe(true);
  });

  for (const kernel of ['simd', 'js'] as const) {
    describe(`${kernel} kernel`, () => {
      it.each([8, 20, 384])('finds the exact top n (dim %i), best first, scores = dot products', (dim) => {
        const r = rng(dim);
        const index = new VectorIndex(dim, { initialCapacity: 16, kernel });
        const all = new Map<number, { v: Float32Array; bot: string | null }>();
        for (let seq = 1; seq <= 700; seq++) {
          const v = unit(dim, r);
          all.set(seq, { v, bot: null });
          index.add(seq, null, v);
        }
        for (let t = 0; t < 5; t++) {
          const q = unit(dim, r);
          const hits = index.search(q, 10, null);
          expect(hits.map((h) => h.seq)).toEqual(bruteForce(all, q, 10, null));
          for (const h of hits) expect(h.score).toBeCloseTo(dot(all.get(h.seq)!.v, q), 5);
        }
      });
    });
  }

  it('filters by bot: the bot rows plus the workspace-wide ones', () => {
    const r = rng(1);
    const index = new VectorIndex(16);
    const all = new Map<number, { v: Float32Array; bot: string | null }>();
    const bots = ['bot-a', 'bot-b', null];
    for (let seq = 1; seq <= 300; seq++) {
      const v = unit(16, r);
      const bot = bots[seq % 3];
      all.set(seq, { v, bot });
      index.add(seq, bot, v);
    }
    const q = unit(16, r);
    for (const bot of ['bot-a', 'bot-b', null]) expect(index.search(q, 20, bot).map((h) => h.seq)).toEqual(bruteForce(all, q, 20, bot));
    const unknown = index.search(q, 500, 'bot-without-chunks');
    expect(unknown).toHaveLength(100);
    expect(unknown.every((h) => all.get(h.seq)!.bot === null)).toBe(true);
  });

  it('removes rows, compacts, and keeps answering exactly', () => {
    const r = rng(2);
    const index = new VectorIndex(32, { initialCapacity: 16 });
    const all = new Map<number, { v: Float32Array; bot: string | null }>();
    for (let seq = 1; seq <= 2000; seq++) {
      const v = unit(32, r);
      all.set(seq, { v, bot: null });
      index.add(seq, null, v);
    }
    let expectedSum = [...all.keys()].reduce((a, b) => a + b, 0);
    expect(index.seqSum).toBe(expectedSum);
    for (let seq = 1; seq <= 2000; seq += 2) {
      expect(index.remove(seq)).toBe(true);
      all.delete(seq);
      expectedSum -= seq;
    }
    expect(index.remove(1)).toBe(false);
    expect(index.size).toBe(1000);
    expect(index.seqSum).toBe(expectedSum);
    expect(index.maxSeq).toBe(2000);
    const q = unit(32, r);
    expect(index.search(q, 15, null).map((h) => h.seq)).toEqual(bruteForce(all, q, 15, null));
    expect(index.liveSeqs().sort((a, b) => a - b)).toEqual([...all.keys()].sort((a, b) => a - b));
  });

  it('replaces the vector of a seq added again', () => {
    const index = new VectorIndex(4);
    index.add(1, null, [1, 0, 0, 0]);
    index.add(2, null, [0, 1, 0, 0]);
    index.add(1, 'bot', [0, 0, 1, 0]);
    expect(index.size).toBe(2);
    expect(index.search([0, 0, 1, 0], 1, null)).toEqual([{ seq: 1, score: 1 }]);
    expect(index.search([0, 0, 1, 0], 5, 'other').map((h) => h.seq)).toEqual([2]);
  });

  it('takes packed little-endian float32 vectors', () => {
    const index = new VectorIndex(3);
    const packed = Buffer.alloc(12);
    [0.6, 0, 0.8].forEach((x, i) => packed.writeFloatLE(x, i * 4));
    index.addPacked(9, null, packed);
    const [hit] = index.search([0.6, 0, 0.8], 1, null);
    expect(hit.seq).toBe(9);
    expect(hit.score).toBeCloseTo(1, 6);
    expect(() => index.addPacked(10, null, Buffer.alloc(8))).toThrow(RangeError);
  });

  it('rejects vectors of another dimension and answers empty when empty', () => {
    const index = new VectorIndex(4);
    expect(index.search([1, 0, 0, 0], 3, null)).toEqual([]);
    expect(() => index.add(1, null, [1, 0])).toThrow(RangeError);
    expect(() => index.search([1, 0], 1, null)).toThrow(RangeError);
  });

  it('estimates its memory before loading', () => {
    const index = new VectorIndex(384, { initialCapacity: 1000 + 64 });
    const r = rng(3);
    for (let seq = 1; seq <= 1000; seq++) index.add(seq, null, unit(384, r));
    expect(index.bytes).toBe(VectorIndex.estimateBytes(1000, 384));
  });

  describe('int8 (quantised, issue 36)', () => {
    /** Clustered unit vectors, like real embeddings: many near neighbours with close scores. */
    function clustered(n: number, dim: number, r: () => number): Float32Array[] {
      const centres = Array.from({ length: 20 }, () => unit(dim, r));
      return Array.from({ length: n }, () => {
        const c = centres[Math.floor(r() * centres.length)];
        const noise = unit(dim, r);
        const v = new Float32Array(dim);
        let norm = 0;
        for (let i = 0; i < dim; i++) {
          v[i] = c[i] + 0.6 * noise[i];
          norm += v[i] * v[i];
        }
        for (let i = 0; i < dim; i++) v[i] /= Math.sqrt(norm);
        return v;
      });
    }

    for (const kernel of ['simd', 'js'] as const) {
      it(`${kernel} kernel: scores within 0.01 of exact; re-scoring 50 candidates gives the exact top 10`, () => {
        const r = rng(36);
        const dim = 384;
        const vectors = clustered(3000, dim, r);
        const index = new VectorIndex(dim, { initialCapacity: 16, kernel, precision: 'int8' });
        expect(index.exact).toBe(false);
        const all = new Map<number, { v: Float32Array; bot: string | null }>();
        vectors.forEach((v, i) => {
          all.set(i + 1, { v, bot: null });
          index.add(i + 1, null, v);
        });
        let found = 0;
        let rawFound = 0;
        const queries = 20;
        for (let t = 0; t < queries; t++) {
          const q = clustered(1, dim, r)[0];
          const exact = bruteForce(all, q, 10, null);
          const candidates = index.search(q, 50, null);
          for (const h of candidates) expect(Math.abs(h.score - dot(all.get(h.seq)!.v, q))).toBeLessThan(0.01);
          const rescored = candidates
            .map((h) => ({ seq: h.seq, s: dot(all.get(h.seq)!.v, q) }))
            .sort((a, b) => b.s - a.s || a.seq - b.seq)
            .slice(0, 10)
            .map((h) => h.seq);
          found += rescored.filter((seq) => exact.includes(seq)).length;
          rawFound += candidates.slice(0, 10).filter((h) => exact.includes(h.seq)).length;
        }
        expect(found / (queries * 10)).toBe(1);
        expect(rawFound / (queries * 10)).toBeGreaterThanOrEqual(0.9);
      });
    }

    it('filters by bot exactly, removes and compacts, and takes packed vectors', () => {
      const r = rng(7);
      const dim = 40;
      const index = new VectorIndex(dim, { initialCapacity: 16, precision: 'int8' });
      const all = new Map<number, { v: Float32Array; bot: string | null }>();
      const bots = ['bot-a', 'bot-b', null];
      for (let seq = 1; seq <= 1200; seq++) {
        const v = unit(dim, r);
        const bot = bots[seq % 3];
        all.set(seq, { v, bot });
        if (seq % 2) index.add(seq, bot, v);
        else index.addPacked(seq, bot, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      }
      for (let seq = 3; seq <= 1200; seq += 4) {
        index.remove(seq);
        all.delete(seq);
      }
      expect(index.size).toBe(all.size);
      const q = unit(dim, r);
      for (const bot of ['bot-a', 'bot-b', null, 'bot-without-chunks']) {
        const allowed = [...all.entries()].filter(([, e]) => bot === null || e.bot === null || e.bot === bot);
        const hits = index.search(q, 2000, bot);
        // Every allowed live row comes back, and nothing else: the filter is not approximate.
        expect(hits.map((h) => h.seq).sort((a, b) => a - b)).toEqual(allowed.map(([seq]) => seq).sort((a, b) => a - b));
        for (const h of hits) expect(Math.abs(h.score - dot(all.get(h.seq)!.v, q))).toBeLessThan(0.02);
      }
    });

    it('holds a quarter of the float index and estimates its memory before loading', () => {
      const index = new VectorIndex(384, { initialCapacity: 1000 + 64, precision: 'int8' });
      const r = rng(3);
      for (let seq = 1; seq <= 1000; seq++) index.add(seq, null, unit(384, r));
      expect(index.bytes).toBe(VectorIndex.estimateBytes(1000, 384, 'int8'));
      expect(VectorIndex.estimateBytes(1_000_000, 384, 'int8')).toBeLessThan(450 * 2 ** 20);
      expect(VectorIndex.estimateBytes(1_000_000, 384, 'int8') / VectorIndex.estimateBytes(1_000_000, 384)).toBeLessThan(0.3);
    });
  });
});
