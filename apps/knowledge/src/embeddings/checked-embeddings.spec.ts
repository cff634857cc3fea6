import 'reflect-metadata';
import { Embeddings } from '@langchain/core/embeddings';
import { CheckedEmbeddings } from './checked-embeddings';
import { EmbeddingsUnavailable } from './embeddings.exception';

/** An embedder answering with `answer(texts)` and recording each call's texts. */
class FakeEmbeddings extends Embeddings {
  readonly calls: string[][] = [];
  constructor(private readonly answer: (texts: string[]) => unknown) {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls.push(texts);
    return this.answer(texts) as number[][];
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0];
  }
}

const vectors = (dims: number) => (texts: string[]) => texts.map((t) => Array.from({ length: dims }, (_, i) => t.length + i));
const options = { describe: 'fake (model m at http://x)', dimensions: null, batchSize: 2 };

describe('CheckedEmbeddings', () => {
  it('sends batches one after another and learns the dimension', async () => {
    const inner = new FakeEmbeddings(vectors(3));
    const checked = new CheckedEmbeddings(inner, options);
    expect(checked.dimensions).toBeNull();
    expect(await checked.embedDocuments(['a', 'bb', 'ccc', 'dddd', 'e'])).toHaveLength(5);
    expect(inner.calls).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['e']]);
    expect(checked.dimensions).toBe(3);
    expect(await checked.embedDocuments([])).toEqual([]);
    expect(inner.calls).toHaveLength(3);
  });

  it('rejects a wrong number of vectors, non-numbers and NaN', async () => {
    await expect(new CheckedEmbeddings(new FakeEmbeddings(() => [[1]]), options).embedDocuments(['a', 'b'])).rejects.toThrow('fake (model m at http://x) returned 1 vectors for 2 texts');
    await expect(new CheckedEmbeddings(new FakeEmbeddings(() => [['1']]), options).embedQuery('a')).rejects.toThrow('returned something that is not a vector of numbers');
    await expect(new CheckedEmbeddings(new FakeEmbeddings(() => [[NaN]]), options).embedQuery('a')).rejects.toThrow('not a vector of numbers');
    await expect(new CheckedEmbeddings(new FakeEmbeddings(() => [[]]), options).embedQuery('a')).rejects.toThrow('not a vector of numbers');
  });

  it('names the provider, the HTTP status and the causes of a failure', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
    const failing = new CheckedEmbeddings(
      new FakeEmbeddings(() => {
        throw new Error('Connection error.', { cause: new Error('fetch failed', { cause: refused }) });
      }),
      options,
    );
    const err = await failing.embedQuery('a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingsUnavailable);
    expect((err as EmbeddingsUnavailable).code).toBe('service_unavailable');
    expect((err as Error).message).toBe('The embeddings service is unavailable (fake (model m at http://x) failed: Connection error. (fetch failed; connect ECONNREFUSED 127.0.0.1:11434))');

    const http = new CheckedEmbeddings(
      new FakeEmbeddings(() => {
        throw Object.assign(new Error('Incorrect API key provided'), { status: 401 });
      }),
      options,
    );
    await expect(http.embedQuery('a')).rejects.toThrow('failed with HTTP 401: Incorrect API key provided');
  });
});
