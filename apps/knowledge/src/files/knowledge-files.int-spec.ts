import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { FilesystemBlobStore, knowledgeFileKey } from '@sa/blob-storage';
import { CallerContext } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { createLogger } from '@sa/logging';
import { outboundPolicy } from '@sa/net-guard';
import { createTestDatabase, pdfFlateBomb, watchChildMemory } from '@sa/testing';
import { loadKnowledgeConfig } from '../config/knowledge.config';
import { DocumentsRepository } from '../documents/documents.repository';
import { DocumentsService } from '../documents/documents.service';
import { createEmbeddings, type EmbedderChoice } from '../embeddings/embeddings.factory';
import { WorkspaceEmbedders } from '../embeddings/workspace-embedders';
import { WorkspaceEmbeddersRepository } from '../embeddings/workspace-embedders.repository';
import { DocumentClaimsRepository } from '../pipeline/document-claims.repository';
import { DocumentProcessor } from '../pipeline/document-processor';
import { IngestionWorker } from '../pipeline/ingestion.worker';
import { PostgresVectorStore } from '../vector-store/postgres-vector-store';
import { KnowledgeFileReader } from './knowledge-file-reader';
import { KnowledgeFilesHandler } from './knowledge-files.handler';
import { KnowledgeFilesRepository } from './knowledge-files.repository';
import { KnowledgeFilesService } from './knowledge-files.service';

// Uploaded files and delete, against a migrated database, a directory blob store, the Postgres
// vector store and the real ingestion worker with the hashing embedder. The embedder can be held
// at a gate, so a document can be deleted while it is being embedded.

const logger = createLogger('knowledge-files-int', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });
const fixtures = path.join(__dirname, '..', '..', '..', '..', 'e2e', 'fixtures');
const BOT_A = randomUUID();
const BOT_B = randomUUID();

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let pool: Pool;
let blobDir: string;
let blobs: FilesystemBlobStore;
let service: KnowledgeFilesService;
let handler: KnowledgeFilesHandler;
let documents: DocumentsRepository;
let worker: IngestionWorker;
let gate: { wait: Promise<void>; open: () => void; reached: boolean } | null = null;

function gatedEmbedder(): EmbedderChoice {
  const real = createEmbeddings({});
  const embeddings = Object.create(real.embeddings) as typeof real.embeddings;
  embeddings.embedDocuments = async (texts: string[]) => {
    if (gate) {
      gate.reached = true;
      await gate.wait;
    }
    return real.embeddings.embedDocuments(texts);
  };
  return { ...real, embeddings };
}

beforeAll(async () => {
  db = await createTestDatabase('sa_test_kb_files');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: 'kb-files-int', poolSize: 4 })).initialize();
  pool = new Pool({ connectionString: db.appUrl('knowledge'), max: 3 });
  pool.on('error', () => undefined);
  blobDir = mkdtempSync(path.join(tmpdir(), 'kb-files-int-'));
  blobs = new FilesystemBlobStore(blobDir);
  const config = loadKnowledgeConfig({ DATABASE_URL: db.appUrl('knowledge'), KNOWLEDGE_POLL_MS: '100', KNOWLEDGE_LEASE_MS: '5000', LOG_LEVEL: 'silent', BLOB_DIR: blobDir });
  const store = new PostgresVectorStore(pool);
  const files = new KnowledgeFilesRepository(ds);
  documents = new DocumentsRepository(ds);
  const claims = new DocumentClaimsRepository(ds);
  const reader = new KnowledgeFileReader(files, blobs, config);
  // No workspace here chooses a model connection: the installation's embedder, no bots service, no keys.
  const processor = new DocumentProcessor(store, new WorkspaceEmbedders(gatedEmbedder(), new WorkspaceEmbeddersRepository(ds), null as never, { box: null as never, calls: null as never, batchSize: 64 }), outboundPolicy({ allowCidrs: [], allowedPorts: [] }), claims, logger, reader);
  // Requests here name no bot, so the bots service (bots.bot.check over NATS) is never asked.
  const documentsService = new DocumentsService(documents, null as never, config, claims, processor, logger);
  service = new KnowledgeFilesService(files, documents, documentsService, store, blobs, config, logger);
  handler = new KnowledgeFilesHandler(service);
  worker = new IngestionWorker(claims, processor, config, logger);
  await worker.onApplicationBootstrap();
});

afterAll(async () => {
  gate?.open();
  await worker?.beforeApplicationShutdown();
  await pool?.end();
  await ds?.destroy();
  await db?.drop();
  rmSync(blobDir, { recursive: true, force: true });
});

const ctxOf = (tenantId: string, botIds: string[] | null = null, pagesPerBot = 100) =>
  ({ tenantId, tokenId: null, scopes: ['kb:read', 'kb:write'], botIds, requestId: 'kb-files-int', entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5, pagesPerBot, widgetMessagesPerBotPerMonth: 1, webhooks: true } }) as CallerContext;

