import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { CallerContext } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { MessagesRepository } from '../conversations/messages.repository';
import { ActionCallsHandler } from './action-calls.handler';
import { ActionCallsQueries } from './action-calls.queries';

// Issue 34, item 5 (records): the reads of chat.action_calls against the real PostgreSQL, with rows
// written the way the table defines them (the turn writes them): a session's calls by answer for the
// owners' transcript, and the calls per action of the Analytics page over its window and bot.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
let queries: ActionCallsQueries;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_action_calls');
  ds = await new DataSource({ ...dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-action-calls-int', poolSize: 4 }), logging: false }).initialize();
  messages = new MessagesRepository(ds);
  queries = new ActionCallsQueries(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** One turn (a question and its answer) of a session; the ids of both messages. */
async function turn(tenantId: string, chatbotId: string | null, sessionId: string, question = 'Where is my order A-1001?') {
  const t = await messages.insertTurn(ds.manager, {
    tenantId,
    chatbotId,
    sessionId,
    channel: 'widget',
    user: { content: question, language: 'en' },
    assistant: { content: 'It has shipped.', sourceUrls: [], unanswered: false },
  });
  return { user: t.userMessage.id, answer: t.assistantMessage.id };
}

interface Call {
  tenantId: string;
  chatbotId: string | null;
  sessionId: string;
  messageId: string | null;
  name: string;
  source?: 'custom' | 'builtin' | 'mcp';
  state: 'ran' | 'refused' | 'awaiting_confirmation' | 'cancelled';
  ok?: boolean | null;
  httpStatus?: number | null;
  error?: string | null;
  durationMs?: number;
  result?: string;
  input?: Record<string, unknown>;
  createdAt?: string;
}

/** A row as chat.action_calls defines it (1795300034100-chat-actions). */
async function record(c: Call): Promise<string> {
  const [row] = await ds.query(
    `INSERT INTO chat.action_calls (tenant_id, chatbot_id, session_id, message_id, call_id, action_name, source, input, state, ok, http_status, error, duration_ms, result, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, coalesce($15::timestamptz, clock_timestamp())) RETURNING id`,
    [
      c.tenantId,
      c.chatbotId,
      c.sessionId,
      c.messageId,
      `call_${randomUUID()}`,
      c.name,
      c.source ?? 'custom',
      JSON.stringify(c.input ?? {}),
      c.state,
      c.ok ?? null,
      c.httpStatus ?? null,
      c.error ?? null,
      c.durationMs ?? 0,
      c.result ?? '',
      c.createdAt ?? null,
    ],
  );
  return row.id;
}

const person = (tenantId: string, scopes: string[], over: Partial<CallerContext> = {}): CallerContext =>
  ({ tenantId, tokenId: null, scopes, botIds: null, requestId: `req-${randomUUID()}`, entitlements: { plan: 'scale', botSlots: 10, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5, pagesPerBot: 1, widgetMessagesPerBotPerMonth: 1, webhooks: true }, ...over }) as CallerContext;
const ADMIN_SCOPES = ['bots:read', 'bots:write', 'kb:read', 'kb:write', 'conversations:read'];

describe('chat.action_calls: a session\'s calls for the transcript', () => {
  it('gives each call with its answer, oldest first, as recorded; nothing of another session or tenant', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const sessionId = `s-${randomUUID()}`;
    const first = await turn(tenantId, bot, sessionId);
    const second = await turn(tenantId, bot, sessionId, 'Cancel it, please.');
    const long = 'r'.repeat(1000);
    const a = await record({ tenantId, chatbotId: bot, sessionId, messageId: first.answer, name: 'order_status', state: 'ran', ok: true, httpStatus: 200, durationMs: 42, result: '{"status":"shipped"}', input: { order_id: 'A-1001' } });
    const b = await record({ tenantId, chatbotId: bot, sessionId, messageId: first.answer, name: 'stock', source: 'mcp', state: 'refused', error: 'verified_only', input: { sku: '<b>LAMP</b>' } });
    const c = await record({ tenantId, chatbotId: bot, sessionId, messageId: second.answer, name: 'cancel_order', state: 'ran', ok: false, httpStatus: 500, error: 'http_error', durationMs: 1200, result: long, input: { order_id: 'A-1001' } });
    // Not this session's: another session of the tenant, another tenant with the same session id, and a call without a message.
    const other = await turn(tenantId, bot, `s-${randomUUID()}`);
    await record({ tenantId, chatbotId: bot, sessionId: 'other', messageId: other.answer, name: 'order_status', state: 'ran', ok: true });
    const foreignTenant = randomUUID();
    const foreign = await turn(foreignTenant, bot, sessionId);
    await record({ tenantId: foreignTenant, chatbotId: bot, sessionId, messageId: foreign.answer, name: 'order_status', state: 'ran', ok: true });
    await record({ tenantId, chatbotId: bot, sessionId, messageId: null, name: 'order_status', state: 'awaiting_confirmation' });

    const calls = await queries.ofSession(tenantId, sessionId);
    expect(calls.map((x) => x.id)).toEqual([a, b, c]);
    expect(calls[0]).toEqual({
      id: a,
      message_id: first.answer,
      name: 'order_status',
      source: 'custom',
      state: 'ran',
      ok: true,
      http_status: 200,
      error: null,
      duration_ms: 42,
      result: '{"status":"shipped"}',
      input: { order_id: 'A-1001' },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
    });
    expect(calls[1]).toMatchObject({ message_id: first.answer, source: 'mcp', state: 'refused', ok: null, http_status: null, error: 'verified_only', input: { sku: '<b>LAMP</b>' } });
    expect(calls[2]).toMatchObject({ message_id: second.answer, ok: false, http_status: 500, result: long });
    expect(await queries.ofSession(foreignTenant, sessionId)).toHaveLength(1);
    expect(await queries.ofSession(tenantId, 'no-such-session')).toEqual([]);
  });

  it('keeps the latest calls when a session has more than the cap', async () => {
    const tenantId = randomUUID();
    const sessionId = `s-${randomUUID()}`;
    const { answer } = await turn(tenantId, null, sessionId);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await record({ tenantId, chatbotId: null, sessionId, messageId: answer, name: `a${i}`, state: 'ran', ok: true, createdAt: `2026-01-01T00:00:0${i}Z` }));
    expect((await queries.ofSession(tenantId, sessionId, 3)).map((x) => x.id)).toEqual(ids.slice(2));
  });

  it('the handler answers a person with the owner/admin scopes only: never an API token or member scopes', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const sessionId = `s-${randomUUID()}`;
    const { answer } = await turn(tenantId, bot, sessionId);
    await record({ tenantId, chatbotId: bot, sessionId, messageId: answer, name: 'order_status', state: 'ran', ok: true });
    // The RPC client is only used to check a named bot (chat.analytics.actions): never here.
    const handler = new ActionCallsHandler(queries, messages, undefined as never);
    // As NATS delivers it: the envelope, validated by @RpcHandler; a refusal is the RpcException of the reply.
    const ask = (ctx: CallerContext) => (handler.ofSession as unknown as (envelope: unknown) => Promise<unknown[]>).call(handler, { data: { sessionId }, ctx });
    const refusal = (ctx: CallerContext) => ask(ctx).then(
      () => 'answered',
      (err: { getError(): { code: string } }) => err.getError().code,
    );
    expect(await ask(person(tenantId, ADMIN_SCOPES))).toHaveLength(1);
    expect(await refusal(person(tenantId, ADMIN_SCOPES, { tokenId: randomUUID() }))).toBe('insufficient_scope');
    expect(await refusal(person(tenantId, ['bots:read', 'kb:read', 'conversations:read']))).toBe('insufficient_scope');
    // A caller limited to other bots is refused this bot's session.
    expect(await refusal(person(tenantId, ADMIN_SCOPES, { botIds: [randomUUID()] }))).toBe('bot_access_denied');
  });
});

