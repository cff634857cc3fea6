import { randomBytes } from 'node:crypto';
import { connect, NatsConnection } from 'nats';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { EventEnvelope } from '@sa/contracts';
import { EventConsumer, outboxTablesSql } from '@sa/events';
import { waitFor } from './support/apps';
import { newWorkspace } from './support/fixtures';
import { postSse } from './support/sse';
import { e2eState } from './support/state';

/** Chat turns emit their events through the chat service's outbox to JetStream, once each. */
describe('chat events: chat.turn.completed, message.unanswered, conversation.handoff', () => {
  const s = e2eState();
  const schema = `e2e_chat_events_${randomBytes(3).toString('hex')}`;
  let ds: DataSource;
  let nc: NatsConnection;
  let consumer: EventConsumer;
  const seen: EventEnvelope[] = [];

  beforeAll(async () => {
    ds = await new DataSource({ type: 'postgres', url: s.databaseUrl, applicationName: 'e2e-chat-events' }).initialize();
    for (const sql of outboxTablesSql(schema).up) await ds.query(sql);
    nc = await connect({ servers: s.natsUrl });
    consumer = new EventConsumer({
      dataSource: ds,
      schema,
      nats: nc,
      stream: { name: 'SA_EVENTS', subjectPrefix: 'events' },
      durable: `e2e-${schema}`,
      types: ['chat.turn.completed', 'message.unanswered', 'conversation.handoff'],
      handler: async (event) => {
        seen.push(event);
      },
      logger: pino({ level: 'warn' }),
    });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await nc?.drain();
    await ds?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await ds?.destroy();
  });

  const eventsOf = (tenantId: string, type: string) => seen.filter((e) => e.tenant_id === tenantId && e.type === type) as any[];

  it('an unanswerable question emits message.unanswered and chat.turn.completed', async () => {
    const ws = await newWorkspace();
    const res = await postSse('/chat', { message: 'Which moons of Jupiter have oceans?', sessionId: 'ev-unanswered' }, ws.token);
    expect(res.status).toBe(200);
    const [unanswered] = await waitFor(async () => eventsOf(ws.id, 'message.unanswered'), (e) => e.length >= 1);
    expect(unanswered.data).toEqual({
      message_id: expect.any(String),
      user_message_id: expect.any(String),
      session_id: 'ev-unanswered',
      chatbot_id: null,
      channel: 'api',
      question: 'Which moons of Jupiter have oceans?',
      language: expect.any(String),
    });
    const [completed] = await waitFor(async () => eventsOf(ws.id, 'chat.turn.completed'), (e) => e.length >= 1);
    expect(completed.data).toEqual(expect.objectContaining({ session_id: 'ev-unanswered', unanswered: true, assistant_message_id: unanswered.data.message_id }));
    await new Promise((r) => setTimeout(r, 500));
    expect(eventsOf(ws.id, 'message.unanswered')).toHaveLength(1);
  });

  it.each([
    ['en', 'I want to talk to a human please'],
    ['ja', '担当者と話したいです'],
    ['th', 'ขอคุยกับพนักงานหน่อยครับ'],
  ])('asking for a person (%s) emits conversation.handoff (explicit) and an acknowledgement', async (_lang, message) => {
    const ws = await newWorkspace();
    const res = await postSse('/chat', { message, sessionId: 'ev-handoff' }, ws.token);
    expect(res.status).toBe(200);
    expect(res.text.length).toBeGreaterThan(0);
    const [handoff] = await waitFor(async () => eventsOf(ws.id, 'conversation.handoff'), (e) => e.length >= 1);
    expect(handoff.data).toEqual(expect.objectContaining({ session_id: 'ev-handoff', kind: 'explicit', channel: 'api', question: message }));
  });
});
