import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NatsConnection, connect } from 'nats';
import { DataSource } from 'typeorm';
import { CallerContext, handoffLiveSubject } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase, domainErrorCode } from '@sa/testing';
import { Outbox } from '@sa/events';
import { MessagesRepository } from '../conversations/messages.repository';
import { HandoffRepository } from './handoff.repository';
import { HandoffService } from './handoff.service';

// The handoff queue against the real PostgreSQL and NATS: requested → taken → released, 409 for a
// session another person holds, a person's replies stored as assistant messages marked as theirs,
// the widget's view of them, the live subject announced, and bot restrictions.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nc: NatsConnection;
let service: HandoffService;

const ADA = { id: randomUUID(), label: 'Ada Admin' };
const OLIVIA = { id: randomUUID(), label: 'Olivia Owner' };

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_handoff');
  ds = await new DataSource({ ...dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-handoff-int', poolSize: 5 }), logging: false }).initialize();
  nc = await connect({ servers: process.env['NATS_URL'] || 'nats://127.0.0.1:4222' });
  service = new HandoffService(new HandoffRepository(ds), new MessagesRepository(ds), ds, nc, new Outbox('chat'));
});

afterAll(async () => {
  await nc?.close();
  await ds?.destroy();
  await db?.drop();
});

function ctxOf(tenantId: string, botIds: string[] | null = null): CallerContext {
  return { tenantId, botIds, tokenId: null, scopes: [], requestId: `req-${randomUUID()}`, entitlements: {} as CallerContext['entitlements'] };
}

async function requested(tenantId: string, botId: string, sessionId: string, channel = 'widget'): Promise<boolean> {
  return ds.transaction((m) => service.request(m, { tenantId, sessionId, chatbotId: botId, channel, kind: 'explicit', reason: null, question: 'Can I talk to someone?' }));
}

