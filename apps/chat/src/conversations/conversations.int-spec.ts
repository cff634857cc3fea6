import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { ConversationsRepository } from './conversations.repository';
import { MessagesRepository, NewTurn, StoredTurn } from './messages.repository';

// chat.messages, chat.sessions and chat.usage against the real PostgreSQL: storing turns and the
// session bookkeeping, listing and searching sessions, a session's messages, and the monthly
// message quota under concurrency.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
let conversations: ConversationsRepository;
const extra: DataSource[] = [];

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_conv');
  // No query logging: one test expects a failing insert.
  ds = await new DataSource({ ...dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-conv-int', poolSize: 10 }), logging: false }).initialize();
  messages = new MessagesRepository(ds);
  conversations = new ConversationsRepository(ds);
});

beforeEach(async () => {
  await ds.query('DELETE FROM chat.messages; DELETE FROM chat.sessions; DELETE FROM chat.usage; DELETE FROM chat.widget_usage');
});

afterAll(async () => {
  for (const d of extra.splice(0)) await d.destroy();
  await ds?.destroy();
  await db?.drop();
});

const VIEW_KEYS = ['channel', 'chatbot_id', 'content', 'created_at', 'feedback', 'id', 'provider_message_id', 'role', 'session_id', 'source_urls', 'tenant_id'];
const CONVERSATION_KEYS = ['channel', 'first_at', 'last_at', 'message_count', 'preview', 'session_id'];

/** One exchange, stored through the repository. */
function turn(over: Partial<NewTurn> & { question?: string; answer?: string } = {}): Promise<StoredTurn> {
  const { question, answer, ...rest } = over;
  return messages.insertTurn(ds.manager, {
    tenantId: randomUUID(),
    chatbotId: null,
    sessionId: `s-${randomUUID()}`,
    channel: 'api',
    user: { content: question ?? 'What is the price?', language: 'en' },
    assistant: { content: answer ?? 'It costs 10 euros.', sourceUrls: ['https://example.com/pricing'], unanswered: false, providerMessageId: 'prov-1' },
    ...rest,
  });
}

/** Moves a session's messages and summary to `at` + their offset, to control the order. */
async function setSessionTime(tenantId: string, sessionId: string, at: Date): Promise<void> {
  await ds.query(`UPDATE chat.messages SET created_at = $3::timestamptz + (created_at - (SELECT min(created_at) FROM chat.messages WHERE tenant_id = $1 AND session_id = $2)) WHERE tenant_id = $1 AND session_id = $2`, [
    tenantId,
    sessionId,
    at.toISOString(),
  ]);
  await ds.query(
    `UPDATE chat.sessions s SET first_at = x.f, last_at = x.l
       FROM (SELECT min(created_at) AS f, max(created_at) AS l FROM chat.messages WHERE tenant_id = $1 AND session_id = $2) x
      WHERE s.tenant_id = $1 AND s.session_id = $2`,
    [tenantId, sessionId],
  );
}

async function sessionRow(tenantId: string, sessionId: string) {
  const [row] = await ds.query(`SELECT * FROM chat.sessions WHERE tenant_id = $1 AND session_id = $2`, [tenantId, sessionId]);
  return row;
}

