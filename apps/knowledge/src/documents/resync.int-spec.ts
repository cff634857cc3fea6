import 'reflect-metadata';
import { RpcException } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { CallerContext, KbDocumentView, PassageView } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { createLogger } from '@sa/logging';
import { RpcClient } from '@sa/messaging';
import { outboundPolicy } from '@sa/net-guard';
import { createTestDatabase, startRoutedSite, type RoutedSite } from '@sa/testing';
import { KnowledgeConfig, loadKnowledgeConfig } from '../config/knowledge.config';
import { createEmbeddings, type EmbedderChoice } from '../embeddings/embeddings.factory';
import { WorkspaceEmbedders } from '../embeddings/workspace-embedders';
import { WorkspaceEmbeddersRepository } from '../embeddings/workspace-embedders.repository';
import { DocumentClaimsRepository } from '../pipeline/document-claims.repository';
import { DocumentProcessor } from '../pipeline/document-processor';
import { IngestionWorker } from '../pipeline/ingestion.worker';
import { SearchService } from '../retrieval/search.service';
import { PostgresVectorStore } from '../vector-store/postgres-vector-store';
import { DocumentsHandler } from './documents.handler';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';
import { ResyncScheduler } from './resync.scheduler';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FilesystemBlobStore } from '@sa/blob-storage';
import { KnowledgeFileReader } from '../files/knowledge-file-reader';
import { KnowledgeFilesRepository } from '../files/knowledge-files.repository';

// Q&A documents and re-sync (issue 19) inside one process with real dependencies: the handlers
// as the NATS transport calls them (validation included), the ingestion worker on a test
// database, chunks in PostgresVectorStore, the hashing embedder (wrapped to count what it is
// asked to embed), and a local HTTP site whose pages the tests change between syncs.

const logger = createLogger('knowledge-resync-int', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });

/** Every text the embedder was asked to embed for documents (queries are not counted). */
const embedded: string[] = [];
const hashing = createEmbeddings({});
const counting: EmbedderChoice = {
  ...hashing,
  embeddings: {
    embedDocuments: async (texts: string[]) => (embedded.push(...texts), hashing.embeddings.embedDocuments(texts)),
    embedQuery: (text: string) => hashing.embeddings.embedQuery(text),
  } as EmbedderChoice['embeddings'],
};

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let pool: Pool;
let site: RoutedSite;
let config: KnowledgeConfig;
let documents: DocumentsRepository;
let claims: DocumentClaimsRepository;
let processor: DocumentProcessor;
let service: DocumentsService;
let handler: DocumentsHandler;
let search: SearchService;
let worker: IngestionWorker;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_kb_resync');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: 'kb-resync-int', poolSize: 6 })).initialize();
  pool = new Pool({ connectionString: db.appUrl('knowledge'), max: 4, application_name: 'kb-resync-int-vectors' });
  pool.on('error', () => undefined);
  site = await startRoutedSite();
  config = loadKnowledgeConfig({
    DATABASE_URL: db.appUrl('knowledge'),
    KNOWLEDGE_LEASE_MS: '5000',
    KNOWLEDGE_POLL_MS: '100',
    KNOWLEDGE_CONCURRENCY: '2',
    KNOWLEDGE_RESYNC_POLL_MS: '0',
    SHUTDOWN_GRACE_MS: '300',
    LOG_LEVEL: 'silent',
  });
  documents = new DocumentsRepository(ds);
  claims = new DocumentClaimsRepository(ds);
  const store = new PostgresVectorStore(pool);
  // No workspace here chooses a model connection: the installation's embedder, no bots service, no keys.
  const embedders = new WorkspaceEmbedders(counting, new WorkspaceEmbeddersRepository(ds), null as never, { box: null as never, calls: null as never, batchSize: 64 });
  processor = new DocumentProcessor(store, embedders, outboundPolicy({ allowCidrs: ['127.0.0.1/32'], allowedPorts: [site.port], timeoutMs: 10_000 }), claims, logger, new KnowledgeFileReader(new KnowledgeFilesRepository(ds), new FilesystemBlobStore(path.join(tmpdir(), 'kb-resync-int')), config));
  // No request here names a bot, so nothing asks the bots service (the RpcClient is never used).
  service = new DocumentsService(documents, null as unknown as RpcClient, config, claims, processor, logger);
  handler = new DocumentsHandler(service, documents);
  search = new SearchService(store, embedders, null as unknown as RpcClient);
  worker = new IngestionWorker(claims, processor, config, logger);
  await worker.onApplicationBootstrap();
});