describe('the handoff queue', () => {
  it('requested → taken (409 for someone else) → replies → released; a later request queues it again', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const ctx = ctxOf(tenantId);
    expect(await requested(tenantId, botId, 's1')).toBe(true);
    expect(await requested(tenantId, botId, 's1')).toBe(false); // already in the queue
    expect(await service.takenBy(tenantId, 's1')).toBeNull();
    expect(await service.queue(ctx, {})).toEqual([expect.objectContaining({ session_id: 's1', chatbot_id: botId, state: 'requested', question: 'Can I talk to someone?' })]);

    // Nobody replies before taking it over.
    expect(await domainErrorCode(service.reply(ctx, { sessionId: 's1', person: ADA, text: 'Hi' }))).toBe('conflict');

    const live = nc.subscribe(handoffLiveSubject(tenantId, 's1'), { max: 1 });
    const taken = await service.take(ctx, { sessionId: 's1', person: ADA });
    expect(taken).toMatchObject({ state: 'taken', taken_by_id: ADA.id, taken_by_label: 'Ada Admin', taken_at: expect.any(String) });
    for await (const _ of live) break; // the take-over was announced
    expect(await service.takenBy(tenantId, 's1')).toBe('Ada Admin');
    expect((await service.take(ctx, { sessionId: 's1', person: ADA })).state).toBe('taken'); // again: no-op
    expect(await domainErrorCode(service.take(ctx, { sessionId: 's1', person: OLIVIA }))).toBe('conflict');
    expect(await domainErrorCode(service.reply(ctx, { sessionId: 's1', person: OLIVIA, text: 'Me too' }))).toBe('conflict');

    const reply = await service.reply(ctx, { sessionId: 's1', person: ADA, text: 'Hello, Ada here.' });
    expect(reply).toMatchObject({ role: 'assistant', content: 'Hello, Ada here.', author_kind: 'person', author_label: 'Ada Admin' });
    const [row] = await ds.query(`SELECT role, author_kind, author_label FROM chat.messages WHERE id = $1`, [reply.id]);
    expect(row).toEqual({ role: 'assistant', author_kind: 'person', author_label: 'Ada Admin' });
    const [session] = await ds.query(`SELECT message_count, chatbot_id FROM chat.sessions WHERE tenant_id = $1 AND session_id = 's1'`, [tenantId]);
    expect(session).toEqual({ message_count: 1, chatbot_id: botId });
    expect((await service.get(ctx, 's1')).messages).toEqual([reply]);

    const released = await service.release(ctx, { sessionId: 's1', person: OLIVIA });
    expect(released).toMatchObject({ state: 'released', taken_by_id: null, released_at: expect.any(String) });
    expect(await service.takenBy(tenantId, 's1')).toBeNull();
    expect(await service.queue(ctx, {})).toEqual([]);
    expect(await service.queue(ctx, { include: 'all' })).toEqual([expect.objectContaining({ session_id: 's1', state: 'released' })]);
    expect(await requested(tenantId, botId, 's1')).toBe(true);
    expect((await service.queue(ctx, {}))[0]).toMatchObject({ state: 'requested', taken_by_label: null });
  });

  it("the widget sees the person's replies after its cursor, only for its own bot", async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const otherBot = randomUUID();
    const ctx = ctxOf(tenantId);
    const widget = ctxOf(tenantId, [botId]);
    expect(await service.widgetReplies(widget, { chatbotId: botId, sessionId: 'w1' })).toMatchObject({ state: 'none', replies: [] });
    await requested(tenantId, botId, 'w1');
    const first = await service.widgetReplies(widget, { chatbotId: botId, sessionId: 'w1' });
    expect(first).toMatchObject({ state: 'requested', taken_by_label: null, replies: [] });
    await service.take(ctx, { sessionId: 'w1', person: ADA });
    const one = await service.reply(ctx, { sessionId: 'w1', person: ADA, text: 'One' });
    const two = await service.reply(ctx, { sessionId: 'w1', person: ADA, text: 'Two' });
    const seen = await service.widgetReplies(widget, { chatbotId: botId, sessionId: 'w1', after: first.cursor });
    expect(seen).toMatchObject({ state: 'taken', taken_by_label: 'Ada Admin', replies: [{ id: one.id, content: 'One', author_label: 'Ada Admin' }, { id: two.id, content: 'Two' }] });
    expect((await service.widgetReplies(widget, { chatbotId: botId, sessionId: 'w1', after: seen.cursor })).replies).toEqual([]);
    // Another bot's widget: refused.
    expect(await domainErrorCode(service.widgetReplies(ctxOf(tenantId, [otherBot]), { chatbotId: botId, sessionId: 'w1' }))).toBe('bot_access_denied');
    expect(await domainErrorCode(service.widgetReplies(ctxOf(tenantId, [otherBot]), { chatbotId: otherBot, sessionId: 'w1' }))).toBe('bot_access_denied');
  });

  it("a person's reply in a channel's conversation is queued for the channel (conversation.person_reply); a widget's is not", async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    const ctx = ctxOf(tenantId);
    await requested(tenantId, botId, 'wa1', 'whatsapp');
    await requested(tenantId, botId, 'web1');
    await service.take(ctx, { sessionId: 'wa1', person: ADA });
    await service.take(ctx, { sessionId: 'web1', person: ADA });
    const sent = await service.reply(ctx, { sessionId: 'wa1', person: ADA, text: 'Ada here, on WhatsApp.' });
    await service.reply(ctx, { sessionId: 'web1', person: ADA, text: 'Ada here, on the site.' });
    const events = await ds.query(`SELECT type, payload FROM chat.outbox WHERE tenant_id = $1 ORDER BY created_at`, [tenantId]);
    expect(events).toEqual([
      { type: 'conversation.person_reply', payload: expect.objectContaining({ data: { session_id: 'wa1', chatbot_id: botId, channel: 'whatsapp', message_id: sent.id, content: 'Ada here, on WhatsApp.' } }) },
    ]);
  });

  it('another workspace, or a caller restricted to other bots, finds nothing (404)', async () => {
    const tenantId = randomUUID();
    const botId = randomUUID();
    await requested(tenantId, botId, 'x1');
    const stranger = ctxOf(randomUUID());
    const otherBotOnly = ctxOf(tenantId, [randomUUID()]);
    for (const c of [stranger, otherBotOnly]) {
      expect(await domainErrorCode(service.get(c, 'x1'))).toBe('not_found');
      expect(await domainErrorCode(service.take(c, { sessionId: 'x1', person: ADA }))).toBe('not_found');
      expect(await domainErrorCode(service.release(c, { sessionId: 'x1', person: ADA }))).toBe('not_found');
      expect(await service.queue(c, {})).toEqual([]);
    }
    expect(await service.queue(ctxOf(tenantId, [botId]), {})).toHaveLength(1);
  });
});
