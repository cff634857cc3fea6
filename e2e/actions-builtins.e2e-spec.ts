import { request } from './support/api';
import { waitFor } from './support/apps';
import { ConsoleSystem, PeopleOfWorkspace, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { ModelStandIn, questionOf, startModelStandIn, toolResultsOf, toolsOf } from './support/model-stand-in';
import { SseResult, postSse } from './support/sse';
import { newWidgetSession, widgetUrl } from './support/widget';

/**
 * The built-in actions (issue 34, item 2) in a widget conversation, against a system of its own
 * (every app but mcp). The bot answers through an OpenAI-compatible model connection pointed at
 * the local stand-in, which calls the built-in tools as a model would. Shown (the "Done
 * when"): the booking built-in, switched on in the console, waits for the visitor's confirmation
 * (an `action` frame `awaiting_confirmation`), and once confirmed creates a pending booking read
 * back through GET /v1/bookings, and the workspace's webhook receives `booking.created`; a
 * cancelled request books nothing; the handoff built-in needs no confirmation and gives a
 * `conversation.handoff` webhook of kind `detected`. Built-ins switched off are not offered.
 */
const PASSWORD = 'correct horse battery staple';
const MODEL_KEY = 'sk-e2e-builtins-4f1a9c3d7b2e';
const HOOK_PATH = '/builtin-hooks';
const BOOKING = { name: 'Ann Lee', email: 'ann.lee@example.com', phone: '+49 30 1234567', requestedSlot: '2027-03-01T10:00:00+01:00', timeZone: 'Europe/Berlin', notes: 'Yearly check-up' };

/**
 * The stand-in model: a request that carries a tool result answers from it; a visitor who wants
 * to book asks for request_booking; one who is stuck asks for a person; anything else is text.
 */
function modelAnswer(body: any) {
  const results = toolResultsOf(body);
  if (results.length > 0) {
    const last = results.at(-1)!.content;
    if (/"error":"cancelled"/.test(last)) return { pieces: ['Alright, I did not book it.'] };
    return { pieces: [/"ok":true/.test(last) ? 'Done: ' : 'That did not work: ', /booking_id/.test(last) ? 'your booking request is in.' : 'a colleague will reply here.'] };
  }
  const q = questionOf(body);
  if (/\bbook\b/i.test(q)) return { pieces: [], toolCalls: [{ name: 'request_booking', input: BOOKING }] };
  if (/\bstuck\b/i.test(q)) return { pieces: [], toolCalls: [{ name: 'handoff_to_person', input: {} }] };
  return { pieces: ['Hello, how can I help?'] };
}

/** The `action` members of a stream's frames. */
const actionsOf = (r: SseResult) => r.frames.filter((f) => f.action).map((f) => f.action as { call_id: string; name: string; label: string; state: string; input?: Record<string, unknown> });

describe('actions: the built-in actions in a widget conversation (issue 34, item 2)', () => {
  let sys: ConsoleSystem;
  let model: ModelStandIn;
  let a: PeopleOfWorkspace;
  let bot: string;
  const api = (method: string, path: string, body?: unknown) => request(method, path, body, { token: a.token, baseUrl: sys.apiUrl });
  const widgetChat = (body: Record<string, unknown>) => postSse('', body, 'unused', { baseUrl: widgetUrl(bot, 'chat', sys.gatewayUrl) });
  const hooks = (event: string) => sys.receiver.on(HOOK_PATH).filter((r) => r.body?.event === event);

  beforeAll(async () => {
    model = await startModelStandIn(modelAnswer, { apiKey: MODEL_KEY, models: ['stand-in-chat'] });
    sys = await startConsoleSystem({ MODEL_CONNECTION_MAX_RETRIES: '0' }, { allowPorts: [Number(new URL(model.baseUrl).port)] });
    a = await workspaceWithPeople(sys, 'Clinic Builtins', { owner: 'olga.owner@builtins.example', member: 'mia.member@builtins.example', password: PASSWORD });
    const ws = `/api/workspaces/${a.ws.id}`;
    const created = await waitFor(() => a.owner.post(`${ws}/bots`, { name: 'Clinic desk', language: 'en' }), (r) => r.status === 201, 20000, 250);
    bot = created.body.data.id;
    const connection = await a.owner.post(`${ws}/models`, { name: 'Stand-in', kind: 'openai', base_url: model.baseUrl, model: 'stand-in-chat', api_key: MODEL_KEY });
    expect(connection.status).toBe(201);
    expect((await a.owner.patch(`${ws}/bots/${bot}/behaviour`, { model_connection_id: connection.body.data.id })).status).toBe(200);
    // The owner switches on the booking and handoff built-ins (the lead one stays off).
    const settings = await a.owner.patch(`${ws}/bots/${bot}/action-settings`, { builtins: { booking: true, handoff: true } });
    expect(settings.status).toBe(200);
    expect(settings.body.data.builtins).toEqual({ booking: true, lead: false, handoff: true });
    const hook = await waitFor(
      () => a.owner.post(`${ws}/webhooks`, { name: 'Built-ins', url: sys.receiver.url(HOOK_PATH), events: ['booking.created', 'conversation.handoff'] }),
      (r) => r.status === 201,
      20000,
      250,
    );
    expect(hook.status).toBe(201);
  }, 180000);

  afterAll(async () => {
    await sys?.stop();
    await model?.close();
  });

  it('request_booking waits for the visitor, then creates a pending booking (GET /v1/bookings) and booking.created reaches the webhook', async () => {
    const sessionId = await newWidgetSession(bot, sys.gatewayUrl);
    const before = model.requests.length;
    const asked = await widgetChat({ message: 'I would like to book a check-up on 1 March 2027 at 10:00. I am Ann Lee, ann.lee@example.com, +49 30 1234567.', sessionId });
    expect(asked.status).toBe(200);
    expect(asked.finishReason).toBe('stop');
    // Every frame still carries choices[0].delta.content as a string.
    expect(asked.frames.every((f) => typeof f.choices[0].delta.content === 'string')).toBe(true);

    // The model was offered the built-ins switched on, and only those.
    const offered = toolsOf(model.requests.slice(before).find((r) => r.path === '/v1/chat/completions')!.body).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['request_booking', 'handoff_to_person']));
    expect(offered).not.toContain('capture_contact');

    const waiting = actionsOf(asked).filter((f) => f.state === 'awaiting_confirmation');
    expect(waiting).toEqual([expect.objectContaining({ name: 'request_booking', input: expect.objectContaining({ name: 'Ann Lee', email: 'ann.lee@example.com', requestedSlot: BOOKING.requestedSlot }) })]);
    expect(actionsOf(asked).map((f) => f.state)).not.toContain('done');
    // Nothing is booked before the visitor confirms.
    expect((await api('GET', `/bookings?chatbotId=${bot}`)).body.data).toEqual([]);

    const confirmed = await widgetChat({ message: 'Yes, please', sessionId, action_confirmation: { call_id: waiting[0]!.call_id, confirm: true } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.finishReason).toBe('stop');
    expect(actionsOf(confirmed)).toEqual(expect.arrayContaining([expect.objectContaining({ call_id: waiting[0]!.call_id, name: 'request_booking', state: 'done' })]));
    expect(confirmed.text).toBe('Done: your booking request is in.');

    const listed = await api('GET', `/bookings?chatbotId=${bot}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        chatbot_id: bot,
        status: 'pending',
        name: 'Ann Lee',
        email: 'ann.lee@example.com',
        phone: '+49 30 1234567',
        requested_slot: '2027-03-01T09:00:00.000Z',
        time_zone: 'Europe/Berlin',
        notes: 'Yearly check-up',
      }),
    ]);
    const bookingId = listed.body.data[0].id;
    const delivered = await waitFor(async () => hooks('booking.created').find((r) => r.body.data.booking_id === bookingId), Boolean, 30000, 200);
    expect(delivered!.body.data).toMatchObject({ chatbot_id: bot, session_id: sessionId, status: 'pending', email: 'ann.lee@example.com', requested_slot: '2027-03-01T09:00:00.000Z' });
  });

  it('a booking the visitor cancels is not made', async () => {
    const sessionId = await newWidgetSession(bot, sys.gatewayUrl);
    const asked = await widgetChat({ message: 'Can I book the same slot for my brother?', sessionId });
    const [waiting] = actionsOf(asked).filter((f) => f.state === 'awaiting_confirmation');
    expect(waiting).toMatchObject({ name: 'request_booking' });
    const count = (await api('GET', `/bookings?chatbotId=${bot}`)).body.data.length;
    const cancelled = await widgetChat({ message: 'No, cancel that', sessionId, action_confirmation: { call_id: waiting!.call_id, confirm: false } });
    expect(cancelled.status).toBe(200);
    expect(actionsOf(cancelled).map((f) => f.state)).toContain('cancelled');
    expect(actionsOf(cancelled).map((f) => f.state)).not.toContain('done');
    expect(cancelled.text).toBe('Alright, I did not book it.');
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api('GET', `/bookings?chatbotId=${bot}`)).body.data).toHaveLength(count);
  });

  it('handoff_to_person runs without confirmation and gives a conversation.handoff webhook of kind detected', async () => {
    const sessionId = await newWidgetSession(bot, sys.gatewayUrl);
    const res = await widgetChat({ message: 'I am stuck with my invoice and nothing here helps.', sessionId });
    expect(res.status).toBe(200);
    expect(res.finishReason).toBe('stop');
    const states = actionsOf(res).filter((f) => f.name === 'handoff_to_person').map((f) => f.state);
    expect(states).not.toContain('awaiting_confirmation');
    expect(states).toContain('done');
    expect(res.text).toBe('Done: a colleague will reply here.');
    const hook = await waitFor(async () => hooks('conversation.handoff').find((r) => r.body.data.session_id === sessionId), Boolean, 30000, 200);
    expect(hook!.body.data).toMatchObject({ chatbot_id: bot, channel: 'widget', kind: 'detected' });
    // The console's handoff queue has it too.
    const queue = await a.owner.get(`/api/workspaces/${a.ws.id}/handoffs`);
    expect(queue.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ session_id: sessionId, kind: 'detected', state: 'requested' })]));
  });
});
