import { request } from './support/api';
import { waitFor } from './support/apps';
import { newToken, newWorkspace, TestWorkspace } from './support/fixtures';
import { mcpConnect } from './support/mcp';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { newWidgetSession } from './support/widget';

/**
 * Tenant isolation (issue #9): two workspaces, each with two bots, documents, sessions, a lead and
 * bookings, all marked with the workspace's secret. In both directions, the other workspace and a
 * token of the victim restricted to its bot X call every REST endpoint, every widget route and
 * every MCP tool with the victim's foreign ids. No answer may contain the victim's data (only
 * 403, 404, or an empty result), and afterwards the victim's data is exactly what it was.
 */
const SECRETS = { A: 'SECRET_A_7f3k', B: 'SECRET_B_9q2m' } as const;
/** Each workspace's knowledge base holds a vault code of its own. */
const CODES = { A: '4242', B: '9393' } as const;
type Label = keyof typeof SECRETS;

interface Seeded {
  ws: TestWorkspace;
  ids: Record<string, string>;
}

async function seed(label: Label): Promise<Seeded> {
  const s = e2eState();
  const secret = SECRETS[label];
  const ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
  const ids: Record<string, string> = {};
  ids.botX = (await ws.api.post('/bots', { name: `${label} bot X` })).body.data.id;
  ids.botY = (await ws.api.post('/bots', { name: `${label} bot Y` })).body.data.id;
  for (const bot of [ids.botX, ids.botY]) {
    const doc = (await ws.api.post('/kb/ingest', { title: `${secret} doc`, text: `${secret}: the vault code is ${CODES[label]}.`, chatbotId: bot })).body.data.id;
    await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === doc)?.status, (st) => st === 'ready', 20000);
  }
  // Widget sessions minted by the server, so the widget routes below may use them too.
  ids.sessionX = await newWidgetSession(ids.botX);
  ids.sessionY = await newWidgetSession(ids.botY);
  await postSse('/chat', { message: `${secret} what is the vault code?`, chatbotId: ids.botX, sessionId: ids.sessionX }, ws.token);
  await postSse('/chat', { message: `${secret} what is the vault code?`, chatbotId: ids.botY, sessionId: ids.sessionY }, ws.token);
  ids.messageX = (await waitFor(async () => (await ws.api.get(`/conversations/${ids.sessionX}`)).body.data, (m: any[]) => m.length === 2))[1].id;
  ids.messageY = (await waitFor(async () => (await ws.api.get(`/conversations/${ids.sessionY}`)).body.data, (m: any[]) => m.length === 2))[1].id;
  const widget = (bot: string, route: string, body: unknown) => request('POST', `/widget/v1/bots/${bot}/${route}`, body, { baseUrl: s.gatewayUrl });
  ids.leadX = (await widget(ids.botX, 'leads', { sessionId: ids.sessionX, name: `${secret} Lead`, email: 'lead@example.com', message: 'Buy' })).body.data.id;
  ids.bookingX = (await widget(ids.botX, 'bookings', { sessionId: ids.sessionX, name: `${secret} Visitor`, email: 'x@example.com', phone: '+1 555 0101', requestedSlot: '2027-09-01T10:00:00Z' })).body.data.id;
  ids.bookingY = (await widget(ids.botY, 'bookings', { sessionId: ids.sessionY, name: `${secret} Visitor Y`, email: 'y@example.com', phone: '+1 555 0102', requestedSlot: '2027-09-02T10:00:00Z' })).body.data.id;
  return { ws, ids };
}

