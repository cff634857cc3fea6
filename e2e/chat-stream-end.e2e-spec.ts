import { Client } from 'pg';
import { admin } from './support/admin';
import { client } from './support/api';
import { waitFor } from './support/apps';
import { freePort } from './support/infra';
import { errorOf, mcpConnect, textOf } from './support/mcp';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { ModelStandIn, questionOf, startModelStandIn } from './support/model-stand-in';
import { postSse, SseResult } from './support/sse';
import { newWidgetSession } from './support/widget';

/**
 * How a chat stream ends (issue #14, items 7 and 9), on the REST, widget and MCP edges, with a
 * chat model (a local server speaking the OpenAI streaming wire format):
 * - the last frame says how the turn ended: `finish_reason: "stop"`, or `"error"` with an
 *   `error` object; `delta.content` is a string in every frame;
 * - a turn is charged to the quota exactly when it is stored: a save that fails (here a
 *   database trigger refuses it) ends the stream with an error and gives the message back;
 * - text the database cannot hold (NUL, a lone UTF-16 surrogate from the model) is made
 *   well-formed, so it cannot make the save fail; what is stored is what was streamed.
 */
describe('the end of a chat stream: finish_reason, and charged exactly when stored', () => {
  let mini: MiniSystem;
  let model: ModelStandIn;
  let db: Client;
  let mcpUrl: string;
  const GOOD = ['The premium ', 'heater costs ', '900 dollars.'];
  const ODD = ['Odd ', 'bytes\u0000 here, ', 'a lone \ud800 surrogate', ' and the end.'];
  const BROKEN = ['This answer ', 'breaks off '];

  beforeAll(async () => {
    model = await startModelStandIn((body) => {
      const question = questionOf(body);
      if (question.includes('ODD-OUTPUT')) return { pieces: ODD };
      // The model's connection drops mid-answer.
      if (question.includes('BREAK-OFF')) return { pieces: BROKEN, dropAfterPieces: true };
      return { pieces: GOOD };
    });
    const mcpPort = await freePort();
    mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    mini = await startMiniSystem(['gateway', 'bots', 'knowledge', 'chat', 'mcp'], {
      CHAT_MODEL_PROVIDER: 'openai',
      CHAT_MODEL_BASE_URL: model.baseUrl,
      CHAT_MODEL_NAME: 'test-model',
      CHAT_MODEL_API_KEY: 'sk-test-key',
      CHAT_MODEL_MAX_RETRIES: '0',
      MCP_PORT: String(mcpPort),
    });
    db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
    // A database-level failure of the save, for the turns that ask for it.
    await db.query(`
      CREATE FUNCTION chat.e2e_refuse_save() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.content LIKE '%SAVE-FAILS%' THEN RAISE EXCEPTION 'e2e: this save is refused'; END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER e2e_refuse_save BEFORE INSERT ON chat.messages FOR EACH ROW EXECUTE FUNCTION chat.e2e_refuse_save()`);
    await waitFor(() => fetch(mcpUrl, { method: 'GET' }).then((r) => r.status).catch(() => 0), (st) => st > 0, 20000);
  });

  afterAll(async () => {
    await db?.end();
    await mini?.stop();
    await model?.close();
  });

  async function workspace(): Promise<{ id: string; token: string; bot: string }> {
    const ws = await admin<{ id: string }>(['workspace', 'create', '--name', 'Stream end', '--plan', 'scale', '--messages-per-month', '100'], mini.databaseUrl);
    const token = (await admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all'], mini.databaseUrl)).token;
    const bot = (await client(token, mini.baseUrl).post('/bots', { name: 'Streamer', language: 'en' })).body.data.id;
    return { id: ws.id, token, bot };
  }

  const used = async (tenantId: string): Promise<number> =>
    Number((await db.query(`SELECT coalesce(sum(messages), 0)::int AS n FROM chat.usage WHERE tenant_id = $1`, [tenantId])).rows[0].n);
  /** Widget turns are counted against their bot's widget budget, apart from the workspace quota. */
  const usedByWidget = async (tenantId: string): Promise<number> =>
    Number((await db.query(`SELECT coalesce(sum(messages), 0)::int AS n FROM chat.widget_usage WHERE tenant_id = $1`, [tenantId])).rows[0].n);
  const stored = async (tenantId: string, sessionId: string): Promise<{ role: string; content: string }[]> =>
    (await db.query(`SELECT role, content FROM chat.messages WHERE tenant_id = $1 AND session_id = $2 ORDER BY created_at, role DESC`, [tenantId, sessionId])).rows;

  function expectFrames(res: SseResult): { last: any; content: any[] } {
    expect(res.status).toBe(200);
    expect(res.raw).toMatch(/^(data: \{.*\}\n\n)+$/s);
    expect(res.raw).not.toContain('[DONE]');
    for (const f of res.frames) expect(typeof f.choices[0].delta.content).toBe('string');
    const content = res.frames.slice(0, -1);
    for (const f of content) expect(f.choices[0].finish_reason).toBeNull();
    return { last: res.frames.at(-1), content };
  }

  it('a complete answer ends with a frame whose finish_reason is "stop"; the turn is stored and counted once', async () => {
    const ws = await workspace();
    const res = await postSse('/chat', { message: 'How much is the premium heater?', chatbotId: ws.bot, sessionId: 'end-ok' }, ws.token, { baseUrl: mini.baseUrl });
    const { last, content } = expectFrames(res);
    expect(content.length).toBeGreaterThanOrEqual(GOOD.length);
    expect(last).toEqual({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }] });
    expect(res.raw.endsWith('data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\n')).toBe(true);
    expect(res.text).toBe(GOOD.join(''));
    expect((await stored(ws.id, 'end-ok')).map((m) => m.content)).toEqual(['How much is the premium heater?', GOOD.join('')]);
    expect(await used(ws.id)).toBe(1);
  });

  it('model output with NUL and a lone surrogate is stored well-formed, exactly as it was streamed', async () => {
    const ws = await workspace();
    const res = await postSse('/chat', { message: 'ODD-OUTPUT please', chatbotId: ws.bot, sessionId: 'end-odd' }, ws.token, { baseUrl: mini.baseUrl });
    expect((await stored(ws.id, 'end-odd')).length).toBe(2);
    const { last } = expectFrames(res);
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(res.text).toBe('Odd bytes here, a lone \ufffd surrogate and the end.');
    const rows = await stored(ws.id, 'end-odd');
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(rows[1].content).toBe(res.text);
    expect(await used(ws.id)).toBe(1);
  });

  it('a save that fails ends the REST stream with finish_reason "error" and an error object; nothing is stored and nothing is charged', async () => {
    const ws = await workspace();
    const res = await postSse('/chat', { message: 'SAVE-FAILS: how much is the premium heater?', chatbotId: ws.bot, sessionId: 'end-save-fails' }, ws.token, { baseUrl: mini.baseUrl });
    expect(await stored(ws.id, 'end-save-fails')).toEqual([]);
    expect(await used(ws.id)).toBe(0);
    expect(res.frames.at(-1).choices[0].finish_reason).toBe('error');
    const { last } = expectFrames(res);
    expect(res.text).toBe(GOOD.join(''));
    expect(last).toEqual({
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
      error: { code: 'internal_error', message: expect.stringMatching(/not saved/i) },
    });
  });

  it('the same through the widget: an error ending, no charge', async () => {
    const ws = await workspace();
    const gatewayUrl = mini.baseUrl.replace(/\/v1$/, '');
    const widgetUrl = `${gatewayUrl}/widget/v1/bots/${ws.bot}/chat`;
    const sessionId = await newWidgetSession(ws.bot, gatewayUrl);
    const res = await postSse('', { message: 'SAVE-FAILS from a visitor', sessionId }, 'unused', { baseUrl: widgetUrl });
    expect(await stored(ws.id, sessionId)).toEqual([]);
    expect([await usedByWidget(ws.id), await used(ws.id)]).toEqual([0, 0]);
    const { last } = expectFrames(res);
    expect(last.choices[0].finish_reason).toBe('error');
    expect(last.error.code).toBe('internal_error');
    // The next turn is stored and counted as usual, against the bot's widget budget.
    const ok = await postSse('', { message: 'And the price?', sessionId }, 'unused', { baseUrl: widgetUrl });
    expect(ok.frames.at(-1).choices[0].finish_reason).toBe('stop');
    expect([await usedByWidget(ws.id), await used(ws.id)]).toEqual([1, 0]);
  });

  it('MCP ask_bot: a save that fails is an isError result, not an answer, and is not charged', async () => {
    const ws = await workspace();
    const mcp = await mcpConnect(ws.token, { url: mcpUrl });
    try {
      const r = await mcp.call('ask_bot', { message: 'SAVE-FAILS via MCP', chatbotId: ws.bot, sessionId: 'end-mcp' });
      expect(await used(ws.id)).toBe(0);
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toBeUndefined();
      expect(errorOf(r)?.code).toBe('internal_error');
      expect(textOf(r)).toMatch(/not saved/i);
    } finally {
      await mcp.close();
    }
  });

  it('a model that breaks off mid-answer: finish_reason "error" on REST, isError on MCP; what was produced is stored and counted', async () => {
    const ws = await workspace();
    const res = await postSse('/chat', { message: 'BREAK-OFF please', chatbotId: ws.bot, sessionId: 'end-broken' }, ws.token, { baseUrl: mini.baseUrl });
    expect(res.frames.at(-1).choices[0].finish_reason).toBe('error');
    const { last } = expectFrames(res);
    expect(res.text).toBe(BROKEN.join(''));
    expect(last.choices[0].finish_reason).toBe('error');
    expect(last.error).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect((await stored(ws.id, 'end-broken')).map((m) => m.content)).toEqual(['BREAK-OFF please', BROKEN.join('')]);
    expect(await used(ws.id)).toBe(1);

    const mcp = await mcpConnect(ws.token, { url: mcpUrl });
    try {
      const r = await mcp.call('ask_bot', { message: 'BREAK-OFF via MCP', chatbotId: ws.bot });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toBeUndefined();
      expect(textOf(r)).toContain(BROKEN.join(''));
      expect(await used(ws.id)).toBe(2);
    } finally {
      await mcp.close();
    }
  });
});
