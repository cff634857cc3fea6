import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { DocumentRow, DocumentsRepository, NewDocument } from '../documents/documents.repository';
import { DocumentClaimsRepository } from './document-claims.repository';

// The ingestion queue (knowledge.documents claimed with FOR UPDATE SKIP LOCKED for a lease)
// against the real PostgreSQL: concurrent claimers, lease expiry and take-over, the end states,
// and the page quota of discovered pages. Every test starts from an empty documents table.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let claims: DocumentClaimsRepository;
let documents: DocumentsRepository;
const extra: DataSource[] = [];

beforeAll(async () => {
  db = await createTestDatabase('sa_test_claims');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: 'claims-int', poolSize: 10 })).initialize();
  claims = new DocumentClaimsRepository(ds);
  documents = new DocumentsRepository(ds);
});

beforeEach(async () => {
  await ds.query('DELETE FROM knowledge.documents; DELETE FROM knowledge.ingestion_turns');
});

afterAll(async () => {
  for (const d of extra.splice(0)) await d.destroy();
  await ds?.destroy();
  await db?.drop();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface FullRow extends DocumentRow {
  claimed_by: string | null;
  claimed_until: Date | null;
  finished_at: Date | null;
  embedder: string | null;
}

async function row(id: string): Promise<FullRow> {
  const [r] = await ds.query(`SELECT * FROM knowledge.documents WHERE id = $1`, [id]);
  if (!r) throw new Error(`document ${id} not found`);
  return r;
}

/** One queued text document, through the service's repository. */
async function queue(over: Partial<NewDocument> = {}): Promise<DocumentRow> {
  const inserted = await documents.insert(ds.manager, {
    tenantId: over.tenantId ?? randomUUID(),
    chatbotId: null,
    title: 'Doc',
    sourceUrl: null,
    sourceType: 'snippet',
    content: 'Some text to index.',
    ...over,
  });
  return row(inserted.id);
}

/** `n` queued documents with strictly increasing created_at, in one statement. */
async function queueMany(n: number, tenantId = randomUUID()): Promise<string[]> {
  const rows: { id: string }[] = await ds.query(
    `INSERT INTO knowledge.documents (tenant_id, title, source_type, content, created_at)
     SELECT $1, 'Doc ' || i, 'snippet', 'text ' || i, clock_timestamp() - make_interval(secs => ($2 - i)::float8)
       FROM generate_series(1, $2) AS i
     RETURNING id`,
    [tenantId, n],
  );
  return rows.map((r) => r.id);
}

describe('claim', () => {
  it('never hands the same document to two of 20 claims running at once from 4 connection pools', async () => {
    const ids = await queueMany(50);
    for (let i = 0; i < 4; i++) extra.push(await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: `claims-int-${i}`, poolSize: 5 })).initialize());
    const workers = extra.slice(-4).map((d, i) => ({ id: `worker-${i}`, repo: new DocumentClaimsRepository(d) }));

    // Round 1: 20 claims in flight at the same moment (5 per pool).
    const round1 = await Promise.all(Array.from({ length: 20 }, (_, i) => workers[i % 4].repo.claim(workers[i % 4].id, 60_000)));
    const got1 = round1.filter((d) => d !== null).map((d) => d!.id);
    expect(got1).toHaveLength(20);
    expect(new Set(got1).size).toBe(20);

    // Round 2: each worker claims in a loop, all four at once, until the queue is empty.
    const drained = await Promise.all(
      workers.map(async (w) => {
        const mine: string[] = [];
        for (let d = await w.repo.claim(w.id, 60_000); d; d = await w.repo.claim(w.id, 60_000)) {
          expect(d.claimed_by).toBe(w.id);
          mine.push(d.id);
        }
        return mine;
      }),
    );
    const all = [...got1, ...drained.flat()];
    expect(all).toHaveLength(50);
    expect(new Set(all)).toEqual(new Set(ids));
    // Nothing was claimed twice: every document counts exactly one attempt and is leased.
    const states: { status: string; attempts: number; n: number }[] = await ds.query(
      `SELECT status, attempts, count(*)::int AS n FROM knowledge.documents WHERE claimed_until > clock_timestamp() GROUP BY status, attempts`,
    );
    expect(states).toEqual([{ status: 'processing', attempts: 1, n: 50 }]);
    expect(await claims.claim('late', 60_000)).toBeNull();
  });

  it('never hands the same document twice when 20 claims run at once over five workspaces, and none comes back empty', async () => {
    const ids = (await Promise.all(Array.from({ length: 5 }, () => queueMany(6)))).flat();
    const pools: DataSource[] = [];
    for (let i = 0; i < 4; i++) pools.push(await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: `claims-fair-${i}`, poolSize: 5 })).initialize());
    extra.push(...pools);
    const got = await Promise.all(Array.from({ length: 20 }, (_, i) => new DocumentClaimsRepository(pools[i % 4]).claim(`worker-${i % 4}`, 60_000)));
    expect(got.every((d) => d !== null)).toBe(true);
    expect(new Set(got.map((d) => d!.id)).size).toBe(20);
    const rest: string[] = [];
    for (let d = await claims.claim('w', 60_000); d; d = await claims.claim('w', 60_000)) rest.push(d.id);
    expect(new Set([...got.map((d) => d!.id), ...rest])).toEqual(new Set(ids));
  });

  it('takes the oldest queued document first (created_at, not insertion order)', async () => {
    const tenantId = randomUUID();
    const insertAt = async (title: string, secondsAgo: number) => {
      const [r] = await ds.query(
        `INSERT INTO knowledge.documents (tenant_id, title, source_type, content, created_at)
         VALUES ($1, $2, 'snippet', 'x', clock_timestamp() - make_interval(secs => $3::float8)) RETURNING id`,
        [tenantId, title, secondsAgo],
      );
      return r.id as string;
    };
    const middle = await insertAt('middle', 20);
    const newest = await insertAt('newest', 10);
    const oldest = await insertAt('oldest', 30);
    const order: string[] = [];
    for (let d = await claims.claim('w', 60_000); d; d = await claims.claim('w', 60_000)) order.push(d.id);
    expect(order).toEqual([oldest, middle, newest]);
  });

  it('is fair across workspaces: a workspace that queued one document after another queued 150 is served within the first claims', async () => {
    const big = randomUUID();
    const small = randomUUID();
    const bigIds = await queueMany(150, big);
    const [mine] = await queueMany(1, small);
    const firstTwo = [await claims.claim('w', 60_000), await claims.claim('w', 60_000)].map((d) => d!.id);
    expect(firstTwo).toContain(mine);
    expect(firstTwo[0]).toBe(bigIds[0]);
  });

  it('takes turns between workspaces with work (least recently served first), oldest first within each', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const c = randomUUID();
    // created_at interleaves (queueMany counts back from now): a's are the oldest, c's the newest.
    const aIds = await queueMany(4, a);
    const bIds = await queueMany(3, b);
    const cIds = await queueMany(1, c);
    const order: string[] = [];
    for (let d = await claims.claim('w', 60_000); d; d = await claims.claim('w', 60_000)) order.push(d.id);
    expect(order).toEqual([aIds[0], bIds[0], cIds[0], aIds[1], bIds[1], aIds[2], bIds[2], aIds[3]]);
  });

  it('a workspace served long ago goes before one served just now, whatever their documents’ ages', async () => {
    const recent = randomUUID();
    const old = randomUUID();
    await queueMany(1, old);
    await claims.claim('w', 60_000); // old was served (and is still processing that one)
    const recentIds = await queueMany(2, recent);
    await claims.claim('w', 60_000); // recent's first
    await sleep(20);
    const oldIds = await queueMany(1, old); // queued after recent's second
    expect((await claims.claim('w', 60_000))!.id).toBe(oldIds[0]);
    expect((await claims.claim('w', 60_000))!.id).toBe(recentIds[1]);
  });

  it('returns the whole document with the claim (content, attempts, claimed_by)', async () => {
    const doc = await queue({ title: 'FAQ', content: 'Opening hours: 9 to 5.', pageQuota: 7 });
    const claimed = await claims.claim('worker-a', 60_000);
    expect(claimed).toMatchObject({ id: doc.id, title: 'FAQ', content: 'Opening hours: 9 to 5.', status: 'processing', attempts: 1, claimed_by: 'worker-a', page_quota: 7 });
    const r = await row(doc.id);
    const leaseMs = new Date(r.claimed_until!).getTime() - Date.now();
    expect(leaseMs).toBeGreaterThan(50_000);
    expect(leaseMs).toBeLessThanOrEqual(60_000);
  });

  it('does not claim ready or failed documents', async () => {
    const a = await queue();
    const b = await queue();
    await claims.claim('w', 60_000);
    await claims.claim('w', 60_000);
    expect(await claims.markReady(a.id, 'w', 1, 'hashing:test:8')).toBe(true);
    expect(await claims.markFailed(b.id, 'w', 'broken')).toBe(true);
    expect(await claims.claim('w2', 60_000)).toBeNull();
  });
});

