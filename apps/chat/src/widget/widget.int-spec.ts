import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { Outbox } from '@sa/events';
import { createTestDatabase, domainErrorCode } from '@sa/testing';
import { NatsConnection, connect } from 'nats';
import { MessagesRepository, NewTurn, StoredTurn } from '../conversations/messages.repository';
import { HandoffRepository } from '../handoff/handoff.repository';
import { HandoffService } from '../handoff/handoff.service';
import { WidgetSessionsRepository } from './widget-sessions.repository';
import { WidgetRepository } from './widget.repository';
import { WidgetService } from './widget.service';

// The widget's sessions, feedback, tickets and handoff against the real PostgreSQL: the bot and session
// checks, chat.tickets, and the events written to chat.outbox in the same transaction.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
let service: WidgetService;
let nc: NatsConnection;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_widget');
  ds = await new DataSource({ ...dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-widget-int', poolSize: 5 }), logging: false }).initialize();
  messages = new MessagesRepository(ds);
  nc = await connect({ servers: process.env['NATS_URL'] || 'nats://127.0.0.1:4222' });
  service = new WidgetService(new WidgetRepository(ds), new WidgetSessionsRepository(ds), messages, new Outbox('chat'), new HandoffService(new HandoffRepository(ds), messages, ds, nc, new Outbox('chat')), ds);
});

beforeEach(async () => {
  await ds.query('DELETE FROM chat.messages; DELETE FROM chat.sessions; DELETE FROM chat.tickets; DELETE FROM chat.outbox; DELETE FROM chat.widget_sessions');
});

afterAll(async () => {
  await nc?.close();
  await ds?.destroy();
  await db?.drop();
});

/** The caller context the gateway's public widget routes build. */
function widgetCtx(tenantId: string, botId: string): CallerContext {
  return { tenantId, botIds: [botId], tokenId: null, scopes: [], requestId: `req-${randomUUID()}`, entitlements: {} as CallerContext['entitlements'] };
}

function turn(tenantId: string, chatbotId: string | null, sessionId: string): Promise<StoredTurn> {
  const t: NewTurn = {
    tenantId,
    chatbotId,
    sessionId,
    channel: 'widget',
    user: { content: 'question', language: 'en' },
    assistant: { content: 'answer', sourceUrls: [], unanswered: false },
  };
  return ds.transaction((m) => messages.insertTurn(m, t));
}

async function feedbackOf(id: string): Promise<string | null> {
  const [row] = await ds.query(`SELECT feedback FROM chat.messages WHERE id = $1`, [id]);
  return row.feedback;
}

async function outboxRows(tenantId: string): Promise<{ type: string; tenant_id: string; payload: { id: string; type: string; tenant_id: string; data: unknown } }[]> {
  return ds.query(`SELECT type, tenant_id, payload FROM chat.outbox WHERE tenant_id = $1 ORDER BY created_at`, [tenantId]);
}

describe('widget sessions', () => {
  it('mints unguessable ids, each a widget session of its own bot and workspace only', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const otherBot = randomUUID();
    const ctx = widgetCtx(tenantId, botId);
    const a = (await service.createSession(ctx, { chatbotId: botId })).session_id;
    const b = (await service.createSession(ctx, { chatbotId: botId })).session_id;
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b).not.toBe(a);
    const check = (c: CallerContext, chatbotId: string, sessionId: string) => service.checkSession(c, { chatbotId, sessionId });
    expect(await check(ctx, botId, a)).toEqual({ widget_session: true });
    expect(await check(widgetCtx(tenantId, otherBot), otherBot, a)).toEqual({ widget_session: false });
    expect(await check(widgetCtx(randomUUID(), botId), botId, a)).toEqual({ widget_session: false });
    expect(await check(ctx, botId, 'visitor-chosen')).toEqual({ widget_session: false });
    expect(await domainErrorCode(check(ctx, otherBot, a))).toBe('bot_access_denied');
    expect(await domainErrorCode(service.createSession(ctx, { chatbotId: otherBot }))).toBe('bot_access_denied');
  });

  it('never counts a session that only has messages (POST /v1/chat) as a widget session', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    await turn(tenantId, botId, 'api-session');
    expect(await service.checkSession(widgetCtx(tenantId, botId), { chatbotId: botId, sessionId: 'api-session' })).toEqual({ widget_session: false });
  });
});

