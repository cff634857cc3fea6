import 'reflect-metadata';
import type { ServerResponse } from 'node:http';
// Test-only dependency.
import { type SeenRequest, fakeModelServers } from '@sa/testing';
import { createEmbeddings } from './embeddings.factory';
import { EmbeddingsUnavailable } from './embeddings.exception';

type Reply = { status: number; body: unknown };

/** Answers every request with the JSON of `reply(request)`. */
const json =
  (reply: (seen: SeenRequest) => Reply) =>
  (s: SeenRequest, res: ServerResponse): void => {
    const { status, body } = reply(s);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

/** A deterministic toy vector of `dims` numbers for a text. */
const toyVector = (text: string, dims: number) => Array.from({ length: dims }, (_, i) => ((text.length + i) % 7) / 7);

/** OpenAI's wire format: POST /v1/embeddings {model, input: string[]} → {object:'list', data, model, usage}. */
function openAiReply(dims: number) {
  return (s: SeenRequest): Reply => {
    if (s.method !== 'POST' || s.path !== '/v1/embeddings') return { status: 404, body: { error: { message: `no route ${s.path}` } } };
    const raw = s.body['input'];
    const input = Array.isArray(raw) ? (raw as string[]) : [raw as string];
    return {
      status: 200,
      body: {
        object: 'list',
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: toyVector(text, dims) })),
        model: s.body['model'],
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      },
    };
  };
}

/** Ollama's wire format, as @langchain/ollama uses it: POST /api/embed {model, input: string[]} → {embeddings}. */
function ollamaReply(dims: number) {
  return (s: SeenRequest): Reply => {
    if (s.method !== 'POST' || s.path !== '/api/embed') return { status: 404, body: { error: `no route ${s.path}` } };
    const raw = s.body['input'];
    const input = Array.isArray(raw) ? (raw as string[]) : [raw as string];
    return { status: 200, body: { model: s.body['model'], embeddings: input.map((t) => toyVector(t, dims)) } };
  };
}

