import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SearchQuery, StoredChunk, VectorStore } from './vector-store.port';

/**
 * What every VectorStore adapter must do, run against each adapter by its own *.int-spec.ts:
 *
 *   describeVectorStoreContract('PostgresVectorStore', async () => ({ store, cleanup }));
 *
 * The factory is called once per suite; every test works in workspaces (tenant ids) of its own,
 * so tests never see each other's chunks. Vectors are small (8 dimensions) and chosen so the
 * nearest chunk is known; query texts are empty where only the vector order is under test.
 */
export interface ContractSubject {
  store: VectorStore;
  cleanup?: () => Promise<void>;
}

const EMBEDDER = 'contract-test-v1-8';
const DIM = 8;

/** A unit-ish vector pointing mostly along axis `axis`, tilted by `tilt` towards axis+1. */
export function axisVector(axis: number, tilt = 0, dim = DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  v[axis % dim] = 1;
  v[(axis + 1) % dim] = tilt;
  return v;
}

function chunk(tenantId: string, over: Partial<StoredChunk> & { vector: number[] }): StoredChunk {
  return {
    id: randomUUID(),
    tenantId,
    documentId: randomUUID(),
    chatbotId: null,
    ordinal: 0,
    text: 'plain passage',
    title: null,
    sourceUrl: null,
    embedder: EMBEDDER,
    ...over,
  };
}