beforeEach(() => {
  site.routes.clear();
  site.hits.clear();
  embedded.length = 0;
});

afterAll(async () => {
  await worker?.beforeApplicationShutdown();
  await site?.close();
  await pool?.end();
  await ds?.destroy();
  await db?.drop();
});

const ctxOf = (tenantId: string, over: Partial<CallerContext> = {}, pagesPerBot = 50) =>
  ({
    tenantId,
    tokenId: null,
    scopes: ['kb:read', 'kb:write'],
    botIds: null,
    requestId: 'resync-int',
    entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5, pagesPerBot, widgetMessagesPerBotPerMonth: 1, webhooks: true },
    ...over,
  }) as CallerContext;

type Outcome<T> = { ok: T } | { code: string; message: string };

/** Calls a handler method as the NATS transport does: the reply, or the error code it answers with. */
async function call<T>(method: keyof DocumentsHandler, data: unknown, ctx: CallerContext): Promise<Outcome<T>> {
  try {
    return { ok: await (handler[method] as unknown as (payload: unknown) => Promise<T>).call(handler, { ctx, data }) };
  } catch (err) {
    if (err instanceof RpcException) return err.getError() as { code: string; message: string };
    throw err;
  }
}

async function ok<T>(method: keyof DocumentsHandler, data: unknown, ctx: CallerContext): Promise<T> {
  const out = await call<T>(method, data, ctx);
  if (!('ok' in out)) throw new Error(`${String(method)} failed: ${out.code}: ${out.message}`);
  return out.ok;
}

const codeOf = async (method: keyof DocumentsHandler, data: unknown, ctx: CallerContext) => {
  const out = await call(method, data, ctx);
  return 'ok' in out ? 'ok' : out.code;
};

