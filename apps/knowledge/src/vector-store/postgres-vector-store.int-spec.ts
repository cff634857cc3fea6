import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { BadRequest } from '@sa/errors';
import { createTestDatabase } from '@sa/testing';
import { PostgresVectorStore } from './postgres-vector-store';
import { VectorIndex } from './vector-index';
import { axisVector, describeVectorStoreContract } from './vector-store.contract';
import { StoredChunk } from './vector-store.port';

// PostgresVectorStore against the real PostgreSQL, on a database cloned from the migrated
// template (so the migration creating knowledge.chunks is under test too), as the knowledge role.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_vs');
  pool = new Pool({ connectionString: db.appUrl('knowledge'), max: 4 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describeVectorStoreContract('PostgresVectorStore', async () => ({ store: new PostgresVectorStore(pool) }));
describeVectorStoreContract('PostgresVectorStore (plain JavaScript scan, fused candidates from 3)', async () => ({
  store: new PostgresVectorStore(pool, { kernel: 'js', candidates: 3 }),
}));
// Issue 36: every index int8 quantised, candidates re-scored with the float32 vectors in PostgreSQL.
describeVectorStoreContract('PostgresVectorStore (quantised int8 index, re-scored)', async () => ({ store: new PostgresVectorStore(pool, { exactIndexMaxBytes: 0 }) }));
describeVectorStoreContract('PostgresVectorStore (quantised, plain JavaScript scan, 3 re-scored)', async () => ({
  store: new PostgresVectorStore(pool, { exactIndexMaxBytes: 0, kernel: 'js', candidates: 3, rescoreCandidates: 3 }),
}));
describeVectorStoreContract('PostgresVectorStore (no memory for indexes: SQL scan)', async () => ({ store: new PostgresVectorStore(pool, { maxIndexBytes: 0 }) }));

const EMBEDDER = 'pg-test-v1-8';

function chunk(tenantId: string, over: Partial<StoredChunk> & { vector: number[] }): StoredChunk {
  return { id: randomUUID(), tenantId, documentId: randomUUID(), chatbotId: null, ordinal: 0, text: 'passage', title: null, sourceUrl: null, embedder: EMBEDDER, ...over };
}

describe('PostgresVectorStore: hybrid ranking', () => {
  it('fuses the full-text rank with the vector rank (RRF)', async () => {
    const store = new PostgresVectorStore(pool);
    const tenant = randomUUID();
    const nearest = chunk(tenant, { vector: axisVector(0, 0.1), text: 'Our office is closed on public holidays.' });
    const wordy = chunk(tenant, { vector: axisVector(0, 0.3), text: 'To reset your password, open Settings and choose Reset password.' });
    const far = chunk(tenant, { vector: axisVector(4), text: 'Invoices are sent monthly.' });
    await store.upsert([nearest, wordy, far]);
    const vectorOnly = await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(0), text: '', k: 3 });
    expect(vectorOnly[0].chunkId).toBe(nearest.id);
    const hybrid = await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(0), text: 'How do I reset my password?', k: 3 });
    expect(hybrid[0].chunkId).toBe(wordy.id);
    expect(hybrid[0].textRank).toBeGreaterThan(0);
    expect(hybrid[0].vectorScore).toBeGreaterThan(0.9);
    expect(hybrid[0].score).toBeCloseTo(1 / 61 + 1 / 62, 6);
    const textOnly = new PostgresVectorStore(pool, { vectorWeight: 0 });
    expect((await textOnly.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(4), text: 'invoices', k: 3 })).map((h) => h.chunkId)).toEqual([far.id]);
  });

  it('matches words of scripts written without spaces (CJK, Thai) through character bigrams', async () => {
    const store = new PostgresVectorStore(pool, { vectorWeight: 0 });
    const tenant = randomUUID();
    const zh = chunk(tenant, { vector: axisVector(1), text: '如果忘记了密码，请在登录页面点击重置密码。' });
    const ja = chunk(tenant, { vector: axisVector(2), text: 'パスワードを忘れた場合は、ログイン画面から再設定してください。' });
    const th = chunk(tenant, { vector: axisVector(3), text: 'หากลืมรหัสผ่าน กรุณากดรีเซ็ตที่หน้าเข้าสู่ระบบ' });
    const en = chunk(tenant, { vector: axisVector(4), text: 'Shipping takes three days.' });
    await store.upsert([zh, ja, th, en]);
    const top = async (text: string) => (await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(5), text, k: 4 })).map((h) => h.chunkId);
    expect(await top('怎么重置密码')).toEqual([zh.id]);
    expect((await top('パスワードの再設定'))[0]).toBe(ja.id);
    expect((await top('ลืมรหัสผ่าน'))[0]).toBe(th.id);
    expect(await top('shipping')).toEqual([en.id]);
  });

  it('leaves words too common for the full-text budget to the vector side', async () => {
    const tenant = randomUUID();
    const filler = Array.from({ length: 200 }, (_, i) => chunk(tenant, { vector: axisVector(i % 8, 0.1), text: `common filler text number ${i}` }));
    const rare = chunk(tenant, { vector: axisVector(0), text: 'common filler zebracode' });
    await new PostgresVectorStore(pool).upsert([...filler, rare]);
    // As autovacuum would: ANALYZE is the table owner's (the knowledge role may not run it).
    const owner = new Pool({ connectionString: db.url, max: 1 });
    await owner.query('ANALYZE knowledge.chunks').finally(() => owner.end());
    const q = { tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(3), text: 'common zebracode', k: 10 };
    const narrow = new PostgresVectorStore(pool, { vectorWeight: 0, textMatchBudget: 50 });
    expect((await narrow.search(q)).map((h) => h.chunkId)).toEqual([rare.id]);
    const wide = new PostgresVectorStore(pool, { vectorWeight: 0, textMatchBudget: 1e9 });
    const all = await wide.search(q);
    expect(all).toHaveLength(10);
    expect(all[0].chunkId).toBe(rare.id);
  });

  it('returns nothing from full text alone when no word matches', async () => {
    const store = new PostgresVectorStore(pool, { vectorWeight: 0 });
    const tenant = randomUUID();
    await store.upsert([chunk(tenant, { vector: axisVector(1), text: 'alpha beta' })]);
    expect(await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(1), text: 'gamma', k: 3 })).toEqual([]);
  });
});

