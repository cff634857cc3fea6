import { Client } from 'pg';
import { admin } from './support/admin';
import { client } from './support/api';
import { waitFor } from './support/apps';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { postSse } from './support/sse';

/**
 * Lead scoring needs nothing of the chat service but its chat.turn.completed events (issue #15:
 * the leads schema holds its own copy of a session's visitor messages). The chat service answers
 * the turns and is stopped before the leads service first runs; the leads service then scores the
 * session from the events alone, every turn of it.
 */
describe('leads: a session is scored from the turn events while the chat service is down', () => {
  let mini: MiniSystem;
  let db: Client;

  beforeAll(async () => {
    mini = await startMiniSystem(['gateway', 'bots', 'knowledge', 'chat'], { SHUTDOWN_GRACE_MS: '500' });
    db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await mini?.stop();
  });

  it('becomes a lead with the details of every turn, chat stopped, leads started afterwards', async () => {
    const ws = await admin<{ id: string }>(['workspace', 'create', '--name', 'Leads without chat', '--plan', 'scale', '--messages-per-month', '100'], mini.databaseUrl);
    const token = (await admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all'], mini.databaseUrl)).token;
    const api = client(token, mini.baseUrl);
    const bot = (await api.post('/bots', { name: 'Sales helper', language: 'en' })).body.data.id;

    const say = async (message: string) => {
      const res = await postSse('/chat', { message, sessionId: 'no-chat-needed', chatbotId: bot }, token, { baseUrl: mini.baseUrl });
      expect(res.status).toBe(200);
      expect(res.finishReason).toBe('stop');
    };
    // Contact details in the first turn, buying intent in the second: the lead needs both.
    await say('Hi, I am Jane from Acme. My email is jane@acme.io');
    await say('We want to buy the premium plan for 20 people this month');
    await say('Thanks, that is all for now');

    // Every turn event is on the stream, then the chat service is gone.
    await waitFor(
      async () => (await db.query(`SELECT count(*)::int AS n, count(published_at)::int AS published FROM chat.outbox WHERE tenant_id = $1 AND type = 'chat.turn.completed'`, [ws.id])).rows[0],
      (r) => r.n === 3 && r.published === 3,
      15000,
    );
    await mini.apps.get('chat')!.kill('SIGTERM');

    mini.start('leads');
    const lead = await waitFor(
      async () => ((await api.get('/leads')).body.data ?? []).find((l: { session_id: string }) => l.session_id === 'no-chat-needed'),
      (l) => Boolean(l) && l.intent_category === 'purchase',
      30000,
    );
    expect(lead).toEqual(expect.objectContaining({ chatbot_id: bot, email: 'jane@acme.io', captured_via: 'conversational', channel: 'api' }));
    expect(['warm', 'hot']).toContain(lead.score_band);
    // The lead exists once the second turn is scored; the third turn's copy may still be on its way.
    const copied = await waitFor(
      () => db.query(`SELECT content FROM leads.visitor_messages WHERE tenant_id = $1 ORDER BY created_at`, [ws.id]),
      (r) => r.rows.length >= 3,
      15000,
    );
    expect(copied.rows.map((r) => r.content)).toEqual([
      'Hi, I am Jane from Acme. My email is jane@acme.io',
      'We want to buy the premium plan for 20 people this month',
      'Thanks, that is all for now',
    ]);
  });
});
