import { Embeddings } from '@langchain/core/embeddings';
import { modelFailure } from '@sa/llm-config';
import { EmbeddingsUnavailable } from './embeddings.exception';

export interface CheckedEmbeddingsOptions {
  /** "openai (model m at http://…)": prefixes every error message. */
  describe: string;
  /** The dimension the vectors must have, when configured; otherwise learned from the first answer. */
  dimensions: number | null;
  /** Texts per request. Batches go one after another, which keeps a local server from being swamped. */
  batchSize: number;
  /**
   * A failed call in words (default: modelFailure of `describe`). A workspace connection's uses
   * explainConnectionFailure, which also keeps its key out of the message.
   */
  explain?: (err: unknown) => string;
}

/**
 * Wraps a remote embedder: sends embedDocuments in batches (OllamaEmbeddings would send all texts
 * in one request), learns the vector dimension from the first answer, checks every later
 * answer against it (and against the configured dimension, if any), and turns provider and
 * transport errors into one EmbeddingsUnavailable that says which provider failed and why.
 */
export class CheckedEmbeddings extends Embeddings {
  private learned: number | null;
  private readonly describe: string;
  private readonly batchSize: number;
  private readonly explain: (err: unknown) => string;

  constructor(
    private readonly inner: Embeddings,
    options: CheckedEmbeddingsOptions,
  ) {
    super({});
    this.describe = options.describe;
    this.learned = options.dimensions;
    this.batchSize = options.batchSize;
    this.explain = options.explain ?? ((err) => modelFailure(this.describe, err));
  }

  get dimensions(): number | null {
    return this.learned;
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < documents.length; i += this.batchSize) {
      const batch = documents.slice(i, i + this.batchSize);
      const vectors = await this.call(() => this.inner.embedDocuments(batch));
      if (!Array.isArray(vectors) || vectors.length !== batch.length) {
        throw new EmbeddingsUnavailable(`${this.describe} returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${batch.length} texts`);
      }
      for (const v of vectors) this.check(v);
      out.push(...vectors);
    }
    return out;
  }

  async embedQuery(document: string): Promise<number[]> {
    const vector = await this.call(() => this.inner.embedQuery(document));
    this.check(vector);
    return vector;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new EmbeddingsUnavailable(this.explain(err));
    }
  }

  private check(vector: unknown): void {
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingsUnavailable(`${this.describe} returned something that is not a vector of numbers`);
    }
    if (this.learned === null) this.learned = vector.length;
    else if (vector.length !== this.learned) {
      throw new EmbeddingsUnavailable(`${this.describe} returned a ${vector.length}-dimensional vector; expected ${this.learned} dimensions`);
    }
  }
}