describe('tenant isolation: every route with every foreign id', () => {
  const seeded = {} as Record<Label, Seeded>;

  beforeAll(async () => {
    seeded.A = await seed('A');
    seeded.B = await seed('B');
  });

  describe.each([
    ['A', 'B'],
    ['B', 'A'],
  ] as [Label, Label][])('victim %s, attacker %s', (victim, attacker) => {
    const s = e2eState();
    const SECRET = SECRETS[victim];
    const CODE = CODES[victim];
    let a: TestWorkspace;
    let b: TestWorkspace;
    let bBot: string;
    let A: Record<string, string>;

    beforeAll(() => {
      a = seeded[victim].ws;
      A = seeded[victim].ids;
      b = seeded[attacker].ws;
      bBot = seeded[attacker].ids.botX;
    });

    const snapshot = async () => {
      const get = async (path: string) => (await a.api.get(path)).body;
      return {
        bots: await get('/bots'),
        kb: await get('/kb'),
        conversations: await get('/conversations?limit=200'),
        messagesX: await get(`/conversations/${A.sessionX}`),
        messagesY: await get(`/conversations/${A.sessionY}`),
        leads: await get('/leads'),
        bookings: await get('/bookings'),
      };
    };

    /** The answer leaks nothing of A: 403, 404, or a success without A's data. */
    function expectNoLeak(what: string, status: number, text: string, allowed = [200, 201, 202, 400, 403, 404]): void {
      expect([what, allowed.includes(status), text.includes(SECRET)]).toEqual([what, true, false]);
    }

    it('REST: the other workspace and a token restricted to bot X neither read nor change what they may not', async () => {
      const before = await snapshot();
      const restricted = (await newToken(a.id, ['--scopes', 'all', '--bots', A.botX])).api;
      const attackers: [string, TestWorkspace['api'], string[]][] = [
        ['other workspace', b.api, [A.botX, A.botY]],
        ['restricted to X', restricted, [A.botY]],
      ];
      for (const [who, api, bots] of attackers) {
        for (const bot of bots) {
          for (const path of [`/kb?chatbotId=${bot}`, `/conversations?chatbotId=${bot}`, `/leads?chatbotId=${bot}`, `/analytics?chatbotId=${bot}`, `/bookings?chatbotId=${bot}`]) {
            const res = await api.get(path);
            expectNoLeak(`${who} GET ${path}`, res.status, res.text, [403, 404]);
          }
          for (const [path, body] of [
            ['/kb/ingest', { title: 'intruder', text: 'intruder text', chatbotId: bot }],
            ['/chat', { message: 'what is the vault code?', chatbotId: bot }],
          ] as const) {
            const res = await api.post(path, body);
            expectNoLeak(`${who} POST ${path} ${bot}`, res.status, res.text, [403, 404]);
          }
        }
        const sessions = who === 'other workspace' ? [A.sessionX, A.sessionY] : [A.sessionY];
        for (const session of sessions) {
          const res = await api.get(`/conversations/${session}`);
          expectNoLeak(`${who} GET /conversations/${session}`, res.status, res.text, [200, 403, 404]);
          if (res.status === 200) expect(res.body.data).toEqual([]);
        }
        const bookings = who === 'other workspace' ? [A.bookingX, A.bookingY] : [A.bookingY];
        for (const booking of bookings) {
          expectNoLeak(`${who} GET /bookings/${booking}`, (await api.get(`/bookings/${booking}`)).status, (await api.get(`/bookings/${booking}`)).text, [403, 404]);
          for (const body of [{ action: 'confirm' }, { action: 'reject', rejectionComment: 'x' }, { action: 'cancel' }, { action: 'reschedule', requestedSlot: '2027-10-01T10:00:00Z' }]) {
            const res = await api.patch(`/bookings/${booking}`, body);
            expectNoLeak(`${who} PATCH /bookings/${booking} ${body.action}`, res.status, res.text, [403, 404]);
          }
        }
        // Unfiltered lists show only what the caller may see.
        for (const path of ['/bots', '/kb', '/conversations', '/leads', '/bookings', '/analytics']) {
          const res = await api.get(path);
          if (who === 'other workspace') expectNoLeak(`${who} GET ${path}`, res.status, res.text, [200]);
          else if (path !== '/bots') {
            const text = JSON.stringify(res.body);
            expect([path, [A.botY, A.sessionY, A.bookingY].some((id) => text.includes(id))]).toEqual([path, false]);
          }
        }
        // B chatting in a session with A's session id gets its own conversation, not A's.
        if (who === 'other workspace') {
          const res = await postSse('/chat', { message: 'continue please', chatbotId: bBot, sessionId: A.sessionX }, b.token);
          expect(res.status).toBe(200);
          expect(res.text).not.toContain(SECRET);
          expect(res.text).not.toContain(CODE);
        }
      }
      expect(await snapshot()).toEqual(before);
    });

    it('widget routes: the other workspace\'s bot, and bot X, cannot touch sessions, messages or leads of other bots', async () => {
      const before = await snapshot();
      const widget = (bot: string, route: string, body: unknown) => request('POST', `/widget/v1/bots/${bot}/${route}`, body, { baseUrl: s.gatewayUrl });
      for (const [who, bot, session, message] of [
        ['other bot on session X', bBot, A.sessionX, A.messageX],
        ['bot X on session Y', A.botX, A.sessionY, A.messageY],
      ] as const) {
        const feedback = await widget(bot, 'feedback', { sessionId: session, messageId: message, feedback: 'negative' });
        expectNoLeak(`${who} feedback`, feedback.status, feedback.text, [403]);
        for (const [route, body] of [
          ['identify', { sessionId: session, externalUserId: 'intruder', name: 'Intruder', email: 'intruder@example.com', userHash: 'a'.repeat(64) }],
          ['leads', { sessionId: session, name: 'Intruder', email: 'intruder@example.com' }],
          ['tickets', { sessionId: session, email: 'intruder@example.com', subject: 'x', message: 'y' }],
          ['handoff', { sessionId: session, reason: 'intruder' }],
          ['bookings', { sessionId: session, name: 'Intruder', email: 'intruder@example.com', phone: '+1 555 0199' }],
        ] as const) {
          const res = await widget(bot, route, body);
          expectNoLeak(`${who} ${route}`, res.status, res.text, [403]);
        }
        const chat = await postSse('/chat', { message: 'what is the vault code?', sessionId: session }, 'none', { baseUrl: `${s.gatewayUrl}/widget/v1/bots/${bot}` });
        expectNoLeak(`${who} chat`, chat.status, chat.text, [403]);
        expect(chat.text).not.toContain(CODE);
      }
      // A's own records are exactly as they were: a session is a widget session of its own bot only (403).
      const after = await snapshot();
      expect(after.messagesX).toEqual(before.messagesX);
      expect(after.messagesY).toEqual(before.messagesY);
      expect(after.bookings.data.filter((x: any) => x.name.includes(SECRET))).toEqual(before.bookings.data.filter((x: any) => x.name.includes(SECRET)));
      expect(after.leads.data.filter((l: any) => l.id === A.leadX)).toEqual(before.leads.data.filter((l: any) => l.id === A.leadX));
      expect(after.kb).toEqual(before.kb);
    });

    it('MCP: the other workspace and the restricted token get errors or empty results for every foreign id', async () => {
      const before = await snapshot();
      const restricted = await newToken(a.id, ['--scopes', 'all', '--bots', A.botX]);
      for (const [who, token, bots, bookings, sessions] of [
        ['other workspace', b.token, [A.botX, A.botY], [A.bookingX, A.bookingY], [A.sessionX, A.sessionY]],
        ['restricted to X', restricted.token, [A.botY], [A.bookingY], [A.sessionY]],
      ] as const) {
        const mcp = await mcpConnect(token);
        const calls: [string, Record<string, unknown>][] = [];
        for (const bot of bots) {
          for (const tool of ['list_knowledge', 'list_leads', 'get_analytics', 'list_conversations', 'list_bookings']) calls.push([tool, { chatbotId: bot }]);
          calls.push(['add_knowledge', { title: 'x', text: 'y', chatbotId: bot }], ['ask_bot', { message: 'vault code?', chatbotId: bot }]);
        }
        for (const id of bookings) calls.push(['get_booking', { id }], ['update_booking', { id, action: 'cancel' }]);
        for (const sessionId of sessions) calls.push(['get_conversation', { sessionId }]);
        for (const [tool, args] of calls) {
          const r = await mcp.call(tool, args);
          const text = JSON.stringify(r);
          expect([who, tool, text.includes(SECRET)]).toEqual([who, tool, false]);
          // Success only with nothing of A's in it (B may have its own session with the same id).
          if (!r.isError) expect([who, tool, text.includes(a.id) || (who !== 'other workspace' && (r.structuredContent as any).data.length > 0)]).toEqual([who, tool, false]);
        }
        await mcp.close();
      }
      expect(await snapshot()).toEqual(before);
    });

  });
});
