import 'reflect-metadata';
import { RpcException } from '@nestjs/microservices';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NatsConnection, connect } from 'nats';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { FilesystemBlobStore } from '@sa/blob-storage';
import { CallerContext, EmbeddingSettingsView, ModelConnectionSpec, PassageView } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { connectionCalls } from '@sa/llm-config';
import { createLogger } from '@sa/logging';
import { RpcClient, validateEnvelope } from '@sa/messaging';
import { outboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { type FakeModelServer, type PrivateNats, type SeenRequest, createTestDatabase, startFakeModelServer, startPrivateNats } from '@sa/testing';
import { type KnowledgeConfig, loadKnowledgeConfig } from '../config/knowledge.config';
import { DocumentsRepository } from '../documents/documents.repository';
import { KnowledgeFileReader } from '../files/knowledge-file-reader';
import { KnowledgeFilesRepository } from '../files/knowledge-files.repository';
import { DocumentClaimsRepository } from '../pipeline/document-claims.repository';
import { DocumentProcessor } from '../pipeline/document-processor';
import { IngestionWorker } from '../pipeline/ingestion.worker';
import { SearchService } from '../retrieval/search.service';
import { PostgresVectorStore } from '../vector-store/postgres-vector-store';
import { EmbeddingSettingsHandler } from './embedding-settings.handler';
import { EmbeddingSettingsService } from './embedding-settings.service';
import { createEmbeddings } from './embeddings.factory';
import { ReembedWorker } from './reembed.worker';
import { WorkspaceEmbedders } from './workspace-embedders';
import { WorkspaceEmbeddersRepository } from './workspace-embedders.repository';

// Models per workspace (issue 32), the embedding side, inside one process with real dependencies:
// the ingestion pipeline and the re-embedding worker on a test database (chunks in
// PostgresVectorStore), the handlers as the NATS transport calls them, bots.model.spec answered
// over a private nats-server by a stand-in for the bots service (the real envelope validation
// included), and a local HTTP server speaking OpenAI's /v1/embeddings (deterministic bag-of-words
// vectors, a key it checks, a delay and a failure the tests set) reached through the outbound guard.
// Every log line is captured: no key may appear in them, nor in the knowledge tables.

const HASHING = 'hashing:hashing-v1:384';
const DIMS = 48;
const KEY = `sk-live-${randomBytes(16).toString('hex')}`;
const WRONG_KEY = `sk-wrong-${randomBytes(16).toString('hex')}`;
const box = new SecretBox(randomBytes(32));
const logLines: string[] = [];
const logger = createLogger('knowledge-reembed-int', { level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });

const DOCS = {
  refunds: 'Refunds: unused items can be returned within thirty days for a full refund to the original card.',
  shipping: 'Shipping: parcels leave the warehouse within two working days and tracking arrives by email.',
  passwords: 'Passwords: to reset a forgotten password open the login page and choose reset password.',
  invoices: 'Invoices: every order comes with a PDF invoice that can be downloaded from the account page.',
};
type Topic = keyof typeof DOCS;

/** The stand-in's embedding: the words of the text hashed with the model's name into DIMS buckets, normalised. */
function toyEmbedding(text: string, model: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [text]) v[createHash('sha256').update(`${model}\u0000${word}`).digest().readUInt32LE(0) % DIMS] += 1;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** What the stand-in does now: how long each answer waits, and an error it answers with instead. */
const provider: { delayMs: number; failWith: { status: number; message: string } | null } = { delayMs: 0, failWith: null };
const inputsOf = (s: SeenRequest): string[] => (Array.isArray(s.body['input']) ? (s.body['input'] as string[]) : [s.body['input'] as string]);

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let pool: Pool;
let nats: PrivateNats;
let nc: NatsConnection;
let server: FakeModelServer;
let config: KnowledgeConfig;
let repository: WorkspaceEmbeddersRepository;
let embedders: WorkspaceEmbedders;
let store: PostgresVectorStore;
let documents: DocumentsRepository;
let ingestion: IngestionWorker;
let reembed: ReembedWorker;
let handler: EmbeddingSettingsHandler;
let search: SearchService;

/** The bots service's connections, by workspace and id, as bots.model.spec gives them. */
const connections = new Map<string, ModelConnectionSpec>();
/** The caller contexts bots.model.spec was asked with. */
const specCallers: CallerContext[] = [];

beforeAll(async () => {
  db = await createTestDatabase('sa_test_kb_reembed');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: 'kb-reembed-int', poolSize: 8 })).initialize();
  pool = new Pool({ connectionString: db.appUrl('knowledge'), max: 4, application_name: 'kb-reembed-int-vectors' });
  pool.on('error', () => undefined);
  nats = await startPrivateNats();
  nc = await connect({ servers: nats.url, name: 'kb-reembed-int' });
  nc.subscribe('bots.model.spec', {
    callback: (_err, msg) => {
      const { id, data: payload } = JSON.parse(Buffer.from(msg.data).toString('utf8'));
      let reply: object;
      try {
        const { data, ctx } = validateEnvelope('bots.model.spec', payload) as { data: { connectionId: string }; ctx: CallerContext };
        specCallers.push(ctx);
        const spec = connections.get(`${ctx.tenantId}:${data.connectionId}`);
        reply = spec ? { id, response: spec } : { id, err: { code: 'not_found', message: 'Model connection not found', details: {} } };
      } catch (err) {
        reply = { id, err: { code: 'validation_failed', message: (err as Error).message, details: {} } };
      }
      msg.respond(Buffer.from(JSON.stringify(reply)));
    },
  });
  await nc.flush();
  server = await startFakeModelServer(async (s, res) => {
    const reply = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (s.method !== 'POST' || s.path !== '/v1/embeddings') return reply(404, { error: { message: `Invalid URL (${s.method} ${s.path})` } });
    const key = /^Bearer (.+)$/.exec(s.authorization ?? '')?.[1];
    // As some providers do, the refusal repeats the key it was given.
    if (key !== KEY) return reply(401, { error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
    if (provider.delayMs) await new Promise((r) => setTimeout(r, provider.delayMs));
    if (provider.failWith) return reply(provider.failWith.status, { error: { message: provider.failWith.message, type: 'server_error' } });
    const model = String(s.body['model']);
    reply(200, { object: 'list', data: inputsOf(s).map((t, index) => ({ object: 'embedding', index, embedding: toyEmbedding(t, model) })), model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  });
  config = loadKnowledgeConfig({
    DATABASE_URL: db.appUrl('knowledge'),
    KNOWLEDGE_LEASE_MS: '3000',
    KNOWLEDGE_POLL_MS: '100',
    KNOWLEDGE_CONCURRENCY: '2',
    KNOWLEDGE_RESYNC_POLL_MS: '0',
    KNOWLEDGE_REEMBED_BATCH: '2',
    KNOWLEDGE_REEMBED_POLL_MS: '200',
    SHUTDOWN_GRACE_MS: '300',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
  });
  const rpc = new RpcClient(nc, 5000);
  repository = new WorkspaceEmbeddersRepository(ds);
  const calls = connectionCalls({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', OUTBOUND_ALLOWED_PORTS: new URL(server.url).port, MODEL_CONNECTION_MAX_RETRIES: '0', MODEL_CONNECTION_TIMEOUT_MS: '10000' });
  embedders = new WorkspaceEmbedders(createEmbeddings({}), repository, rpc, { box, calls, batchSize: 2 });
  store = new PostgresVectorStore(pool);
  documents = new DocumentsRepository(ds);
  const claims = new DocumentClaimsRepository(ds);
  const files = new KnowledgeFileReader(new KnowledgeFilesRepository(ds), new FilesystemBlobStore(path.join(tmpdir(), 'kb-reembed-int')), config);
  // Crawling is not under test: the policy allows nothing.
  const processor = new DocumentProcessor(store, embedders, outboundPolicy({ allowCidrs: [], allowedPorts: [] }), claims, logger, files);
  ingestion = new IngestionWorker(claims, processor, config, logger);
  await ingestion.onApplicationBootstrap();
  startReembedWorker();
  search = new SearchService(store, embedders, rpc);
});

afterEach(() => {
  provider.delayMs = 0;
  provider.failWith = null;
});

afterAll(async () => {
  await reembed?.beforeApplicationShutdown();
  await ingestion?.beforeApplicationShutdown();
  await server?.close();
  await nc?.close();
  await nats?.stop();
  await pool?.end();
  await ds?.destroy();
  await db?.drop();
});

/** A re-embedding worker, started as Nest starts it, and the handlers that wake it. */
function startReembedWorker(): ReembedWorker {
  reembed = new ReembedWorker(repository, embedders, store, config, logger);
  reembed.onApplicationBootstrap();
  handler = new EmbeddingSettingsHandler(new EmbeddingSettingsService(repository, embedders, reembed, logger));
  return reembed;
}

const ctxOf = (tenantId: string) =>
  ({
    tenantId,
    tokenId: null,
    scopes: [],
    botIds: null,
    requestId: `reembed-int-${randomUUID()}`,
    entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5, pagesPerBot: 50, widgetMessagesPerBotPerMonth: 1, webhooks: true },
  }) as CallerContext;

type Outcome<T> = { ok: T } | { code: string; message: string };

/** Calls a handler method as the NATS transport does: the reply, or the error it answers with. */
async function call<T>(method: keyof EmbeddingSettingsHandler, data: unknown, ctx: CallerContext): Promise<Outcome<T>> {
  try {
    return { ok: await (handler[method] as unknown as (payload: unknown) => Promise<T>).call(handler, { ctx, data }) };
  } catch (err) {
    if (err instanceof RpcException) return err.getError() as { code: string; message: string };
    throw err;
  }
}

async function get(ctx: CallerContext): Promise<EmbeddingSettingsView> {
  const out = await call<EmbeddingSettingsView>('get', {}, ctx);
  if (!('ok' in out)) throw new Error(`get failed: ${out.code}: ${out.message}`);
  return out.ok;
}

const update = (ctx: CallerContext, connectionId: string | null) => call<EmbeddingSettingsView>('update', { connection_id: connectionId }, ctx);

async function switched(ctx: CallerContext, connectionId: string | null): Promise<EmbeddingSettingsView> {
  const out = await update(ctx, connectionId);
  if (!('ok' in out)) throw new Error(`update failed: ${out.code}: ${out.message}`);
  return out.ok;
}

/** A connection of the workspace as the bots service keeps it (the key sealed). */
function connection(tenantId: string, over: Partial<ModelConnectionSpec> & { key?: string } = {}): ModelConnectionSpec {
  const { key = KEY, ...rest } = over;
  const spec: ModelConnectionSpec = { id: randomUUID(), kind: 'openai', base_url: `${server.url}/v1`, model: 'toy-embed', api_key_sealed: box.seal(key), updated_at: new Date().toISOString(), ...rest };
  connections.set(`${tenantId}:${spec.id}`, spec);
  return spec;
}

const embedderOf = (spec: ModelConnectionSpec) => `${spec.kind}:${spec.model}:${DIMS}@${spec.id.slice(0, 8)}`;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await sleep(20);
    last = await fn();
  }
  return last;
}

/** Queues a snippet and waits until it is ready. */
async function ingest(tenantId: string, title: string, content: string): Promise<string> {
  const { id } = await documents.insert(ds.manager, { tenantId, chatbotId: null, title, sourceUrl: null, sourceType: 'snippet', content });
  const [row] = await waitFor(
    `document ${title} to be indexed`,
    (): Promise<{ status: string; failure_reason: string | null }[]> => ds.query(`SELECT status, failure_reason FROM knowledge.documents WHERE id = $1`, [id]),
    (r) => r[0].status === 'ready' || r[0].status === 'failed',
  );
  if (row.status !== 'ready') throw new Error(`document ${title} failed: ${row.failure_reason}`);
  return id;
}

async function ingestAll(tenantId: string): Promise<Record<Topic, string>> {
  const ids = {} as Record<Topic, string>;
  for (const topic of Object.keys(DOCS) as Topic[]) ids[topic] = await ingest(tenantId, topic, DOCS[topic]);
  return ids;
}

/** The workspace's chunks per embedder. */
async function chunkEmbedders(tenantId: string): Promise<Record<string, number>> {
  const rows: { embedder: string; n: number }[] = await ds.query(`SELECT embedder, count(*)::int AS n FROM knowledge.chunks WHERE tenant_id = $1 GROUP BY embedder ORDER BY embedder`, [tenantId]);
  return Object.fromEntries(rows.map((r) => [r.embedder, r.n]));
}

/** Waits for the workspace's chunks per embedder to be `expected` (the old index is deleted just after a switch). */
async function expectIndexes(tenantId: string, expected: Record<string, number>): Promise<void> {
  const got = await waitFor('the indexes to settle', () => chunkEmbedders(tenantId), (v) => JSON.stringify(v) === JSON.stringify(expected), 5000).catch(() => chunkEmbedders(tenantId));
  expect(got).toEqual(expected);
}

const ask = (ctx: CallerContext, query: string): Promise<PassageView[]> => search.search(ctx, { query, k: 3 });
const REFUND_QUESTION = 'how do I get a refund';

// ---------------------------------------------------------------------------------------------

it('switches a workspace to a connection in the background: the old index answers until the new one is complete', async () => {
  const tenant = randomUUID();
  const ctx = ctxOf(tenant);
  const ids = await ingestAll(tenant);
  expect(await get(ctx)).toEqual({ connection_id: null, embedder: HASHING, status: 'ready', target_connection_id: null, done: 0, total: 0, error: null, started_at: null, completed_at: null });
  expect((await ask(ctx, REFUND_QUESTION))[0].document_id).toBe(ids.refunds);

  const conn = connection(tenant);
  provider.delayMs = 400;
  const probes = server.seen.length;
  const started = await switched(ctx, conn.id);
  expect(started).toMatchObject({ connection_id: null, embedder: HASHING, status: 'reindexing', target_connection_id: conn.id, done: 0, total: 4, error: null, completed_at: null });
  expect(started.started_at).not.toBeNull();
  expect(server.seen.slice(probes, probes + 1).map((s) => [s.path, s.authorization, s.body['model']])).toEqual([['/v1/embeddings', `Bearer ${KEY}`, 'toy-embed']]);

  // Meanwhile the old index answers, without asking the new model, and the progress shows.
  expect((await ask(ctx, REFUND_QUESTION))[0].document_id).toBe(ids.refunds);
  const progress = await get(ctx);
  expect(progress).toMatchObject({ status: 'reindexing', connection_id: null, embedder: HASHING, total: 4 });
  expect(progress.done).toBeLessThan(progress.total);
  // A document added now is embedded with both models.
  const hours = await ingest(tenant, 'Opening hours', 'Opening hours: the shop is open from nine to five on weekdays.');

  const done = await waitFor('the switch to complete', () => get(ctx), (v) => v.status !== 'reindexing');
  expect(done).toMatchObject({ connection_id: conn.id, embedder: embedderOf(conn), status: 'ready', target_connection_id: null, done: 4, total: 4, error: null });
  expect(done.completed_at).not.toBeNull();
  expect(server.seen.flatMap(inputsOf)).not.toContain(REFUND_QUESTION);
  // The old index is gone; the documents record the embedder of their chunks.
  await expectIndexes(tenant, { [embedderOf(conn)]: 5 });
  expect(await ds.query(`SELECT DISTINCT embedder FROM knowledge.documents WHERE tenant_id = $1`, [tenant])).toEqual([{ embedder: embedderOf(conn) }]);

  // Searches embed the question with the new model now.
  provider.delayMs = 0;
  const before = server.seen.length;
  expect((await ask(ctx, REFUND_QUESTION))[0].document_id).toBe(ids.refunds);
  expect(server.seen.slice(before).map(inputsOf)).toEqual([[REFUND_QUESTION]]);
  expect((await ask(ctx, 'when is the shop open on weekdays'))[0].document_id).toBe(hours);
  // New documents: the new model only.
  await ingest(tenant, 'Gift cards', 'Gift cards: a gift card never expires and can pay for any order.');
  expect(await chunkEmbedders(tenant)).toEqual({ [embedderOf(conn)]: 6 });
  expect(server.seen.every((s) => s.authorization === `Bearer ${KEY}`)).toBe(true);
  // The service's own calls carry the workspace, and pass the bots service's validation.
  expect(specCallers.filter((c) => c.tenantId === tenant).length).toBeGreaterThan(0);
  expect(new Set(specCallers.filter((c) => c.tenantId !== tenant).map((c) => c.tenantId)).size).toBe(0);
});

it('refuses a model that cannot embed, in plain words, and changes nothing', async () => {
  const tenant = randomUUID();
  const ctx = ctxOf(tenant);
  await ingest(tenant, 'refunds', DOCS.refunds);
  const seen = server.seen.length;
  const refused = await update(ctx, connection(tenant, { key: WRONG_KEY }).id);
  expect(refused).toMatchObject({ code: 'bad_request' });
  expect((refused as { message: string }).message).toMatch(/^The provider refused the key \(HTTP 401\): .*Incorrect API key provided: \[key\]/);
  expect((refused as { message: string }).message).not.toContain(WRONG_KEY);
  expect(server.seen.length).toBe(seen + 1);
  expect(await update(ctx, connection(tenant, { kind: 'anthropic', model: 'claude-haiku-4-5', base_url: null }).id)).toMatchObject({
    code: 'bad_request',
    message: 'Anthropic has no embeddings API; choose an openai or ollama connection',
  });
  expect(await update(ctx, randomUUID())).toMatchObject({ code: 'not_found' });
  expect(await update(ctx, connection(randomUUID()).id)).toMatchObject({ code: 'not_found' }); // another workspace's
  expect(await update(ctx, 'not-a-uuid')).toMatchObject({ code: 'validation_failed' });
  expect(await switched(ctx, null)).toMatchObject({ connection_id: null, embedder: HASHING, status: 'ready' });
  expect(await get(ctx)).toEqual({ connection_id: null, embedder: HASHING, status: 'ready', target_connection_id: null, done: 0, total: 0, error: null, started_at: null, completed_at: null });
  expect(await ds.query(`SELECT tenant_id FROM knowledge.workspace_embedders WHERE tenant_id = $1`, [tenant])).toEqual([]);
  expect(await chunkEmbedders(tenant)).toEqual({ [HASHING]: 1 });
});

it('fails the switch when the model fails midway: the old index still answers, the partial one is gone; chosen again, it completes', async () => {
  const tenant = randomUUID();
  const ctx = ctxOf(tenant);
  const ids = await ingestAll(tenant);
  const conn = connection(tenant);
  provider.delayMs = 300;
  await switched(ctx, conn.id);
  await waitFor('the first step', () => get(ctx), (v) => v.done >= 2);
  provider.failWith = { status: 500, message: 'the model crashed' };
  const failed = await waitFor('the switch to fail', () => get(ctx), (v) => v.status !== 'reindexing');
  expect(failed).toMatchObject({ status: 'failed', connection_id: null, embedder: HASHING, target_connection_id: conn.id });
  expect(failed.error).toMatch(/^The provider answered HTTP 500: .*the model crashed/);
  expect(await chunkEmbedders(tenant)).toEqual({ [HASHING]: 4 });
  expect((await ask(ctx, REFUND_QUESTION))[0].document_id).toBe(ids.refunds);

  provider.failWith = null;
  provider.delayMs = 0;
  expect(await switched(ctx, conn.id)).toMatchObject({ status: 'reindexing', error: null, done: 0, total: 4 });
  expect(await waitFor('the switch to complete', () => get(ctx), (v) => v.status !== 'reindexing')).toMatchObject({ status: 'ready', connection_id: conn.id, embedder: embedderOf(conn), error: null });
  await expectIndexes(tenant, { [embedderOf(conn)]: 4 });
});

it('restarts with the new model when the model changes again midway, and switches back to the installation embedder', async () => {
  const tenant = randomUUID();
  const ctx = ctxOf(tenant);
  const ids = await ingestAll(tenant);
  const first = connection(tenant);
  const second = connection(tenant, { model: 'toy-embed-large' });
  provider.delayMs = 300;
  await switched(ctx, first.id);
  await waitFor('the first step', () => get(ctx), (v) => v.done >= 2);
  provider.delayMs = 0; // the second model's probe answers before the first switch's second step
  expect(await switched(ctx, second.id)).toMatchObject({ status: 'reindexing', connection_id: null, target_connection_id: second.id, done: 0, total: 4 });
  const done = await waitFor('the switch to complete', () => get(ctx), (v) => v.status !== 'reindexing');
  expect(done).toMatchObject({ status: 'ready', connection_id: second.id, embedder: embedderOf(second) });
  await expectIndexes(tenant, { [embedderOf(second)]: 4 });

  // Choosing the active model again while switching drops the switch and its partial index.
  provider.delayMs = 300;
  await switched(ctx, first.id);
  await waitFor('the first step', () => get(ctx), (v) => v.done >= 2);
  expect(await switched(ctx, second.id)).toMatchObject({ status: 'ready', connection_id: second.id, target_connection_id: null, error: null });
  await sleep(600); // the run stops after the step it was in, and drops what that step wrote
  expect(await chunkEmbedders(tenant)).toEqual({ [embedderOf(second)]: 4 });

  provider.delayMs = 0;
  expect(await switched(ctx, null)).toMatchObject({ status: 'reindexing', connection_id: second.id, target_connection_id: null, total: 4 });
  expect(await waitFor('the switch back', () => get(ctx), (v) => v.status !== 'reindexing')).toMatchObject({ status: 'ready', connection_id: null, embedder: HASHING });
  await expectIndexes(tenant, { [HASHING]: 4 });
  expect((await ask(ctx, REFUND_QUESTION))[0].document_id).toBe(ids.refunds);
});

it('re-embeds with the active connection chosen again after its model was changed', async () => {
  const tenant = randomUUID();
  const ctx = ctxOf(tenant);
  const ids = await ingestAll(tenant);
  const conn = connection(tenant);
  await switched(ctx, conn.id);
  await waitFor('the switch to complete', () => get(ctx), (v) => v.status !== 'reindexing');
  // Chosen again unchanged: nothing to do.
  expect(await switched(ctx, conn.id)).toMatchObject({ status: 'ready', connection_id: conn.id, embedder: embedderOf(conn) });
  const edited: ModelConnectionSpec = { ...conn, model: 'toy-embed-v2', updated_at: new Date(Date.now() + 1000).toISOString() };
  connections.set(`${tenant}:${conn.id}`, edited);
  provider.delayMs = 300;
  expect(await switched(ctx, conn.id)).toMatchObject({ status: 'reindexing', connection_id: conn.id, embedder: embedderOf(conn), target_connection_id: conn.id });
  // Meanwhile the old vectors cannot be compared with the edited model's: searching says so.
  await expect(ask(ctx, REFUND_QUESTION)).rejects.toThrow(/not the model the knowledge was embedded with \(openai:toy-embed:48@/);
  expect(await waitFor('the switch to complete', () => get(ctx), (v) => v.status !== 'reindexing')).toMatchObject({ status: 'ready', connection_id: conn.id, embedder: embedderOf(edited) });
  await expectIndexes(tenant, { [embedderOf(edited)]: 4 });
  expect((await ask(ctx, REFUND_QUESTION))[0].document_id).toBe(ids.refunds);
});

it('a switch outlives its worker: another one resumes it without embedding again what was done', async () => {
  const tenant = randomUUID();
  const ctx = ctxOf(tenant);
  await ingestAll(tenant);
  const conn = connection(tenant);
  provider.delayMs = 300;
  await switched(ctx, conn.id);
  await waitFor('the first step', () => get(ctx), (v) => v.done >= 2);
  await reembed.beforeApplicationShutdown();
  const halfway = await get(ctx);
  expect(halfway).toMatchObject({ status: 'reindexing', connection_id: null });
  const embedded: { text: string }[] = await ds.query(`SELECT text FROM knowledge.chunks WHERE tenant_id = $1 AND embedder = $2`, [tenant, embedderOf(conn)]);
  expect(embedded.length).toBeGreaterThanOrEqual(2);
  const seen = server.seen.length;

  startReembedWorker(); // its first look (at start) takes the switch over: the lease was handed back
  const done = await waitFor('the switch to complete', () => get(ctx), (v) => v.status !== 'reindexing');
  expect(done).toMatchObject({ status: 'ready', connection_id: conn.id, embedder: embedderOf(conn), done: 4, total: 4 });
  await expectIndexes(tenant, { [embedderOf(conn)]: 4 });
  const again = server.seen.slice(seen).flatMap(inputsOf);
  for (const { text } of embedded) expect(again).not.toContain(text);
});

it('never writes a key to the logs or to the knowledge tables', async () => {
  expect(logLines.some((l) => l.includes('embedding model switch started'))).toBe(true);
  expect(logLines.some((l) => l.includes('switching the embedding model failed'))).toBe(true);
  const secrets = [KEY, WRONG_KEY, ...[...connections.values()].map((c) => c.api_key_sealed!)];
  for (const secret of secrets) expect(logLines.filter((l) => l.includes(secret))).toEqual([]);
  const tables: { table_name: string }[] = await ds.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'knowledge' AND table_type = 'BASE TABLE'`);
  expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['documents', 'chunks', 'workspace_embedders']));
  for (const { table_name } of tables) {
    for (const secret of [KEY, WRONG_KEY]) {
      const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM knowledge.${table_name} t WHERE t::text LIKE '%' || $1 || '%'`, [secret]);
      expect({ table: table_name, rows: n }).toEqual({ table: table_name, rows: 0 });
    }
  }
});
