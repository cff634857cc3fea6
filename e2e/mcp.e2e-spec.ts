import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client } from 'pg';
import { admin } from './support/admin';
import { request } from './support/api';
import { freePort } from './support/infra';
import { spawnApp, SpawnedApp, waitFor } from './support/apps';
import { newToken, newWorkspace, TestWorkspace } from './support/fixtures';
import { errorOf, INITIALIZE, mcpConnect, mcpPost, McpSession, textOf } from './support/mcp';
import { e2eState } from './support/state';
import { startTestSite, TestSite } from './support/test-site';

/**
 * The MCP server (spec parts 1, 4, 5) through the SDK's own Client and StreamableHTTPClientTransport
 * against the running system: auth as REST, tools per scope, every tool against its REST twin,
 * bot restrictions, lapsed workspaces, 409s, workspaces that cannot see each other, replicas.
 */
const ALL_TOOLS = [
  'add_knowledge',
  'ask_bot',
  'get_analytics',
  'get_booking',
  'get_conversation',
  'list_bookings',
  'list_bots',
  'list_conversations',
  'list_knowledge',
  'list_leads',
  'update_booking',
];

const BUYER = 'I want to buy the premium plan for my company, my email is jane@acme.io, call me at +44 20 7946 0958';

describe('MCP server (Streamable HTTP, protocol 2025-11-25)', () => {
  const s = e2eState();
  let site: TestSite;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let botX: string;
  let botY: string;
  let mcpA: McpSession;
  const sessions: McpSession[] = [];

  const connect = async (token: string | null, opts: Parameters<typeof mcpConnect>[1] = {}) => {
    const session = await mcpConnect(token, opts);
    sessions.push(session);
    return session;
  };
  const widgetBooking = async (bot: string, slot: string) => {
    const res = await request('POST', `/widget/v1/bots/${bot}/bookings`, { name: 'Ann Visitor', email: 'ann@example.com', phone: '+49 30 1234567', requestedSlot: slot, timeZone: 'Europe/Berlin' }, { baseUrl: s.gatewayUrl });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    site = await startTestSite(s.sitePort);
    a = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    b = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    botX = (await a.api.post('/bots', { name: 'Helper X', language: 'en' })).body.data.id;
    botY = (await a.api.post('/bots', { name: 'Helper Y', language: 'en' })).body.data.id;
    mcpA = await connect(a.token);
  });

  afterAll(async () => {
    await Promise.all(sessions.map((x) => x.close().catch(() => undefined)));
    await site?.close();
  });

  describe('HTTP: auth exactly as REST, Origin, methods', () => {
    it('answers 401 with WWW-Authenticate: Bearer for a missing, malformed, unknown, expired or revoked token', async () => {
      const expired = await newToken(a.id, ['--scopes', 'all', '--expires-in', '1']);
      const revoked = await newToken(a.id, ['--scopes', 'all']);
      await admin(['token', 'revoke', '--id', revoked.id]);
      await new Promise((r) => setTimeout(r, 1100));
      const cases: Record<string, Record<string, string>> = {
        missing: {},
        'not bearer': { authorization: `Basic ${a.token}` },
        unknown: { authorization: `Bearer mgpt_${'x'.repeat(43)}` },
        expired: { authorization: `Bearer ${expired.token}` },
        revoked: { authorization: `Bearer ${revoked.token}` },
      };
      for (const [name, headers] of Object.entries(cases)) {
        const res = await mcpPost(INITIALIZE, headers);
        // Where to discover the authorization server (RFC 9728, issue 17); invalid_token when a bearer was refused (RFC 6750).
        const metadata = `resource_metadata="${new URL('/.well-known/oauth-protected-resource', s.mcpUrl)}", scope="bots:read kb:read kb:write chat:invoke conversations:read leads:read analytics:read bookings:read bookings:write"`;
        const challenge = headers['authorization']?.startsWith('Bearer') ? `Bearer error="invalid_token", ${metadata}` : `Bearer ${metadata}`;
        expect([name, res.status, res.headers.get('www-authenticate')]).toEqual([name, 401, challenge]);
        expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ code: 'unauthorized' }));
      }
    });

    it('never takes the token from the URL', async () => {
      const res = await mcpPost(INITIALIZE, {}, `${s.mcpUrl}?token=${a.token}&access_token=${a.token}`);
      expect(res.status).toBe(401);
    });

    it('the SDK client sees the 401 as a failed connection', async () => {
      await expect(mcpConnect(null)).rejects.toThrow(/401|Unauthorized/i);
    });

    it('refuses a browser Origin that is not allowed (403) and accepts loopback origins and requests without one', async () => {
      const evil = await mcpPost(INITIALIZE, { authorization: `Bearer ${a.token}`, origin: 'http://evil.example.com' });
      expect(evil.status).toBe(403);
      expect(JSON.parse(evil.text)).toEqual(expect.objectContaining({ code: 'origin_not_allowed' }));
      const local = await mcpPost(INITIALIZE, { authorization: `Bearer ${a.token}`, origin: 'http://localhost:6274' });
      expect(local.status).toBe(200);
      expect(local.text).toContain('"protocolVersion":"2025-11-25"');
      expect((await mcpPost(INITIALIZE, { authorization: `Bearer ${a.token}` })).status).toBe(200);
    });

    it('is stateless: no Mcp-Session-Id, GET and DELETE answer 405 with Allow: POST', async () => {
      const init = await mcpPost(INITIALIZE, { authorization: `Bearer ${a.token}` });
      expect(init.headers.get('mcp-session-id')).toBeNull();
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(s.mcpUrl, { method, headers: { authorization: `Bearer ${a.token}`, accept: 'text/event-stream' } });
        expect([method, res.status, res.headers.get('allow')]).toEqual([method, 405, 'POST']);
        await res.text();
      }
    });

    it('counts each request against the token’s rate limit, like REST', async () => {
      const res = await mcpPost({ jsonrpc: '2.0', id: 2, method: 'ping' }, { authorization: `Bearer ${a.token}` });
      expect(res.status).toBe(200);
      expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
      expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
    });

    it('a lapsed workspace gets 402 api_locked before any session; restored, the same token works again', async () => {
      const w = await newWorkspace(['--plan', 'growth']);
      const before = await connect(w.token);
      expect(errorOf(await before.call('list_bots'))).toBeUndefined();
      await admin(['workspace', 'update', '--id', w.id, '--status', 'past_due']);
      try {
        const res = await waitFor(() => mcpPost(INITIALIZE, { authorization: `Bearer ${w.token}` }), (r) => r.status === 402, 10000);
        expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ code: 'api_locked' }));
        await expect(before.call('list_bots')).rejects.toThrow(/402|api_locked/);
        await expect(mcpConnect(w.token)).rejects.toThrow(/402|api_locked/);
      } finally {
        await admin(['workspace', 'update', '--id', w.id, '--status', 'active']);
      }
      const again = await waitFor(() => mcpPost(INITIALIZE, { authorization: `Bearer ${w.token}` }), (r) => r.status === 200, 10000);
      expect(again.status).toBe(200);
      expect(errorOf(await (await connect(w.token)).call('list_bots'))).toBeUndefined();
    });
  });

  describe('tools/list and scopes', () => {
    it('offers the eleven tools with input and output schemas to a token holding every scope', async () => {
      expect(mcpA.client.getServerVersion()?.name).toBe('support-agent');
      const { tools } = await mcpA.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
      for (const t of tools) {
        expect([t.name, t.inputSchema.type, typeof t.description, t.outputSchema?.type]).toEqual([t.name, 'object', 'string', 'object']);
      }
      const ask = tools.find((t) => t.name === 'ask_bot')!;
      expect(ask.inputSchema.required).toEqual(['message']);
      expect((ask.inputSchema.properties as any).message).toEqual(expect.objectContaining({ type: 'string', minLength: 1, maxLength: 2000 }));
      const ingest = tools.find((t) => t.name === 'add_knowledge')!;
      expect((ingest.inputSchema.properties as any).text).toEqual(expect.objectContaining({ maxLength: 200000 }));
      expect((ingest.inputSchema.properties as any).title).toEqual(expect.objectContaining({ minLength: 1, maxLength: 300 }));
      const update = tools.find((t) => t.name === 'update_booking')!;
      expect((update.inputSchema.properties as any).action.enum).toEqual(['confirm', 'reject', 'reschedule', 'cancel']);
      expect(tools.find((t) => t.name === 'list_bots')!.annotations?.readOnlyHint).toBe(true);
    });

    it('hides the tools a token has no scope for, and refuses them as a tool error naming the scope', async () => {
      const reader = await newToken(a.id, ['--scopes', 'bookings:read,kb:read']);
      const session = await connect(reader.token);
      expect((await session.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_booking', 'list_bookings', 'list_knowledge']);
      for (const [tool, scope, args] of [
        ['update_booking', 'bookings:write', { id: '00000000-0000-4000-8000-000000000000', action: 'confirm' }],
        ['add_knowledge', 'kb:write', { title: 'x', text: 'y' }],
        ['ask_bot', 'chat:invoke', { message: 'hi' }],
        ['list_bots', 'bots:read', {}],
      ] as const) {
        const r = await session.call(tool, args);
        expect([tool, r.isError, errorOf(r)?.code, errorOf(r)?.status]).toEqual([tool, true, 'insufficient_scope', 403]);
        expect(textOf(r)).toContain(scope);
      }
    });

    it('answers an unknown tool name with the JSON-RPC error -32602 (invalid params), as the MCP specification says', async () => {
      const err = await mcpA.call('delete_everything').then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((err as McpError).code).toBe(-32602);
      expect((err as McpError).message).toMatch(/Unknown tool: delete_everything/);
      // A known tool the token's scopes hide is still a tool result (insufficient_scope), tested above.
    });

    it('reports invalid arguments as tool errors an agent can act on', async () => {

      const bad = await mcpA.call('update_booking', { id: 'nope', action: 'reschedule', chatbot_id: botX });
      expect(errorOf(bad)).toEqual(expect.objectContaining({ status: 400, code: 'validation_failed' }));
      expect(textOf(bad)).toMatch(/id: must be a UUID/);
      expect(textOf(bad)).toMatch(/requestedSlot: required when action is reschedule/);
      expect(textOf(bad)).toMatch(/chatbot_id/);

      const long = await mcpA.call('ask_bot', { message: 'x'.repeat(2001) });
      expect(errorOf(long)?.code).toBe('validation_failed');
      // Lengths count characters, as REST does: 2000 emoji are 4000 UTF-16 units and still fine.
      const emoji = await mcpA.call('add_knowledge', { title: '😀'.repeat(300), text: 'Emoji titles are allowed.' });
      expect(errorOf(emoji)).toBeUndefined();
      expect(errorOf(await mcpA.call('add_knowledge', { title: 'Neither url nor text' }))?.code).toBe('validation_failed');
      expect(errorOf(await mcpA.call('list_conversations', { limit: 0 }))?.code).toBe('validation_failed');
    });
  });

  describe('every tool against its REST twin', () => {
    let pricingDoc: string;
    let sessionId: string;

    it('list_bots returns the REST data', async () => {
      const r = await mcpA.call('list_bots');
      expect(r.structuredContent).toEqual((await a.api.get('/bots')).body);
      expect(textOf(r)).toContain('Helper X');
      expect(textOf(r)).toContain(botX);
    });

    it('add_knowledge queues a page; list_knowledge shows it until ready', async () => {
      const url = `http://127.0.0.1:${s.sitePort}/pricing`;
      const r = await mcpA.call('add_knowledge', { title: 'Pricing page', url, chatbotId: botX });
      expect(errorOf(r)).toBeUndefined();
      expect(r.structuredContent).toEqual({ data: { id: expect.any(String), status: 'queued' } });
      pricingDoc = (r.structuredContent as any).data.id;
      const docs = await waitFor(
        async () => ((await mcpA.call('list_knowledge', { chatbotId: botX })).structuredContent as any).data,
        (d: any[]) => d.find((x) => x.id === pricingDoc)?.status === 'ready',
        30000,
      );
      expect(docs.find((x: any) => x.id === pricingDoc)).toEqual(expect.objectContaining({ source_url: url, source_type: 'url', chatbot_id: botX }));
      expect((await mcpA.call('list_knowledge', { chatbotId: botX })).structuredContent).toEqual((await a.api.get(`/kb?chatbotId=${botX}`)).body);
    });

    it('ask_bot runs a chat turn, streams progress notifications and returns the whole answer with its sources', async () => {
      const progress: { progress: number; message?: string }[] = [];
      const r = await mcpA.call('ask_bot', { message: 'How much does the premium heater cost?', chatbotId: botX }, (p) => progress.push(p));
      expect(errorOf(r)).toBeUndefined();
      const answer = r.structuredContent as any;
      expect(answer).toEqual({
        answer: expect.stringContaining('900 dollars'),
        session_id: expect.any(String),
        chatbot_id: botX,
        language: 'en',
        source_urls: [`http://127.0.0.1:${s.sitePort}/pricing`],
        unanswered: false,
        assistant_message_id: expect.any(String),
      });
      expect(textOf(r)).toContain('900 dollars');
      expect(textOf(r)).toContain(`http://127.0.0.1:${s.sitePort}/pricing`);
      expect(progress.length).toBeGreaterThanOrEqual(1);
      expect(progress.map((p) => p.message).join('')).toBe(answer.answer);
      for (let i = 1; i < progress.length; i++) expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress);
      sessionId = answer.session_id;

      const next = await mcpA.call('ask_bot', { message: BUYER, chatbotId: botX, sessionId });
      expect((next.structuredContent as any).session_id).toBe(sessionId);
    });

    it('get_conversation and list_conversations show the turn (channel mcp) as REST does', async () => {
      const messages = await waitFor(async () => ((await mcpA.call('get_conversation', { sessionId })).structuredContent as any).data, (m: any[]) => m.length === 4);
      expect(messages.map((m: any) => [m.role, m.channel])).toEqual([
        ['user', 'mcp'],
        ['assistant', 'mcp'],
        ['user', 'mcp'],
        ['assistant', 'mcp'],
      ]);
      expect({ data: messages }).toEqual((await a.api.get(`/conversations/${sessionId}`)).body);
      const list = await mcpA.call('list_conversations', { chatbotId: botX, limit: 10 });
      expect((list.structuredContent as any).data).toEqual(expect.arrayContaining([expect.objectContaining({ session_id: sessionId, message_count: 4, channel: 'mcp' })]));
      expect(list.structuredContent).toEqual((await a.api.get(`/conversations?chatbotId=${botX}&limit=10`)).body);
      expect(textOf(await mcpA.call('get_conversation', { sessionId }))).toContain('900 dollars');
    });

    it('list_leads shows the lead the buyer became; get_analytics equals REST', async () => {
      const leads = await waitFor(async () => ((await mcpA.call('list_leads', { chatbotId: botX })).structuredContent as any).data, (l: any[]) => l.some((x) => x.session_id === sessionId), 20000);
      expect(leads.find((l: any) => l.session_id === sessionId)).toEqual(expect.objectContaining({ email: 'jane@acme.io', score_band: 'hot' }));
      expect({ data: leads }).toEqual((await a.api.get(`/leads?chatbotId=${botX}`)).body);
      const analytics = await mcpA.call('get_analytics', { chatbotId: botX });
      expect(analytics.structuredContent).toEqual((await a.api.get(`/analytics?chatbotId=${botX}`)).body);
      expect((analytics.structuredContent as any).data.sessions.total).toBeGreaterThanOrEqual(1);
      expect(textOf(analytics)).toMatch(/Last 30 days/);
    });

    it('list_bookings, get_booking and update_booking (409 cases as tool errors with the reason)', async () => {
      const id = await widgetBooking(botX, '2027-03-01T10:00:00+01:00');
      const listed = await mcpA.call('list_bookings', { status: 'pending', chatbotId: botX });
      expect((listed.structuredContent as any).data.map((x: any) => x.id)).toContain(id);
      expect(listed.structuredContent).toEqual((await a.api.get(`/bookings?status=pending&chatbotId=${botX}`)).body);
      const one = await mcpA.call('get_booking', { id });
      expect(one.structuredContent).toEqual((await a.api.get(`/bookings/${id}`)).body);
      expect(textOf(one)).toContain('pending booking');

      const confirmed = await mcpA.call('update_booking', { id, action: 'confirm' });
      expect((confirmed.structuredContent as any).data).toEqual(expect.objectContaining({ id, status: 'confirmed', confirmed_at: expect.any(String) }));
      const again = await mcpA.call('update_booking', { id, action: 'confirm' });
      expect(errorOf(again)).toEqual(expect.objectContaining({ status: 409, code: 'conflict' }));
      expect(textOf(again)).toMatch(/409 conflict/);
      expect(errorOf(await mcpA.call('update_booking', { id, action: 'reject', rejectionComment: 'late' }))?.status).toBe(409);

      // Another pending booking asking for the now-blocked slot cannot be confirmed.
      const rival = await widgetBooking(botX, '2027-03-01T10:00:00+01:00');
      expect(errorOf(await mcpA.call('update_booking', { id: rival, action: 'confirm' }))?.status).toBe(409);

      const moved = await mcpA.call('update_booking', { id, action: 'reschedule', requestedSlot: '2027-03-02T11:00:00+01:00' });
      expect(errorOf(moved)).toBeUndefined();
      const cancelled = await mcpA.call('update_booking', { id, action: 'cancel', cancelComment: 'Closed that day' });
      expect((cancelled.structuredContent as any).data).toEqual(expect.objectContaining({ status: 'cancelled', cancelled_at: expect.any(String) }));
      const dead = await mcpA.call('update_booking', { id, action: 'cancel' });
      expect(errorOf(dead)?.status).toBe(409);
      expect(errorOf(await mcpA.call('get_booking', { id: '00000000-0000-4000-8000-000000000000' }))).toEqual(expect.objectContaining({ status: 404, code: 'not_found' }));
    });

    it('ask_bot counts toward the monthly quota: an exhausted one is a 402 tool error', async () => {
      const w = await newWorkspace(['--plan', 'growth', '--messages-per-month', '0']);
      const r = await (await connect(w.token)).call('ask_bot', { message: 'Hello?' });
      expect(errorOf(r)).toEqual(expect.objectContaining({ status: 402, code: 'quota_exhausted' }));
    });
  });

  describe('bot-restricted tokens', () => {
    let restricted: McpSession;
    let bookingY: string;

    beforeAll(async () => {
      restricted = await connect((await newToken(a.id, ['--scopes', 'all', '--bots', botX])).token);
      bookingY = await widgetBooking(botY, '2027-06-01T09:00:00+02:00');
    });

    it('must name an allowed bot on knowledge, chat, leads and analytics tools', async () => {
      for (const [tool, args] of [
        ['list_knowledge', {}],
        ['add_knowledge', { title: 't', text: 'x' }],
        ['ask_bot', { message: 'hi' }],
        ['list_leads', {}],
        ['get_analytics', {}],
      ] as const) {
        expect([tool, errorOf(await restricted.call(tool, args))?.code]).toEqual([tool, 'bot_access_denied']);
        expect([tool, errorOf(await restricted.call(tool, { ...args, chatbotId: botY }))?.code]).toEqual([tool, 'bot_access_denied']);
      }
      expect(errorOf(await restricted.call('list_knowledge', { chatbotId: botX }))).toBeUndefined();
      expect(errorOf(await restricted.call('get_analytics', { chatbotId: botX }))).toBeUndefined();
    });

    it("cannot see or change another bot's bookings and conversations", async () => {
      expect(errorOf(await restricted.call('list_bookings', { chatbotId: botY }))?.code).toBe('bot_access_denied');
      expect(errorOf(await restricted.call('list_conversations', { chatbotId: botY }))?.code).toBe('bot_access_denied');
      const own = ((await restricted.call('list_bookings')).structuredContent as any).data;
      expect(own.every((x: any) => x.chatbot_id === botX)).toBe(true);
      expect(errorOf(await restricted.call('get_booking', { id: bookingY }))?.status).toBe(403);
      expect(errorOf(await restricted.call('update_booking', { id: bookingY, action: 'confirm' }))?.status).toBe(403);
      expect((await a.api.get(`/bookings/${bookingY}`)).body.data.status).toBe('pending');
    });
  });

  describe('two workspaces', () => {
    it("cannot see each other's bots, knowledge, conversations, leads or bookings", async () => {
      const mcpB = await connect(b.token);
      const booking = await widgetBooking(botX, '2027-07-01T09:00:00+02:00');
      const convo = ((await mcpA.call('ask_bot', { message: 'Is installation free?', chatbotId: botX })).structuredContent as any).session_id;

      expect((await mcpB.call('list_bots')).structuredContent).toEqual({ data: [] });
      expect((await mcpB.call('list_knowledge')).structuredContent).toEqual({ data: [] });
      expect((await mcpB.call('list_leads')).structuredContent).toEqual({ data: [] });
      expect((await mcpB.call('list_bookings')).structuredContent).toEqual({ data: [] });
      expect((await mcpB.call('list_conversations')).structuredContent).toEqual({ data: [] });
      expect((await mcpB.call('get_conversation', { sessionId: convo })).structuredContent).toEqual({ data: [] });
      expect(errorOf(await mcpB.call('get_booking', { id: booking }))?.code).toBe('not_found');
      expect(errorOf(await mcpB.call('update_booking', { id: booking, action: 'reject' }))?.code).toBe('not_found');
      // Naming the other workspace's bot is as if it did not exist, exactly as through REST.
      const foreign = await mcpB.call('list_knowledge', { chatbotId: botX });
      expect(errorOf(foreign)?.code).toBe('not_found');
      expect((await b.api.get(`/kb?chatbotId=${botX}`)).status).toBe(404);
      expect(errorOf(await mcpB.call('ask_bot', { message: 'hi', chatbotId: botX }))?.status).toBe(404);
      expect((await a.api.get(`/bookings/${booking}`)).body.data.status).toBe('pending');
    });
  });

  describe('replicas', () => {
    let replica: SpawnedApp;
    let replicaUrl: string;

    beforeAll(async () => {
      const port = await freePort();
      // The MCP server owns no data: this replica is given no database it could reach.
      replica = spawnApp('mcp', { MCP_PORT: String(port), DATABASE_URL: `postgres://nobody@127.0.0.1:${await freePort()}/nowhere` });
      replicaUrl = `http://127.0.0.1:${port}/mcp`;
      await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 30000);
    });

    afterAll(async () => {
      await replica?.kill();
    });

    it('a client whose requests land on alternating replicas works throughout (stateless)', async () => {
      let n = 0;
      const urls = [s.mcpUrl, replicaUrl];
      const hits = [0, 0];
      const roundRobin: typeof fetch = (input, init) => {
        const i = n++ % 2;
        hits[i]++;
        return fetch(urls[i], init);
      };
      const session = await connect(a.token, { fetch: roundRobin });
      expect((await session.client.listTools()).tools).toHaveLength(11);
      for (let i = 0; i < 4; i++) expect(errorOf(await session.call('list_bots'))).toBeUndefined();
      expect(hits[0]).toBeGreaterThanOrEqual(3);
      expect(hits[1]).toBeGreaterThanOrEqual(3);
    });

    it('holds no PostgreSQL connection, and hears a revocation at once on every replica (relayed by the gateway)', async () => {
      const db = new Client({ connectionString: s.databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'mcp%'`);
        expect(rows[0].n).toBe(0);
      } finally {
        await db.end();
      }
      const t = await newToken(a.id, ['--scopes', 'all']);
      for (const url of [s.mcpUrl, replicaUrl]) expect((await mcpPost(INITIALIZE, { authorization: `Bearer ${t.token}` }, url)).status).toBe(200);
      await admin(['token', 'revoke', '--id', t.id]);
      for (const url of [s.mcpUrl, replicaUrl]) {
        const res = await waitFor(() => mcpPost(INITIALIZE, { authorization: `Bearer ${t.token}` }, url), (r) => r.status === 401, 3000, 50);
        expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ code: 'unauthorized' }));
      }
    });
  });
});
