import { createHash, randomBytes } from 'node:crypto';
import { discoverAuthorizationServerMetadata, exchangeAuthorization, refreshAuthorization, registerClient, startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { ACTION_MAX_RESULT_CHARS } from '@sa/actions';
import type { McpServerSpec, McpToolSpec, ModelConnectionSpec } from '@sa/contracts';
import { connectionCalls } from '@sa/llm-config';
import { DEFAULT_OUTBOUND_POLICY, outboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { type LocalMcpServer, startLocalMcpServer, startLocalOAuthServer, startModelStandIn, toolResultsOf, toolsOf } from '@sa/testing';
import { createConnectionChatModel } from '../answer/chat-model';
import { mcpTools } from './mcp-tools';
import { type LoopEvent, toolLoop } from './tool-loop';

/*
 * A bot's MCP servers' tools as the tool loop's tools (issue 34, item 3), against a real MCP
 * server on 127.0.0.1 built with the official SDK, which checks the bearer token: a call goes
 * through the guard with the token (opened from its seal for the call), the token is in no
 * outcome even when the server echoes it, bad input and the policy stop a call before it leaves,
 * failures are outcomes; and through the loop with the OpenAI stand-in, the model's call reaches
 * the server and the answer uses its result. With OAuth (a real authorization server, oidc-provider):
 * an expired access token, or one the server refuses, is traded once through `freshAuth` (in the
 * app: bots.mcp-server.token; here the same refresh with the SDK) and the call goes through.
 */

const TOKEN = `mcp-chat-${randomBytes(8).toString('hex')}`;
const box = new SecretBox(randomBytes(32));
let mcp: LocalMcpServer;

beforeAll(async () => {
  mcp = await startLocalMcpServer({ token: TOKEN });
});
afterAll(async () => {
  await mcp?.stop();
});
beforeEach(() => {
  mcp.seen.length = 0;
  mcp.calls.length = 0;
  mcp.slowMs = 0;
});

const policy = () => outboundPolicy({ allowedPorts: [mcp.port], allowCidrs: ['127.0.0.1/32'] });
const ORDER_SCHEMA = { type: 'object', properties: { order_id: { type: 'string', minLength: 1 } }, required: ['order_id'], additionalProperties: false };

function toolSpec(name: string, over: Partial<McpToolSpec> = {}): McpToolSpec {
  return { name, model_name: `shop_${name}`, description: `The ${name} tool.`, input_schema: name === 'order_status' ? ORDER_SCHEMA : { type: 'object', properties: {} }, confirm: false, verified_only: false, ...over };
}

function server(over: Partial<McpServerSpec> = {}): McpServerSpec {
  return {
    id: 's1',
    name: 'shop',
    url: mcp.url,
    auth_sealed: box.seal(JSON.stringify({ type: 'bearer', token: TOKEN })),
    tools: [toolSpec('order_status'), toolSpec('echo_auth'), toolSpec('fail'), toolSpec('slow')],
    updated_at: '2026-11-29T00:00:00.000Z',
    ...over,
  };
}

const byName = (tools: ReturnType<typeof mcpTools>, name: string) => tools.find((t) => t.name === name)!;
const run = (tools: ReturnType<typeof mcpTools>, name: string, input: Record<string, unknown>) => byName(tools, name).run(input, new AbortController().signal);
const ctx = (over: Partial<Parameters<typeof mcpTools>[1]> = {}) => ({ box, policy: policy(), call: { allowHttp: true, timeoutMs: 3000 }, ...over });

describe('mcpTools', () => {
  it('offers each enabled tool under a safe, unique name, with its flags and schema', () => {
    const tools = mcpTools([server({ tools: [toolSpec('order_status', { confirm: true, verified_only: true })] }), server({ id: 's2', tools: [toolSpec('order_status')] })], ctx({ reserved: ['Shop_Order_Status'] }));
    expect(tools.map((t) => [t.name, t.source, t.label, t.confirm, t.verifiedOnly])).toEqual([
      ['shop_order_status_2', 'mcp', null, true, true],
      ['shop_order_status_3', 'mcp', null, false, false],
    ]);
    expect(tools[0]!.parameters).toEqual(ORDER_SCHEMA);
    const odd = mcpTools([server({ tools: [toolSpec('x', { model_name: '9 weird.name/' })] })], ctx());
    expect(odd[0]!.name).toMatch(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/);
  });

  it('calls the tool on the server with the bearer token and returns its text', async () => {
    const tools = mcpTools([server()], ctx());
    const outcome = await run(tools, 'shop_order_status', { order_id: 'A-1001' });
    expect(outcome).toMatchObject({ ok: true, status: null, error: null });
    expect(JSON.parse(outcome.result)).toEqual({ order_id: 'A-1001', status: 'shipped', carrier: 'Yamato' });
    expect(mcp.calls).toEqual([{ tool: 'order_status', args: { order_id: 'A-1001' } }]);
    expect(mcp.seen.length).toBeGreaterThan(0);
    expect(mcp.seen.every((r) => r.headers['authorization'] === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('cuts the token out of what a careless server echoes', async () => {
    const outcome = await run(mcpTools([server()], ctx()), 'shop_echo_auth', {});
    expect(outcome.ok).toBe(true);
    expect(outcome.result).toContain('you sent: Bearer [redacted]');
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
  });

  it('input that does not fit the schema never leaves; a wrong token is refused by the server; an error result is ok: false', async () => {
    const tools = mcpTools([server()], ctx());
    expect(await run(tools, 'shop_order_status', { order_id: 1001 })).toMatchObject({ ok: false, error: 'invalid_input' });
    expect(await run(tools, 'shop_order_status', { order_id: 'A', extra: 'x' })).toMatchObject({ ok: false, error: 'invalid_input' });
    expect(mcp.seen).toEqual([]);

    const wrong = mcpTools([server({ auth_sealed: box.seal(JSON.stringify({ type: 'bearer', token: 'not-the-token' })) })], ctx());
    const refused = await run(wrong, 'shop_order_status', { order_id: 'A-1' });
    expect(refused).toMatchObject({ ok: false, error: 'unauthorized' });
    expect(JSON.stringify(refused)).not.toContain('not-the-token');
    expect(mcp.calls).toEqual([]);

    const failed = await run(tools, 'shop_fail', {});
    expect(failed).toMatchObject({ ok: false, error: 'tool_error', result: 'the shop is closed' });
  });

  it('the outbound policy refuses 127.0.0.1 without an allowed range: nothing is sent, no throw', async () => {
    for (const p of [DEFAULT_OUTBOUND_POLICY, outboundPolicy({ allowedPorts: [mcp.port] })]) {
      const outcome = await run(mcpTools([server()], ctx({ policy: p })), 'shop_order_status', { order_id: 'A-1001' });
      expect(outcome).toMatchObject({ ok: false, error: 'blocked' });
    }
    // https only, unless a test allows http.
    expect(await run(mcpTools([server()], { box, policy: policy() }), 'shop_order_status', { order_id: 'A-1001' })).toMatchObject({ ok: false, error: 'blocked' });
    expect(mcp.seen).toEqual([]);
  });

  it('a slow tool is cut at the deadline, and a result is capped at the size of an action result', async () => {
    mcp.slowMs = 2000;
    const started = Date.now();
    const late = await run(mcpTools([server()], ctx({ call: { allowHttp: true, timeoutMs: 300 } })), 'shop_slow', {});
    expect(late).toMatchObject({ ok: false, error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1500);

    const long = await run(mcpTools([server()], ctx()), 'shop_order_status', { order_id: 'x'.repeat(ACTION_MAX_RESULT_CHARS * 2) });
    expect(long.ok).toBe(true);
    expect(long.result.length).toBeLessThanOrEqual(ACTION_MAX_RESULT_CHARS + 1);
  });

  it('through the tool loop and the OpenAI stand-in: the question calls the MCP tool and the answer uses its result', async () => {
    const standIn = await startModelStandIn(
      (body) => {
        const [result] = toolResultsOf(body);
        if (!result) return { pieces: [], toolCalls: [{ name: 'shop_order_status', input: { order_id: 'A-1001' } }] };
        const data = JSON.parse(JSON.parse(result.content).result);
        return { pieces: [`Your order ${data.order_id} has ${data.status} with ${data.carrier}.`] };
      },
      { apiKey: 'sk-local-test', models: ['toy-chat'] },
    );
    try {
      const connection: ModelConnectionSpec = { id: 'c1', kind: 'openai', base_url: standIn.baseUrl, model: 'toy-chat', api_key_sealed: null, updated_at: '2026-01-01T00:00:00.000Z' };
      const calls = connectionCalls({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', OUTBOUND_ALLOWED_PORTS: new URL(standIn.baseUrl).port, MODEL_CONNECTION_MAX_RETRIES: '0' });
      const model = createConnectionChatModel(connection, 'sk-local-test', 0.2, calls);
      const events: LoopEvent[] = [];
      const tools = mcpTools([server({ tools: [toolSpec('order_status')] })], ctx());
      for await (const e of toolLoop(model, [new SystemMessage('You are a support assistant.'), new HumanMessage('Where is my order A-1001?')], tools, { maxCalls: 3, verified: false, signal: new AbortController().signal })) events.push(e);
      expect(mcp.calls).toEqual([{ tool: 'order_status', args: { order_id: 'A-1001' } }]);
      expect(events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('')).toBe('Your order A-1001 has shipped with Yamato.');
      expect(toolsOf(standIn.requests[0]!.body).map((t) => t.name)).toEqual(['shop_order_status']);
      expect(JSON.stringify(standIn.requests.map((r) => r.body))).not.toContain(TOKEN);
    } finally {
      await standIn.close();
    }
  });
});

describe('mcpTools with an OAuth access token', () => {
  const REDIRECT = 'http://127.0.0.1:9/callback';
  it('trades an expired token before the call, and a refused one after the 401, once; the tokens are in no outcome', async () => {
    const rs = await startLocalMcpServer();
    const as = await startLocalOAuthServer({ resource: rs.url });
    rs.oauth = { authorizationServer: as.issuer, active: (t) => as.active(t) };
    try {
      // A connection as the bots service makes it (the SDK's functions, the consent page's Allow).
      const metadata = await discoverAuthorizationServerMetadata(as.issuer);
      const client = await registerClient(as.issuer, { metadata, clientMetadata: { client_name: 't', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] } });
      const { authorizationUrl, codeVerifier } = await startAuthorization(as.issuer, { metadata, clientInformation: client, redirectUrl: REDIRECT, resource: new URL(rs.url), state: 's1', scope: 'orders:read orders:write' });
      const back = await as.consent(authorizationUrl.toString());
      let tokens = await exchangeAuthorization(as.issuer, { metadata, clientInformation: client, authorizationCode: back.searchParams.get('code')!, codeVerifier, redirectUri: REDIRECT, resource: new URL(rs.url) });
      const asked: (string | null)[] = [];
      const freshAuth = async (serverId: string, staleHash: string | null) => {
        expect(serverId).toBe('s1');
        asked.push(staleHash);
        tokens = await refreshAuthorization(as.issuer, { metadata, clientInformation: client, refreshToken: tokens.refresh_token!, resource: new URL(rs.url) });
        return box.seal(JSON.stringify({ type: 'oauth', token: tokens.access_token, expires_at: new Date(Date.now() + 3600_000).toISOString() }));
      };
      const policy = outboundPolicy({ allowedPorts: [rs.port, as.port], allowCidrs: ['127.0.0.1/32'] });
      const spec = (token: string, expires_at: string | null): McpServerSpec => ({
        id: 's1',
        name: 'shop',
        url: rs.url,
        auth_sealed: box.seal(JSON.stringify({ type: 'oauth', token, expires_at })),
        tools: [toolSpec('order_status'), toolSpec('echo_auth')],
        updated_at: '2026-11-29T00:00:00.000Z',
      });
      const first = tokens.access_token;

      // Expired by its date: traded before the call (no stale hash: nothing was refused).
      const expired = mcpTools([spec(first, new Date(Date.now() - 1000).toISOString())], { box, policy, freshAuth, call: { allowHttp: true, timeoutMs: 5000 } });
      const ok = await run(expired, 'shop_order_status', { order_id: 'A-1' });
      expect(ok).toMatchObject({ ok: true });
      expect(asked).toEqual([null]);

      // Refused by the server (401) while its date says fresh: traded with the refused token's hash, called again.
      const second = tokens.access_token;
      rs.refuse.add(second);
      const refusedOnce = mcpTools([spec(second, new Date(Date.now() + 3600_000).toISOString())], { box, policy, freshAuth, call: { allowHttp: true, timeoutMs: 5000 } });
      const echoed = await run(refusedOnce, 'shop_echo_auth', {});
      expect(echoed.ok).toBe(true);
      expect(asked).toEqual([null, createHash('sha256').update(second).digest('hex')]);
      expect(echoed.result).toBe('you sent: Bearer [redacted]');
      for (const t of [first, second, tokens.access_token]) expect(JSON.stringify([ok, echoed])).not.toContain(t);

      // Without freshAuth (or when it has nothing), a refusal is the outcome: no loop.
      rs.refuse.add(tokens.access_token);
      const none = mcpTools([spec(tokens.access_token, null)], { box, policy, freshAuth: async () => null, call: { allowHttp: true, timeoutMs: 5000 } });
      expect(await run(none, 'shop_order_status', { order_id: 'A-1' })).toMatchObject({ ok: false, error: 'unauthorized' });
    } finally {
      await as.stop();
      await rs.stop();
    }
  });
});