describe('feedback', () => {
  it('sets (and re-sets) feedback on an assistant message of the bot session', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const t = await turn(tenantId, botId, 's1');
    const ctx = widgetCtx(tenantId, botId);

    await expect(service.feedback(ctx, { sessionId: 's1', messageId: t.assistantMessage.id, feedback: 'positive' })).resolves.toEqual({
      message_id: t.assistantMessage.id,
      feedback: 'positive',
    });
    expect(await feedbackOf(t.assistantMessage.id)).toBe('positive');
    await expect(service.feedback(ctx, { sessionId: 's1', messageId: t.assistantMessage.id, feedback: 'negative' })).resolves.toEqual({
      message_id: t.assistantMessage.id,
      feedback: 'negative',
    });
    expect(await feedbackOf(t.assistantMessage.id)).toBe('negative');
    expect(await outboxRows(tenantId)).toEqual([]);
  });

  it('answers 404 for a user message, another session, another bot, another workspace or an unknown id', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const otherBot = randomUUID();
    const t = await turn(tenantId, botId, 's1');
    await turn(tenantId, botId, 's2');
    const foreign = await turn(tenantId, otherBot, 's3');
    const noBot = await turn(tenantId, null, 's4');
    const ctx = widgetCtx(tenantId, botId);

    const attempts = [
      service.feedback(ctx, { sessionId: 's1', messageId: t.userMessage.id, feedback: 'positive' }),
      service.feedback(ctx, { sessionId: 's2', messageId: t.assistantMessage.id, feedback: 'positive' }),
      service.feedback(ctx, { sessionId: 's3', messageId: foreign.assistantMessage.id, feedback: 'positive' }),
      service.feedback(ctx, { sessionId: 's4', messageId: noBot.assistantMessage.id, feedback: 'positive' }),
      service.feedback(widgetCtx(tenantId, otherBot), { sessionId: 's1', messageId: t.assistantMessage.id, feedback: 'positive' }),
      service.feedback(widgetCtx(randomUUID(), botId), { sessionId: 's1', messageId: t.assistantMessage.id, feedback: 'positive' }),
      service.feedback(ctx, { sessionId: 's1', messageId: randomUUID(), feedback: 'positive' }),
    ];
    for (const a of attempts) expect(await domainErrorCode(a)).toBe('not_found');
    await expect(service.feedback(ctx, { sessionId: 's1', messageId: randomUUID(), feedback: 'positive' })).rejects.toThrow('Message not found');

    const rows = await ds.query(`SELECT feedback FROM chat.messages WHERE feedback IS NOT NULL`);
    expect(rows).toEqual([]);
  });
});

describe('tickets', () => {
  it('stores the ticket and writes ticket.created with exactly its payload', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const ticket = await service.createTicket(widgetCtx(tenantId, botId), {
      chatbotId: botId,
      sessionId: 'visitor-1',
      email: 'ann@example.com',
      name: 'Ann',
      subject: 'Refund',
      message: 'I want my money back.',
    });

    expect(Object.keys(ticket).sort()).toEqual(['chatbot_id', 'created_at', 'email', 'id', 'message', 'name', 'session_id', 'subject']);
    expect(ticket).toMatchObject({ session_id: 'visitor-1', chatbot_id: botId, email: 'ann@example.com', name: 'Ann', subject: 'Refund', message: 'I want my money back.' });
    expect(new Date(ticket.created_at).toISOString()).toBe(ticket.created_at);

    const [row] = await ds.query(`SELECT * FROM chat.tickets WHERE id = $1`, [ticket.id]);
    expect(row).toMatchObject({ tenant_id: tenantId, chatbot_id: botId, session_id: 'visitor-1', email: 'ann@example.com', name: 'Ann', subject: 'Refund', message: 'I want my money back.' });
    expect(row.created_at.toISOString()).toBe(ticket.created_at);

    const events = await outboxRows(tenantId);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('ticket.created');
    expect(events[0].payload).toMatchObject({ type: 'ticket.created', tenant_id: tenantId });
    expect(events[0].payload.data).toEqual({
      ticket_id: ticket.id,
      session_id: 'visitor-1',
      chatbot_id: botId,
      email: 'ann@example.com',
      name: 'Ann',
      subject: 'Refund',
      message: 'I want my money back.',
    });
  });

  it('stores a null name when none is given', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    await turn(tenantId, botId, 'own');
    const ticket = await service.createTicket(widgetCtx(tenantId, botId), { chatbotId: botId, sessionId: 'own', email: 'x@example.com', subject: 'S', message: 'M' });
    expect(ticket.name).toBeNull();
    expect((await outboxRows(tenantId))[0].payload.data).toMatchObject({ name: null });
  });

  it('refuses another bot, or a session of another bot, and stores nothing', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const otherBot = randomUUID();
    await turn(tenantId, otherBot, 'theirs');
    const body = { sessionId: 'visitor', email: 'x@example.com', subject: 'S', message: 'M' };
    expect(await domainErrorCode(service.createTicket(widgetCtx(tenantId, botId), { ...body, chatbotId: otherBot }))).toBe('bot_access_denied');
    expect(await domainErrorCode(service.createTicket(widgetCtx(tenantId, botId), { ...body, chatbotId: botId, sessionId: 'theirs' }))).toBe('bot_access_denied');
    expect(await ds.query(`SELECT 1 FROM chat.tickets`)).toEqual([]);
    expect(await outboxRows(tenantId)).toEqual([]);
  });

  it('writes neither the ticket nor the event when the insert fails', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    await expect(service.createTicket(widgetCtx(tenantId, botId), { chatbotId: botId, sessionId: 'x'.repeat(121), email: 'x@example.com', subject: 'S', message: 'M' })).rejects.toThrow(
      /check constraint/,
    );
    expect(await ds.query(`SELECT 1 FROM chat.tickets`)).toEqual([]);
    expect(await outboxRows(tenantId)).toEqual([]);
  });
});