describe('chat.action_calls: calls per action for the Analytics page', () => {
  const now = new Date('2026-03-31T12:00:00Z');

  it('counts per name and source by state, averages the duration of calls that ran, within the window and the bot', async () => {
    const tenantId = randomUUID();
    const botA = randomUUID();
    const botB = randomUUID();
    const sessionId = `s-${randomUUID()}`;
    const { answer } = await turn(tenantId, botA, sessionId);
    const at = (day: string) => `${day}T10:00:00Z`;
    const base = { tenantId, chatbotId: botA, sessionId, messageId: answer };
    await record({ ...base, name: 'order_status', state: 'ran', ok: true, httpStatus: 200, durationMs: 100, createdAt: at('2026-03-31') });
    await record({ ...base, name: 'order_status', state: 'ran', ok: true, httpStatus: 200, durationMs: 201, createdAt: at('2026-03-20') });
    await record({ ...base, name: 'order_status', state: 'ran', ok: false, httpStatus: null, error: 'timeout', durationMs: 10000, createdAt: at('2026-03-02') });
    await record({ ...base, name: 'order_status', state: 'refused', error: 'limit', createdAt: at('2026-03-30') });
    await record({ ...base, name: 'cancel_order', state: 'awaiting_confirmation', createdAt: at('2026-03-29') });
    await record({ ...base, name: 'cancel_order', state: 'cancelled', createdAt: at('2026-03-30') });
    await record({ ...base, name: 'handoff', source: 'builtin', state: 'ran', ok: true, durationMs: 3, createdAt: at('2026-03-31') });
    // Outside the 30-day window (it starts 2026-03-02 UTC), another bot, another tenant, a bot-less call.
    await record({ ...base, name: 'order_status', state: 'ran', ok: true, durationMs: 1, createdAt: '2026-03-01T23:59:59Z' });
    await record({ ...base, chatbotId: botB, name: 'order_status', state: 'ran', ok: true, durationMs: 7, createdAt: at('2026-03-31') });
    await record({ ...base, tenantId: randomUUID(), name: 'order_status', state: 'ran', ok: true, createdAt: at('2026-03-31') });
    await record({ ...base, chatbotId: null, name: 'lonely', state: 'ran', ok: true, createdAt: at('2026-03-31') });

    const oneBot = await queries.counts({ tenantId, chatbotId: botA, now, days: 30 });
    expect(oneBot).toEqual({
      days: 30,
      actions: [
        { name: 'order_status', source: 'custom', calls: 4, succeeded: 2, failed: 1, refused: 1, cancelled: 0, awaiting: 0, avg_duration_ms: 3434, last_called_at: '2026-03-31T10:00:00.000Z' },
        { name: 'cancel_order', source: 'custom', calls: 2, succeeded: 0, failed: 0, refused: 0, cancelled: 1, awaiting: 1, avg_duration_ms: null, last_called_at: '2026-03-30T10:00:00.000Z' },
        { name: 'handoff', source: 'builtin', calls: 1, succeeded: 1, failed: 0, refused: 0, cancelled: 0, awaiting: 0, avg_duration_ms: 3, last_called_at: '2026-03-31T10:00:00.000Z' },
      ],
    });
    // Every bot: botB's call and the bot-less one count too; a bot-restricted caller sees only its bots.
    const all = await queries.counts({ tenantId, now, days: 30 });
    expect(all.actions.map((x) => [x.name, x.calls])).toEqual([
      ['order_status', 5],
      ['cancel_order', 2],
      ['handoff', 1],
      ['lonely', 1],
    ]);
    expect((await queries.counts({ tenantId, botIds: [botB], now, days: 30 })).actions.map((x) => [x.name, x.calls])).toEqual([['order_status', 1]]);
    expect((await queries.counts({ tenantId, botIds: [], now, days: 30 })).actions).toEqual([]);
    // A one-day window: today only.
    expect((await queries.counts({ tenantId, chatbotId: botA, now, days: 1 })).actions.map((x) => [x.name, x.calls])).toEqual([
      ['handoff', 1],
      ['order_status', 1],
    ]);
  });
});