async function upload(ctx: CallerContext, fixture: string, bytes?: Buffer, extra: { title?: string } = {}) {
  const data = bytes ?? readFileSync(path.join(fixtures, fixture));
  const storageKey = knowledgeFileKey(ctx.tenantId);
  await blobs.put(storageKey, data, 'application/octet-stream');
  const view = await service.addFile(ctx, { storageKey, fileName: fixture, contentType: 'application/octet-stream', size: data.length, ...extra });
  return { view, storageKey };
}

async function row(id: string): Promise<{ status: string; chunk_count: number; failure_reason: string | null } | undefined> {
  const [r] = await ds.query(`SELECT status, chunk_count, failure_reason FROM knowledge.documents WHERE id = $1`, [id]);
  return r;
}

const chunkTexts = async (id: string): Promise<string[]> => (await ds.query(`SELECT text FROM knowledge.chunks WHERE document_id = $1 ORDER BY ordinal`, [id])).map((r: { text: string }) => r.text);

async function settled(id: string, withinMs = 20_000) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const r = await row(id);
    if (r && (r.status === 'ready' || r.status === 'failed')) return r;
    if (Date.now() > deadline) throw new Error(`document ${id} did not settle: ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e) => (e instanceof DomainError ? e.code : String(e)));

it('a PDF and a DOCX become ready `file` documents whose chunks hold their text', async () => {
  const ctx = ctxOf(randomUUID());
  const pdf = await upload(ctx, 'warranty.pdf');
  expect(pdf.view).toMatchObject({ source_type: 'file', status: 'queued', title: 'warranty.pdf', source_url: null, chatbot_id: null });
  const docx = await upload(ctx, 'returns.docx', undefined, { title: 'Returns' });
  expect(docx.view.title).toBe('Returns');
  expect(await settled(pdf.view.id)).toMatchObject({ status: 'ready', failure_reason: null });
  expect(await settled(docx.view.id)).toMatchObject({ status: 'ready' });
  expect((await chunkTexts(pdf.view.id)).join(' ')).toContain('warranty of 7 years on the heating element');
  expect((await chunkTexts(docx.view.id)).join(' ')).toContain('accepted within 45 days of delivery');
});

it('a file that cannot be read fails with a reason a person can act on', async () => {
  const ctx = ctxOf(randomUUID());
  const { view } = await upload(ctx, 'broken.pdf', Buffer.from('%PDF-1.4 this is not really a PDF'));
  const r = await settled(view.id);
  expect(r.status).toBe('failed');
  expect(r.failure_reason).toMatch(/^The PDF cannot be read/);
});

// Issue 30: a 4.5 MB PDF took its reader to 2.5 GB resident and held an ingestion slot for 60 s.
// The peak resident memory of the readers (children of this process) is read from /proc.
it('a PDF flate bomb fails with its reason, its reader killed well under 512 MB resident', async () => {
  const ctx = ctxOf(randomUUID());
  const memory = watchChildMemory();
  // 200 MB of zeros drawn by 20 pages: small enough for the inflate check, 4 GB for pdf.js.
  const { view } = await upload(ctx, 'bomb.pdf', pdfFlateBomb(200, { pages: 20 }));
  const r = await settled(view.id, 60_000);
  const { peakMb, children } = memory.stop();
  expect(r).toMatchObject({ status: 'failed', chunk_count: 0, failure_reason: 'The PDF cannot be read: reading the PDF needed more than 384 MB of memory' });
  expect(children).toBeGreaterThan(0);
  expect(peakMb).toBeLessThan(512);
}, 80_000);

it('two bombs uploaded in one workspace do not keep another workspace\'s document from becoming ready', async () => {
  const attacker = ctxOf(randomUUID());
  const other = ctxOf(randomUUID());
  const memory = watchChildMemory();
  const bombs = [
    (await upload(attacker, 'bomb-1.pdf', pdfFlateBomb(1024))).view,
    (await upload(attacker, 'bomb-2.pdf', pdfFlateBomb(200, { pages: 20 }))).view,
  ];
  const started = Date.now();
  const { view } = await upload(other, 'warranty.pdf');
  // Both ingestion slots were taken by the bombs: the other workspace's file waits only as long
  // as a bomb takes to be stopped (about 15 s here on an idle machine, 40 s with the machine's two
  // cores twelve times oversubscribed), not the 60 s read timeout the old readers ran into.
  expect(await settled(view.id, 55_000)).toMatchObject({ status: 'ready', failure_reason: null });
  const waited = Date.now() - started;
  expect(await settled(bombs[0].id, 55_000)).toMatchObject({ status: 'failed', failure_reason: "The PDF's compressed content inflates to more than 256 MB; at most 256 MB are read" });
  expect(await settled(bombs[1].id, 55_000)).toMatchObject({ status: 'failed', failure_reason: 'The PDF cannot be read: reading the PDF needed more than 384 MB of memory' });
  expect(memory.stop().peakMb).toBeLessThan(512);
  expect(waited).toBeLessThan(55_000);
}, 150_000);

it('refuses a storage key of another workspace, a malformed one, and a full page quota', async () => {
  const ctx = ctxOf(randomUUID(), null, 1);
  expect(await codeOf(service.addFile(ctx, { storageKey: knowledgeFileKey(randomUUID()), fileName: 'a.txt', contentType: 'text/plain', size: 3 }))).toBe('bad_request');
  const call = handler.addFile as unknown as (p: unknown) => Promise<unknown>;
  let refusal: unknown;
  try {
    await call({ ctx, data: { storageKey: '../../etc/passwd', fileName: 'a.txt', contentType: 'text/plain', size: 3 } });
  } catch (e) {
    refusal = (e as { getError(): unknown }).getError();
  }
  expect(JSON.stringify(refusal)).toContain('storageKey must be a knowledge file key');
  await upload(ctx, 'a.txt', Buffer.from('Opening hours: nine to five.'));
  expect(await codeOf(upload(ctx, 'b.txt', Buffer.from('More text.')))).toBe('quota_exhausted');
});

it('delete takes the chunks, the file and the row away (its page returns to the quota); 404 for another workspace; bot rules', async () => {
  const ws = randomUUID();
  const ctx = ctxOf(ws, null, 2);
  const { view, storageKey } = await upload(ctx, 'warranty.pdf');
  await settled(view.id);
  expect((await chunkTexts(view.id)).length).toBeGreaterThan(0);
  expect(await documents.countPages(ds.manager, ws, null)).toBe(1);

  expect(await codeOf(service.delete(ctxOf(randomUUID()), { documentId: view.id }))).toBe('not_found');
  expect(await codeOf(service.delete(ctxOf(ws, [BOT_A]), { documentId: view.id }))).toBe('bot_access_denied');

  await expect(service.delete(ctx, { documentId: view.id })).resolves.toEqual({ id: view.id, deleted: true });
  expect(await row(view.id)).toBeUndefined();
  expect(await chunkTexts(view.id)).toEqual([]);
  expect(await blobs.get(storageKey)).toBeNull();
  expect(await documents.countPages(ds.manager, ws, null)).toBe(0);
  expect(await codeOf(service.delete(ctx, { documentId: view.id }))).toBe('not_found');

  // A bot's document: its own bot's restricted caller may delete it, another bot's may not.
  const [{ id: botDoc }] = await ds.query(`INSERT INTO knowledge.documents (tenant_id, chatbot_id, title, source_type, status) VALUES ($1, $2, 'T', 'snippet', 'ready') RETURNING id`, [ws, BOT_A]);
  expect(await codeOf(service.delete(ctxOf(ws, [BOT_B]), { documentId: botDoc }))).toBe('bot_access_denied');
  expect(await codeOf(service.delete(ctxOf(ws, [BOT_A]), { documentId: botDoc }))).toBe('ok');
});

it('deleting a crawled site deletes the pages discovered from it', async () => {
  const ws = randomUUID();
  const [{ id: root }] = await ds.query(`INSERT INTO knowledge.documents (tenant_id, title, source_url, source_type, status, discover) VALUES ($1, 'Site', 'https://example.test/', 'url', 'ready', true) RETURNING id`, [ws]);
  await ds.query(`INSERT INTO knowledge.documents (tenant_id, title, source_url, source_type, status, parent_id) VALUES ($1, 'A', 'https://example.test/a', 'url', 'ready', $2), ($1, 'B', 'https://example.test/b', 'url', 'queued', $2)`, [ws, root]);
  const [{ id: other }] = await ds.query(`INSERT INTO knowledge.documents (tenant_id, title, source_type, status) VALUES ($1, 'Other', 'snippet', 'ready') RETURNING id`, [ws]);
  await service.delete(ctxOf(ws), { documentId: root });
  expect((await ds.query(`SELECT id FROM knowledge.documents WHERE tenant_id = $1`, [ws])).map((r: { id: string }) => r.id)).toEqual([other]);
});

it('a document deleted while it is being embedded does not come back', async () => {
  const ctx = ctxOf(randomUUID());
  let open!: () => void;
  gate = { wait: new Promise<void>((r) => (open = r)), open: () => open(), reached: false };
  const { view } = await upload(ctx, 'notes.md', Buffer.from('# Notes\n\nThe Zephyr lid opens with the silver button on the handle.'));
  const deadline = Date.now() + 10_000;
  while (!gate.reached) {
    if (Date.now() > deadline) throw new Error('the worker never reached the embedder');
    await new Promise((r) => setTimeout(r, 20));
  }
  expect((await row(view.id))?.status).toBe('processing');
  await service.delete(ctx, { documentId: view.id });
  gate.open();
  gate = null;
  // The worker finishes embedding and writes its chunks, then finds the document gone and takes them out.
  await new Promise((r) => setTimeout(r, 1500));
  expect(await row(view.id)).toBeUndefined();
  expect(await chunkTexts(view.id)).toEqual([]);
  expect(await ds.query(`SELECT count(*)::int AS n FROM knowledge.chunks WHERE tenant_id = $1`, [ctx.tenantId])).toEqual([{ n: 0 }]);
});
