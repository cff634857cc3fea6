import 'reflect-metadata';
import { ConfigError } from '@sa/config';
import { createEmbeddings } from './embeddings.factory';
import { HashingEmbeddings } from './hashing-embeddings';

describe('createEmbeddings', () => {
  it('defaults to the hashing embedder, which needs no network', async () => {
    const choice = createEmbeddings({});
    expect(choice.provider).toBe('hashing');
    expect(choice.embeddings).toBeInstanceOf(HashingEmbeddings);
    expect(choice.id).toBe('hashing:hashing-v1:384');
    expect(choice.dimensions).toBe(384);
    expect(await choice.resolveDimensions()).toBe(384);
  });

  it('sizes the hashing embedder with EMBEDDINGS_DIMENSIONS', () => {
    const choice = createEmbeddings({ EMBEDDINGS_PROVIDER: 'hashing', EMBEDDINGS_DIMENSIONS: '1024' });
    expect(choice.id).toBe('hashing:hashing-v1:1024');
    expect((choice.embeddings as HashingEmbeddings).id).toBe('hashing-v1-1024');
  });

  it('leaves the dimension of a remote embedder open until it answers', () => {
    const choice = createEmbeddings({ EMBEDDINGS_PROVIDER: 'ollama', EMBEDDINGS_MODEL: 'nomic-embed-text' });
    expect(choice.id).toBe('ollama:nomic-embed-text:?');
    expect(choice.dimensions).toBeNull();
  });

  it('lists every configuration problem at once', () => {
    const attempt = () => createEmbeddings({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_DIMENSIONS: 'many', EMBEDDINGS_BATCH_SIZE: '0' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(
      [
        'Invalid configuration:',
        '  - EMBEDDINGS_API_KEY is required when EMBEDDINGS_PROVIDER is openai and EMBEDDINGS_BASE_URL is not set',
        '  - EMBEDDINGS_MODEL is required when EMBEDDINGS_PROVIDER is openai',
        '  - EMBEDDINGS_DIMENSIONS must be an integer (got "many")',
        '  - EMBEDDINGS_BATCH_SIZE must be at least 1 (got 0)',
      ].join('\n'),
    );
  });

  it('rejects an unknown provider and a base URL that is not http(s)', () => {
    expect(() => createEmbeddings({ EMBEDDINGS_PROVIDER: 'cohere' })).toThrow('EMBEDDINGS_PROVIDER must be one of hashing, openai, ollama (got "cohere")');
    expect(() => createEmbeddings({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_BASE_URL: 'ftp://x' })).toThrow('EMBEDDINGS_BASE_URL must use http or https');
  });

  it('needs no API key for a self-hosted OpenAI-compatible server', () => {
    const choice = createEmbeddings({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_MODEL: 'bge-m3', EMBEDDINGS_BASE_URL: 'http://127.0.0.1:8080/v1' });
    expect(choice.id).toBe('openai:bge-m3:?');
  });
});