const html = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>` +
  `<main><article><h1>${title}</h1>${Array.from({ length: 4 }, (_, i) => `<p>${body} (part ${i + 1}): every order ships within two working days and returns are free for a month.</p>`).join('')}</article></main></body></html>`;

/** Serves `path` with an HTML page whose text can be changed by changing `pages[path]`. */
function serve(pages: Record<string, { title: string; body: string; links?: string[] } | 404 | 410>): void {
  site.routes.clear();
  for (const [path, page] of Object.entries(pages)) {
    site.routes.set(path, (_req, res) => {
      if (typeof page === 'number') res.writeHead(page, { 'content-type': 'text/plain' }).end('gone');
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(page.title, page.body, page.links));
    });
  }
}

interface DocRow {
  id: string;
  source_url: string | null;
  status: string;
  parent_id: string | null;
  content_hash: string | null;
  last_synced_at: Date | null;
  chunk_count: number;
  failure_reason: string | null;
}

const docsOf = (tenantId: string): Promise<DocRow[]> =>
  ds.query(`SELECT id, source_url, status, parent_id, content_hash, last_synced_at, chunk_count, failure_reason FROM knowledge.documents WHERE tenant_id = $1 ORDER BY source_url`, [tenantId]);

/** The chunks of the workspace by document: their row identity (seq) and text. */
async function chunksOf(tenantId: string): Promise<Map<string, { seq: string; text: string }[]>> {
  const rows: { document_id: string; seq: string; text: string }[] = await ds.query(
    `SELECT document_id, seq::text AS seq, text FROM knowledge.chunks WHERE tenant_id = $1 ORDER BY document_id, ordinal`,
    [tenantId],
  );
  const out = new Map<string, { seq: string; text: string }[]>();
  for (const r of rows) out.set(r.document_id, [...(out.get(r.document_id) ?? []), { seq: r.seq, text: r.text }]);
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits until the workspace has nothing queued or processing and `root` was synced after `since`. */
async function settled(tenantId: string, rootId: string, since: Date, timeoutMs = 15_000): Promise<DocRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const docs = await docsOf(tenantId);
    const root = docs.find((d) => d.id === rootId);
    if (root && root.last_synced_at && root.last_synced_at > since && docs.every((d) => d.status === 'ready' || d.status === 'failed')) return docs;
    if (Date.now() > deadline) throw new Error(`timed out waiting for the sync to settle: ${JSON.stringify(docs)}`);
    await sleep(50);
  }
}

/** A crawled site: the root links /a, /b and /c; it is ingested and every page indexed. */
async function crawledSite(): Promise<{ tenantId: string; ctx: CallerContext; rootId: string; pages: Record<string, { title: string; body: string; links?: string[] } | 404 | 410> }> {
  const tenantId = randomUUID();
  const pages: Record<string, { title: string; body: string; links?: string[] } | 404 | 410> = {
    '/': { title: 'Home', body: 'Welcome to the lamp shop', links: ['/a', '/b', '/c'] },
    '/a': { title: 'Delivery', body: 'Delivery takes three days by courier' },
    '/b': { title: 'Warranty', body: 'Every lamp has a two year warranty' },
    '/c': { title: 'Contact', body: 'Call us on weekdays between nine and five' },
  };
  serve(pages);
  const since = new Date();
  const root = await documents.insert(ds.manager, { tenantId, chatbotId: null, title: 'Lamp shop', sourceUrl: `${site.url}/`, sourceType: 'url', content: null, discover: true, pageQuota: 50 });
  await settled(tenantId, root.id, since);
  await waitAllReady(tenantId, 4);
  return { tenantId, ctx: ctxOf(tenantId), rootId: root.id, pages };
}

/** Waits until the workspace has `n` documents, all ready. */
async function waitAllReady(tenantId: string, n: number, timeoutMs = 15_000): Promise<DocRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const docs = await docsOf(tenantId);
    if (docs.length === n && docs.every((d) => d.status === 'ready')) return docs;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} ready documents: ${JSON.stringify(docs)}`);
    await sleep(50);
  }
}

/** Re-syncs the root through the handler and waits until the workspace settled again. */
async function resync(ctx: CallerContext, rootId: string, n: number): Promise<DocRow[]> {
  const since = new Date();
  const view = await ok<KbDocumentView>('resync', { documentId: rootId }, ctx);
  expect(view).toMatchObject({ id: rootId, status: 'queued' });
  await settled(ctx.tenantId, rootId, since);
  return waitAllReady(ctx.tenantId, n);
}

