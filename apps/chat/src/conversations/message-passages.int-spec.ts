import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { PassageView } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { createTestDatabase } from '@sa/testing';
import { ConversationsRepository } from './conversations.repository';
import { MessagesRepository } from './messages.repository';

// Issue 32, "Why this answer": the passages each answer keeps (chat.messages.passages) against the
// real PostgreSQL: what is stored and clipped, what the console's transcript gives, and that the
// public ChatMessage view never carries them.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let messages: MessagesRepository;
let conversations: ConversationsRepository;

beforeAll(async () => {
  db = await createTestDatabase('sa_test_chat_passages');
  ds = await new DataSource({ ...dataSourceOptions({ url: db.appUrl('chat'), applicationName: 'chat-passages-int', poolSize: 4 }), logging: false }).initialize();
  messages = new MessagesRepository(ds);
  conversations = new ConversationsRepository(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const VIEW_KEYS = ['channel', 'chatbot_id', 'content', 'created_at', 'feedback', 'id', 'provider_message_id', 'role', 'session_id', 'source_urls', 'tenant_id'];

const passage = (over: Partial<PassageView> = {}): PassageView => ({
  text: 'The premium heater costs 900 dollars.',
  score: 0.8765,
  document_id: randomUUID(),
  title: 'Pricing',
  source_url: 'https://example.com/pricing',
  chunk_id: randomUUID(),
  ...over,
});

async function store(tenantId: string, sessionId: string, passages: PassageView[] | undefined, answer = 'It costs 900 dollars.') {
  return messages.insertTurn(ds.manager, {
    tenantId,
    chatbotId: null,
    sessionId,
    channel: 'api',
    user: { content: 'How much is the heater?', language: 'en' },
    assistant: { content: answer, sourceUrls: [], unanswered: passages?.length === 0, passages },
  });
}

describe('chat.messages.passages', () => {
  it('stores the passages on the answer, clipped, in order; the public views are unchanged; the transcript gives them on answers only', async () => {
    const tenantId = randomUUID();
    const sessionId = `s-${randomUUID()}`;
    const long = `${'a'.repeat(999)}😀tail`; // the 1000th character is an emoji (two UTF-16 units): kept whole
    const given = [passage({ text: long, score: 0.9 }), passage({ title: null, source_url: null, chunk_id: undefined, score: 0.5, text: '<b>not html</b>\u0000 and a lone \ud800 surrogate' })];
    const stored = await store(tenantId, sessionId, given);
    expect(Object.keys(stored.assistantMessage).sort()).toEqual(VIEW_KEYS);

    const [row] = await ds.query(`SELECT passages FROM chat.messages WHERE id = $1`, [stored.assistantMessage.id]);
    expect(row.passages).toEqual([
      { document_id: given[0]!.document_id, title: 'Pricing', chunk: given[0]!.chunk_id, score: 0.9, text: `${'a'.repeat(999)}😀`, source_url: 'https://example.com/pricing' },
      { document_id: given[1]!.document_id, title: null, chunk: null, score: 0.5, text: '<b>not html</b> and a lone \ufffd surrogate', source_url: null },
    ]);
    const [user] = await ds.query(`SELECT passages FROM chat.messages WHERE id = $1`, [stored.userMessage.id]);
    expect(user.passages).toBeNull();

    // The public view (GET /v1/conversations/{sessionId}, MCP) has exactly the ChatMessage members.
    for (const m of await conversations.messages(tenantId, sessionId)) expect(Object.keys(m).sort()).toEqual(VIEW_KEYS);
    const [q, a] = await conversations.transcript(tenantId, sessionId);
    expect(Object.keys(q!).sort()).toEqual(VIEW_KEYS);
    expect(Object.keys(a!).sort()).toEqual([...VIEW_KEYS, 'passages'].sort());
    expect(a!.passages).toEqual(row.passages);
  });

  it('an answer without passages has []; an old answer (before passages were kept) and a person\'s reply are told apart', async () => {
    const tenantId = randomUUID();
    const sessionId = `s-${randomUUID()}`;
    await store(tenantId, sessionId, []);
    await store(tenantId, sessionId, undefined, 'An answer stored before issue 32.');
    await ds.query(
      `INSERT INTO chat.messages (tenant_id, session_id, channel, role, content, author_kind, author_label) VALUES ($1, $2, 'api', 'assistant', 'Hello, Ada here.', 'person', 'Ada')`,
      [tenantId, sessionId],
    );
    const answers = (await conversations.transcript(tenantId, sessionId)).filter((m) => m.role === 'assistant');
    expect(answers.map((m) => [m.content, m.passages, m.passages_omitted])).toEqual([
      ['It costs 900 dollars.', [], undefined],
      ['An answer stored before issue 32.', null, undefined],
      ['Hello, Ada here.', undefined, undefined],
    ]);
    expect('passages' in answers[2]!).toBe(false);
  });

  it('a long transcript keeps the latest answers\' passages within its budget and marks the older ones', async () => {
    const tenantId = randomUUID();
    const sessionId = `s-${randomUUID()}`;
    for (let i = 0; i < 4; i++) await store(tenantId, sessionId, [passage({ text: `turn ${i} ${'x'.repeat(500)}` })], `answer ${i}`);
    const one = JSON.stringify((await conversations.transcript(tenantId, sessionId))[1]!.passages).length;
    const answers = (await conversations.transcript(tenantId, sessionId, 1000, one * 2 + 10)).filter((m) => m.role === 'assistant');
    expect(answers.map((m) => [m.content, m.passages === null ? null : m.passages![0]!.text.slice(0, 6), m.passages_omitted ?? false])).toEqual([
      ['answer 0', null, true],
      ['answer 1', null, true],
      ['answer 2', 'turn 2', false],
      ['answer 3', 'turn 3', false],
    ]);
  });

  it('other workspaces never see them', async () => {
    const sessionId = `s-${randomUUID()}`;
    await store(randomUUID(), sessionId, [passage()]);
    expect(await conversations.transcript(randomUUID(), sessionId)).toEqual([]);
  });
});