describe('insertTurn', () => {
  it('stores both messages with their fields and returns exactly the ChatMessage views', async () => {
    const tenantId = randomUUID();
    const chatbotId = randomUUID();
    const stored = await turn({ tenantId, chatbotId, sessionId: 'abc', question: 'What is the price?', answer: 'Ten euros.' });

    expect(Object.keys(stored.userMessage).sort()).toEqual(VIEW_KEYS);
    expect(Object.keys(stored.assistantMessage).sort()).toEqual(VIEW_KEYS);
    expect(stored.userMessage).toMatchObject({
      tenant_id: tenantId,
      chatbot_id: chatbotId,
      session_id: 'abc',
      role: 'user',
      content: 'What is the price?',
      feedback: null,
      source_urls: null,
      channel: 'api',
      provider_message_id: null,
    });
    expect(stored.assistantMessage).toMatchObject({
      role: 'assistant',
      content: 'Ten euros.',
      feedback: null,
      source_urls: ['https://example.com/pricing'],
      provider_message_id: 'prov-1',
    });
    expect(new Date(stored.userMessage.created_at).toISOString()).toBe(stored.userMessage.created_at);
    expect(stored.assistantMessage.created_at >= stored.userMessage.created_at).toBe(true);

    const rows = await ds.query(`SELECT role, language, unanswered, question_key FROM chat.messages WHERE tenant_id = $1 ORDER BY role DESC`, [tenantId]);
    expect(rows).toEqual([
      { role: 'user', language: 'en', unanswered: false, question_key: 'what is the price' },
      { role: 'assistant', language: null, unanswered: false, question_key: null },
    ]);
  });

  it('stores unanswered replies, null source urls and no provider id', async () => {
    const stored = await turn({ assistant: { content: 'I do not know.', sourceUrls: null, unanswered: true } });
    expect(stored.assistantMessage.source_urls).toBeNull();
    expect(stored.assistantMessage.provider_message_id).toBeNull();
    const [row] = await ds.query(`SELECT unanswered FROM chat.messages WHERE id = $1`, [stored.assistantMessage.id]);
    expect(row.unanswered).toBe(true);
  });

  it('creates the session with the first turn and updates it with the next ones', async () => {
    const tenantId = randomUUID();
    const chatbotId = randomUUID();
    const first = await turn({ tenantId, chatbotId, sessionId: 'sess', channel: 'widget', question: 'Hello there, ' + 'x'.repeat(300) });
    let s = await sessionRow(tenantId, 'sess');
    expect(s).toMatchObject({ chatbot_id: chatbotId, channel: 'widget', message_count: 2, preview: 'Hello there, ' + 'x'.repeat(187) });
    expect(s.preview).toHaveLength(200);
    expect(s.first_at.toISOString()).toBe(first.userMessage.created_at);
    expect(s.last_at.toISOString()).toBe(first.assistantMessage.created_at);

    const second = await turn({ tenantId, chatbotId: randomUUID(), sessionId: 'sess', channel: 'api', question: 'Second question' });
    s = await sessionRow(tenantId, 'sess');
    // The session keeps its first bot, channel and preview.
    expect(s).toMatchObject({ chatbot_id: chatbotId, channel: 'widget', message_count: 4, preview: 'Hello there, ' + 'x'.repeat(187) });
    expect(s.first_at.toISOString()).toBe(first.userMessage.created_at);
    expect(s.last_at.toISOString()).toBe(second.assistantMessage.created_at);
  });

  it('counts every message of turns stored concurrently in one session', async () => {
    const tenantId = randomUUID();
    await Promise.all(Array.from({ length: 10 }, (_, i) => ds.transaction((m) => messages.insertTurn(m, { ...baseTurn(tenantId, 'busy'), user: { content: `q${i}`, language: null } }))));
    expect((await sessionRow(tenantId, 'busy')).message_count).toBe(20);
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM chat.messages WHERE tenant_id = $1`, [tenantId]);
    expect(n).toBe(20);
  });

  it('keeps sessions of different workspaces apart, even with the same session id', async () => {
    const a = randomUUID();
    const b = randomUUID();
    await turn({ tenantId: a, sessionId: 'same', question: 'from a' });
    await turn({ tenantId: b, sessionId: 'same', question: 'from b' });
    expect((await sessionRow(a, 'same')).preview).toBe('from a');
    expect((await sessionRow(b, 'same')).preview).toBe('from b');
    expect((await sessionRow(a, 'same')).message_count).toBe(2);
  });

  it('refuses a session id longer than 120 characters', async () => {
    await expect(turn({ sessionId: 'x'.repeat(121) })).rejects.toThrow(/check constraint/);
    await expect(turn({ sessionId: 'x'.repeat(120) })).resolves.toBeDefined();
  });

  it('rolls back with the surrounding transaction', async () => {
    const tenantId = randomUUID();
    await expect(
      ds.transaction(async (m) => {
        await messages.insertTurn(m, baseTurn(tenantId, 'gone'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await sessionRow(tenantId, 'gone')).toBeUndefined();
    expect(await ds.query(`SELECT 1 FROM chat.messages WHERE tenant_id = $1`, [tenantId])).toEqual([]);
  });
});

function baseTurn(tenantId: string, sessionId: string, chatbotId: string | null = null): NewTurn {
  return {
    tenantId,
    chatbotId,
    sessionId,
    channel: 'api',
    user: { content: 'question', language: null },
    assistant: { content: 'answer', sourceUrls: [], unanswered: false },
  };
}

describe('history and sessionBot', () => {
  it('gives the last N messages oldest first', async () => {
    const tenantId = randomUUID();
    for (let i = 1; i <= 3; i++) await turn({ tenantId, sessionId: 'h', question: `q${i}`, answer: `a${i}` });
    expect(await messages.history(tenantId, 'h', 3)).toEqual([
      { role: 'assistant', content: 'a2' },
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'a3' },
    ]);
    expect(await messages.history(tenantId, 'h', 100)).toHaveLength(6);
    expect(await messages.history(randomUUID(), 'h', 100)).toEqual([]);
  });

  it('puts the question before its reply even when both have the same timestamp', async () => {
    const tenantId = randomUUID();
    await turn({ tenantId, sessionId: 'tie', question: 'q', answer: 'a' });
    await ds.query(`UPDATE chat.messages SET created_at = '2030-01-01T00:00:00Z' WHERE tenant_id = $1`, [tenantId]);
    expect(await messages.history(tenantId, 'tie', 1)).toEqual([{ role: 'assistant', content: 'a' }]);
    expect(await messages.history(tenantId, 'tie', 2)).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
    expect((await conversations.messages(tenantId, 'tie')).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it("tells a session's bot, null for a bot-less session and undefined for none", async () => {
    const tenantId = randomUUID();
    const chatbotId = randomUUID();
    await turn({ tenantId, chatbotId, sessionId: 'with-bot' });
    await turn({ tenantId, chatbotId: null, sessionId: 'no-bot' });
    expect(await messages.sessionBot(tenantId, 'with-bot')).toBe(chatbotId);
    expect(await messages.sessionBot(tenantId, 'no-bot')).toBeNull();
    expect(await messages.sessionBot(tenantId, 'missing')).toBeUndefined();
    expect(await messages.sessionBot(randomUUID(), 'with-bot')).toBeUndefined();
  });
});

describe('setFeedback', () => {
  it('marks an assistant message of the session, and only that', async () => {
    const tenantId = randomUUID();
    const t = await turn({ tenantId, sessionId: 'fb' });
    expect(await messages.setFeedback(tenantId, 'fb', t.assistantMessage.id, 'positive')).toBe(true);
    expect(await messages.setFeedback(tenantId, 'fb', t.userMessage.id, 'negative')).toBe(false);
    expect(await messages.setFeedback(tenantId, 'other', t.assistantMessage.id, 'negative')).toBe(false);
    expect(await messages.setFeedback(randomUUID(), 'fb', t.assistantMessage.id, 'negative')).toBe(false);
    expect((await conversations.messages(tenantId, 'fb')).map((m) => m.feedback)).toEqual([null, 'positive']);
    expect(await messages.setFeedback(tenantId, 'fb', t.assistantMessage.id, null)).toBe(true);
    expect((await conversations.messages(tenantId, 'fb')).map((m) => m.feedback)).toEqual([null, null]);
  });
});

describe('listSessions', () => {
  it('lists sessions by latest activity, newest first, with exactly the Conversation fields', async () => {
    const tenantId = randomUUID();
    const base = Date.parse('2020-03-01T10:00:00Z');
    for (const [i, id] of ['old', 'mid', 'new'].entries()) {
      await turn({ tenantId, sessionId: id, question: `question ${id}` });
      await setSessionTime(tenantId, id, new Date(base + i * 60_000));
    }
    // A new turn in the oldest session makes it the most recent.
    await turn({ tenantId, sessionId: 'old', question: 'follow-up' });

    const list = await conversations.listSessions({ tenantId, limit: 50 });
    expect(list.map((c) => c.session_id)).toEqual(['old', 'new', 'mid']);
    for (const c of list) expect(Object.keys(c).sort()).toEqual(CONVERSATION_KEYS);
    expect(list[0]).toEqual({
      session_id: 'old',
      message_count: 4,
      first_at: new Date(base).toISOString(),
      last_at: list[0].last_at,
      preview: 'question old',
      channel: 'api',
    });
    expect(list[2]).toEqual({
      session_id: 'mid',
      message_count: 2,
      first_at: new Date(base + 60_000).toISOString(),
      last_at: expect.any(String),
      preview: 'question mid',
      channel: 'api',
    });
    expect(Date.parse(list[2].last_at)).toBeGreaterThanOrEqual(base + 60_000);
  });

  it('returns at most limit sessions', async () => {
    const tenantId = randomUUID();
    for (let i = 0; i < 5; i++) await turn({ tenantId, sessionId: `s${i}` });
    expect((await conversations.listSessions({ tenantId, limit: 3 })).map((c) => c.session_id)).toEqual(['s4', 's3', 's2']);
    expect(await conversations.listSessions({ tenantId, limit: 200 })).toHaveLength(5);
  });

  it('filters by chatbot and restricts to the allowed bots', async () => {
    const tenantId = randomUUID();
    const [b1, b2, b3] = [randomUUID(), randomUUID(), randomUUID()];
    await turn({ tenantId, chatbotId: b1, sessionId: 'one' });
    await turn({ tenantId, chatbotId: b2, sessionId: 'two' });
    await turn({ tenantId, chatbotId: b3, sessionId: 'three' });
    await turn({ tenantId, chatbotId: null, sessionId: 'none' });
    const ids = async (q: Parameters<ConversationsRepository['listSessions']>[0]) => (await conversations.listSessions(q)).map((c) => c.session_id).sort();

    expect(await ids({ tenantId, limit: 50 })).toEqual(['none', 'one', 'three', 'two']);
    expect(await ids({ tenantId, chatbotId: b2, limit: 50 })).toEqual(['two']);
    expect(await ids({ tenantId, botIds: [b1, b2], limit: 50 })).toEqual(['one', 'two']);
    expect(await ids({ tenantId, botIds: [b1, b2], chatbotId: b3, limit: 50 })).toEqual([]);
    expect(await ids({ tenantId, botIds: [b1, b2], chatbotId: b1, limit: 50 })).toEqual(['one']);
    expect(await ids({ tenantId, botIds: [], limit: 50 })).toEqual([]);
  });

  it('filters by channel (the console), alone and with the bot and search filters', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    await turn({ tenantId, chatbotId: bot, sessionId: 'web', channel: 'widget', question: 'shipping to Kenya' });
    await turn({ tenantId, chatbotId: bot, sessionId: 'api', channel: 'api', question: 'shipping to Ghana' });
    await turn({ tenantId, chatbotId: null, sessionId: 'agent', channel: 'mcp', question: 'refund policy' });
    const ids = async (q: Omit<Parameters<ConversationsRepository['listSessions']>[0], 'tenantId' | 'limit'>) =>
      (await conversations.listSessions({ tenantId, limit: 50, ...q })).map((c) => c.session_id).sort();
    expect(await ids({ channel: 'widget' })).toEqual(['web']);
    expect(await ids({ channel: 'mcp' })).toEqual(['agent']);
    expect(await ids({ channel: 'api', chatbotId: bot, q: 'shipping' })).toEqual(['api']);
    expect(await ids({ channel: 'mcp', chatbotId: bot })).toEqual([]);
    expect(await ids({ q: 'shipping' })).toEqual(['api', 'web']);
  });

  it('never shows another workspace', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const bot = randomUUID();
    await turn({ tenantId: a, chatbotId: bot, sessionId: 'mine', question: 'shipping costs' });
    await turn({ tenantId: b, chatbotId: bot, sessionId: 'theirs', question: 'shipping costs' });
    for (const q of [undefined, 'shipping', 'sh']) {
      expect((await conversations.listSessions({ tenantId: a, q, limit: 50 })).map((c) => c.session_id)).toEqual(['mine']);
      expect((await conversations.listSessions({ tenantId: a, chatbotId: bot, q, limit: 50 })).map((c) => c.session_id)).toEqual(['mine']);
    }
  });

  describe('search (q)', () => {
    let tenantId: string;
    const search = async (q: string) => (await conversations.listSessions({ tenantId, q, limit: 50 })).map((c) => c.session_id).sort();

    beforeEach(async () => {
      tenantId = randomUUID();
      await turn({ tenantId, sessionId: 'refund', question: 'How do I get a refund for my order?', answer: 'Refunds take 5 days.' });
      await turn({ tenantId, sessionId: 'shipping', question: 'Do you ship to Canada?', answer: 'Yes, shipping to Canada costs 100% extra_fee.' });
      await turn({ tenantId, sessionId: 'ja', question: '営業時間は何時から何時までですか？', answer: '営業時間は9時から17時までです。' });
      await turn({ tenantId, sessionId: 'zh', question: '怎么重置密码', answer: '请点击忘记密码。' });
      await turn({ tenantId, sessionId: 'th', question: 'ราคาเท่าไหร่', answer: 'ราคา 100 บาท' });
      await turn({ tenantId: randomUUID(), sessionId: 'other-tenant', question: 'refund 営業時間' });
    });

    it('finds English words in questions and answers, case-insensitively', async () => {
      expect(await search('refund')).toEqual(['refund']);
      expect(await search('REFUND')).toEqual(['refund']);
      expect(await search('canada')).toEqual(['shipping']);
      expect(await search('days')).toEqual(['refund']);
      expect(await search('refund canada')).toEqual([]);
      expect(await search('refund or canada')).toEqual(['refund', 'shipping']);
      expect(await search('"get a refund"')).toEqual(['refund']);
      expect(await search('nothing-like-this')).toEqual([]);
    });

    it('finds Japanese, Chinese and Thai substrings', async () => {
      expect(await search('営業時間')).toEqual(['ja']);
      expect(await search('何時まで')).toEqual(['ja']);
      expect(await search('時')).toEqual(['ja']);
      expect(await search('業時')).toEqual(['ja']);
      expect(await search('時間営業')).toEqual([]);
      expect(await search('重置密码')).toEqual(['zh']);
      expect(await search('เท่า')).toEqual(['th']);
      expect(await search('ราคา')).toEqual(['th']);
    });

    it('matches short queries as substrings and treats LIKE wildcards literally', async () => {
      expect(await search('ca')).toEqual(['shipping']);
      expect(await search('%')).toEqual(['shipping']);
      expect(await search('_')).toEqual(['shipping']);
      expect(await search('0%')).toEqual(['shipping']);
      expect(await search('%_')).toEqual([]);
      expect(await search('\\')).toEqual([]);
      // The Japanese question ends with a full-width ？, which is another character.
      expect(await search('?')).toEqual(['refund', 'shipping']);
    });

    it('ignores a blank query', async () => {
      expect(await search('   ')).toEqual(['ja', 'refund', 'shipping', 'th', 'zh']);
    });
  });
});

describe('messages', () => {
  it("gives a session's messages in order with exactly the ChatMessage fields", async () => {
    const tenantId = randomUUID();
    const chatbotId = randomUUID();
    const t1 = await turn({ tenantId, chatbotId, sessionId: 'm', question: 'q1', answer: 'a1' });
    const t2 = await turn({ tenantId, chatbotId, sessionId: 'm', question: 'q2', answer: 'a2' });
    await turn({ tenantId, chatbotId, sessionId: 'other' });
    await turn({ tenantId: randomUUID(), sessionId: 'm' });

    const list = await conversations.messages(tenantId, 'm');
    expect(list).toEqual([t1.userMessage, t1.assistantMessage, t2.userMessage, t2.assistantMessage]);
    for (const m of list) expect(Object.keys(m).sort()).toEqual(VIEW_KEYS);
    expect(list.map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(await conversations.messages(tenantId, 'missing')).toEqual([]);
    expect(await conversations.messages(tenantId, 'm', 3)).toEqual([t1.userMessage, t1.assistantMessage, t2.userMessage]);
  });
});

describe('reserveMessage', () => {
  it('counts exactly up to the limit when 50 requests race from separate connections', async () => {
    const tenantId = randomUUID();
    for (let i = 0; i < 4; i++) extra.push(await new DataSource(dataSourceOptions({ url: db.appUrl('chat'), applicationName: `chat-quota-${i}`, poolSize: 15 })).initialize());
    const now = new Date('2030-05-15T12:00:00Z');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const pool = extra[i % extra.length];
        return pool.transaction((m) => new MessagesRepository(pool).reserveMessage(m, tenantId, 20, now));
      }),
    );
    const ok = results.filter((r) => r.ok);
    expect(ok).toHaveLength(20);
    expect(ok.map((r) => r.used).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(results.filter((r) => !r.ok).every((r) => r.used === 20)).toBe(true);
    const [row] = await ds.query(`SELECT messages, to_char(month, 'YYYY-MM-DD') AS month FROM chat.usage WHERE tenant_id = $1`, [tenantId]);
    expect(row).toEqual({ messages: 20, month: '2030-05-01' });
  });

  it('starts again each calendar month (UTC) and keeps workspaces apart', async () => {
    const tenantId = randomUUID();
    const reserve = (at: string, limit = 2, t = tenantId) => ds.transaction((m) => messages.reserveMessage(m, t, limit, new Date(at)));
    expect(await reserve('2030-01-31T23:59:59.999Z')).toEqual({ ok: true, used: 1 });
    expect(await reserve('2030-01-01T00:00:00.000Z')).toEqual({ ok: true, used: 2 });
    expect(await reserve('2030-01-15T00:00:00.000Z')).toEqual({ ok: false, used: 2 });
    expect(await reserve('2030-02-01T00:00:00.000Z')).toEqual({ ok: true, used: 1 });
    // Still 31 January in New York, but February in UTC: the month is UTC's.
    expect(await reserve('2030-01-31T20:30:00-05:00')).toEqual({ ok: true, used: 2 });
    expect(await reserve('2030-02-28T23:59:59.999Z')).toEqual({ ok: false, used: 2 });
    expect(await reserve('2030-01-20T00:00:00.000Z', 3)).toEqual({ ok: true, used: 3 });
    expect(await reserve('2030-02-10T00:00:00.000Z', 2, randomUUID())).toEqual({ ok: true, used: 1 });
    const rows = await ds.query(`SELECT to_char(month, 'YYYY-MM-DD') AS month, messages FROM chat.usage WHERE tenant_id = $1 ORDER BY month`, [tenantId]);
    expect(rows).toEqual([
      { month: '2030-01-01', messages: 3 },
      { month: '2030-02-01', messages: 2 },
    ]);
  });

  it('refuses everything with a limit of zero', async () => {
    const tenantId = randomUUID();
    expect(await messages.reserveMessage(ds.manager, tenantId, 0, new Date())).toEqual({ ok: false, used: 0 });
    expect(await ds.query(`SELECT 1 FROM chat.usage WHERE tenant_id = $1`, [tenantId])).toEqual([]);
  });

  it('gives a reservation back, never below zero', async () => {
    const tenantId = randomUUID();
    const now = new Date('2030-07-04T00:00:00Z');
    await messages.reserveMessage(ds.manager, tenantId, 1, now);
    expect(await messages.reserveMessage(ds.manager, tenantId, 1, now)).toEqual({ ok: false, used: 1 });
    await messages.releaseMessage(ds.manager, tenantId, now);
    await messages.releaseMessage(ds.manager, tenantId, now);
    expect(await messages.reserveMessage(ds.manager, tenantId, 1, now)).toEqual({ ok: true, used: 1 });
  });
});

describe('reserveWidgetMessage', () => {
  it('counts per bot up to the limit under concurrency, apart from the workspace quota', async () => {
    const tenantId = randomUUID();
    const botA = randomUUID();
    const botB = randomUUID();
    const now = new Date('2030-05-15T12:00:00Z');
    const results = await Promise.all(Array.from({ length: 12 }, () => ds.transaction((m) => messages.reserveWidgetMessage(m, tenantId, botA, 5, now))));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => !r.ok).every((r) => r.used === 5)).toBe(true);
    expect(await messages.reserveWidgetMessage(ds.manager, tenantId, botB, 5, now)).toEqual({ ok: true, used: 1 });
    expect(await messages.reserveWidgetMessage(ds.manager, tenantId, botA, 5, new Date('2030-06-01T00:00:00Z'))).toEqual({ ok: true, used: 1 });
    expect(await ds.query(`SELECT 1 FROM chat.usage WHERE tenant_id = $1`, [tenantId])).toEqual([]);
    expect(await messages.reserveMessage(ds.manager, tenantId, 1, now)).toEqual({ ok: true, used: 1 });
  });

  it('refuses everything with a limit of zero and gives a reservation back, never below zero', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const now = new Date('2030-07-04T00:00:00Z');
    expect(await messages.reserveWidgetMessage(ds.manager, tenantId, bot, 0, now)).toEqual({ ok: false, used: 0 });
    await messages.reserveWidgetMessage(ds.manager, tenantId, bot, 1, now);
    expect(await messages.reserveWidgetMessage(ds.manager, tenantId, bot, 1, now)).toEqual({ ok: false, used: 1 });
    await messages.releaseWidgetMessage(ds.manager, tenantId, bot, now);
    await messages.releaseWidgetMessage(ds.manager, tenantId, bot, now);
    expect(await messages.reserveWidgetMessage(ds.manager, tenantId, bot, 1, now)).toEqual({ ok: true, used: 1 });
  });
});
