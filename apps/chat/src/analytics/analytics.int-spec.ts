import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { MessagesRepository, NewTurn, StoredTurn } from '../conversations/messages.repository';
import { AnalyticsRepository } from './analytics.repository';

// The Analytics summary against the real PostgreSQL: turns are stored through MessagesRepository
// and then moved to the moment each test needs (messages and their session summary).

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
let analytics: AnalyticsRepository;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_analytics');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-analytics-int', poolSize: 6 })).initialize();
  messages = new MessagesRepository(ds);
  analytics = new AnalyticsRepository(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** "Now" of every test: the window is 2030-06-01 … 2030-06-30 (UTC). */
const NOW = new Date('2030-06-30T15:00:00Z');

interface ExchangeOptions {
  chatbotId?: string | null;
  sessionId?: string;
  question?: string;
  unanswered?: boolean;
  feedback?: 'positive' | 'negative';
}

/** One exchange stored at `at` (the question; the reply one second later). */
async function exchange(tenantId: string, at: string, o: ExchangeOptions = {}): Promise<StoredTurn> {
  const t: NewTurn = {
    tenantId,
    chatbotId: o.chatbotId ?? null,
    sessionId: o.sessionId ?? `s-${randomUUID()}`,
    channel: 'api',
    user: { content: o.question ?? `question ${randomUUID()}`, language: 'en' },
    assistant: { content: 'answer', sourceUrls: [], unanswered: o.unanswered ?? false },
  };
  const stored = await messages.insertTurn(ds.manager, t);
  await ds.query(`UPDATE chat.messages SET created_at = $2::timestamptz WHERE id = $1`, [stored.userMessage.id, at]);
  await ds.query(`UPDATE chat.messages SET created_at = $2::timestamptz + interval '1 second' WHERE id = $1`, [stored.assistantMessage.id, at]);
  await ds.query(
    `UPDATE chat.sessions s SET first_at = x.f, last_at = x.l
       FROM (SELECT min(created_at) AS f, max(created_at) AS l FROM chat.messages WHERE tenant_id = $1 AND session_id = $2) x
      WHERE s.tenant_id = $1 AND s.session_id = $2`,
    [tenantId, t.sessionId],
  );
  if (o.feedback) await messages.setFeedback(tenantId, t.sessionId, stored.assistantMessage.id, o.feedback);
  return stored;
}

const summary = (tenantId: string, over: { chatbotId?: string; botIds?: string[]; days?: number; now?: Date } = {}) => analytics.summary({ tenantId, now: NOW, ...over });

describe('AnalyticsRepository.summary', () => {
  it('has all five members, and every day of the window zero-filled, oldest first', async () => {
    const result = await summary(randomUUID());
    expect(Object.keys(result).sort()).toEqual(['daily', 'feedback', 'sessions', 'top_questions', 'unanswered']);
    expect(result.daily).toHaveLength(30);
    expect(result.daily[0]).toEqual({ day: '2030-06-01', user_messages: 0, assistant_messages: 0 });
    expect(result.daily[29]).toEqual({ day: '2030-06-30', user_messages: 0, assistant_messages: 0 });
    expect(result.daily.map((d) => d.day)).toEqual(Array.from({ length: 30 }, (_, i) => `2030-06-${String(i + 1).padStart(2, '0')}`));
    expect(result.top_questions).toEqual([]);
    expect(result.unanswered).toEqual({ count: 0, total: 0, rate: 0 });
    expect(result.feedback).toEqual({ positive: 0, negative: 0 });
    expect(result.sessions).toEqual({ total: 0, avg_messages: 0 });
  });

  it('crosses month and year boundaries and honours the window length', async () => {
    const result = await summary(randomUUID(), { now: new Date('2031-01-02T00:00:00Z'), days: 5 });
    expect(result.daily.map((d) => d.day)).toEqual(['2030-12-29', '2030-12-30', '2030-12-31', '2031-01-01', '2031-01-02']);
    const leap = await summary(randomUUID(), { now: new Date('2032-03-01T23:59:59.999Z'), days: 3 });
    expect(leap.daily.map((d) => d.day)).toEqual(['2032-02-28', '2032-02-29', '2032-03-01']);
  });

  it('counts messages per UTC day and leaves out messages older than the window', async () => {
    const tenantId = randomUUID();
    await exchange(tenantId, '2030-06-01T00:00:00Z'); // first instant of the window
    await exchange(tenantId, '2030-06-10T08:00:00Z');
    await exchange(tenantId, '2030-06-10T23:59:58Z'); // its reply is at 23:59:59, same day
    await exchange(tenantId, '2030-06-30T23:00:00Z'); // later today
    await exchange(tenantId, '2030-05-31T23:59:58Z'); // the day before the window
    await exchange(tenantId, '2030-05-01T12:00:00Z'); // 60 days ago
    // A reply written after midnight counts on its own day.
    const late = await exchange(tenantId, '2030-06-15T23:59:59.5Z');
    expect(late.userMessage).toBeDefined();

    const result = await summary(tenantId);
    const byDay = Object.fromEntries(result.daily.map((d) => [d.day, [d.user_messages, d.assistant_messages]]));
    expect(byDay['2030-06-01']).toEqual([1, 1]);
    expect(byDay['2030-06-10']).toEqual([2, 2]);
    expect(byDay['2030-06-15']).toEqual([1, 0]);
    expect(byDay['2030-06-16']).toEqual([0, 1]);
    expect(byDay['2030-06-30']).toEqual([1, 1]);
    expect(result.daily.reduce((n, d) => n + d.user_messages, 0)).toBe(5);
    expect(result.daily.reduce((n, d) => n + d.assistant_messages, 0)).toBe(5);
    expect(result.unanswered.total).toBe(5);
    expect(result.daily.filter((d) => d.user_messages + d.assistant_messages === 0)).toHaveLength(25);
  });

  it('groups trivially different phrasings of a question and shows the latest phrasing', async () => {
    const tenantId = randomUUID();
    await exchange(tenantId, '2030-06-02T10:00:00Z', { question: 'What is the price?' });
    await exchange(tenantId, '2030-06-05T10:00:00Z', { question: 'What is the price ??' });
    await exchange(tenantId, '2030-06-03T10:00:00Z', { question: 'what is the price' });
    await exchange(tenantId, '2030-06-04T10:00:00Z', { question: 'Do you ship to Canada?' });
    await exchange(tenantId, '2030-06-06T10:00:00Z', { question: 'do you ship to canada' });
    await exchange(tenantId, '2030-06-07T10:00:00Z', { question: 'Opening hours?' });
    await exchange(tenantId, '2030-05-20T10:00:00Z', { question: 'Opening hours?' }); // outside the window
    await exchange(tenantId, '2030-06-08T10:00:00Z', { question: '???' }); // no words: not ranked

    const { top_questions } = await summary(tenantId);
    expect(top_questions).toEqual([
      { question: 'What is the price ??', times: 3 },
      { question: 'do you ship to canada', times: 2 },
      { question: 'Opening hours?', times: 1 },
    ]);
  });

  it('keeps the ten most asked questions, most asked first', async () => {
    const tenantId = randomUUID();
    for (let i = 1; i <= 12; i++) {
      for (let k = 0; k < i; k++) await exchange(tenantId, `2030-06-${String(10 + (k % 10)).padStart(2, '0')}T10:00:00Z`, { question: `Question number ${i}?` });
    }
    const { top_questions } = await summary(tenantId);
    expect(top_questions.map((q) => q.times)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(top_questions[0].question).toBe('Question number 12?');
  });

  it('reports unanswered replies as a percentage rounded to one decimal', async () => {
    const third = randomUUID();
    await exchange(third, '2030-06-10T10:00:00Z', { unanswered: true });
    await exchange(third, '2030-06-11T10:00:00Z');
    await exchange(third, '2030-06-12T10:00:00Z');
    await exchange(third, '2030-05-12T10:00:00Z', { unanswered: true }); // outside the window
    expect((await summary(third)).unanswered).toEqual({ count: 1, total: 3, rate: 33.3 });

    const twoThirds = randomUUID();
    await exchange(twoThirds, '2030-06-10T10:00:00Z', { unanswered: true });
    await exchange(twoThirds, '2030-06-11T10:00:00Z', { unanswered: true });
    await exchange(twoThirds, '2030-06-12T10:00:00Z');
    expect((await summary(twoThirds)).unanswered).toEqual({ count: 2, total: 3, rate: 66.7 });

    const all = randomUUID();
    await exchange(all, '2030-06-10T10:00:00Z', { unanswered: true });
    expect((await summary(all)).unanswered).toEqual({ count: 1, total: 1, rate: 100 });
  });

  it('counts feedback on replies in the window', async () => {
    const tenantId = randomUUID();
    await exchange(tenantId, '2030-06-10T10:00:00Z', { feedback: 'positive' });
    await exchange(tenantId, '2030-06-11T10:00:00Z', { feedback: 'positive' });
    await exchange(tenantId, '2030-06-12T10:00:00Z', { feedback: 'negative' });
    await exchange(tenantId, '2030-06-13T10:00:00Z');
    await exchange(tenantId, '2030-05-13T10:00:00Z', { feedback: 'negative' }); // outside the window
    expect((await summary(tenantId)).feedback).toEqual({ positive: 2, negative: 1 });
  });

  it('counts the sessions active in the window and their average size', async () => {
    const tenantId = randomUUID();
    await exchange(tenantId, '2030-06-10T10:00:00Z', { sessionId: 'a' });
    await exchange(tenantId, '2030-06-10T10:00:00Z', { sessionId: 'b' });
    await exchange(tenantId, '2030-06-11T10:00:00Z', { sessionId: 'b' });
    // Started before the window, active in it: counts, with all its messages.
    await exchange(tenantId, '2030-05-01T10:00:00Z', { sessionId: 'c' });
    await exchange(tenantId, '2030-06-01T10:00:00Z', { sessionId: 'c' });
    // Not active in the window.
    await exchange(tenantId, '2030-05-02T10:00:00Z', { sessionId: 'd' });
    await exchange(tenantId, '2030-05-03T10:00:00Z', { sessionId: 'd' });
    expect((await summary(tenantId)).sessions).toEqual({ total: 3, avg_messages: 3.33 });
  });

  it('filters by chatbot and by the allowed bots', async () => {
    const tenantId = randomUUID();
    const [b1, b2] = [randomUUID(), randomUUID()];
    await exchange(tenantId, '2030-06-10T10:00:00Z', { chatbotId: b1, sessionId: 'one', question: 'Price?', unanswered: true, feedback: 'negative' });
    await exchange(tenantId, '2030-06-10T11:00:00Z', { chatbotId: b1, sessionId: 'one', question: 'price' });
    await exchange(tenantId, '2030-06-11T10:00:00Z', { chatbotId: b2, sessionId: 'two', question: 'Hours?', feedback: 'positive' });
    await exchange(tenantId, '2030-06-12T10:00:00Z', { chatbotId: null, sessionId: 'none', question: 'Anyone?' });

    const one = await summary(tenantId, { chatbotId: b1 });
    expect(one.daily.find((d) => d.day === '2030-06-10')).toEqual({ day: '2030-06-10', user_messages: 2, assistant_messages: 2 });
    expect(one.daily.reduce((n, d) => n + d.user_messages, 0)).toBe(2);
    expect(one.top_questions).toEqual([{ question: 'price', times: 2 }]);
    expect(one.unanswered).toEqual({ count: 1, total: 2, rate: 50 });
    expect(one.feedback).toEqual({ positive: 0, negative: 1 });
    expect(one.sessions).toEqual({ total: 1, avg_messages: 4 });

    const everything = await summary(tenantId);
    expect(everything.unanswered).toEqual({ count: 1, total: 4, rate: 25 });
    expect(everything.sessions).toEqual({ total: 3, avg_messages: 2.67 });

    const allowed = await summary(tenantId, { botIds: [b2] });
    expect(allowed.top_questions).toEqual([{ question: 'Hours?', times: 1 }]);
    expect(allowed.feedback).toEqual({ positive: 1, negative: 0 });
    expect(allowed.sessions).toEqual({ total: 1, avg_messages: 2 });
    expect((await summary(tenantId, { botIds: [b2], chatbotId: b1 })).unanswered.total).toBe(0);
    expect((await summary(tenantId, { botIds: [] })).sessions.total).toBe(0);
  });

  it('never counts another workspace', async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    const bot = randomUUID();
    await exchange(mine, '2030-06-10T10:00:00Z', { chatbotId: bot, question: 'Mine?' });
    await exchange(theirs, '2030-06-10T10:00:00Z', { chatbotId: bot, question: 'Theirs?', unanswered: true, feedback: 'negative' });
    for (const over of [{}, { chatbotId: bot }]) {
      const result = await summary(mine, over);
      expect(result.daily.find((d) => d.day === '2030-06-10')).toEqual({ day: '2030-06-10', user_messages: 1, assistant_messages: 1 });
      expect(result.top_questions).toEqual([{ question: 'Mine?', times: 1 }]);
      expect(result.unanswered).toEqual({ count: 0, total: 1, rate: 0 });
      expect(result.feedback).toEqual({ positive: 0, negative: 0 });
      expect(result.sessions).toEqual({ total: 1, avg_messages: 2 });
    }
  });
});

describe('AnalyticsRepository.questions (issue 19: top and unanswered questions)', () => {
  const questions = (tenantId: string, over: { chatbotId?: string; botIds?: string[]; days?: number; limit?: number } = {}) => analytics.questions({ tenantId, now: NOW, ...over });

  it('ranks questions by how often they were asked, with their latest wording and time', async () => {
    const t = randomUUID();
    await exchange(t, '2030-06-10T10:00:00Z', { question: 'What is the price?' });
    await exchange(t, '2030-06-12T10:00:00Z', { question: 'what is the PRICE' });
    await exchange(t, '2030-06-11T10:00:00Z', { question: 'Where are you?' });
    const result = await questions(t);
    expect(result.days).toBe(30);
    expect(result.top).toEqual([
      { question: 'what is the PRICE', times: 2, last_asked_at: '2030-06-12T10:00:00.000Z' },
      { question: 'Where are you?', times: 1, last_asked_at: '2030-06-11T10:00:00.000Z' },
    ]);
    expect(result.unanswered).toEqual([]);
  });

  it('lists a question as unanswered when the reply to its latest asking was unanswered, counting its unanswered askings; answered later, it leaves the list', async () => {
    const t = randomUUID();
    await exchange(t, '2030-06-01T10:00:00Z', { question: 'Do you ship to Mars?', unanswered: true });
    await exchange(t, '2030-06-02T10:00:00Z', { question: 'do you ship to mars', unanswered: true });
    await exchange(t, '2030-06-03T10:00:00Z', { question: 'Do you ship to Mars?!', unanswered: false });
    await exchange(t, '2030-06-04T10:00:00Z', { question: 'Is there a warranty?', unanswered: false });
    await exchange(t, '2030-06-05T10:00:00Z', { question: 'Is there a warranty?', unanswered: true });
    await exchange(t, '2030-06-06T10:00:00Z', { question: 'Can I pay in gold?', unanswered: true });
    await exchange(t, '2030-06-07T10:00:00Z', { question: 'Can I pay in gold', unanswered: true });
    const result = await questions(t);
    // Mars was answered on its latest asking: not listed. Gold went unanswered twice, the warranty once.
    expect(result.unanswered).toEqual([
      { question: 'Can I pay in gold', times: 2, last_asked_at: '2030-06-07T10:00:00.000Z' },
      { question: 'Is there a warranty?', times: 1, last_asked_at: '2030-06-05T10:00:00.000Z' },
    ]);
    expect(result.top.map((q) => [q.question, q.times])).toEqual([
      ['Do you ship to Mars?!', 3],
      ['Can I pay in gold', 2],
      ['Is there a warranty?', 2],
    ]);
  });

  it('pairs each question with the reply that follows it in its own session', async () => {
    const t = randomUUID();
    const session = `s-${randomUUID()}`;
    // Two turns of one session: the first unanswered, the second answered.
    await exchange(t, '2030-06-20T10:00:00Z', { sessionId: session, question: 'First question here', unanswered: true });
    await exchange(t, '2030-06-20T10:05:00Z', { sessionId: session, question: 'Second question here', unanswered: false });
    // Another session at the same moment, answered: it does not make the first one answered.
    await exchange(t, '2030-06-20T10:00:00Z', { question: 'Third question here', unanswered: false });
    expect((await questions(t)).unanswered.map((q) => q.question)).toEqual(['First question here']);
  });

  it('honours the window, the bot filters, the limit, and never shows another workspace', async () => {
    const t = randomUUID();
    const [botA, botB] = [randomUUID(), randomUUID()];
    await exchange(t, '2030-05-01T10:00:00Z', { question: 'Too old to count', unanswered: true });
    await exchange(t, '2030-06-29T10:00:00Z', { question: 'Question of bot A', unanswered: true, chatbotId: botA });
    await exchange(t, '2030-06-29T11:00:00Z', { question: 'Question of bot B', unanswered: true, chatbotId: botB });
    await exchange(randomUUID(), '2030-06-29T10:00:00Z', { question: 'Another workspace', unanswered: true });
    expect((await questions(t)).unanswered.map((q) => q.question)).toEqual(['Question of bot B', 'Question of bot A']);
    expect((await questions(t, { days: 90 })).unanswered.map((q) => q.question)).toEqual(['Question of bot B', 'Question of bot A', 'Too old to count']);
    expect((await questions(t, { chatbotId: botA })).unanswered.map((q) => q.question)).toEqual(['Question of bot A']);
    expect((await questions(t, { botIds: [botB] })).top.map((q) => q.question)).toEqual(['Question of bot B']);
    expect((await questions(t, { botIds: [] })).top).toEqual([]);
    const limited = await questions(t, { limit: 1 });
    expect([limited.top.length, limited.unanswered.length]).toEqual([1, 1]);
  });
});
