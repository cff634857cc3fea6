import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Pool } from 'pg';
import { FilesystemBlobStore } from '@sa/blob-storage';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
import { createLogger } from '@sa/logging';
import { outboundPolicy, type OutboundPolicy } from '@sa/net-guard';
import { createTestDatabase, startRoutedSite as startSite, type RoutedSite as TestSite } from '@sa/testing';
import { loadKnowledgeConfig } from '../config/knowledge.config';
import { DocumentsRepository, type NewDocument } from '../documents/documents.repository';
import { createEmbeddings } from '../embeddings/embeddings.factory';
import { chunkText } from '../ingestion/chunking';
import { PostgresVectorStore } from '../vector-store/postgres-vector-store';
import { WorkspaceEmbedders } from '../embeddings/workspace-embedders';
import { WorkspaceEmbeddersRepository } from '../embeddings/workspace-embedders.repository';
import { DocumentClaimsRepository } from './document-claims.repository';
import { DocumentProcessor } from './document-processor';
import { KnowledgeFileReader } from '../files/knowledge-file-reader';
import { KnowledgeFilesRepository } from '../files/knowledge-files.repository';
import { IngestionWorker } from './ingestion.worker';

// The ingestion pipeline end to end inside one process, with real dependencies: the worker and
// processor on a test database (claims through TypeORM, chunks through PostgresVectorStore on a
// pg Pool, LISTEN/NOTIFY on a pg Client), the hashing embedder, and the outbound guard fetching
// from a local HTTP server that the policy allows (127.0.0.1/32 and its port only).

const logger = createLogger('knowledge-ingestion-int', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });
const embedder = createEmbeddings({});

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let pool: Pool;
let claims: DocumentClaimsRepository;
let documents: DocumentsRepository;
let site: TestSite;
let policy: OutboundPolicy;
const workers: IngestionWorker[] = [];

