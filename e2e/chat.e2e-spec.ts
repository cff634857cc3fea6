import { waitFor } from './support/apps';
import { newToken, newWorkspace, TestWorkspace } from './support/fixtures';
import { postSse } from './support/sse';

/** POST /v1/chat with the default (extractive) responder, conversations and analytics. */
describe('chat, conversations and analytics (spec parts 2, 4, 5)', () => {
  let ws: TestWorkspace;
  let bot: string;

  async function ingestAndWait(w: TestWorkspace, body: Record<string, unknown>): Promise<void> {
    const id = (await w.api.post('/kb/ingest', body)).body.data.id;
    await waitFor(async () => (await w.api.get('/kb')).body.data.find((d: any) => d.id === id)?.status, (st) => st === 'ready', 20000);
  }

  beforeAll(async () => {
    ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
    bot = (await ws.api.post('/bots', { name: 'Helper', language: 'en' })).body.data.id;
    await ingestAndWait(ws, {
      title: 'Heater FAQ',
      text: 'The premium solar heater costs 900 dollars. The basic heater costs 450 dollars. Installation is free in Nairobi. Every heater has a ten year warranty on the tank.',
      chatbotId: bot,
    });
  });

  it('streams frames `data: <json>` with choices[0].delta.content, and stores the same text', async () => {
    const res = await postSse('/chat', { message: 'How much does the premium heater cost?', chatbotId: bot, sessionId: 'e2e-session-1' }, ws.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toContain('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('x-session-id')).toBe('e2e-session-1');
    expect(res.frames.length).toBeGreaterThanOrEqual(1);
    expect(res.raw).toMatch(/^(data: \{.*\}\n\n)+$/s);
    for (const f of res.frames) expect(typeof f.choices[0].delta.content).toBe('string');
    // The last frame says the answer is complete (docs/api.md, Chat); there is no [DONE].
    expect(res.frames.at(-1)).toEqual({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }] });
    expect(res.text).toContain('900 dollars');
    expect(res.firstFrameMs).not.toBeNull();
    expect(res.firstFrameMs!).toBeLessThanOrEqual(res.endMs);

    const messages = await waitFor(async () => (await ws.api.get('/conversations/e2e-session-1')).body.data, (m: any[]) => m.length === 2);
    expect(messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1].content).toBe(res.text);
    // A text document has no URL: source_urls is an array of URLs, so it is empty (never the title).
    expect(messages[1].source_urls).toEqual([]);
    expect(messages[0]).toEqual({
      id: expect.any(String),
      tenant_id: ws.id,
      chatbot_id: bot,
      session_id: 'e2e-session-1',
      role: 'user',
      content: 'How much does the premium heater cost?',
      feedback: null,
      source_urls: null,
      channel: 'api',
      provider_message_id: null,
      created_at: expect.any(String),
    });
  });

  it('says plainly when the knowledge base has nothing relevant, in the reply language', async () => {
    const en = await postSse('/chat', { message: 'What is the capital of Mongolia?', chatbotId: bot }, ws.token);
    expect(en.status).toBe(200);
    expect(en.text.toLowerCase()).toMatch(/couldn.t find|could not find|no information|don.t have/);
    const ja = await postSse('/chat', { message: 'What is the capital of Mongolia?', chatbotId: bot, language: 'ja-JP' }, ws.token);
    expect(ja.text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    const th = await postSse('/chat', { message: 'เมืองหลวงของมองโกเลียคืออะไรครับ ช่วยบอกหน่อย', chatbotId: bot }, ws.token);
    expect(th.text).toMatch(/[\u0e00-\u0e7f]/);
  });

  it('a new session id is made when none is sent (X-Session-Id), and a session carries its turns', async () => {
    const first = await postSse('/chat', { message: 'Is installation free?', chatbotId: bot }, ws.token);
    const sessionId = first.headers.get('x-session-id');
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await postSse('/chat', { message: 'And the warranty?', chatbotId: bot, sessionId }, ws.token);
    const list = await waitFor(async () => (await ws.api.get('/conversations?limit=200')).body.data, (d: any[]) => d.some((c) => c.session_id === sessionId && c.message_count === 4));
    const conv = list.find((c: any) => c.session_id === sessionId);
    expect(conv).toEqual({ session_id: sessionId, message_count: 4, first_at: expect.any(String), last_at: expect.any(String), preview: 'Is installation free?', channel: 'api' });
  });

  it('validates the body (400) before any stream starts', async () => {
    for (const body of [{}, { message: '' }, { message: 'x'.repeat(2001) }, { message: 'hi', sessionId: 's'.repeat(121) }, { message: 'hi', chatbotId: 'nope' }, { message: 'hi', stream: true }, { message: 'hi', language: '??' }]) {
      const res = await postSse('/chat', body, ws.token);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.json.success).toBe(false);
    }
    expect((await postSse('/chat', { message: 'x'.repeat(2000), chatbotId: bot }, ws.token)).status).toBe(200);
  });

  it('402 once the monthly message quota is used up; concurrent chats never overshoot it', async () => {
    const small = await newWorkspace(['--plan', 'growth', '--messages-per-month', '3']);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => postSse('/chat', { message: `question ${i}` }, small.token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 402);
    expect(refused).toHaveLength(3);
    expect(refused[0].json).toEqual(expect.objectContaining({ code: 'quota_exhausted', error: 'Payment Required' }));
  });

  it('bot restrictions (403) and foreign bots (404)', async () => {
    const other = (await ws.api.post('/bots', { name: 'Other helper' })).body.data.id;
    const restricted = await newToken(ws.id, ['--scopes', 'chat:invoke,conversations:read,analytics:read', '--bots', bot]);
    expect((await postSse('/chat', { message: 'hi' }, restricted.token)).status).toBe(403);
    expect((await postSse('/chat', { message: 'hi', chatbotId: other }, restricted.token)).status).toBe(403);
    expect((await postSse('/chat', { message: 'hi', chatbotId: bot }, restricted.token)).status).toBe(200);
    const stranger = await newWorkspace();
    expect((await postSse('/chat', { message: 'hi', chatbotId: bot }, stranger.token)).status).toBe(404);

    await postSse('/chat', { message: 'other bot question', chatbotId: other, sessionId: 'e2e-other-bot' }, ws.token);
    await waitFor(async () => (await ws.api.get('/conversations/e2e-other-bot')).body.data, (m: any[]) => m.length === 2);
    expect((await restricted.api.get('/conversations/e2e-other-bot')).status).toBe(403);
    const visible = (await restricted.api.get('/conversations?limit=200')).body.data.map((c: any) => c.session_id);
    expect(visible).not.toContain('e2e-other-bot');
    expect((await restricted.api.get('/analytics')).status).toBe(403);
    expect((await restricted.api.get(`/analytics?chatbotId=${other}`)).status).toBe(403);
    expect((await restricted.api.get(`/analytics?chatbotId=${bot}`)).status).toBe(200);
    // A session continued with another bot is refused.
    expect((await postSse('/chat', { message: 'switch', chatbotId: bot, sessionId: 'e2e-other-bot' }, ws.token)).status).toBe(403);
    // Another workspace sees nothing of this one.
    expect((await stranger.api.get('/conversations/e2e-session-1')).body.data).toEqual([]);
    expect((await stranger.api.get('/conversations')).body.data).toEqual([]);
  });

  it('GET /conversations: q search, limit bounds, newest activity first; unknown session is []', async () => {
    const w = await newWorkspace();
    await postSse('/chat', { message: 'first topic about invoices', sessionId: 'conv-a' }, w.token);
    await postSse('/chat', { message: 'second topic about shipping', sessionId: 'conv-b' }, w.token);
    const all = await waitFor(async () => (await w.api.get('/conversations')).body.data, (d: any[]) => d.length === 2);
    expect(all.map((c: any) => c.session_id)).toEqual(['conv-b', 'conv-a']);
    expect((await w.api.get('/conversations?q=invoices')).body.data.map((c: any) => c.session_id)).toEqual(['conv-a']);
    expect((await w.api.get('/conversations?limit=1')).body.data).toHaveLength(1);
    for (const q of ['limit=0', 'limit=201', 'limit=abc', `q=${'q'.repeat(201)}`, 'chatbotId=x', 'page=2']) expect((await w.api.get(`/conversations?${q}`)).status).toBe(400);
    expect((await w.api.get('/conversations/no-such-session')).body).toEqual({ data: [] });
  });

  it('GET /analytics: the five members over 30 days, zero-filled, with unanswered rate and top questions', async () => {
    const w = await newWorkspace();
    const b = (await w.api.post('/bots', { name: 'Stats' })).body.data.id;
    await ingestAndWait(w, { title: 'Hours', text: 'Our shop opens at nine in the morning and closes at six in the evening.', chatbotId: b });
    await postSse('/chat', { message: 'When does the shop open?', chatbotId: b }, w.token);
    await postSse('/chat', { message: 'when does the shop open', chatbotId: b }, w.token);
    await postSse('/chat', { message: 'Do you sell bicycles on Mars?', chatbotId: b }, w.token);
    const a = await waitFor(async () => (await w.api.get('/analytics')).body.data, (d: any) => d.unanswered.total === 3);
    expect(Object.keys(a).sort()).toEqual(['daily', 'feedback', 'sessions', 'top_questions', 'unanswered']);
    expect(a.daily).toHaveLength(30);
    expect(a.daily[29]).toEqual({ day: new Date().toISOString().slice(0, 10), user_messages: 3, assistant_messages: 3 });
    expect(a.daily[0]).toEqual({ day: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), user_messages: 0, assistant_messages: 0 });
    expect(a.top_questions[0]).toEqual({ question: expect.stringMatching(/shop open/i), times: 2 });
    expect(a.unanswered).toEqual({ count: 1, total: 3, rate: 33.3 });
    expect(a.feedback).toEqual({ positive: 0, negative: 0 });
    expect(a.sessions).toEqual({ total: 3, avg_messages: 2 });
    expect((await w.api.get(`/analytics?chatbotId=${b}`)).body.data.unanswered.total).toBe(3);
  });
});
