import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, MessageUsageView } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { validateEnvelope } from '@sa/messaging';
import { createTestDatabase } from '@sa/testing';
import { MessagesRepository, usageMonth } from '../conversations/messages.repository';
import { UsageHandler } from './usage.handler';

// chat.usage.get against a migrated database, connected as the chat service's role: the handler
// as the NATS transport calls it (with the raw envelope, which @RpcHandler validates).
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
let handler: UsageHandler;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_usage');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-usage-int', poolSize: 2 })).initialize();
  messages = new MessagesRepository(ds);
  handler = new UsageHandler(messages);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const ctxOf = (tenantId: string) =>
  ({ tenantId, tokenId: null, scopes: ['analytics:read'], botIds: null, requestId: 'console-test', entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5, pagesPerBot: 1, widgetMessagesPerBotPerMonth: 1, webhooks: true } }) as CallerContext;

const usage = (tenantId: string, data: Record<string, unknown> = {}) => (handler.get as unknown as (payload: unknown) => Promise<MessageUsageView>)({ ctx: ctxOf(tenantId), data });

it('counts this month’s messages as the quota counts them: not last month’s, not widget messages, not another workspace’s', async () => {
  const [ws, other] = [randomUUID(), randomUUID()];
  const now = new Date();
  const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
  expect(await usage(ws)).toEqual({ messages_this_month: 0, month_start: `${usageMonth(now)}T00:00:00.000Z` });
  for (let i = 0; i < 3; i++) await ds.transaction((m) => messages.reserveMessage(m, ws, 5, now));
  await ds.transaction((m) => messages.reserveMessage(m, ws, 5, lastMonth));
  await ds.transaction((m) => messages.reserveWidgetMessage(m, ws, randomUUID(), 5, now));
  await ds.transaction((m) => messages.reserveMessage(m, other, 5, now));
  const released = await ds.transaction((m) => messages.reserveMessage(m, ws, 5, now));
  expect(released).toEqual({ ok: true, used: 4 });
  await messages.releaseMessage(ds.manager, ws, now);
  const view = await usage(ws);
  expect(view.messages_this_month).toBe(3);
  expect(new Date(view.month_start).getUTCDate()).toBe(1);
  expect(await usage(other)).toMatchObject({ messages_this_month: 1 });
});

it('refuses a body (the workspace comes from the caller context only) and a missing context', () => {
  for (const payload of [{ ctx: ctxOf(randomUUID()), data: { workspace_id: randomUUID() } }, { data: {} }]) {
    let err: unknown;
    try {
      validateEnvelope('chat.usage.get', payload);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('validation_failed');
  }
});
