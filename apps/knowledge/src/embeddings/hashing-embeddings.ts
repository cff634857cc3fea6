import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings';

/**
 * The default embedder: needs no network, no weights and no GPU. It is a feature-hashing
 * ("hashing trick") bag of character n-grams and words, so it matches texts that share surface
 * forms (words, stems, CJK compounds) in any script, not paraphrases or translations.
 *
 * Features of the normalised text (NFKC, lower case, tashkeel stripped, punctuation → space):
 *  - character 2- and 3-grams inside each space-separated run, padded with a boundary marker so
 *    prefixes and suffixes count (fastText style); for CJK and Thai a run is a whole phrase;
 *  - single characters of Han, kana and Hangul, which carry meaning on their own;
 *  - whole words for scripts written with spaces (not for runs of CJK/Thai/Lao/Khmer/Myanmar,
 *    where a "word" is a phrase and would only add noise).
 * Each feature is hashed (FNV-1a over code points + murmur3 finaliser) to a bucket and a sign,
 * weighted with sublinear tf (1 + ln tf), and the vector is L2-normalised, so the dot product
 * of two vectors is their cosine similarity.
 *
 * Changing any of this changes the vectors: bump VERSION so stored vectors are re-embedded.
 */
const NAME = 'hashing';
const VERSION = 1;
export const DEFAULT_HASHING_DIMENSIONS = 384;

// Seeds keep the feature kinds apart: the word "abc" and the trigram "abc" hash differently.
const SEED_UNIGRAM = 0x811c9dc5;
const SEED_BIGRAM = 0x9e3779b1;
const SEED_TRIGRAM = 0x85ebca6b;
const SEED_WORD = 0xc2b2ae35;
const BOUNDARY = 0x20; // the space that pads each run

// Bigrams are the typical length of a CJK word; Latin bigrams are weaker than trigrams but help
// short words and inflections. Single characters are a weak signal, words a strong one.
const WEIGHT_UNIGRAM = 0.5;
const WEIGHT_BIGRAM = 0.8;
const WEIGHT_TRIGRAM = 1;
const WEIGHT_WORD = 1;
const MAX_WORD_LENGTH = 40; // longer "words" are URLs, hashes or base64: n-grams cover them

/** Everything but letters, marks and digits separates; Arabic tashkeel and tatweel are dropped. */
const SEPARATORS = /[^\p{L}\p{M}\p{N}]+/gu;
const ARABIC_DIACRITICS = /[\u064B-\u065F\u0670\u0640]/g;

export interface HashingEmbeddingsParams extends EmbeddingsParams {
  /** Number of buckets (vector length); default 384. */
  dimensions?: number;
}

export class HashingEmbeddings extends Embeddings {
  /** Name and version of the feature scheme, `hashing-v1`. */
  readonly model = `${NAME}-v${VERSION}`;
  readonly dimensions: number;
  /** Names the embedder, its version and dimension, e.g. `hashing-v1-384`: stored with each vector. */
  readonly id: string;
  private readonly counts = new FeatureCounts();

  constructor(params: HashingEmbeddingsParams = {}) {
    const { dimensions = DEFAULT_HASHING_DIMENSIONS, ...rest } = params;
    super(rest);
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65536) {
      throw new RangeError(`HashingEmbeddings dimensions must be an integer from 1 to 65536 (got ${dimensions})`);
    }
    this.dimensions = dimensions;
    this.id = `${this.model}-${dimensions}`;
  }

  /** CPU only and fast, so no caller, batching or retries are needed. */
  async embedDocuments(documents: string[]): Promise<number[][]> {
    return documents.map((d) => this.embedSync(d));
  }

  async embedQuery(document: string): Promise<number[]> {
    return this.embedSync(document);
  }

  /** The vector of one text: unit length, or all zeros for a text without letters or digits. */
  embedSync(text: string): number[] {
    const cps = codePoints(normalise(text));
    const counts = this.counts;
    counts.reset(cps.length);
    let start = 0;
    for (let i = 0; i <= cps.length; i++) {
      if (i === cps.length || cps[i] === BOUNDARY) {
        if (i > start) addRunFeatures(cps.subarray(start, i), counts);
        start = i + 1;
      }
    }
    const vector = new Float32Array(this.dimensions);
    counts.addTo(vector);
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < vector.length; i++) vector[i] *= inv;
    }
    return Array.from(vector);
  }
}

function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(ARABIC_DIACRITICS, '').replace(SEPARATORS, ' ').trim();
}

function codePoints(text: string): Uint32Array {
  const out = new Uint32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++; // skip the low surrogate
    out[n++] = cp;
  }
  return out.subarray(0, n);
}

