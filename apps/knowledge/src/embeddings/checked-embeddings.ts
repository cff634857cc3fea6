import { Embeddings } from '@langchain/core/embeddings';
import { EmbeddingsUnavailable } from './embeddings.exception';

export interface CheckedEmbeddingsOptions {
  /** "openai (model m at http://…)": prefixes every error message. */
  describe: string;
  /** The dimension the vectors must have, when configured; otherwise learned from the first answer. */
  dimensions: number | null;
  /** Texts per request. Batches go one after another, which keeps a local server from being swamped. */
  batchSize: number;
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

  constructor(
    private readonly inner: Embeddings,
    options: CheckedEmbeddingsOptions,
  ) {
    super({});
    this.describe = options.describe;
    this.learned = options.dimensions;
    this.batchSize = options.batchSize;
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
      const status = statusOf(err);
      throw new EmbeddingsUnavailable(`${this.describe} failed${status ? ` with HTTP ${status}` : ''}: ${messageOf(err)}`);
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

/**
 * The error's message followed by its causes', e.g. "Connection error. (fetch failed; connect
 * ECONNREFUSED 127.0.0.1:11434)". Duck-typed: fetch's errors come from another realm under jest.
 */
function messageOf(err: unknown): string {
  const messages: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const m = typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e);
    if (m && !messages.includes(m)) messages.push(m);
    e = typeof e === 'object' ? (e as { cause?: unknown }).cause : undefined;
  }
  const [first = 'unknown error', ...causes] = messages;
  return causes.length ? `${first} (${causes.join('; ')})` : first;
}

/** The HTTP status of an OpenAI SDK error (status) or an Ollama ResponseError (status_code). */
function statusOf(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { status?: unknown; status_code?: unknown };
  if (typeof e.status === 'number') return e.status;
  if (typeof e.status_code === 'number') return e.status_code;
  return undefined;
}
