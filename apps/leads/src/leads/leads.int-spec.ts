import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { NatsConnection, connect } from 'nats';
import { DataSource } from 'typeorm';
import { ChatMessageView, EventEnvelope, LeadView, eventSubject } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { EventConsumer, Outbox, ensureEventStream } from '@sa/events';
import { createLogger } from '@sa/logging';
// Test-only dependency.
import { createTestDatabase } from '@sa/testing';
import { LeadsRepository } from './leads.repository';
import { SessionMessages } from './session-messages';
import { TurnCompletedHandler } from './turn-completed.handler';

// The chat.turn.completed consumer and leads.leads against the real PostgreSQL and NATS JetStream
// (a private stream): one lead per session, updated as the session goes on, lead.created written
// to the outbox once, also when a turn event is delivered twice.

const NATS_URL = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const logger = createLogger('leads-int-spec', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });

/** The chat service's messages, in memory: session key -> messages (oldest first). */
class FakeMessages implements SessionMessages {
  readonly sessions = new Map<string, ChatMessageView[]>();
  calls = 0;

  say(tenantId: string, sessionId: string, chatbotId: string | null, content: string): { userId: string; assistantId: string } {
    const key = `${tenantId}/${sessionId}`;
    const list = this.sessions.get(key) ?? [];
    const base = { tenant_id: tenantId, chatbot_id: chatbotId, session_id: sessionId, feedback: null, source_urls: null, channel: 'api', provider_message_id: null, created_at: new Date().toISOString() };
    const user: ChatMessageView = { ...base, id: randomUUID(), role: 'user', content };
    const assistant: ChatMessageView = { ...base, id: randomUUID(), role: 'assistant', content: 'Thanks for your message.' };
    list.push(user, assistant);
    this.sessions.set(key, list);
    return { userId: user.id, assistantId: assistant.id };
  }

  async of(tenantId: string, sessionId: string): Promise<ChatMessageView[]> {
    this.calls++;
    return this.sessions.get(`${tenantId}/${sessionId}`) ?? [];
  }
}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nc: NatsConnection;
let consumer: EventConsumer;
let repo: LeadsRepository;
const fake = new FakeMessages();
const id = randomBytes(4).toString('hex');
const stream = { name: `LEADS_T_${id}`, subjectPrefix: `leads${id}.events` };

beforeAll(async () => {
  db = await createTestDatabase('sa_leads');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('leads'), applicationName: 'leads-int', poolSize: 10 })).initialize();
  nc = await connect({ servers: NATS_URL, name: 'leads-int-spec' });
  await ensureEventStream(nc, stream);
  repo = new LeadsRepository(ds);
  const handler = new TurnCompletedHandler(repo, new Outbox('leads'), fake, { hotThreshold: 70, warmThreshold: 40 });
  consumer = new EventConsumer({
    dataSource: ds,
    schema: 'leads',
    nats: nc,
    stream,
    durable: 'leads-int',
    types: ['chat.turn.completed'],
    handler: (e, m) => handler.handle(e, m),
    logger,
    retryBaseDelayMs: 50,
  });
  await consumer.start();
});

afterAll(async () => {
  await consumer?.stop();
  const jsm = await nc?.jetstreamManager();
  await jsm?.streams.delete(stream.name).catch(() => undefined);
  await nc?.drain();
  await ds?.destroy();
  await db?.drop();
});