describe('leases', () => {
  it('lets another worker take over an expired lease; the old worker then can neither renew nor finish', async () => {
    const doc = await queue();
    const first = await claims.claim('old', 500);
    expect(first!.id).toBe(doc.id);
    // Still leased: nobody else gets it, and the owner can renew.
    expect(await claims.claim('new', 60_000)).toBeNull();
    expect(await claims.renew(doc.id, 'old', 300)).toBe(true);
    expect(await claims.renew(doc.id, 'someone-else', 300)).toBe(false);

    await sleep(500);
    const taken = await claims.claim('new', 60_000);
    expect(taken).toMatchObject({ id: doc.id, claimed_by: 'new', attempts: 2, status: 'processing' });

    expect(await claims.renew(doc.id, 'old', 60_000)).toBe(false);
    expect(await claims.markReady(doc.id, 'old', 3, 'hashing:test:8')).toBe(false);
    expect(await claims.markFailed(doc.id, 'old', 'late failure')).toBe(false);
    await claims.retryLater(doc.id, 'old', 'late retry', 10_000);
    await claims.release(doc.id, 'old');
    expect(await row(doc.id)).toMatchObject({ status: 'processing', claimed_by: 'new', attempts: 2, failure_reason: null, chunk_count: 0 });

    expect(await claims.renew(doc.id, 'new', 60_000)).toBe(true);
    expect(await claims.markReady(doc.id, 'new', 3, 'hashing:test:8')).toBe(true);
    const done = await row(doc.id);
    expect(done).toMatchObject({ status: 'ready', chunk_count: 3, embedder: 'hashing:test:8', claimed_by: null, claimed_until: null, attempts: 2 });
    expect(done.finished_at).not.toBeNull();
    // Finished documents cannot be finished again.
    expect(await claims.markReady(doc.id, 'new', 5, 'x')).toBe(false);
    expect(await claims.markFailed(doc.id, 'new', 'x')).toBe(false);
  });

  it('renew() keeps a document leased past its original lease', async () => {
    const doc = await queue();
    await claims.claim('w', 500);
    await sleep(350);
    expect(await claims.renew(doc.id, 'w', 500)).toBe(true);
    await sleep(350);
    expect(await claims.renew(doc.id, 'w', 500)).toBe(true);
    await sleep(150); // 850 ms after the claim, 150 ms after the last renewal
    expect(await claims.claim('other', 60_000)).toBeNull();
  });

  it('failExhausted fails documents whose lease expired at maxAttempts, with a reason naming the attempts', async () => {
    const exhausted = await queue({ title: 'exhausted' });
    const retried = await queue({ title: 'retried' });
    const fresh = await queue({ title: 'fresh' });
    const leased = await queue({ title: 'leased' });
    // exhausted: 2 attempts, lease expired; retried: 2 attempts (the first one retried later with
    // a reason), lease expired; fresh: 1 attempt, lease expired; leased: 2 attempts, lease live.
    await ds.query(`UPDATE knowledge.documents SET status = 'processing', claimed_by = 'dead', attempts = 2, claimed_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [exhausted.id]);
    await ds.query(
      `UPDATE knowledge.documents SET status = 'processing', claimed_by = 'dead', attempts = 2, failure_reason = 'https://example.com/ answered 503', claimed_until = clock_timestamp() - interval '1 second' WHERE id = $1`,
      [retried.id],
    );
    await ds.query(`UPDATE knowledge.documents SET status = 'processing', claimed_by = 'dead', attempts = 1, claimed_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [fresh.id]);
    await ds.query(`UPDATE knowledge.documents SET status = 'processing', claimed_by = 'alive', attempts = 2, claimed_until = clock_timestamp() + interval '1 minute' WHERE id = $1`, [leased.id]);

    expect(await claims.failExhausted(2)).toBe(2);
    const e = await row(exhausted.id);
    expect(e).toMatchObject({ status: 'failed', failure_reason: 'Processing did not finish after 2 attempts', claimed_by: null, claimed_until: null, attempts: 2 });
    expect(e.finished_at).not.toBeNull();
    expect((await row(retried.id)).failure_reason).toBe('Processing did not finish after 2 attempts: https://example.com/ answered 503');
    expect(await row(fresh.id)).toMatchObject({ status: 'processing', claimed_by: 'dead' });
    expect(await row(leased.id)).toMatchObject({ status: 'processing', claimed_by: 'alive' });
    expect(await claims.failExhausted(2)).toBe(0);

    // The one with attempts left is claimable again; the leased one is not.
    const next = await claims.claim('w', 60_000);
    expect(next).toMatchObject({ id: fresh.id, attempts: 2 });
    expect(await claims.claim('w', 60_000)).toBeNull();
  });

  it('failExhausted through real leases: a document whose workers keep dying fails after maxAttempts', async () => {
    const doc = await queue();
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await claims.failExhausted(3)).toBe(0);
      const c = await claims.claim(`dying-${attempt}`, 150);
      expect(c).toMatchObject({ id: doc.id, attempts: attempt });
      await sleep(250);
    }
    expect(await claims.failExhausted(3)).toBe(1);
    expect(await row(doc.id)).toMatchObject({ status: 'failed', attempts: 3, failure_reason: expect.stringContaining('3 attempts') });
    expect(await claims.claim('w', 60_000)).toBeNull();
  });

  it('release() puts the document back to queued without counting the attempt', async () => {
    const doc = await queue();
    await claims.claim('w', 60_000);
    expect((await row(doc.id)).attempts).toBe(1);
    await claims.release(doc.id, 'someone-else');
    expect(await row(doc.id)).toMatchObject({ status: 'processing', claimed_by: 'w', attempts: 1 });

    await claims.release(doc.id, 'w');
    expect(await row(doc.id)).toMatchObject({ status: 'queued', claimed_by: null, claimed_until: null, attempts: 0 });
    expect(await claims.renew(doc.id, 'w', 60_000)).toBe(false);
    expect(await claims.markReady(doc.id, 'w', 1, 'x')).toBe(false);

    const again = await claims.claim('w2', 60_000);
    expect(again).toMatchObject({ id: doc.id, attempts: 1, claimed_by: 'w2' });
  });

  it('retryLater keeps the document unclaimable until the delay passes, and keeps the reason', async () => {
    const doc = await queue();
    await claims.claim('w', 60_000);
    await claims.retryLater(doc.id, 'w', 'https://example.com/ answered 503', 600);
    const waiting = await row(doc.id);
    expect(waiting).toMatchObject({ status: 'processing', claimed_by: null, failure_reason: 'https://example.com/ answered 503', attempts: 1 });
    // The worker that gave it up no longer owns it.
    expect(await claims.renew(doc.id, 'w', 60_000)).toBe(false);
    expect(await claims.markReady(doc.id, 'w', 1, 'x')).toBe(false);

    expect(await claims.claim('w2', 60_000)).toBeNull();
    await sleep(300);
    expect(await claims.claim('w2', 60_000)).toBeNull();
    // failExhausted leaves it alone while attempts remain.
    expect(await claims.failExhausted(3)).toBe(0);
    await sleep(450);
    const retry = await claims.claim('w2', 60_000);
    expect(retry).toMatchObject({ id: doc.id, attempts: 2, claimed_by: 'w2', failure_reason: 'https://example.com/ answered 503' });
    expect(await claims.markReady(doc.id, 'w2', 2, 'hashing:test:8')).toBe(true);
    expect(await row(doc.id)).toMatchObject({ status: 'ready', failure_reason: null });
  });

  it('markFailed records the reason (capped at 1000 characters) and resets the chunk count', async () => {
    const doc = await queue();
    await claims.claim('w', 60_000);
    expect(await claims.markFailed(doc.id, 'w', 'x'.repeat(1500))).toBe(true);
    const r = await row(doc.id);
    expect(r).toMatchObject({ status: 'failed', chunk_count: 0, claimed_by: null });
    expect(r.failure_reason).toHaveLength(1000);
  });
});