describe('handoff', () => {
  it('writes conversation.handoff for an existing session of the bot and for a new session', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    await turn(tenantId, botId, 'known');
    const ctx = widgetCtx(tenantId, botId);

    await expect(service.handoff(ctx, { chatbotId: botId, sessionId: 'known', reason: 'I need a human' })).resolves.toEqual({ session_id: 'known', handoff: true });
    await expect(service.handoff(ctx, { chatbotId: botId, sessionId: 'fresh' })).resolves.toEqual({ session_id: 'fresh', handoff: true });

    const events = await outboxRows(tenantId);
    expect(events.map((e) => e.type)).toEqual(['conversation.handoff', 'conversation.handoff']);
    expect(events[0].payload).toMatchObject({ type: 'conversation.handoff', tenant_id: tenantId });
    expect(events[0].payload.data).toEqual({
      session_id: 'known',
      chatbot_id: botId,
      channel: 'widget',
      kind: 'explicit',
      reason: 'I need a human',
      message_id: null,
      question: null,
      language: null,
    });
    expect(events[1].payload.data).toEqual({
      session_id: 'fresh',
      chatbot_id: botId,
      channel: 'widget',
      kind: 'explicit',
      reason: null,
      message_id: null,
      question: null,
      language: null,
    });
  });

  it('refuses another bot, a session of another bot or without a bot, and writes no event', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const otherBot = randomUUID();
    await turn(tenantId, otherBot, 'theirs');
    await turn(tenantId, null, 'botless');
    const ctx = widgetCtx(tenantId, botId);
    expect(await domainErrorCode(service.handoff(ctx, { chatbotId: otherBot, sessionId: 'any' }))).toBe('bot_access_denied');
    expect(await domainErrorCode(service.handoff(ctx, { chatbotId: botId, sessionId: 'theirs' }))).toBe('bot_access_denied');
    expect(await domainErrorCode(service.handoff(ctx, { chatbotId: botId, sessionId: 'botless' }))).toBe('bot_access_denied');
    expect(await domainErrorCode(service.handoff({ ...ctx, botIds: null }, { chatbotId: botId, sessionId: 'any' }))).toBe('bot_access_denied');
    expect(await outboxRows(tenantId)).toEqual([]);
  });

  it('treats the same session id of another workspace as a new session', async () => {
    const botId = randomUUID();
    await turn(randomUUID(), randomUUID(), 'shared');
    const tenantId = randomUUID();
    await expect(service.handoff(widgetCtx(tenantId, botId), { chatbotId: botId, sessionId: 'shared' })).resolves.toEqual({ session_id: 'shared', handoff: true });
    expect(await outboxRows(tenantId)).toHaveLength(1);
  });
});
