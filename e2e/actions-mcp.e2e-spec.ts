import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
// Test-only dependency.
import { type LocalMcpServer, startLocalMcpServer } from '@sa/testing';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { ConsoleSystem, PeopleOfWorkspace, startConsoleSystem, workspaceWithPeople } from './support/console-system';
import { ModelStandIn, StandInAnswer, startModelStandIn, toolResultsOf, toolsOf } from './support/model-stand-in';
import { postSse } from './support/sse';

/**
 * A tool of a remote MCP server, added in the console, called in a conversation (issue 34, item 3
 * and its Done-when): a real MCP server built with the official SDK on 127.0.0.1 over https (a
 * certificate of this run the services trust through NODE_EXTRA_CA_CERTS) checking a bearer
 * token; the installation's model a local OpenAI stand-in that calls the tool. The read-only tool
 * runs at once and the answer uses its result; a write tool waits for the visitor and runs only
 * when confirmed; a tool switched off in the console is not offered; the token is in no answer,
 * record or log.
 */
const PASSWORD = 'correct horse battery staple';
const TOKEN = 'mcp-chat-e2e-token-93b0d6a2c5e1f748';

describe('MCP tools in conversations (issue 34, item 3)', () => {
  let sys: ConsoleSystem;
  let model: ModelStandIn;
  let mcp: LocalMcpServer;
  let db: Client;
  let a: PeopleOfWorkspace;
  let bot: string;
  let tmp: string;
  let script: (body: any) => StandInAnswer;
  const servers = (suffix = '') => `/api/workspaces/${a.ws.id}/bots/${bot}/mcp-servers${suffix}`;
  const chat = (message: string, sessionId: string, extra: Record<string, unknown> = {}) => postSse('/chat', { message, sessionId, chatbotId: bot, ...extra }, a.token, { baseUrl: sys.apiUrl });
  const actionsOf = (frames: any[]) => frames.filter((f) => f.action).map((f) => [f.action.name, f.action.state]);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-mcp-chat-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(tmp, 'key.pem'), '-out', path.join(tmp, 'cert.pem')], { stdio: 'ignore' });
    mcp = await startLocalMcpServer({ token: TOKEN, tls: { key: fs.readFileSync(path.join(tmp, 'key.pem')), cert: fs.readFileSync(path.join(tmp, 'cert.pem')) } });
    script = () => ({ pieces: ['Hello.'] });
    model = await startModelStandIn((body) => script(body));
    sys = await startConsoleSystem(
      { CHAT_MODEL_PROVIDER: 'openai', CHAT_MODEL_BASE_URL: model.baseUrl, CHAT_MODEL_NAME: 'house-model', CHAT_MODEL_MAX_RETRIES: '0', NODE_EXTRA_CA_CERTS: path.join(tmp, 'cert.pem') },
      { apps: ['gateway', 'bots', 'knowledge', 'chat', 'console'], allowPorts: [mcp.port, Number(new URL(model.baseUrl).port)] },
    );
    db = new Client({ connectionString: sys.mini.databaseUrl });
    await db.connect();
    a = await workspaceWithPeople(sys, 'Acme MCP chat', { owner: 'owen@mcpchat.example', member: 'mina@mcpchat.example', password: PASSWORD });
    bot = (await waitFor(() => request('POST', '/bots', { name: 'Shop desk', language: 'en' }, { token: a.token, baseUrl: sys.apiUrl }), (r) => r.status === 201, 20000)).body.data.id;
    const created = await a.owner.post(servers(), { name: 'shop', url: mcp.url, token: TOKEN });
    expect(created.status).toBe(201);
    const synced = await a.owner.post(servers(`/${created.body.data.id}/sync`));
    expect(synced.body.data.error).toBeNull();
    // Only the two tools this suite uses stay on.
    expect((await a.owner.patch(servers(`/${created.body.data.id}`), { tools: ['echo_auth', 'fail', 'slow'].map((name) => ({ name, enabled: false })) })).status).toBe(200);
  }, 240000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
    await Promise.all([model?.close(), mcp?.stop()]);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("the MCP server's read-only tool is called with the model's input and the answer uses its result", async () => {
    script = (body) => {
      const results = toolResultsOf(body);
      if (!results.length) return { pieces: [], toolCalls: [{ name: 'shop_order_status', input: { order_id: 'A-1001' } }] };
      const found = JSON.parse(JSON.parse(results[0].content).result);
      return { pieces: [`Order ${found.order_id} is ${found.status} with ${found.carrier}.`] };
    };
    const res = await chat('Where is my order A-1001?', 'mcp-chat-1');
    expect(res.status).toBe(200);
    expect(res.text).toBe('Order A-1001 is shipped with Yamato.');
    expect(actionsOf(res.frames)).toEqual([
      ['shop_order_status', 'running'],
      ['shop_order_status', 'done'],
    ]);
    expect(mcp.calls).toEqual([{ tool: 'order_status', args: { order_id: 'A-1001' } }]);
    // Offered: the tools switched on only, under their model names.
    expect(toolsOf(model.requests.at(-2)!.body).map((t: { name: string }) => t.name).sort()).toEqual(['shop_cancel_order', 'shop_order_status']);
    const { rows } = await db.query(`SELECT action_name, source, state, ok FROM chat.action_calls WHERE tenant_id = $1`, [a.ws.id]);
    expect(rows).toEqual([{ action_name: 'shop_order_status', source: 'mcp', state: 'ran', ok: true }]);
  });

  it("the server's write tool waits for the visitor and runs once confirmed", async () => {
    script = (body) =>
      toolResultsOf(body).length ? { pieces: ['It is cancelled.'] } : { pieces: [], toolCalls: [{ name: 'shop_cancel_order', input: { order_id: 'A-1001' } }] };
    const asked = await chat('Cancel order A-1001', 'mcp-chat-2');
    const waiting = asked.frames.find((f) => f.action?.state === 'awaiting_confirmation').action;
    expect(waiting).toMatchObject({ name: 'shop_cancel_order', input: { order_id: 'A-1001' } });
    expect(mcp.calls.filter((c) => c.tool === 'cancel_order')).toEqual([]);
    const done = await chat('Yes', 'mcp-chat-2', { action_confirmation: { call_id: waiting.call_id, confirm: true } });
    expect(done.text).toBe('It is cancelled.');
    expect(actionsOf(done.frames)).toEqual([
      ['shop_cancel_order', 'running'],
      ['shop_cancel_order', 'done'],
    ]);
    expect(mcp.calls.filter((c) => c.tool === 'cancel_order')).toEqual([{ tool: 'cancel_order', args: { order_id: 'A-1001' } }]);
  });

  it('the token is in no record and no log', async () => {
    const { rows } = await db.query(`SELECT row_to_json(c)::text AS row FROM chat.action_calls c WHERE tenant_id = $1`, [a.ws.id]);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.row).not.toContain(TOKEN);
    for (const app of sys.mini.apps.values()) {
      if (app.logFile && fs.existsSync(app.logFile)) expect(fs.readFileSync(app.logFile, 'utf8')).not.toContain(TOKEN);
    }
  });
});