describe('knowledge.document.add-qa', () => {
  it('stores a ready qa document with one chunk holding the whole pair, which retrieval returns whole', async () => {
    const ctx = ctxOf(randomUUID());
    const answer = `You can return an unused lamp within thirty days. ${'Pack it in its original box, add the receipt and send it to our warehouse. '.repeat(40)}Refunds arrive within five days.`;
    expect(answer.length).toBeGreaterThan(3000);
    const view = await ok<KbDocumentView>('addQa', { question: '  How do I return a lamp?  ', answer }, ctx);
    expect(view).toMatchObject({ source_type: 'qa', title: 'How do I return a lamp?', status: 'ready', chunk_count: 1, chatbot_id: null, source_url: null, resync_schedule: 'none' });
    const chunks = await chunksOf(ctx.tenantId);
    expect([...chunks.keys()]).toEqual([view.id]);
    expect(chunks.get(view.id)!.map((c) => c.text)).toEqual([`Q: How do I return a lamp?\nA: ${answer}`]);
    const passages: PassageView[] = await search.search(ctx, { query: 'return a lamp refund', chatbotId: null });
    expect(passages[0]).toMatchObject({ document_id: view.id, title: 'How do I return a lamp?', text: `Q: How do I return a lamp?\nA: ${answer}` });
    // The list shows it like any other document, and it counts one page.
    const listed = await ok<KbDocumentView[]>('list', {}, ctx);
    expect(listed.map((d) => [d.id, d.source_type, d.status])).toEqual([[view.id, 'qa', 'ready']]);
  });

  it('counts one page against the quota (402 when used up) and refuses bad input with 400', async () => {
    const ctx = ctxOf(randomUUID(), {}, 1);
    expect(await codeOf('addQa', { question: 'Q1?', answer: 'A1' }, ctx)).toBe('ok');
    expect(await codeOf('addQa', { question: 'Q2?', answer: 'A2' }, ctx)).toBe('quota_exhausted');
    const other = ctxOf(randomUUID());
    expect(await codeOf('addQa', { question: '', answer: 'x' }, other)).toBe('validation_failed');
    expect(await codeOf('addQa', { question: '   ', answer: 'x' }, other)).toBe('validation_failed');
    expect(await codeOf('addQa', { question: 'q'.repeat(301), answer: 'x' }, other)).toBe('validation_failed');
    expect(await codeOf('addQa', { question: 'Q?', answer: 'a'.repeat(4001) }, other)).toBe('validation_failed');
    expect(await codeOf('addQa', { question: 'Q?', answer: 'A', chatbotId: 'not-a-uuid' }, other)).toBe('validation_failed');
    expect(await codeOf('addQa', { question: 'Q?', answer: 'A', extra: 1 }, other)).toBe('validation_failed');
    // A token restricted to bots must name one of them (as for ingest).
    expect(await codeOf('addQa', { question: 'Q?', answer: 'A' }, ctxOf(randomUUID(), { botIds: [randomUUID()] }))).toBe('bot_access_denied');
    expect(await docsOf(other.tenantId)).toEqual([]);
  });
});

