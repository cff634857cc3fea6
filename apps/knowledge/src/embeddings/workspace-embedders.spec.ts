import 'reflect-metadata';
import { ModelConnectionSpec } from '@sa/contracts';
import { acceptCallerContext } from '@sa/messaging';
import { connectionEmbedderId, embedsAs, serviceContext } from './workspace-embedders';

const spec = (over: Partial<ModelConnectionSpec> = {}): ModelConnectionSpec => ({
  id: '3f2a9c1e-0000-4000-8000-000000000001',
  kind: 'openai',
  base_url: null,
  model: 'text-embedding-3-small',
  api_key_sealed: null,
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('connectionEmbedderId', () => {
  it('is kind, model and dimension like the installation embedder, with the connection id prefix', () => {
    expect(connectionEmbedderId(spec(), 1536)).toBe('openai:text-embedding-3-small:1536@3f2a9c1e');
    expect(connectionEmbedderId(spec({ kind: 'ollama', model: 'nomic-embed-text' }), 768)).toBe('ollama:nomic-embed-text:768@3f2a9c1e');
  });

  it('keeps two connections with the same model apart', () => {
    const other = spec({ id: '7b000000-0000-4000-8000-000000000002', base_url: 'http://10.0.0.5:8080/v1' });
    expect(connectionEmbedderId(other, 1536)).not.toBe(connectionEmbedderId(spec(), 1536));
  });

  it('fits a long model name in the 200 characters of the column, distinctly', () => {
    const long = 'm'.repeat(200);
    const id = connectionEmbedderId(spec({ model: long }), 4096);
    expect(id.length).toBe(200);
    expect(id).toMatch(/^openai:m+~[0-9a-f]{8}:4096@3f2a9c1e$/);
    expect(connectionEmbedderId(spec({ model: `${long.slice(1)}n` }), 4096)).not.toBe(id);
  });
});

describe('embedsAs', () => {
  it('tells whether the connection as it is now stores its vectors under an id', () => {
    const stored = connectionEmbedderId(spec(), 1536);
    expect(embedsAs(spec({ updated_at: '2026-02-01T00:00:00.000Z', base_url: 'https://proxy.example/v1' }), stored)).toBe(true);
    expect(embedsAs(spec({ model: 'text-embedding-3-large' }), stored)).toBe(false);
    expect(embedsAs(spec({ kind: 'ollama' }), stored)).toBe(false);
    expect(embedsAs(spec(), null)).toBe(false);
    expect(embedsAs(spec(), 'hashing:hashing-v1:384')).toBe(false);
  });
});

it("the service's own caller context passes the envelope check every handler makes", () => {
  expect(acceptCallerContext(serviceContext('3f2a9c1e-0000-4000-8000-000000000001', 'knowledge-reembed-1'))).not.toBeNull();
});
