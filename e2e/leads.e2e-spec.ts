import { randomUUID } from 'node:crypto';
import { UUID } from './support/api';
import { waitFor } from './support/apps';
import { newToken, newWorkspace, TestWorkspace } from './support/fixtures';
import { postSse } from './support/sse';
import { EventProbe, startEventProbe } from './support/event-probe';

const LEAD_KEYS = [
  'asked_contact_at', 'captured_via', 'channel', 'chatbot_id', 'company', 'confidence', 'country', 'created_at', 'email', 'external_user_id', 'id', 'intent_category', 'intent_summary',
  'name', 'notes', 'notified_at', 'phone', 'qualification', 'region', 'score', 'score_band', 'sentiment', 'session_id', 'status', 'tenant_id', 'updated_at',
];
const BUYER = 'I want to buy the premium plan for my company, my email is jane@acme.io, call me at +44 20 7946 0958';

/** Chat turns are scored by the leads service (chat.turn.completed); GET /v1/leads; lead.created once (spec parts 2, 4, 6). */
describe('leads: scored from chat, GET /leads, lead.created', () => {
  let probe: EventProbe;
  let ws: TestWorkspace;
  let bot: string;

  beforeAll(async () => {
    probe = await startEventProbe('leads', ['lead.created']);
    ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    bot = (await ws.api.post('/bots', { name: 'Sales helper', language: 'en' })).body.data.id;
  });

  afterAll(async () => {
    await probe?.stop();
  });

  const chat = async (w: TestWorkspace, sessionId: string, message: string, chatbotId?: string) => {
    const res = await postSse('/chat', { message, sessionId, ...(chatbotId ? { chatbotId } : {}) }, w.token);
    expect(res.status).toBe(200);
  };
  const leadsOf = async (w: TestWorkspace, query = ''): Promise<any[]> => {
    const res = await w.api.get(`/leads${query}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const waitForLead = (w: TestWorkspace, sessionId: string, ok: (l: any) => boolean = () => true) =>
    waitFor(async () => (await leadsOf(w)).find((l) => l.session_id === sessionId), (l) => Boolean(l) && ok(l), 20000);
  const createdFor = (tenantId: string, sessionId: string) => probe.seen.filter((e) => e.tenant_id === tenantId && e.type === 'lead.created' && (e.data as any).session_id === sessionId) as any[];

  it('a visitor leaving contact details with buying intent becomes a hot conversational lead with every field', async () => {
    await chat(ws, 'lead-small-talk', 'Hello! How are you?', bot);
    await chat(ws, 'lead-buyer', BUYER, bot);
    const lead = await waitForLead(ws, 'lead-buyer');
    expect(Object.keys(lead).sort()).toEqual(LEAD_KEYS);
    expect(lead).toEqual({
      id: expect.stringMatching(UUID),
      tenant_id: ws.id,
      chatbot_id: bot,
      session_id: 'lead-buyer',
      name: null,
      email: 'jane@acme.io',
      phone: '+442079460958',
      external_user_id: null,
      company: 'Acme',
      intent_category: 'purchase',
      intent_summary: expect.stringContaining('Purchase intent'),
      score: expect.any(Number),
      score_band: 'hot',
      sentiment: 'neutral',
      qualification: null,
      status: 'new',
      captured_via: 'conversational',
      confidence: expect.any(Number),
      notified_at: null,
      asked_contact_at: null,
      notes: null,
      country: null,
      region: null,
      channel: 'api',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Number.isInteger(lead.score) && lead.score >= 70 && lead.score <= 100).toBe(true);
    expect(lead.confidence).toBeGreaterThan(0);
    expect(lead.confidence).toBeLessThanOrEqual(1);
    expect(new Date(lead.created_at).toISOString()).toBe(lead.created_at);

    // The small-talk session (chatted first) was scored too, and is no lead.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await leadsOf(ws)).map((l) => l.session_id)).not.toContain('lead-small-talk');
  });

  it('lead.created is delivered once with exactly the part 6 payload, also when the session continues', async () => {
    const [event] = await waitFor(async () => createdFor(ws.id, 'lead-buyer'), (e) => e.length >= 1, 20000);
    const lead = (await leadsOf(ws)).find((l) => l.session_id === 'lead-buyer');
    expect(event.data).toEqual({
      lead_id: lead.id,
      session_id: 'lead-buyer',
      chatbot_id: bot,
      score: expect.any(Number),
      band: 'hot',
      category: 'purchase',
      summary: expect.any(String),
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

    await chat(ws, 'lead-buyer', 'My name is Jane Smith, our budget is $5000 and we need it this month', bot);
    const updated = await waitForLead(ws, 'lead-buyer', (l) => l.name === 'Jane Smith');
    expect(updated).toEqual(expect.objectContaining({ id: lead.id, created_at: lead.created_at, qualification: { budget: '$5000', timeline: 'this month' } }));
    expect(updated.updated_at > lead.updated_at).toBe(true);
    expect((await leadsOf(ws)).filter((l) => l.session_id === 'lead-buyer')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(createdFor(ws.id, 'lead-buyer')).toHaveLength(1);
  });

  it('restricted tokens must name an allowed bot (403); a chatbotId must be a bot of the workspace (404); leads:read is required', async () => {
    const other = (await ws.api.post('/bots', { name: 'Other helper' })).body.data.id;
    const restricted = await newToken(ws.id, ['--scopes', 'leads:read', '--bots', bot]);
    expect((await restricted.api.get('/leads')).status).toBe(403);
    expect((await restricted.api.get(`/leads?chatbotId=${other}`)).status).toBe(403);
    const allowed = await restricted.api.get(`/leads?chatbotId=${bot}`);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.map((l: any) => l.session_id)).toContain('lead-buyer');
    expect((await ws.api.get(`/leads?chatbotId=${other}`)).body.data).toEqual([]);
    expect((await ws.api.get(`/leads?chatbotId=${randomUUID()}`)).status).toBe(404);
    expect((await ws.api.get('/leads?chatbotId=not-a-uuid')).status).toBe(400);
    const noScope = await newToken(ws.id, ['--scopes', 'bots:read']);
    expect((await noScope.api.get('/leads')).status).toBe(403);
  });

  it('two workspaces are isolated, even with the same session id', async () => {
    const ws2 = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    const bot2 = (await ws2.api.post('/bots', { name: 'Second helper' })).body.data.id;
    expect((await ws2.api.get(`/leads?chatbotId=${bot}`)).status).toBe(404);
    await chat(ws2, 'lead-buyer', 'How much is the plan? I want to buy it today, email sam@globex.com', bot2);
    const lead2 = await waitForLead(ws2, 'lead-buyer');
    expect(lead2).toEqual(expect.objectContaining({ tenant_id: ws2.id, chatbot_id: bot2, email: 'sam@globex.com', captured_via: 'conversational' }));
    const mine = await leadsOf(ws);
    expect(mine.every((l) => l.tenant_id === ws.id)).toBe(true);
    expect(mine.find((l) => l.session_id === 'lead-buyer').email).toBe('jane@acme.io');
    expect((await leadsOf(ws2)).every((l) => l.tenant_id === ws2.id)).toBe(true);
  });

  it('newest first, and an inferred lead when there are only strong signals', async () => {
    await chat(ws, 'lead-inferred', 'How much does the premium plan cost? I want to buy it and book a demo today', bot);
    const lead = await waitForLead(ws, 'lead-inferred');
    expect(lead).toEqual(expect.objectContaining({ captured_via: 'inferred', email: null, phone: null }));
    expect(['warm', 'hot']).toContain(lead.score_band);
    const all = await leadsOf(ws);
    expect(all[0].session_id).toBe('lead-inferred');
    const times = all.map((l) => l.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});