describe('knowledge.document.resync', () => {
  it('re-embeds nothing when no page changed, and keeps every chunk row', async () => {
    const { ctx, rootId } = await crawledSite();
    const before = await chunksOf(ctx.tenantId);
    expect(before.size).toBe(4);
    embedded.length = 0;
    site.hits.clear();
    const docs = await resync(ctx, rootId, 4);
    expect(embedded).toEqual([]);
    expect(await chunksOf(ctx.tenantId)).toEqual(before);
    // Every page was fetched again, and is synced now.
    for (const p of ['/', '/a', '/b', '/c']) expect(site.hits.get(p)).toBe(1);
    expect(docs.every((d) => d.last_synced_at !== null && d.content_hash !== null)).toBe(true);
  });

  it('replaces the chunks of the one page that changed, and only those', async () => {
    const { ctx, rootId, pages } = await crawledSite();
    const before = await chunksOf(ctx.tenantId);
    const docs = await docsOf(ctx.tenantId);
    const b = docs.find((d) => d.source_url === `${site.url}/b`)!;
    serve({ ...pages, '/b': { title: 'Warranty', body: 'Every lamp now has a five year warranty' } });
    embedded.length = 0;
    const after = await resync(ctx, rootId, 4);
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.every((t) => t.includes('five year warranty'))).toBe(true);
    const chunks = await chunksOf(ctx.tenantId);
    for (const d of docs) {
      if (d.id === b.id) {
        expect(chunks.get(d.id)!.map((c) => c.text).join(' ')).toContain('five year warranty');
        expect(chunks.get(d.id)!.some((c) => before.get(d.id)!.some((o) => o.seq === c.seq))).toBe(false);
      } else {
        expect(chunks.get(d.id)).toEqual(before.get(d.id));
      }
    }
    expect(after.find((d) => d.id === b.id)!.content_hash).not.toBe(b.content_hash);
    expect(after.filter((d) => d.id !== b.id).map((d) => d.content_hash)).toEqual(docs.filter((d) => d.id !== b.id).map((d) => d.content_hash));
  });

  it('removes a page its site no longer links, and one that answers 410, with their chunks', async () => {
    const { ctx, rootId, pages } = await crawledSite();
    const docs = await docsOf(ctx.tenantId);
    const idOf = (p: string) => docs.find((d) => d.source_url === `${site.url}${p}`)!.id;
    serve({ ...pages, '/': { title: 'Home', body: 'Welcome to the lamp shop', links: ['/a', '/b'] }, '/a': 410 });
    embedded.length = 0;
    const since = new Date();
    await ok<KbDocumentView>('resync', { documentId: rootId }, ctx);
    await settled(ctx.tenantId, rootId, since);
    const after = await waitAllReady(ctx.tenantId, 2);
    expect(after.map((d) => d.id).sort()).toEqual([rootId, idOf('/b')].sort());
    const chunks = await chunksOf(ctx.tenantId);
    expect(chunks.has(idOf('/a'))).toBe(false);
    expect(chunks.has(idOf('/c'))).toBe(false);
    expect(embedded).toEqual([]);
    // The page count (knowledge.usage / quota) dropped with them.
    expect(await documents.countPages(ds.manager, ctx.tenantId, null)).toBe(2);
    const passages = await search.search(ctx, { query: 'call us on weekdays', chatbotId: null });
    expect(passages.some((p) => p.text.includes('Call us on weekdays'))).toBe(false);
  });

  it('adds a page the site links newly, within the quota', async () => {
    const { ctx, rootId, pages } = await crawledSite();
    serve({ ...pages, '/': { title: 'Home', body: 'Welcome to the lamp shop', links: ['/a', '/b', '/c', '/d'] }, '/d': { title: 'Lamps', body: 'Our newest desk lamp is made of oak' } });
    embedded.length = 0;
    const after = await resync(ctx, rootId, 5);
    expect(after.map((d) => d.source_url)).toContain(`${site.url}/d`);
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.every((t) => t.includes('desk lamp'))).toBe(true);
  });

  it('refuses: 404 for another workspace, 400 for a non-URL source, 409 while queued, 403 for another bot, 402 for a failed source without room', async () => {
    const tenantId = randomUUID();
    const ctx = ctxOf(tenantId);
    const qa = await ok<KbDocumentView>('addQa', { question: 'Opening hours?', answer: 'Nine to five.' }, ctx);
    expect(await codeOf('resync', { documentId: qa.id }, ctx)).toBe('bad_request');
    expect(await codeOf('schedule', { documentId: qa.id, schedule: 'daily' }, ctx)).toBe('bad_request');
    const queued = await documents.insert(ds.manager, { tenantId, chatbotId: null, title: 'Later', sourceUrl: `${site.url}/nowhere`, sourceType: 'url', content: null });
    await ds.query(`UPDATE knowledge.documents SET status = 'processing', claimed_by = 'someone', claimed_until = now() + interval '1 hour' WHERE id = $1`, [queued.id]);
    expect(await codeOf('resync', { documentId: queued.id }, ctx)).toBe('conflict');
    expect(await codeOf('resync', { documentId: queued.id }, ctxOf(randomUUID()))).toBe('not_found');
    expect(await codeOf('resync', { documentId: randomUUID() }, ctx)).toBe('not_found');
    expect(await codeOf('resync', { documentId: 'nope' }, ctx)).toBe('validation_failed');
    // A token restricted to bot A: not a document of bot B, nor a workspace-wide one.
    const [botA, botB] = [randomUUID(), randomUUID()];
    const ofB = await documents.insert(ds.manager, { tenantId, chatbotId: botB, title: 'B', sourceUrl: `${site.url}/b`, sourceType: 'url', content: null });
    await ds.query(`UPDATE knowledge.documents SET status = 'ready' WHERE id = $1`, [ofB.id]);
    const onlyA = ctxOf(tenantId, { botIds: [botA] });
    expect(await codeOf('resync', { documentId: ofB.id }, onlyA)).toBe('bot_access_denied');
    expect(await codeOf('schedule', { documentId: ofB.id, schedule: 'weekly' }, onlyA)).toBe('bot_access_denied');
    expect(await codeOf('resync', { documentId: ofB.id }, ctxOf(tenantId, { botIds: [botB] }))).toBe('ok');
    // A failed source counts again once queued: it needs a free page.
    const full = ctxOf(randomUUID(), {}, 1);
    const failed = await documents.insert(ds.manager, { tenantId: full.tenantId, chatbotId: null, title: 'F', sourceUrl: `${site.url}/f`, sourceType: 'url', content: null });
    await ds.query(`UPDATE knowledge.documents SET status = 'failed' WHERE id = $1`, [failed.id]);
    await ok('addQa', { question: 'Q?', answer: 'A' }, full);
    expect(await codeOf('resync', { documentId: failed.id }, full)).toBe('quota_exhausted');
    expect(await codeOf('resync', { documentId: failed.id }, ctxOf(full.tenantId, {}, 2))).toBe('ok');
  });
});

