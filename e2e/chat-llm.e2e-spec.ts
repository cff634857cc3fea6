import { Client } from 'pg';
import { admin } from './support/admin';
import { client } from './support/api';
import { waitFor } from './support/apps';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { ModelStandIn, startModelStandIn } from './support/model-stand-in';
import { postSse } from './support/sse';

/**
 * The langchain path end to end: the chat service configured with an OpenAI-compatible model (a
 * local server speaking the OpenAI streaming wire format, since no remote model is reachable
 * here). Deltas reach the visitor as the model produces them, the reply language is instructed,
 * and a visitor who disconnects cancels the model request while what was produced is saved.
 */
describe('POST /v1/chat through a langchain chat model (OpenAI streaming wire format)', () => {
  let mini: MiniSystem;
  let model: ModelStandIn;
  let db: Client;
  const PIECES = ['The premium ', 'heater costs ', '900 dollars, ', 'installation ', 'included.'];
  const GAP_MS = 250;

  beforeAll(async () => {
    model = await startModelStandIn(() => ({ pieces: PIECES, gapMs: GAP_MS }));
    mini = await startMiniSystem(['gateway', 'bots', 'knowledge', 'chat'], {
      CHAT_MODEL_PROVIDER: 'openai',
      CHAT_MODEL_BASE_URL: model.baseUrl,
      CHAT_MODEL_NAME: 'test-model',
      CHAT_MODEL_API_KEY: 'sk-test-key',
      CHAT_MODEL_MAX_RETRIES: '0',
    });
    db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await mini?.stop();
    await model?.close();
  });

  async function token(): Promise<string> {
    const ws = await admin<{ id: string }>(['workspace', 'create', '--name', 'LLM', '--plan', 'scale'], mini.databaseUrl);
    return (await admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all'], mini.databaseUrl)).token;
  }

  it('streams the model’s deltas as they come: the first frame arrives well before the end', async () => {
    const tok = await token();
    const api = client(tok, mini.baseUrl);
    const kb = await api.post('/kb/ingest', { title: 'Prices', text: 'The premium heater costs 900 dollars including installation.' });
    await waitFor(async () => (await api.get('/kb')).body.data.find((d: any) => d.id === kb.body.data.id)?.status, (s) => s === 'ready', 20000);
    const res = await postSse('/chat', { message: 'How much is the premium heater?', language: 'ja-JP', sessionId: 'llm-1' }, tok, { baseUrl: mini.baseUrl });
    expect(res.status).toBe(200);
    expect(res.text).toBe(PIECES.join(''));
    expect(res.frames.length).toBeGreaterThanOrEqual(PIECES.length);
    expect(res.endMs - res.firstFrameMs!).toBeGreaterThanOrEqual(GAP_MS * (PIECES.length - 2));

    const sent = model.requests.at(-1)!.body;
    expect(sent.model).toBe('test-model');
    expect(sent.stream).toBe(true);
    const system = sent.messages.find((m: any) => m.role === 'system').content as string;
    expect(system).toMatch(/Japanese/);
    expect(system).toContain('900 dollars');
    expect(sent.messages.at(-1)).toEqual(expect.objectContaining({ role: 'user', content: 'How much is the premium heater?' }));
    const stored = await waitFor(async () => (await api.get('/conversations/llm-1')).body.data, (m: any[]) => m.length === 2);
    expect(stored[1].content).toBe(PIECES.join(''));
  });

  it('a visitor who disconnects cancels the model request; what was produced is saved', async () => {
    const tok = await token();
    const before = model.requests.length;
    const res = await postSse('/chat', { message: 'Tell me everything', sessionId: 'llm-2' }, tok, { baseUrl: mini.baseUrl, abortAfterFrames: 2 });
    expect(res.frames.length).toBe(2);
    await waitFor(async () => model.requests[before]?.closedEarly, (c) => c === true, 5000);
    const rows = await waitFor(
      async () => (await db.query(`SELECT role, content FROM chat.messages WHERE session_id = 'llm-2' ORDER BY created_at, role DESC`)).rows,
      (r) => r.length === 2,
      10000,
    );
    expect(rows[1].role).toBe('assistant');
    expect(PIECES.join('').startsWith(rows[1].content)).toBe(true);
    expect(rows[1].content.length).toBeGreaterThanOrEqual(PIECES[0].length + PIECES[1].length);
    expect(rows[1].content.length).toBeLessThan(PIECES.join('').length);
  });
});