export function describeVectorStoreContract(name: string, factory: () => Promise<ContractSubject>): void {
  describe(`VectorStore contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: VectorStore;

    beforeAll(async () => {
      subject = await factory();
      store = subject.store;
    });

    afterAll(async () => {
      await subject?.cleanup?.();
    });

    const search = (q: Partial<SearchQuery> & { tenantId: string; vector: number[] }) =>
      store.search({ chatbotId: null, embedder: EMBEDDER, text: '', k: 10, ...q });

    it('returns the nearest chunk first, scores descending', async () => {
      const tenant = randomUUID();
      const near = chunk(tenant, { vector: axisVector(0, 0.1), text: 'near' });
      const mid = chunk(tenant, { vector: axisVector(0, 0.8), text: 'middle' });
      const far = chunk(tenant, { vector: axisVector(3), text: 'far' });
      await store.upsert([far, mid, near]);
      const hits = await search({ tenantId: tenant, vector: axisVector(0) });
      expect(hits[0].chunkId).toBe(near.id);
      expect(hits[0].documentId).toBe(near.documentId);
      expect(hits[0].text).toBe('near');
      expect(hits.map((h) => h.chunkId).indexOf(mid.id!)).toBeLessThan(hits.map((h) => h.chunkId).indexOf(far.id!));
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    });

    it('returns the passage fields as stored', async () => {
      const tenant = randomUUID();
      const c = chunk(tenant, { vector: axisVector(2), text: 'Reset your password from the login page.', title: 'Passwords', sourceUrl: 'https://example.com/help/passwords', ordinal: 3 });
      await store.upsert([c]);
      const [hit] = await search({ tenantId: tenant, vector: axisVector(2), k: 1 });
      expect(hit).toMatchObject({ chunkId: c.id, documentId: c.documentId, text: c.text, title: 'Passwords', sourceUrl: 'https://example.com/help/passwords' });
      expect(hit.vectorScore).toBeCloseTo(1, 4);
    });

    it('respects k', async () => {
      const tenant = randomUUID();
      await store.upsert(Array.from({ length: 12 }, (_, i) => chunk(tenant, { vector: axisVector(i % DIM, i / 12), ordinal: i })));
      expect(await search({ tenantId: tenant, vector: axisVector(1), k: 5 })).toHaveLength(5);
      expect(await search({ tenantId: tenant, vector: axisVector(1), k: 1 })).toHaveLength(1);
      expect(await search({ tenantId: tenant, vector: axisVector(1), k: 50 })).toHaveLength(12);
    });

    it("never returns another workspace's chunks, even when they are nearer", async () => {
      const a = randomUUID();
      const b = randomUUID();
      const mine = chunk(a, { vector: axisVector(4, 0.5), text: 'refund policy' });
      const theirs = chunk(b, { vector: axisVector(4), text: 'refund policy' });
      await store.upsert([mine, theirs]);
      const hits = await search({ tenantId: a, vector: axisVector(4), text: 'refund policy' });
      expect(hits.map((h) => h.chunkId)).toEqual([mine.id]);
      expect((await search({ tenantId: randomUUID(), vector: axisVector(4), text: 'refund policy' })).length).toBe(0);
    });

    it("filters by bot: a bot's own chunks and the workspace-wide ones, never another bot's", async () => {
      const tenant = randomUUID();
      const botA = randomUUID();
      const botB = randomUUID();
      const ofA = chunk(tenant, { chatbotId: botA, vector: axisVector(5), text: 'opening hours' });
      const ofB = chunk(tenant, { chatbotId: botB, vector: axisVector(5, 0.2), text: 'opening hours' });
      const shared = chunk(tenant, { chatbotId: null, vector: axisVector(5, 0.6), text: 'opening hours' });
      await store.upsert([ofA, ofB, shared]);
      const ids = async (chatbotId: string | null) => (await search({ tenantId: tenant, chatbotId, vector: axisVector(5), text: 'opening hours' })).map((h) => h.chunkId).sort();
      expect(await ids(botB)).toEqual([ofB.id, shared.id].sort());
      expect(await ids(botA)).toEqual([ofA.id, shared.id].sort());
      expect(await ids(randomUUID())).toEqual([shared.id]);
      expect(await ids(null)).toEqual([ofA.id, ofB.id, shared.id].sort());
    });

    it('only compares vectors of the embedder searched with', async () => {
      const tenant = randomUUID();
      const current = chunk(tenant, { vector: axisVector(6, 0.9), text: 'shipping times' });
      const otherSameDim = chunk(tenant, { embedder: 'contract-test-v2-8', vector: axisVector(6), text: 'shipping times' });
      const otherDim = chunk(tenant, { embedder: 'contract-test-v3-12', vector: axisVector(6, 0, 12), text: 'shipping times' });
      await store.upsert([current, otherSameDim, otherDim]);
      const hits = await search({ tenantId: tenant, vector: axisVector(6), text: 'shipping times' });
      expect(hits.map((h) => h.chunkId)).toEqual([current.id]);
      const v2 = await search({ tenantId: tenant, embedder: 'contract-test-v2-8', vector: axisVector(6), text: 'shipping times' });
      expect(v2.map((h) => h.chunkId)).toEqual([otherSameDim.id]);
      expect(await search({ tenantId: tenant, embedder: 'never-used-embedder', vector: axisVector(6) })).toEqual([]);
    });

    it('deleteByDocument removes the chunks of that document only', async () => {
      const tenant = randomUUID();
      const doc = randomUUID();
      const gone = [0, 1, 2].map((i) => chunk(tenant, { documentId: doc, ordinal: i, vector: axisVector(7, i / 10) }));
      const kept = chunk(tenant, { vector: axisVector(7, 0.5) });
      await store.upsert([...gone, kept]);
      expect((await search({ tenantId: tenant, vector: axisVector(7) })).length).toBe(4);
      expect(await store.count(tenant)).toBe(4);
      await store.deleteByDocument(tenant, doc);
      const hits = await search({ tenantId: tenant, vector: axisVector(7) });
      expect(hits.map((h) => h.chunkId)).toEqual([kept.id]);
      expect(await store.count(tenant)).toBe(1);
    });

    it("deleteByDocument does not touch another workspace's chunks", async () => {
      const a = randomUUID();
      const b = randomUUID();
      const doc = randomUUID();
      await store.upsert([chunk(a, { documentId: doc, vector: axisVector(1) }), chunk(b, { documentId: doc, vector: axisVector(1) })]);
      await store.deleteByDocument(a, doc);
      expect(await store.count(a)).toBe(0);
      expect(await store.count(b)).toBe(1);
      expect(await search({ tenantId: b, vector: axisVector(1) })).toHaveLength(1);
    });

    it("replaceDocument leaves exactly the new chunks of that document, others' untouched", async () => {
      const tenant = randomUUID();
      const doc = randomUUID();
      const old = [0, 1, 2].map((i) => chunk(tenant, { documentId: doc, ordinal: i, vector: axisVector(5, i / 10), text: `old ${i}` }));
      const other = chunk(tenant, { vector: axisVector(5, 0.9), text: 'another document' });
      await store.upsert([...old, other]);
      // One chunk keeps its id (rewritten in place), one is new; the other two old ones must go.
      const fresh = [chunk(tenant, { id: old[0].id, documentId: doc, ordinal: 0, vector: axisVector(5), text: 'new 0' }), chunk(tenant, { documentId: doc, ordinal: 1, vector: axisVector(5, 0.2), text: 'new 1' })];
      await store.replaceDocument(tenant, doc, fresh);
      const hits = await search({ tenantId: tenant, vector: axisVector(5) });
      expect(hits.map((h) => h.text).sort()).toEqual(['another document', 'new 0', 'new 1']);
      expect(await store.count(tenant)).toBe(3);
      await expect(store.replaceDocument(tenant, doc, [chunk(tenant, { vector: axisVector(5) })])).rejects.toThrow(/every chunk must be of document/);
      await store.replaceDocument(tenant, doc, []);
      expect((await search({ tenantId: tenant, vector: axisVector(5) })).map((h) => h.text)).toEqual(['another document']);
    });

    it('upserting an existing id replaces the chunk', async () => {
      const tenant = randomUUID();
      const c = chunk(tenant, { vector: axisVector(3), text: 'old text' });
      await store.upsert([c]);
      expect((await search({ tenantId: tenant, vector: axisVector(3) }))[0].text).toBe('old text');
      await store.upsert([{ ...c, text: 'new text', vector: axisVector(2) }]);
      const hits = await search({ tenantId: tenant, vector: axisVector(2) });
      expect(hits).toHaveLength(1);
      expect(hits[0]).toMatchObject({ chunkId: c.id, text: 'new text' });
      expect(hits[0].vectorScore).toBeCloseTo(1, 4);
      expect(await store.count(tenant)).toBe(1);
    });

    it('sees chunks added and deleted after its first search of the workspace', async () => {
      const tenant = randomUUID();
      const first = chunk(tenant, { vector: axisVector(0, 0.5) });
      await store.upsert([first]);
      expect(await search({ tenantId: tenant, vector: axisVector(0) })).toHaveLength(1);
      const second = chunk(tenant, { vector: axisVector(0) });
      await store.upsert([second]);
      expect((await search({ tenantId: tenant, vector: axisVector(0) })).map((h) => h.chunkId)).toEqual([second.id, first.id]);
      await store.deleteByDocument(tenant, second.documentId);
      expect((await search({ tenantId: tenant, vector: axisVector(0) })).map((h) => h.chunkId)).toEqual([first.id]);
    });

    it('counts the chunks of a workspace, every embedder', async () => {
      const tenant = randomUUID();
      expect(await store.count(tenant)).toBe(0);
      await store.upsert([chunk(tenant, { vector: axisVector(1) }), chunk(tenant, { vector: axisVector(2), embedder: 'contract-test-v2-8' }), chunk(randomUUID(), { vector: axisVector(1) })]);
      expect(await store.count(tenant)).toBe(2);
    });

    it("gives the passages of one embedder's chunks of the documents asked for, by document and ordinal", async () => {
      const tenant = randomUUID();
      const [d1, d2] = [randomUUID(), randomUUID()].sort();
      const bot = randomUUID();
      await store.upsert([
        chunk(tenant, { documentId: d2, ordinal: 1, vector: axisVector(1), text: 'd2 second', title: 'Two', sourceUrl: 'https://example.com/2', chatbotId: bot }),
        chunk(tenant, { documentId: d2, ordinal: 0, vector: axisVector(2), text: 'd2 first', title: 'Two', sourceUrl: 'https://example.com/2', chatbotId: bot }),
        chunk(tenant, { documentId: d1, ordinal: 0, vector: axisVector(3), text: 'd1 only' }),
        chunk(tenant, { documentId: d1, ordinal: 0, vector: axisVector(3, 0, 12), text: 'd1 other embedder', embedder: 'contract-test-v3-12' }),
        chunk(tenant, { vector: axisVector(4), text: 'not asked for' }),
        chunk(randomUUID(), { documentId: d1, vector: axisVector(3), text: 'another workspace' }),
      ]);
      const got = await store.passages(tenant, EMBEDDER, [d1, d2]);
      expect(got.map((p) => [p.documentId, p.ordinal, p.text])).toEqual([
        [d1, 0, 'd1 only'],
        [d2, 0, 'd2 first'],
        [d2, 1, 'd2 second'],
      ]);
      expect(got[2]).toMatchObject({ chatbotId: bot, title: 'Two', sourceUrl: 'https://example.com/2' });
      expect(got[0]).toMatchObject({ chatbotId: null, title: null, sourceUrl: null });
      expect((await store.passages(tenant, 'contract-test-v3-12', [d1, d2])).map((p) => p.text)).toEqual(['d1 other embedder']);
      expect(await store.passages(tenant, EMBEDDER, [])).toEqual([]);
    });

    it("deleteEmbedders keeps only the embedders named, in that workspace only", async () => {
      const tenant = randomUUID();
      const other = randomUUID();
      await store.upsert([
        chunk(tenant, { vector: axisVector(1), text: 'kept' }),
        chunk(tenant, { vector: axisVector(1), embedder: 'contract-test-v2-8', text: 'gone' }),
        chunk(tenant, { vector: axisVector(1, 0, 12), embedder: 'contract-test-v3-12', text: 'gone too' }),
        chunk(other, { vector: axisVector(1), embedder: 'contract-test-v2-8', text: 'another workspace' }),
      ]);
      // Searched once, so an adapter holding indexes must drop the deleted one.
      expect(await search({ tenantId: tenant, embedder: 'contract-test-v2-8', vector: axisVector(1) })).toHaveLength(1);
      await store.deleteEmbedders(tenant, [EMBEDDER]);
      expect(await store.count(tenant)).toBe(1);
      expect(await search({ tenantId: tenant, embedder: 'contract-test-v2-8', vector: axisVector(1) })).toEqual([]);
      expect((await search({ tenantId: tenant, vector: axisVector(1) })).map((h) => h.text)).toEqual(['kept']);
      expect(await store.count(other)).toBe(1);
      await store.deleteEmbedders(tenant, []);
      expect(await store.count(tenant)).toBe(0);
    });

    it('rejects a k out of range and zero vectors', async () => {
      const tenant = randomUUID();
      await expect(search({ tenantId: tenant, vector: axisVector(1), k: 0 })).rejects.toThrow();
      await expect(store.upsert([chunk(tenant, { vector: new Array(DIM).fill(0) })])).rejects.toThrow();
    });
  });
}