describe('knowledge.document.schedule and the scheduler', () => {
  it('sets and clears a schedule counted from the last sync', async () => {
    const { ctx, rootId } = await crawledSite();
    const [root] = (await docsOf(ctx.tenantId)).filter((d) => d.id === rootId);
    const daily = await ok<KbDocumentView>('schedule', { documentId: rootId, schedule: 'daily' }, ctx);
    expect(daily.resync_schedule).toBe('daily');
    expect(Date.parse(daily.next_sync_at!) - root.last_synced_at!.getTime()).toBe(86_400_000);
    const weekly = await ok<KbDocumentView>('schedule', { documentId: rootId, schedule: 'weekly' }, ctx);
    expect(Date.parse(weekly.next_sync_at!) - root.last_synced_at!.getTime()).toBe(7 * 86_400_000);
    const none = await ok<KbDocumentView>('schedule', { documentId: rootId, schedule: 'none' }, ctx);
    expect(none).toMatchObject({ resync_schedule: 'none', next_sync_at: null });
    expect(await codeOf('schedule', { documentId: rootId, schedule: 'hourly' }, ctx)).toBe('validation_failed');
    expect(await codeOf('schedule', { documentId: rootId, schedule: 'daily' }, ctxOf(randomUUID()))).toBe('not_found');
  });

  it('queues each due source once across replicas, not the ones not due, and the sync then runs', async () => {
    const { ctx, rootId } = await crawledSite();
    await ok('schedule', { documentId: rootId, schedule: 'daily' }, ctx);
    const notDue = await ok<KbDocumentView>('addQa', { question: 'Q?', answer: 'A' }, ctx);
    await ds.query(`UPDATE knowledge.documents SET next_sync_at = now() - interval '1 minute' WHERE id = $1`, [rootId]);
    // Another workspace's source is scheduled, but not due yet.
    const later = await crawledSite();
    await ok('schedule', { documentId: later.rootId, schedule: 'weekly' }, later.ctx);
    await ds.query(`DELETE FROM knowledge.scheduler_leases`);
    const schedulerConfig = { ...config, resyncPollMs: 60_000 };
    const replicas = [new ResyncScheduler(documents, service, schedulerConfig, logger), new ResyncScheduler(documents, service, schedulerConfig, logger)];
    const since = new Date();
    const queued = await Promise.all(replicas.map((r) => r.tick()));
    expect(queued.sort()).toEqual([0, 1]);
    // The holder looks again: nothing more is due (the next run counts from now); the other still has no lease.
    expect(await Promise.all(replicas.map((r) => r.tick()))).toEqual([0, 0]);
    const docs = await settled(ctx.tenantId, rootId, since);
    const root = docs.find((d) => d.id === rootId)!;
    expect(root.last_synced_at!.getTime()).toBeGreaterThan(since.getTime());
    const [view] = (await ok<KbDocumentView[]>('list', {}, ctx)).filter((d) => d.id === rootId);
    expect(Date.parse(view.next_sync_at!)).toBeGreaterThan(Date.now() + 86_400_000 - 60_000);
    expect((await docsOf(later.tenantId)).find((d) => d.id === later.rootId)!.last_synced_at!.getTime()).toBeLessThan(since.getTime());
    expect((await documents.get(ctx.tenantId, notDue.id))!.last_synced_at!.getTime()).toBeLessThan(since.getTime());
    // When the holder stops, its lease is released and another replica takes over.
    await replicas[0].beforeApplicationShutdown();
    await replicas[1].beforeApplicationShutdown();
    expect(await ds.query(`SELECT * FROM knowledge.scheduler_leases`)).toEqual([]);
  });
});
