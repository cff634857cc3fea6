import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { NatsConnection, connect } from 'nats';
import { DataSource } from 'typeorm';
import { EventEnvelope, LeadView, eventSubject } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { EventConsumer, Outbox, ensureEventStream } from '@sa/events';
import { createLogger } from '@sa/logging';
// Test-only dependency.
import { chatTurnCompleted, createTestDatabase } from '@sa/testing';
import { scoreSession } from '../scoring/lead-scorer';
import { LeadsRepository } from './leads.repository';
import { SCORED_MESSAGES_MAX, TurnCompletedHandler } from './turn-completed.handler';
import { VisitorMessagesRepository } from './visitor-messages.repository';

// The chat.turn.completed consumer and leads.leads against the real PostgreSQL and NATS JetStream
// (a private stream): one lead per session, updated as the session goes on, lead.created written
// to the outbox once, also when a turn event is delivered twice.

const NATS_URL = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const logger = createLogger('leads-int-spec', { level: process.env['TEST_LOG_LEVEL'] ?? 'silent', pretty: false });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let nc: NatsConnection;
let consumer: EventConsumer;
let repo: LeadsRepository;
/** Every NATS message on chat.> while the tests run: the consumer must ask the chat service nothing. */
const toChat: string[] = [];
const newHandler = (warnings: object[] = []) =>
  new TurnCompletedHandler(repo, new Outbox('leads'), new VisitorMessagesRepository(), { hotThreshold: 70, warmThreshold: 40 }, { warn: (obj: object) => warnings.push(obj) });
const id = randomBytes(4).toString('hex');
const stream = { name: `LEADS_T_${id}`, subjectPrefix: `leads${id}.events` };

