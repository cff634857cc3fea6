import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { ChatChannel } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { MessagesRepository } from '../conversations/messages.repository';
import { AnalyticsQuery, AnalyticsRepository } from './analytics.repository';

// Issue 35, "Analytics splits by channel": AnalyticsRepository.channels against the real
// PostgreSQL. Turns are stored through MessagesRepository (as the chat path stores them) and then
// moved to the moment each test needs, with their session summary.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
let analytics: AnalyticsRepository;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_analytics_channels');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-analytics-channels-int', poolSize: 4 })).initialize();
  messages = new MessagesRepository(ds);
  analytics = new AnalyticsRepository(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** "Now" of every test: the default window is 2030-06-01 … 2030-06-30 (UTC). */
const NOW = new Date('2030-06-30T15:00:00Z');
const AT = '2030-06-20T10:00:00Z';

interface TurnOptions {
  sessionId?: string;
  chatbotId?: string | null;
  at?: string;
  unanswered?: boolean;
}

/** One exchange (question, then the reply a second later) through `channel`, at `at`; returns its session id. */
async function turn(tenantId: string, channel: ChatChannel, o: TurnOptions = {}): Promise<string> {
  const sessionId = o.sessionId ?? `s-${randomUUID()}`;
  const stored = await messages.insertTurn(ds.manager, {
    tenantId,
    chatbotId: o.chatbotId ?? null,
    sessionId,
    channel,
    user: { content: `question ${randomUUID()}`, language: 'en' },
    assistant: { content: 'answer', sourceUrls: [], unanswered: o.unanswered ?? false },
  });
  const at = o.at ?? AT;
  await ds.query(`UPDATE chat.messages SET created_at = $2::timestamptz WHERE id = $1`, [stored.userMessage.id, at]);
  await ds.query(`UPDATE chat.messages SET created_at = $2::timestamptz + interval '1 second' WHERE id = $1`, [stored.assistantMessage.id, at]);
  await ds.query(
    `UPDATE chat.sessions s SET first_at = x.f, last_at = x.l
       FROM (SELECT min(created_at) AS f, max(created_at) AS l FROM chat.messages WHERE tenant_id = $1 AND session_id = $2) x
      WHERE s.tenant_id = $1 AND s.session_id = $2`,
    [tenantId, sessionId],
  );
  return sessionId;
}

const channels = async (tenantId: string, over: Partial<AnalyticsQuery> = {}) => analytics.channels({ tenantId, now: NOW, ...over });

describe('AnalyticsRepository.channels (issue 35: analytics split by channel)', () => {
  it('is empty for a workspace without conversations, with the window length', async () => {
    expect(await channels(randomUUID())).toEqual({ days: 30, channels: [] });
    expect(await channels(randomUUID(), { days: 7 })).toEqual({ days: 7, channels: [] });
  });

  it('counts conversations, visitor messages and unanswered replies per channel, the busiest first, leaving out channels without any', async () => {
    const t = randomUUID();
    const long = await turn(t, 'whatsapp');
    await turn(t, 'whatsapp', { sessionId: long, unanswered: true });
    await turn(t, 'whatsapp', { sessionId: long });
    await turn(t, 'whatsapp');
    for (let i = 0; i < 3; i++) await turn(t, 'widget', { unanswered: i === 0 });
    await turn(t, 'email');
    await turn(t, 'telegram', { unanswered: true });

    expect(await channels(t)).toEqual({
      days: 30,
      channels: [
        { channel: 'widget', conversations: 3, messages: 3, unanswered: 1 },
        { channel: 'whatsapp', conversations: 2, messages: 4, unanswered: 1 },
        { channel: 'email', conversations: 1, messages: 1, unanswered: 0 },
        { channel: 'telegram', conversations: 1, messages: 1, unanswered: 1 },
      ],
    });
    // The split adds up to the summary's figures over the same window.
    const summary = await analytics.summary({ tenantId: t, now: NOW });
    const split = (await channels(t)).channels;
    expect(split.reduce((n, c) => n + c.conversations, 0)).toBe(summary.sessions.total);
    expect(split.reduce((n, c) => n + c.messages, 0)).toBe(summary.daily.reduce((n, d) => n + d.user_messages, 0));
    expect(split.reduce((n, c) => n + c.unanswered, 0)).toBe(summary.unanswered.count);
  });

  it("counts a conversation under its first turn's channel and each message under its own", async () => {
    const t = randomUUID();
    const session = await turn(t, 'slack');
    await turn(t, 'console', { sessionId: session, at: '2030-06-21T10:00:00Z' });
    expect((await channels(t)).channels).toEqual([
      { channel: 'slack', conversations: 1, messages: 1, unanswered: 0 },
      { channel: 'console', conversations: 0, messages: 1, unanswered: 0 },
    ]);
  });

  it('honours the window: conversations by their latest message, messages by their own time', async () => {
    const t = randomUUID();
    await turn(t, 'email', { at: '2030-05-31T23:59:58Z' }); // the day before the window
    const spanning = await turn(t, 'api', { at: '2030-05-20T10:00:00Z' });
    await turn(t, 'api', { sessionId: spanning, at: '2030-06-29T10:00:00Z' });
    await turn(t, 'widget', { at: '2030-06-30T23:59:00Z' }); // the last minute of today

    expect((await channels(t)).channels).toEqual([
      { channel: 'api', conversations: 1, messages: 1, unanswered: 0 },
      { channel: 'widget', conversations: 1, messages: 1, unanswered: 0 },
    ]);
    expect(await channels(t, { days: 1 })).toEqual({ days: 1, channels: [{ channel: 'widget', conversations: 1, messages: 1, unanswered: 0 }] });
    expect((await channels(t, { days: 60 })).channels).toEqual([
      { channel: 'api', conversations: 1, messages: 2, unanswered: 0 },
      { channel: 'email', conversations: 1, messages: 1, unanswered: 0 },
      { channel: 'widget', conversations: 1, messages: 1, unanswered: 0 },
    ]);
  });

  it('filters by chatbot and by the allowed bots (never bot-less conversations for a restricted caller), and never shows another workspace', async () => {
    const t = randomUUID();
    const [b1, b2] = [randomUUID(), randomUUID()];
    await turn(t, 'telegram', { chatbotId: b1 });
    await turn(t, 'widget', { chatbotId: b2 });
    await turn(t, 'api', { chatbotId: null });
    await turn(randomUUID(), 'slack', { chatbotId: b1 });

    const one = (channel: ChatChannel) => [{ channel, conversations: 1, messages: 1, unanswered: 0 }];
    expect((await channels(t)).channels.map((c) => c.channel)).toEqual(['api', 'telegram', 'widget']);
    expect((await channels(t, { chatbotId: b1 })).channels).toEqual(one('telegram'));
    expect((await channels(t, { botIds: [b2] })).channels).toEqual(one('widget'));
    expect((await channels(t, { botIds: [b2], chatbotId: b1 })).channels).toEqual([]);
    expect((await channels(t, { botIds: [] })).channels).toEqual([]);
  });
});