/** Features of one run of letters and digits (a word, or a phrase in CJK and Thai). */
function addRunFeatures(run: Uint32Array, counts: FeatureCounts): void {
  const n = run.length;
  let unspaced = false;
  // prev/cur/next walk the run padded with the boundary marker on both sides.
  let prev = BOUNDARY;
  for (let i = 0; i <= n; i++) {
    const cur = i < n ? run[i] : BOUNDARY;
    counts.add(mix(step(step(SEED_BIGRAM, prev), cur)), WEIGHT_BIGRAM);
    if (i < n) {
      const next = i + 1 < n ? run[i + 1] : BOUNDARY;
      counts.add(mix(step(step(step(SEED_TRIGRAM, prev), cur), next)), WEIGHT_TRIGRAM);
      if (isMeaningfulCharacter(cur)) counts.add(mix(step(SEED_UNIGRAM, cur)), WEIGHT_UNIGRAM);
      if (isUnspacedScript(cur)) unspaced = true;
    }
    prev = cur;
  }
  if (!unspaced && n <= MAX_WORD_LENGTH) {
    let h = SEED_WORD;
    for (let i = 0; i < n; i++) h = step(h, run[i]);
    counts.add(mix(h), WEIGHT_WORD);
  }
}

/** 1 + ln tf for small tf, looked up: Math.log is slow in a vm context too (see mul32). */
const SUBLINEAR_TF = Float64Array.from({ length: 64 }, (_, tf) => (tf === 0 ? 0 : 1 + Math.log(tf)));

/**
 * Term frequencies per feature hash in an open-addressing table: much faster than a Map on this
 * hot path. One table is reused (embedding is synchronous) and grown for long texts; a run of n
 * code points has at most 3n + 2 features, so a capacity of 16 per code point keeps the load
 * factor under 1/3.
 */
class FeatureCounts {
  private keys = new Int32Array(0);
  private tf = new Uint32Array(0);
  private weights = new Float32Array(0);
  private used = new Int32Array(0); // occupied slots in insertion order
  private size = 0;
  private mask = 0;

  reset(codePoints: number): void {
    let capacity = 1024;
    while (capacity < 16 * (codePoints + 2)) capacity *= 2;
    if (capacity > this.keys.length) {
      this.keys = new Int32Array(capacity);
      this.tf = new Uint32Array(capacity);
      this.weights = new Float32Array(capacity);
      this.used = new Int32Array(capacity / 2);
      this.mask = capacity - 1;
    } else {
      for (let i = 0; i < this.size; i++) this.tf[this.used[i]] = 0;
    }
    this.size = 0;
  }

  add(hash: number, weight: number): void {
    let slot = hash & this.mask;
    while (this.tf[slot] !== 0 && this.keys[slot] !== hash) slot = (slot + 1) & this.mask;
    if (this.tf[slot] === 0) {
      this.keys[slot] = hash;
      this.weights[slot] = weight;
      this.used[this.size++] = slot;
    }
    this.tf[slot]++;
  }

  /** Bit 31 of the hash is the sign, the other 31 bits pick the bucket; tf is damped to 1 + ln tf. */
  addTo(vector: Float32Array): void {
    const dims = vector.length;
    for (let i = 0; i < this.size; i++) {
      const slot = this.used[i];
      const hash = this.keys[slot];
      const tf = this.tf[slot];
      const value = this.weights[slot] * (tf < SUBLINEAR_TF.length ? SUBLINEAR_TF[tf] : 1 + Math.log(tf));
      vector[(hash & 0x7fffffff) % dims] += hash < 0 ? -value : value;
    }
  }
}

/** One FNV-1a step over a whole code point. */
function step(hash: number, cp: number): number {
  return mul32(hash ^ cp, 0x01000193);
}

/**
 * 32-bit multiply. Same result as Math.imul, which is not inlined (about 100x slower) when the
 * code runs inside a vm context such as jest's; plain arithmetic is fast everywhere.
 */
function mul32(a: number, b: number): number {
  return ((a & 0xffff) * b + ((((a >>> 16) * b) & 0xffff) << 16)) | 0;
}

/** murmur3's fmix32: spreads FNV's weak low bits over the whole word. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = mul32(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = mul32(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Han, kana and Hangul syllables: one character is close to a morpheme. */
function isMeaningfulCharacter(cp: number): boolean {
  return isHan(cp) || (cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0xac00 && cp <= 0xd7af);
}

/** Scripts written without spaces between words: Han, kana, Thai, Lao, Myanmar, Khmer. */
function isUnspacedScript(cp: number): boolean {
  return isHan(cp) || (cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x31f0 && cp <= 0x31ff) || (cp >= 0x0e00 && cp <= 0x0eff) || (cp >= 0x1000 && cp <= 0x109f) || (cp >= 0x1780 && cp <= 0x17ff);
}

function isHan(cp: number): boolean {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x3134f);
}
