import { waitFor } from './support/apps';
import { newWorkspace } from './support/fixtures';
import { postSse } from './support/sse';
import { EventProbe, startEventProbe } from './support/event-probe';

/** Chat turns emit their events through the chat service's outbox to JetStream, once each. */
describe('chat events: chat.turn.completed, message.unanswered, conversation.handoff', () => {
  let probe: EventProbe;

  beforeAll(async () => {
    probe = await startEventProbe('chat_events', ['chat.turn.completed', 'message.unanswered', 'conversation.handoff']);
  });

  afterAll(async () => {
    await probe?.stop();
  });

  const eventsOf = (tenantId: string, type: string) => probe.seen.filter((e) => e.tenant_id === tenantId && e.type === type) as any[];

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
    // What lead scoring needs travels with the event: the visitor's message as stored, and when.
    expect(completed.data).toEqual(expect.objectContaining({ user_message_id: unanswered.data.user_message_id, user_message: 'Which moons of Jupiter have oceans?' }));
    expect(new Date(completed.data.user_message_at).toISOString()).toBe(completed.data.user_message_at);
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