async function waitFor(what: string, cond: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function turnEvent(tenantId: string, sessionId: string, chatbotId: string | null, ids: { userId: string; assistantId: string }): EventEnvelope<'chat.turn.completed'> {
  return {
    id: randomUUID(),
    type: 'chat.turn.completed',
    tenant_id: tenantId,
    occurred_at: new Date().toISOString(),
    data: { session_id: sessionId, chatbot_id: chatbotId, channel: 'api', user_message_id: ids.userId, assistant_message_id: ids.assistantId, language: 'en', unanswered: false },
  };
}

/** Published as the outbox relay would; `copy` gives a second stream message of the same event (a republish). */
async function publish(event: EventEnvelope, copy = ''): Promise<void> {
  await nc.jetstream().publish(eventSubject(stream.subjectPrefix, event.type), new TextEncoder().encode(JSON.stringify(event)), { msgID: `${event.id}${copy}` });
}

async function processed(eventId: string): Promise<boolean> {
  const rows = await ds.query(`SELECT 1 FROM leads.processed_events WHERE event_id = $1`, [eventId]);
  return rows.length > 0;
}

async function leadsOf(tenantId: string): Promise<LeadView[]> {
  return repo.list({ tenantId, limit: 500 });
}

async function createdEvents(tenantId: string): Promise<EventEnvelope<'lead.created'>[]> {
  const rows: { payload: string }[] = await ds.query(`SELECT payload FROM leads.outbox WHERE tenant_id = $1 AND type = 'lead.created'`, [tenantId]);
  return rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload));
}

const LEAD_KEYS = [
  'asked_contact_at', 'captured_via', 'channel', 'chatbot_id', 'company', 'confidence', 'country', 'created_at', 'email', 'external_user_id', 'id', 'intent_category', 'intent_summary',
  'name', 'notes', 'notified_at', 'phone', 'qualification', 'region', 'score', 'score_band', 'sentiment', 'session_id', 'status', 'tenant_id', 'updated_at',
];