const html = (title: string, paragraphs: string[]) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>${title}</h1>${paragraphs
    .map((p) => `<p>${p}</p>`)
    .join('')}</article></main><footer>© Example</footer></body></html>`;

function paragraphs(topic: string, n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) =>
      `${topic} section ${i + 1}: orders placed before noon ship the same working day, and every parcel gets a tracking link by email. ` +
      `Returns are free within thirty days; keep the original packaging and the receipt so that the warehouse can match the parcel to your order. ` +
      `If anything arrives damaged, send us a photo and we replace the item at once.`,
  );
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  db = await createTestDatabase('sa_test_ingest');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: 'ingestion-int', poolSize: 6 })).initialize();
  pool = new Pool({ connectionString: db.appUrl('knowledge'), max: 4, application_name: 'ingestion-int-vectors' });
  // Dropping the database at the end terminates a connection still closing: not a test failure.
  pool.on('error', () => undefined);
  claims = new DocumentClaimsRepository(ds);
  documents = new DocumentsRepository(ds);
  site = await startSite();
  policy = outboundPolicy({ allowCidrs: ['127.0.0.1/32'], allowedPorts: [site.port], timeoutMs: 10_000 });
});

beforeEach(async () => {
  await ds.query('DELETE FROM knowledge.documents; DELETE FROM knowledge.chunks');
  site.routes.clear();
  site.hits.clear();
  site.abandoned.clear();
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.beforeApplicationShutdown()));
});

afterAll(async () => {
  await site?.close();
  await pool?.end();
  await ds?.destroy();
  await db?.drop();
});

/** A worker with its own processor (and robots.txt cache), started like Nest starts it. */
async function startWorker(env: Record<string, string> = {}): Promise<IngestionWorker> {
  const config = loadKnowledgeConfig({
    DATABASE_URL: db.appUrl('knowledge'),
    KNOWLEDGE_LEASE_MS: '3000',
    KNOWLEDGE_POLL_MS: '100',
    KNOWLEDGE_MAX_ATTEMPTS: '3',
    KNOWLEDGE_CONCURRENCY: '2',
    SHUTDOWN_GRACE_MS: '300',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const files = new KnowledgeFileReader(new KnowledgeFilesRepository(ds), new FilesystemBlobStore(path.join(tmpdir(), 'kb-ingestion-int')), config);
  // No workspace here chooses a model connection: the installation's embedder, no bots service, no keys.
  const processor = new DocumentProcessor(new PostgresVectorStore(pool), new WorkspaceEmbedders(embedder, new WorkspaceEmbeddersRepository(ds), null as never, { box: null as never, calls: null as never, batchSize: 64 }), policy, claims, logger, files);
  const worker = new IngestionWorker(claims, processor, config, logger);
  workers.push(worker);
  await worker.onApplicationBootstrap();
  return worker;
}

async function stopWorker(worker: IngestionWorker): Promise<void> {
  workers.splice(workers.indexOf(worker), 1);
  await worker.beforeApplicationShutdown();
}

async function queue(over: Partial<NewDocument>): Promise<string> {
  const doc = await documents.insert(ds.manager, {
    tenantId: randomUUID(),
    chatbotId: null,
    title: 'Doc',
    sourceUrl: null,
    sourceType: 'snippet',
    content: null,
    ...over,
  });
  return doc.id;
}

const queueUrl = (path: string, over: Partial<NewDocument> = {}) => queue({ title: `Page ${path}`, sourceType: 'url', sourceUrl: `${site.url}${path}`, ...over });

interface Row {
  id: string;
  tenant_id: string;
  status: string;
  attempts: number;
  chunk_count: number;
  failure_reason: string | null;
  claimed_by: string | null;
  claimed_until: Date | null;
  embedder: string | null;
}

async function row(id: string): Promise<Row> {
  const [r] = await ds.query(`SELECT * FROM knowledge.documents WHERE id = $1`, [id]);
  return r;
}

async function storedChunks(id: string): Promise<{ ordinal: number; text: string; title: string | null; source_url: string | null; embedder: string; dim: number }[]> {
  return ds.query(`SELECT ordinal, text, title, source_url, embedder, dim FROM knowledge.chunks WHERE document_id = $1 ORDER BY ordinal`, [id]);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await sleep(everyMs);
    last = await fn();
  }
  return last;
}

const settled = (id: string, timeoutMs = 10_000) => waitFor(`document ${id} to be ready or failed`, () => row(id), (r) => r.status === 'ready' || r.status === 'failed', timeoutMs);

// ---------------------------------------------------------------------------------------------

describe('IngestionWorker + DocumentProcessor', () => {
  it('takes a text document to ready, with chunk_count equal to the chunks stored', async () => {
    await startWorker();
    const text = paragraphs('Shipping', 12).join('\n\n') + '\n\n配送は通常二営業日以内に行われます。返品は三十日以内に受け付けます。';
    const id = await queue({ title: 'Shipping FAQ', sourceType: 'snippet', content: text });
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'ready', attempts: 1, failure_reason: null, claimed_by: null, claimed_until: null, embedder: embedder.id });
    const chunks = await storedChunks(id);
    expect(done.chunk_count).toBeGreaterThan(1);
    expect(chunks).toHaveLength(done.chunk_count);
    expect(chunks.map((c) => c.text)).toEqual((await chunkText(text)).map((c) => c.text));
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
    for (const c of chunks) expect(c).toMatchObject({ title: 'Shipping FAQ', embedder: embedder.id, dim: embedder.dimensions });
  });

  it('fetches a URL document through a redirect and extracts the page', async () => {
    site.routes.set('/old-guide', (_req, res) => res.writeHead(301, { location: '/guide.html' }).end());
    site.routes.set('/guide.html', (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html('Shipping guide', paragraphs('Delivery', 6))));
    await startWorker();
    const id = await queueUrl('/old-guide');
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'ready', attempts: 1, failure_reason: null });
    const chunks = await storedChunks(id);
    expect(chunks).toHaveLength(done.chunk_count);
    expect(done.chunk_count).toBeGreaterThan(0);
    const all = chunks.map((c) => c.text).join(' ');
    expect(all).toContain('Delivery section 6');
    expect(all).not.toContain('© Example'); // the footer is boilerplate
    expect(chunks[0]).toMatchObject({ title: 'Shipping guide', source_url: `${site.url}/old-guide` });
    expect(site.hits.get('/old-guide')).toBe(1);
    expect(site.hits.get('/guide.html')).toBe(1);
    expect(site.hits.get('/robots.txt')).toBe(1);
  });

  it('retries a transient failure (503, then 200) and ends ready after 2 attempts', async () => {
    site.routes.set('/flaky.txt', (_req, res, hit) => {
      if (hit === 1) res.writeHead(503, { 'content-type': 'text/plain' }).end('try later');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(paragraphs('Flaky', 3).join('\n\n'));
    });
    await startWorker();
    const id = await queueUrl('/flaky.txt');
    // After the first attempt: still processing, unclaimed, waiting out the retry delay with the reason.
    const waiting = await waitFor('the first attempt to fail', () => row(id), (r) => r.failure_reason !== null || (r.status !== 'processing' && r.status !== 'queued'));
    expect(waiting).toMatchObject({ status: 'processing', claimed_by: null, attempts: 1, failure_reason: `${site.url}/flaky.txt answered 503` });
    const done = await settled(id, 15_000);
    expect(done).toMatchObject({ status: 'ready', attempts: 2, failure_reason: null });
    expect(await storedChunks(id)).toHaveLength(done.chunk_count);
    expect(site.hits.get('/flaky.txt')).toBe(2);
  });

  it('fails a permanent failure (404) at once, with the reason, without retrying', async () => {
    await startWorker();
    const id = await queueUrl('/missing.html');
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'failed', attempts: 1, chunk_count: 0, claimed_by: null });
    expect(done.failure_reason).toBe(`${site.url}/missing.html answered 404 (not found)`);
    await sleep(500); // five poll intervals
    expect(site.hits.get('/missing.html')).toBe(1);
    expect((await row(id)).attempts).toBe(1);
    expect(await storedChunks(id)).toHaveLength(0);
  });

  it('fails a transient failure for good after the last attempt', async () => {
    site.routes.set('/down.txt', (_req, res) => res.writeHead(503).end());
    await startWorker({ KNOWLEDGE_MAX_ATTEMPTS: '1' });
    const id = await queueUrl('/down.txt');
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'failed', attempts: 1, failure_reason: `Failed after 1 attempts: ${site.url}/down.txt answered 503` });
  });

  it('releases a document to queued on shutdown while a slow page is being fetched', async () => {
    let requested = false;
    site.routes.set('/slow.html', () => {
      requested = true; // never answers
    });
    const worker = await startWorker({ SHUTDOWN_GRACE_MS: '300' });
    const id = await queueUrl('/slow.html');
    await waitFor('the slow page to be requested', async () => requested, (v) => v);
    expect(await row(id)).toMatchObject({ status: 'processing', claimed_by: worker.workerId, attempts: 1 });
    expect(worker.busy).toBe(1);

    const t0 = Date.now();
    await stopWorker(worker);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await row(id)).toMatchObject({ status: 'queued', attempts: 0, claimed_by: null, claimed_until: null, failure_reason: null });
    expect(worker.busy).toBe(0);
    // The fetch was cancelled, not left hanging.
    await waitFor('the slow request to be abandoned', async () => site.abandoned.has('/slow.html'), (v) => v, 3000);
    expect(await storedChunks(id)).toHaveLength(0);

    // Another replica picks it up later.
    site.routes.set('/slow.html', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html('Now fast', paragraphs('Fast', 2))));
    await startWorker();
    expect(await settled(id)).toMatchObject({ status: 'ready', attempts: 1 });
  });

  it('lets a document that finishes within the shutdown grace period finish', async () => {
    site.routes.set('/slowish.txt', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(paragraphs('Slowish', 2).join('\n\n')), 600);
    });
    const worker = await startWorker({ SHUTDOWN_GRACE_MS: '5000' });
    const id = await queueUrl('/slowish.txt');
    await waitFor('the page to be requested', async () => site.hits.get('/slowish.txt') ?? 0, (n) => n > 0);
    await stopWorker(worker);
    expect(await row(id)).toMatchObject({ status: 'ready', attempts: 1 });
  });

  it('renews the lease of a document that takes longer than the lease, so no other worker takes it over', async () => {
    site.routes.set('/long.txt', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(paragraphs('Long', 2).join('\n\n')), 2500);
    });
    const env = { KNOWLEDGE_LEASE_MS: '1000', KNOWLEDGE_POLL_MS: '50' };
    const a = await startWorker(env);
    const id = await queueUrl('/long.txt');
    await waitFor('the page to be requested', async () => site.hits.get('/long.txt') ?? 0, (n) => n > 0);
    await startWorker(env); // a second replica polling every 50 ms
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'ready', attempts: 1 });
    expect(site.hits.get('/long.txt')).toBe(1);
    expect(a.busy).toBe(0);
  });

  it('processes every document exactly once with two workers', async () => {
    await Promise.all([startWorker({ KNOWLEDGE_CONCURRENCY: '3' }), startWorker({ KNOWLEDGE_CONCURRENCY: '3' })]);
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => queue({ title: `Doc ${i}`, sourceType: 'snippet', content: paragraphs(`Topic ${i}`, 4).join('\n\n') })));
    const rows = await Promise.all(ids.map((id) => settled(id, 20_000)));
    for (const r of rows) {
      expect(r).toMatchObject({ status: 'ready', attempts: 1 });
      expect(await storedChunks(r.id)).toHaveLength(r.chunk_count);
    }
  });

  it('wakes on NOTIFY: a document queued while the worker idles (60 s poll) is ready within a second or two', async () => {
    const worker = await startWorker({ KNOWLEDGE_POLL_MS: '60000' });
    const [listener] = await ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'knowledge-worker-listener'`);
    expect(listener.n).toBe(1);
    await sleep(300); // the bootstrap pump has found nothing and the worker idles
    expect(worker.busy).toBe(0);

    const t0 = Date.now();
    const id = await queue({ title: 'Late', sourceType: 'snippet', content: paragraphs('Late', 2).join('\n\n') });
    const done = await waitFor('the document to be ready', () => row(id), (r) => r.status === 'ready', 2500, 10);
    const ms = Date.now() - t0;
    expect(done.chunk_count).toBeGreaterThan(0);
    expect(ms).toBeLessThan(2000);

    // And again, after the first one: the worker keeps listening.
    const id2 = await queue({ title: 'Later', sourceType: 'snippet', content: 'Another short note.' });
    await waitFor('the second document to be ready', () => row(id2), (r) => r.status === 'ready', 2500, 10);
  });
});