describe('createEmbeddings against local servers', () => {
  const serve = fakeModelServers();
  const start = (reply: (s: SeenRequest) => Reply) => serve(json(reply));

  describe('openai-compatible', () => {
    const envFor = (url: string, extra: Record<string, string> = {}) => ({
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: `${url}/v1`,
      EMBEDDINGS_API_KEY: 'sk-local-test',
      EMBEDDINGS_MODEL: 'toy-embed-small',
      EMBEDDINGS_BATCH_SIZE: '2',
      EMBEDDINGS_MAX_RETRIES: '0',
      ...extra,
    });

    it('sends the base URL, model and API key, embeds in batches and learns the dimension', async () => {
      const server = await start(openAiReply(5));
      const choice = createEmbeddings(envFor(server.url));
      expect(choice.dimensions).toBeNull();

      const texts = ['first chunk', 'second\nchunk', '第三のチャンク'];
      const vectors = await choice.embeddings.embedDocuments(texts);

      expect(vectors).toEqual(texts.map((t) => toyVector(t, 5)));
      expect(server.seen.map((s) => [s.method, s.path, s.authorization])).toEqual([
        ['POST', '/v1/embeddings', 'Bearer sk-local-test'],
        ['POST', '/v1/embeddings', 'Bearer sk-local-test'],
      ]);
      expect(server.seen.map((s) => s.body['input'])).toEqual([['first chunk', 'second\nchunk'], ['第三のチャンク']]);
      expect(server.seen.every((s) => s.body['model'] === 'toy-embed-small' && s.body['encoding_format'] === 'float')).toBe(true);
      expect(server.seen[0].body['dimensions']).toBeUndefined();
      expect(choice.dimensions).toBe(5);
      expect(choice.id).toBe('openai:toy-embed-small:5');
    });

    it('embeds a query and sends EMBEDDINGS_DIMENSIONS as the dimensions parameter', async () => {
      const server = await start(openAiReply(3));
      const choice = createEmbeddings(envFor(server.url, { EMBEDDINGS_DIMENSIONS: '3' }));
      expect(choice.id).toBe('openai:toy-embed-small:3');
      expect(await choice.embeddings.embedQuery('hello')).toEqual(toyVector('hello', 3));
      expect(server.seen[0].body).toMatchObject({ model: 'toy-embed-small', input: 'hello', dimensions: 3 });
    });

    it('probes the dimension on request, once', async () => {
      const server = await start(openAiReply(8));
      const choice = createEmbeddings(envFor(server.url));
      expect(await choice.resolveDimensions()).toBe(8);
      expect(await choice.resolveDimensions()).toBe(8);
      expect(server.seen).toHaveLength(1);
    });

    it('turns a server error into a clear EmbeddingsUnavailable', async () => {
      const server = await start(() => ({ status: 500, body: { error: { message: 'model crashed', type: 'server_error' } } }));
      const choice = createEmbeddings(envFor(server.url));
      const failure = choice.embeddings.embedDocuments(['a']);
      await expect(failure).rejects.toBeInstanceOf(EmbeddingsUnavailable);
      await expect(choice.embeddings.embedDocuments(['a'])).rejects.toThrow(
        `The embeddings service is unavailable (openai (model toy-embed-small at ${server.url}/v1) failed with HTTP 500: 500 model crashed)`,
      );
    });

    it('retries a failed request EMBEDDINGS_MAX_RETRIES times', async () => {
      let calls = 0;
      const ok = openAiReply(4);
      const server = await start((s) => (++calls === 1 ? { status: 503, body: { error: { message: 'warming up' } } } : ok(s)));
      const choice = createEmbeddings(envFor(server.url, { EMBEDDINGS_MAX_RETRIES: '1' }));
      expect(await choice.embeddings.embedQuery('x')).toHaveLength(4);
      expect(server.seen).toHaveLength(2);
    });

    it('rejects vectors whose dimension changes or differs from the configured one', async () => {
      let dims = 6;
      const server = await start((s) => openAiReply(dims)(s));
      const choice = createEmbeddings(envFor(server.url));
      await choice.embeddings.embedQuery('a');
      dims = 7;
      await expect(choice.embeddings.embedQuery('b')).rejects.toThrow('returned a 7-dimensional vector; expected 6 dimensions');

      const configured = createEmbeddings(envFor(server.url, { EMBEDDINGS_DIMENSIONS: '1536' }));
      await expect(configured.embeddings.embedDocuments(['c'])).rejects.toThrow('returned a 7-dimensional vector; expected 1536 dimensions');
    });
  });

  describe('ollama', () => {
    it('posts to /api/embed with the model and learns the dimension', async () => {
      const server = await start(ollamaReply(4));
      const choice = createEmbeddings({ EMBEDDINGS_PROVIDER: 'ollama', OLLAMA_BASE_URL: server.url, EMBEDDINGS_MODEL: 'nomic-embed-text', EMBEDDINGS_BATCH_SIZE: '2' });
      const texts = ['สวัสดีครับ', 'مرحبا', 'नमस्ते'];
      expect(await choice.embeddings.embedDocuments(texts)).toEqual(texts.map((t) => toyVector(t, 4)));
      expect(server.seen.map((s) => [s.method, s.path, s.body['model'], s.body['input']])).toEqual([
        ['POST', '/api/embed', 'nomic-embed-text', ['สวัสดีครับ', 'مرحبا']],
        ['POST', '/api/embed', 'nomic-embed-text', ['नमस्ते']],
      ]);
      expect(choice.id).toBe('ollama:nomic-embed-text:4');
    });

    it('turns a missing model into a clear EmbeddingsUnavailable', async () => {
      const server = await start(() => ({ status: 404, body: { error: 'model "nomic-embed-text" not found, try pulling it first' } }));
      const choice = createEmbeddings({ EMBEDDINGS_PROVIDER: 'ollama', OLLAMA_BASE_URL: server.url, EMBEDDINGS_MODEL: 'nomic-embed-text', EMBEDDINGS_MAX_RETRIES: '3' });
      await expect(choice.embeddings.embedQuery('hi')).rejects.toThrow(
        `The embeddings service is unavailable (ollama (model nomic-embed-text at ${server.url}) failed with HTTP 404: model "nomic-embed-text" not found, try pulling it first)`,
      );
      expect(server.seen).toHaveLength(1); // a client error is not retried
    });
  });

  it('reports an unreachable server', async () => {
    const server = await start(ollamaReply(1));
    await server.close();
    const choice = createEmbeddings({ EMBEDDINGS_PROVIDER: 'ollama', OLLAMA_BASE_URL: server.url, EMBEDDINGS_MODEL: 'm', EMBEDDINGS_MAX_RETRIES: '0' });
    // The cause (connect ECONNREFUSED …) is appended outside jest; here fetch's TypeError comes from another realm and is flattened.
    await expect(choice.embeddings.embedQuery('hi')).rejects.toThrow(/^The embeddings service is unavailable \(ollama \(model m at http:\/\/127\.0\.0\.1:\d+\) failed: (TypeError: )?fetch failed/);
  });
});