describe('addDiscoveredPages', () => {
  const urls = (n: number, prefix = 'https://example.com/p') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

  async function parentOf(tenantId: string, chatbotId: string | null, title = 'Site'): Promise<DocumentRow> {
    return queue({ tenantId, chatbotId, title, sourceType: 'url', sourceUrl: 'https://example.com/', content: null, discover: true });
  }

  async function children(parentId: string): Promise<FullRow[]> {
    return ds.query(`SELECT * FROM knowledge.documents WHERE parent_id = $1 ORDER BY source_url`, [parentId]);
  }

  it('queues pages as documents of their own under the parent (same bot, url, no further discovery)', async () => {
    const tenant = randomUUID();
    const bot = randomUUID();
    const parent = await parentOf(tenant, bot, 'Help center');
    expect(await claims.addDiscoveredPages(parent, ['https://example.com/a', 'https://example.com/b'], 10)).toBe(2);
    const kids = await children(parent.id);
    expect(kids).toHaveLength(2);
    for (const k of kids) {
      expect(k).toMatchObject({ tenant_id: tenant, chatbot_id: bot, source_type: 'url', status: 'queued', discover: false, content: null, parent_id: parent.id, attempts: 0 });
    }
    expect(kids.map((k) => k.title)).toEqual(['Help center – https://example.com/a', 'Help center – https://example.com/b']);
  });

  it('respects the page quota: room = quota - documents of the bot that did not fail', async () => {
    const tenant = randomUUID();
    const bot = randomUUID();
    const parent = await parentOf(tenant, bot);
    await queue({ tenantId: tenant, chatbotId: bot }); // counts
    const failed = await queue({ tenantId: tenant, chatbotId: bot }); // does not count once failed
    await ds.query(`UPDATE knowledge.documents SET status = 'failed' WHERE id = $1`, [failed.id]);
    // 2 documents count (the parent and one other): room for 3 of 5 with a quota of 5.
    expect(await claims.addDiscoveredPages(parent, urls(5), 5)).toBe(3);
    expect((await children(parent.id)).map((k) => k.source_url)).toEqual(urls(3));
    expect(await claims.addDiscoveredPages(parent, urls(5, 'https://example.com/more'), 5)).toBe(0);
    // A page that failed frees its place.
    await ds.query(`UPDATE knowledge.documents SET status = 'failed' WHERE source_url = $1`, [urls(3)[0]]);
    expect(await claims.addDiscoveredPages(parent, ['https://example.com/another'], 5)).toBe(1);
    expect(await claims.addDiscoveredPages(parent, urls(3), 0)).toBe(0);
  });

  it('dedupes the same URL under the same parent, but not under another parent', async () => {
    const tenant = randomUUID();
    const bot = randomUUID();
    const parent = await parentOf(tenant, bot);
    expect(await claims.addDiscoveredPages(parent, ['https://example.com/a', 'https://example.com/b'], 100)).toBe(2);
    expect(await claims.addDiscoveredPages(parent, ['https://example.com/b', 'https://example.com/a', 'https://example.com/c'], 100)).toBe(1);
    expect(await claims.addDiscoveredPages(parent, ['https://example.com/d', 'https://example.com/d'], 100)).toBe(1);
    expect((await children(parent.id)).map((k) => k.source_url)).toEqual(['https://example.com/a', 'https://example.com/b', 'https://example.com/c', 'https://example.com/d']);

    const other = await parentOf(tenant, bot, 'Other crawl');
    expect(await claims.addDiscoveredPages(other, ['https://example.com/a'], 100)).toBe(1);
  });

  it("counts workspace-wide documents separately from a bot's, and other workspaces not at all", async () => {
    const tenant = randomUUID();
    const bot = randomUUID();
    const botParent = await parentOf(tenant, bot);
    expect(await claims.addDiscoveredPages(botParent, urls(9, 'https://example.com/bot'), 10)).toBe(9); // the bot is full: 10 of 10
    // Another workspace's documents do not count either.
    const stranger = await parentOf(randomUUID(), null);
    expect(await claims.addDiscoveredPages(stranger, urls(4, 'https://example.com/stranger'), 5)).toBe(4);

    const wsParent = await parentOf(tenant, null);
    // Workspace-wide: only the workspace-wide parent counts (1 of 3), not the 10 pages of the bot.
    expect(await claims.addDiscoveredPages(wsParent, urls(5, 'https://example.com/ws'), 3)).toBe(2);
    expect((await children(wsParent.id)).every((k) => k.chatbot_id === null)).toBe(true);
    // And the workspace-wide pages do not count toward the bot's quota: the bot is still exactly full.
    expect(await claims.addDiscoveredPages(botParent, ['https://example.com/bot-extra'], 10)).toBe(0);
    expect(await claims.addDiscoveredPages(botParent, ['https://example.com/bot-extra'], 11)).toBe(1);

    const otherBot = await parentOf(tenant, randomUUID());
    expect(await claims.addDiscoveredPages(otherBot, urls(3, 'https://example.com/other'), 3)).toBe(2);
  });

  it('never exceeds the quota when several parents of one bot add pages at once', async () => {
    const tenant = randomUUID();
    const bot = randomUUID();
    const parents = await Promise.all(Array.from({ length: 5 }, (_, i) => parentOf(tenant, bot, `Site ${i}`)));
    const added = await Promise.all(parents.map((p, i) => claims.addDiscoveredPages(p, urls(10, `https://example.com/s${i}/`), 20)));
    expect(added.reduce((a, b) => a + b, 0)).toBe(15); // 20 - the 5 parents
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM knowledge.documents WHERE tenant_id = $1 AND chatbot_id = $2`, [tenant, bot]);
    expect(n).toBe(20);
  });
});