beforeAll(async () => {
  db = await createTestDatabase('sa_leads');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('leads'), applicationName: 'leads-int', poolSize: 10 })).initialize();
  nc = await connect({ servers: NATS_URL, name: 'leads-int-spec' });
  await ensureEventStream(nc, stream);
  nc.subscribe('chat.>', { callback: (_err, msg) => toChat.push(msg.subject) });
  repo = new LeadsRepository(ds);
  const handler = newHandler();
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
  expect(toChat).toEqual([]);
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
    const first = chatTurnCompleted(tenantId, 's-1', 'I want to buy the premium plan for my company, my email is jane@acme.io, call me at +44 20 7946 0958', { chatbotId: bot });
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

    const second = chatTurnCompleted(tenantId, 's-1', 'My name is Jane Smith. We need it this month, budget is $2000', { chatbotId: bot });
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
    const hello = chatTurnCompleted(tenantId, 's-2', 'Hello, how are you?', { chatbotId: bot });
    await publish(hello);
    await waitFor('small talk', () => processed(hello.id));
    expect(await leadsOf(tenantId)).toEqual([]);

    const buying = chatTurnCompleted(tenantId, 's-2', 'How much is the premium plan? I want to buy it and book a demo today', { chatbotId: bot });
    await publish(buying);
    await waitFor('buying signals', () => processed(buying.id));
    const [inferred] = await leadsOf(tenantId);
    expect(inferred).toEqual(expect.objectContaining({ captured_via: 'inferred', email: null, phone: null }));
    expect(['warm', 'hot']).toContain(inferred.score_band);

    const contact = chatTurnCompleted(tenantId, 's-2', 'You can reach me at sam@globex.com', { chatbotId: bot });
    await publish(contact);
    await waitFor('contact details', () => processed(contact.id));
    const leads = await leadsOf(tenantId);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toEqual(expect.objectContaining({ id: inferred.id, captured_via: 'conversational', email: 'sam@globex.com', company: 'Globex' }));
    const events = await createdEvents(tenantId);
    expect(events).toHaveLength(1);
    expect(events[0].data.captured_via).toBe('inferred');
  });

  it('concurrent turns of one session still make one lead and one lead.created, scored from both messages', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const handler = newHandler();
    const now = Date.now();
    const a = chatTurnCompleted(tenantId, 's-3', 'I want to order 20 licences, email ops@initech.com', { chatbotId: bot, at: new Date(now - 1000) });
    const b = chatTurnCompleted(tenantId, 's-3', 'Phone +1 415 555 2671, urgent please', { chatbotId: bot, at: new Date(now) });
    // The later message first: without the session lock, the earlier one's transaction would not
    // see it and would write its score last.
    await Promise.all([b, a].map((e) => ds.transaction((m) => handler.handle(e, m))));
    expect(await leadsOf(tenantId)).toHaveLength(1);
    expect(await createdEvents(tenantId)).toHaveLength(1);
    // Whichever transaction ran second waited for the first (the session lock) and scored both messages.
    expect(await ds.query(`SELECT scored_message_id FROM leads.leads WHERE tenant_id = $1`, [tenantId])).toEqual([{ scored_message_id: b.data.user_message_id }]);
  });

  it('a bot-less session gets a lead but no lead.created (its chatbot_id must be a uuid)', async () => {
    const tenantId = randomUUID();
    const e = chatTurnCompleted(tenantId, 's-4', 'Please send a quote to li@wayne.example.org, we want to buy', { chatbotId: null });
    await publish(e);
    await waitFor('bot-less turn', () => processed(e.id));
    const [lead] = await leadsOf(tenantId);
    expect(lead).toEqual(expect.objectContaining({ chatbot_id: null, email: 'li@wayne.example.org', captured_via: 'conversational' }));
    expect(await createdEvents(tenantId)).toEqual([]);
  });

  it('lists newest first, per bot, and only the restricted bots', async () => {
    const tenantId = randomUUID();
    const [b1, b2] = [randomUUID(), randomUUID()];
    const handler = newHandler();
    for (const [i, bot] of [b1, b2, b1].entries()) {
      await ds.transaction((m) => handler.handle(chatTurnCompleted(tenantId, `l-${i}`, `buy now, mail me at p${i}@corp.com`, { chatbotId: bot }), m));
    }
    expect((await repo.list({ tenantId, limit: 500 })).map((l) => l.session_id)).toEqual(['l-2', 'l-1', 'l-0']);
    expect((await repo.list({ tenantId, chatbotId: b1, limit: 500 })).map((l) => l.session_id)).toEqual(['l-2', 'l-0']);
    expect((await repo.list({ tenantId, botIds: [b2], limit: 500 })).map((l) => l.session_id)).toEqual(['l-1']);
    expect(await repo.list({ tenantId, limit: 2 })).toHaveLength(2);
    expect(await repo.list({ tenantId: randomUUID(), limit: 500 })).toEqual([]);
  });

  it('pages with the cursor the console builds from a lead (its created_at and id), also through leads created within one millisecond', async () => {
    const tenantId = randomUUID();
    const handler = newHandler();
    for (let i = 0; i < 4; i++) await ds.transaction((m) => handler.handle(chatTurnCompleted(tenantId, `p-${i}`, `buy now, mail me at p${i}@corp.com`), m));
    const subMillisecond = async (t: string) =>
      (await ds.query(`SELECT count(*)::int AS n FROM leads.leads WHERE tenant_id = $1 AND date_trunc('milliseconds', created_at) <> created_at`, [t]))[0].n;
    expect(await subMillisecond(tenantId)).toBe(0);
    // Three leads within one millisecond (a batch of turns handled in one go does that), one before.
    const at = ['2026-11-24T10:00:00.123700Z', '2026-11-24T10:00:00.123400Z', '2026-11-24T10:00:00.123100Z', '2026-11-24T10:00:00.100000Z'];
    for (const [i, t] of at.entries()) await ds.query(`UPDATE leads.leads SET created_at = $3 WHERE tenant_id = $1 AND session_id = $2`, [tenantId, `p-${i}`, t]);
    const all = await repo.list({ tenantId, limit: 500 });
    expect(all).toHaveLength(4);
    const paged: string[] = [];
    let before: { createdAt: string; id: string } | undefined;
    for (let page = 0; page < 6; page++) {
      const [lead] = await repo.list({ tenantId, limit: 1, before });
      if (!lead) break;
      paged.push(lead.session_id);
      before = { createdAt: lead.created_at, id: lead.id };
    }
    expect(paged).toEqual(all.map((l) => l.session_id));
    expect(new Set(paged).size).toBe(4);
    // What the API shows (and a cursor carries) is what is stored: whole milliseconds.
    expect(await subMillisecond(tenantId)).toBe(0);
  });

  it('scores the whole session from the messages the events carried, whatever order they arrive in', async () => {
    const tenantId = randomUUID();
    const bot = randomUUID();
    const t0 = Date.now() - 60_000;
    const buying = chatTurnCompleted(tenantId, 's-5', 'How much is the premium plan? I want to buy it and book a demo today', { chatbotId: bot, at: new Date(t0) });
    const thanks = chatTurnCompleted(tenantId, 's-5', 'ok thanks', { chatbotId: bot, at: new Date(t0 + 1000) });
    // The later turn is scored first: the session then holds only its message, which makes no lead.
    await publish(thanks);
    await waitFor('the later turn', () => processed(thanks.id));
    expect(await leadsOf(tenantId)).toEqual([]);
    await publish(buying);
    await waitFor('the earlier turn', () => processed(buying.id));
    const [lead] = await leadsOf(tenantId);
    expect(lead).toEqual(expect.objectContaining({ captured_via: 'inferred', intent_category: expect.stringMatching(/purchase|pricing|booking/) }));
    expect(['warm', 'hot']).toContain(lead.score_band);

    // A small-talk turn after the buying one (cold on its own) keeps the lead warm: the session is scored, not the turn.
    expect(scoreSession(['bye'], { hot: 70, warm: 40 }).band).toBe('cold');
    const bye = chatTurnCompleted(tenantId, 's-5', 'bye', { chatbotId: bot, at: new Date(t0 + 2000) });
    await publish(bye);
    await waitFor('the last turn', () => processed(bye.id));
    const [after] = await leadsOf(tenantId);
    expect(after.score).toBeGreaterThanOrEqual(lead.score);
    const rows = await ds.query(`SELECT content, scored_message_id FROM leads.visitor_messages v JOIN leads.leads l USING (tenant_id, session_id) WHERE v.tenant_id = $1 ORDER BY v.created_at`, [tenantId]);
    expect(rows.map((r: { content: string }) => r.content)).toEqual(['How much is the premium plan? I want to buy it and book a demo today', 'ok thanks', 'bye']);
    expect(rows[0].scored_message_id).toBe(bye.data.user_message_id);
  });

  it('a turn handled twice (a redelivery past the processed mark) stores its message once and scores the same', async () => {
    const tenantId = randomUUID();
    const handler = newHandler();
    const turn = chatTurnCompleted(tenantId, 's-6', 'We want to buy 50 seats this week, write to cto@hooli.com', { chatbotId: randomUUID() });
    await ds.transaction((m) => handler.handle(turn, m));
    const [first] = await leadsOf(tenantId);
    await ds.transaction((m) => handler.handle({ ...turn, id: randomUUID() }, m));
    const [again] = await leadsOf(tenantId);
    expect(again).toEqual({ ...first, updated_at: again.updated_at });
    expect(await ds.query(`SELECT count(*)::int AS n FROM leads.visitor_messages WHERE tenant_id = $1`, [tenantId])).toEqual([{ n: 1 }]);
    expect(await createdEvents(tenantId)).toHaveLength(1);
  });

  it('keeps only the newest messages a session is scored from, per workspace', async () => {
    const [tenantId, other] = [randomUUID(), randomUUID()];
    const handler = newHandler();
    const t0 = Date.now() - 3_600_000;
    for (let i = 0; i < SCORED_MESSAGES_MAX + 5; i++) {
      await ds.transaction((m) => handler.handle(chatTurnCompleted(tenantId, 's-7', `message ${i}`, { at: new Date(t0 + i * 1000) }), m));
    }
    await ds.transaction((m) => handler.handle(chatTurnCompleted(other, 's-7', 'another workspace, same session id'), m));
    const kept = await ds.transaction((m) => new VisitorMessagesRepository().latest(m, tenantId, 's-7', 1000));
    expect(kept.map((k) => k.content)).toEqual(Array.from({ length: SCORED_MESSAGES_MAX }, (_, i) => `message ${i + 5}`));
    const theirs = await ds.transaction((m) => new VisitorMessagesRepository().latest(m, other, 's-7', 1000));
    expect(theirs.map((k) => k.content)).toEqual(['another workspace, same session id']);
  });

  it('an event without the visitor message (from a chat service older than the field) is skipped with a warning', async () => {
    const tenantId = randomUUID();
    const warnings: object[] = [];
    const handler = newHandler(warnings);
    const turn = chatTurnCompleted(tenantId, 's-8', 'I want to buy, mail me at old@chat.io', { chatbotId: randomUUID() });
    const { user_message: _text, user_message_at: _at, ...older } = turn.data;
    await ds.transaction((m) => handler.handle({ ...turn, data: older } as unknown as EventEnvelope<'chat.turn.completed'>, m));
    expect(await leadsOf(tenantId)).toEqual([]);
    // The session id is a bearer secret of the visitor: the warning names the event only (issue 30).
    expect(warnings).toEqual([{ event_id: turn.id }]);
  });
});