describe('chat.turn.completed consumer', () => {
  it('one lead per session, lead.created once even when the turn event is delivered twice and the session continues', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const first = turnEvent(tenantId, 's-1', bot, fake.say(tenantId, 's-1', bot, 'I want to buy the premium plan for my company, my email is jane@acme.io, call me at +44 20 7946 0958'));
    await publish(first);
    await publish(first, '-again');
    await waitFor('the first turn', () => processed(first.id));

    const [lead] = await leadsOf(tenantId);
    expect(Object.keys(lead).sort()).toEqual(LEAD_KEYS);
    expect(lead).toEqual(
      expect.objectContaining({
        tenant_id: tenantId,
        chatbot_id: bot,
        session_id: 's-1',
        email: 'jane@acme.io',
        phone: '+442079460958',
        company: 'Acme',
        score_band: 'hot',
        captured_via: 'conversational',
        intent_category: 'purchase',
        status: 'new',
        sentiment: 'neutral',
        channel: 'api',
        country: null,
        region: null,
        notified_at: null,
        notes: null,
      }),
    );

    const second = turnEvent(tenantId, 's-1', bot, fake.say(tenantId, 's-1', bot, 'My name is Jane Smith. We need it this month, budget is $2000'));
    await publish(second);
    await waitFor('the second turn', () => processed(second.id));
    await new Promise((r) => setTimeout(r, 200));

    const leads = await leadsOf(tenantId);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toEqual(expect.objectContaining({ id: lead.id, name: 'Jane Smith', email: 'jane@acme.io', qualification: { budget: '$2000', timeline: 'this month' }, created_at: lead.created_at }));
    expect(leads[0].updated_at > lead.updated_at).toBe(true);

    const events = await createdEvents(tenantId);
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({
      lead_id: lead.id,
      session_id: 's-1',
      chatbot_id: bot,
      score: lead.score,
      band: 'hot',
      category: 'purchase',
      summary: lead.intent_summary,
      sentiment: 'neutral',
      name: null,
      email: 'jane@acme.io',
      phone: '+442079460958',
      country: null,
      region: null,
      external_user_id: null,
      qualification: {},
      captured_via: 'conversational',
    });
    expect(Object.keys(events[0].data)).toHaveLength(16);
  });

  it('small talk makes no lead; an inferred lead appears once the signals reach warm, then turns conversational', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const hello = turnEvent(tenantId, 's-2', bot, fake.say(tenantId, 's-2', bot, 'Hello, how are you?'));
    await publish(hello);
    await waitFor('small talk', () => processed(hello.id));
    expect(await leadsOf(tenantId)).toEqual([]);

    const buying = turnEvent(tenantId, 's-2', bot, fake.say(tenantId, 's-2', bot, 'How much is the premium plan? I want to buy it and book a demo today'));
    await publish(buying);
    await waitFor('buying signals', () => processed(buying.id));
    const [inferred] = await leadsOf(tenantId);
    expect(inferred).toEqual(expect.objectContaining({ captured_via: 'inferred', email: null, phone: null }));
    expect(['warm', 'hot']).toContain(inferred.score_band);

    const contact = turnEvent(tenantId, 's-2', bot, fake.say(tenantId, 's-2', bot, 'You can reach me at sam@globex.com'));
    await publish(contact);
    await waitFor('contact details', () => processed(contact.id));
    const leads = await leadsOf(tenantId);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toEqual(expect.objectContaining({ id: inferred.id, captured_via: 'conversational', email: 'sam@globex.com', company: 'Globex' }));
    const events = await createdEvents(tenantId);
    expect(events).toHaveLength(1);
    expect(events[0].data.captured_via).toBe('inferred');
  });

  it('concurrent turns of one session still make one lead and one lead.created', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const handler = new TurnCompletedHandler(repo, new Outbox('leads'), fake, { hotThreshold: 70, warmThreshold: 40 });
    const a = turnEvent(tenantId, 's-3', bot, fake.say(tenantId, 's-3', bot, 'I want to order 20 licences, email ops@initech.com'));
    const b = turnEvent(tenantId, 's-3', bot, fake.say(tenantId, 's-3', bot, 'Phone +1 415 555 2671, urgent please'));
    await Promise.all([a, b].map((e) => ds.transaction((m) => handler.handle(e, m))));
    expect(await leadsOf(tenantId)).toHaveLength(1);
    expect(await createdEvents(tenantId)).toHaveLength(1);
  });

  it('a bot-less session gets a lead but no lead.created (its chatbot_id must be a uuid)', async () => {
    const tenantId = randomUUID();
    const e = turnEvent(tenantId, 's-4', null, fake.say(tenantId, 's-4', null, 'Please send a quote to li@wayne.example.org, we want to buy'));
    await publish(e);
    await waitFor('bot-less turn', () => processed(e.id));
    const [lead] = await leadsOf(tenantId);
    expect(lead).toEqual(expect.objectContaining({ chatbot_id: null, email: 'li@wayne.example.org', captured_via: 'conversational' }));
    expect(await createdEvents(tenantId)).toEqual([]);
  });

  it('lists newest first, per bot, and only the restricted bots', async () => {
    const tenantId = randomUUID();
    const [b1, b2] = [randomUUID(), randomUUID()];
    const handler = new TurnCompletedHandler(repo, new Outbox('leads'), fake, { hotThreshold: 70, warmThreshold: 40 });
    for (const [i, bot] of [b1, b2, b1].entries()) {
      await ds.transaction((m) => handler.handle(turnEvent(tenantId, `l-${i}`, bot, fake.say(tenantId, `l-${i}`, bot, `buy now, mail me at p${i}@corp.com`)), m));
    }
    expect((await repo.list({ tenantId, limit: 500 })).map((l) => l.session_id)).toEqual(['l-2', 'l-1', 'l-0']);
    expect((await repo.list({ tenantId, chatbotId: b1, limit: 500 })).map((l) => l.session_id)).toEqual(['l-2', 'l-0']);
    expect((await repo.list({ tenantId, botIds: [b2], limit: 500 })).map((l) => l.session_id)).toEqual(['l-1']);
    expect(await repo.list({ tenantId, limit: 2 })).toHaveLength(2);
    expect(await repo.list({ tenantId: randomUUID(), limit: 500 })).toEqual([]);
  });
});