describe('PostgresVectorStore: the in-process index', () => {
  it('follows writes made by another replica (stamp check, incremental sync)', async () => {
    const reader = new PostgresVectorStore(pool);
    const writer = new PostgresVectorStore(pool);
    const tenant = randomUUID();
    const q = { tenantId: tenant, chatbotId: null, embedder: EMBEDDER, text: '', k: 10 };
    const a = chunk(tenant, { vector: axisVector(2, 0.5) });
    await writer.upsert([a]);
    expect((await reader.search({ ...q, vector: axisVector(2) })).map((h) => h.chunkId)).toEqual([a.id]);
    const b = chunk(tenant, { vector: axisVector(2) });
    await writer.upsert([b]);
    expect((await reader.search({ ...q, vector: axisVector(2) })).map((h) => h.chunkId)).toEqual([b.id, a.id]);
    await writer.deleteByDocument(tenant, a.documentId);
    expect((await reader.search({ ...q, vector: axisVector(2) })).map((h) => h.chunkId)).toEqual([b.id]);
    await writer.upsert([{ ...b, vector: axisVector(6) }]);
    const moved = await reader.search({ ...q, vector: axisVector(6) });
    expect(moved.map((h) => h.chunkId)).toEqual([b.id]);
    expect(moved[0].vectorScore).toBeCloseTo(1, 4);
  });

  it('reloads after vectors were changed in place by SQL', async () => {
    const store = new PostgresVectorStore(pool);
    const tenant = randomUUID();
    const c = chunk(tenant, { vector: axisVector(1) });
    await store.upsert([c]);
    expect((await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(1), text: '', k: 1 }))[0].vectorScore).toBeCloseTo(1, 4);
    // A float4 1.0 at index 4 (axis 3), packed little-endian.
    const v = axisVector(3);
    const packed = Buffer.alloc(32);
    v.forEach((x, i) => packed.writeFloatLE(x, i * 4));
    await pool.query(`UPDATE knowledge.chunks SET embedding = $2::real[], embedding_f32 = $3 WHERE id = $1`, [c.id, v, packed]);
    const [hit] = await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(3), text: '', k: 1 });
    expect(hit.vectorScore).toBeCloseTo(1, 4);
  });

  it('keeps the stamps exact across inserts, replacements and deletes', async () => {
    const store = new PostgresVectorStore(pool);
    const tenant = randomUUID();
    const cs = Array.from({ length: 5 }, (_, i) => chunk(tenant, { vector: axisVector(i) }));
    await store.upsert(cs);
    await store.upsert([{ ...cs[0], text: 'replaced' }]);
    await store.deleteByDocument(tenant, cs[1].documentId);
    const stamp = (await pool.query(`SELECT n_chunks::int AS n, seq_sum::text AS s FROM knowledge.chunk_index_stamps WHERE tenant_id = $1`, [tenant])).rows[0];
    const actual = (await pool.query(`SELECT count(*)::int AS n, sum(seq)::text AS s FROM knowledge.chunks WHERE tenant_id = $1`, [tenant])).rows[0];
    expect(stamp).toEqual(actual);
    expect(stamp.n).toBe(4);
  });

  it('stays within its memory budget, dropping the least recently used index', async () => {
    // Room for two indexes of 50 vectors (one 64 KiB WebAssembly page each, plus bookkeeping).
    const budget = 2 * VectorIndex.estimateBytes(50, 8) + 1000;
    const store = new PostgresVectorStore(pool, { maxIndexBytes: budget });
    const held: number[] = [];
    const tenants = [randomUUID(), randomUUID(), randomUUID()];
    for (const t of tenants) await store.upsert(Array.from({ length: 50 }, (_, i) => chunk(t, { vector: axisVector(i % 8, i / 50) })));
    for (let round = 0; round < 2; round++) {
      for (const t of tenants) {
        const hits = await store.search({ tenantId: t, chatbotId: null, embedder: EMBEDDER, vector: axisVector(0), text: '', k: 3 });
        expect(hits).toHaveLength(3);
        held.push(store.indexBytes());
      }
    }
    expect(Math.max(...held)).toBeLessThanOrEqual(budget);
    expect(Math.max(...held)).toBeGreaterThan(VectorIndex.estimateBytes(50, 8));
  });

  it('quantised: re-scores its candidates exactly (vectorScore is the exact cosine) and takes the best', async () => {
    const store = new PostgresVectorStore(pool, { exactIndexMaxBytes: 0, textWeight: 0 });
    const tenant = randomUUID();
    // Nearly equal vectors: int8 cannot tell them apart reliably, the re-scoring must.
    const chunks = [0.001, 0.002, 0.003, 0.004, 0.005].map((tilt, i) => chunk(tenant, { vector: axisVector(0, tilt), ordinal: i }));
    await store.upsert(chunks);
    const hits = await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(0), text: '', k: 5 });
    expect(hits.map((h) => h.chunkId)).toEqual(chunks.map((c) => c.id));
    const cosine = (v: number[]) => v[0] / Math.hypot(...v);
    hits.forEach((h, i) => expect(h.vectorScore).toBeCloseTo(cosine(chunks[i].vector as number[]), 6));
    expect(store.indexBytes()).toBeLessThan(VectorIndex.estimateBytes(5, 8, 'f32') + 1);
  });

  it('refuses a query vector of another dimension than the indexed chunks', async () => {
    const store = new PostgresVectorStore(pool);
    const tenant = randomUUID();
    await store.upsert([chunk(tenant, { vector: axisVector(1) })]);
    await store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(1), text: '', k: 1 });
    await expect(store.search({ tenantId: tenant, chatbotId: null, embedder: EMBEDDER, vector: axisVector(1, 0, 12), text: '', k: 1 })).rejects.toBeInstanceOf(BadRequest);
  });
});
