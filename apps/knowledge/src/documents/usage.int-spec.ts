import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, PageUsageView } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { DocumentsHandler } from './documents.handler';
import { DocumentsRepository } from './documents.repository';

// knowledge.usage.get against a migrated database, connected as the knowledge service's role:
// the handler as the NATS transport calls it, compared with the count the page quota uses.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let repository: DocumentsRepository;
let handler: DocumentsHandler;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_kb_usage');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('knowledge'), applicationName: 'kb-usage-int', poolSize: 2 })).initialize();
  repository = new DocumentsRepository(ds);
  handler = new DocumentsHandler(null as never, repository);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const ctxOf = (tenantId: string, botIds: string[] | null = null) =>
  ({ tenantId, tokenId: null, scopes: ['kb:read'], botIds, requestId: 'console-test', entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5, pagesPerBot: 1, widgetMessagesPerBotPerMonth: 1, webhooks: true } }) as CallerContext;

const usage = (ctx: CallerContext) => (handler.usage as unknown as (payload: unknown) => Promise<PageUsageView>)({ ctx, data: {} });

async function doc(tenantId: string, chatbotId: string | null, status: string): Promise<void> {
  await ds.query(`INSERT INTO knowledge.documents (tenant_id, chatbot_id, title, source_type, status) VALUES ($1, $2, 'T', 'snippet', $3)`, [tenantId, chatbotId, status]);
}

it('gives pages per bot as the page quota counts them (failed documents and workspace-wide ones not a bot’s)', async () => {
  const [ws, other] = [randomUUID(), randomUUID()];
  const [a, b] = [randomUUID(), randomUUID()].sort();
  for (const status of ['queued', 'processing', 'ready', 'ready', 'failed']) await doc(ws, a, status);
  await doc(ws, b, 'ready');
  await doc(ws, null, 'ready');
  await doc(other, a, 'ready');
  const view = await usage(ctxOf(ws));
  expect(view).toEqual({ bots: [{ bot_id: a, pages: 4 }, { bot_id: b, pages: 1 }] });
  for (const { bot_id, pages } of view.bots) expect(await repository.countPages(ds.manager, ws, bot_id)).toBe(pages);
  expect(await usage(ctxOf(ws, [b]))).toEqual({ bots: [{ bot_id: b, pages: 1 }] });
  expect(await usage(ctxOf(randomUUID()))).toEqual({ bots: [] });
});
