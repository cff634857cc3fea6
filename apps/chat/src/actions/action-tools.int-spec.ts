import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { ActionSpec, ModelConnectionSpec } from '@sa/contracts';
import { connectionCalls } from '@sa/llm-config';
import { DEFAULT_OUTBOUND_POLICY, outboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
// Test-only dependency.
import { startModelStandIn, toolResultsOf, toolsOf } from '@sa/testing';
import { createConnectionChatModel } from '../answer/chat-model';
import { actionTools, modelParameters } from './action-tools';
import { type LoopEvent, toolLoop } from './tool-loop';

/*
 * A bot's actions as the tool loop's tools (issue 34), against a local "shop API" (a real HTTP
 * server on 127.0.0.1, allowed by the test's outbound policy as an operator's OUTBOUND_* would):
 * the visitor's id is the service's, never the model's; the header secret reaches the shop and
 * nothing else; bad input and the policy stop a call before it leaves.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

const SECRET = `shop-key-${randomBytes(8).toString('hex')}`;
const box = new SecretBox(randomBytes(32));

let server: Server;
let port: number;
const seen: Seen[] = [];
let delayMs = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://shop');
    const send = () => {
      if (url.pathname.startsWith('/orders/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ order_id: decodeURIComponent(url.pathname.slice(8)), status: 'shipped', carrier: 'Yamato' }));
      } else if (url.pathname === '/my-orders') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ customer: url.searchParams.get('customer'), orders: ['A-1001'] }));
      } else res.writeHead(404).end();
    };
    if (delayMs) setTimeout(send, delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
  delayMs = 0;
});

const shop = () => `http://127.0.0.1:${port}`;
const policy = () => outboundPolicy({ allowedPorts: [port], allowCidrs: ['127.0.0.1/32'] });

function spec(over: Partial<ActionSpec>): ActionSpec {
  return {
    id: 'a1',
    name: 'get_order_status',
    description: 'Looks up an order.',
    method: 'GET',
    url: `${shop()}/orders/{order_id}`,
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    header_names: ['X-Api-Key'],
    headers_sealed: box.seal(JSON.stringify({ 'X-Api-Key': SECRET })),
    confirm: false,
    verified_only: false,
    user_id_param: null,
    updated_at: '2026-11-29T00:00:00.000Z',
    ...over,
  };
}

const MY_ORDERS = (): ActionSpec =>
  spec({
    name: 'my_orders',
    url: `${shop()}/my-orders`,
    parameters: { type: 'object', properties: { customer: { type: 'string' }, status: { type: 'string' } }, required: ['customer'] },
    verified_only: true,
    user_id_param: 'customer',
  });

const run = (tool: ReturnType<typeof actionTools>[number], input: Record<string, unknown>) => tool.run(input, new AbortController().signal);

describe('actionTools', () => {
  it("hides the parameter the service fills from the model's schema", () => {
    expect(modelParameters(MY_ORDERS())).toEqual({ type: 'object', properties: { status: { type: 'string' } } });
    expect(MY_ORDERS().parameters.required).toEqual(['customer']);
    expect(modelParameters(spec({}))).toEqual(spec({}).parameters);
  });

  it("fills the verified visitor's id, whatever the model wrote there, and sends the header secret to the shop only", async () => {
    const [tool] = actionTools([MY_ORDERS()], { box, policy: policy(), externalUserId: 'cust-42', call: { allowHttp: true } });

    const outcome = await run(tool, { customer: 'someone-else', status: 'open' });

    expect(outcome).toMatchObject({ ok: true, status: 200, error: null });
    expect(JSON.parse(outcome.result)).toEqual({ customer: 'cust-42', orders: ['A-1001'] });
    expect(seen).toHaveLength(1);
    expect(new URL(seen[0].url, 'http://shop').searchParams.get('customer')).toBe('cust-42');
    expect(seen[0].headers['x-api-key']).toBe(SECRET);
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(tool.verifiedOnly).toBe(true);
  });

  it('without a verified visitor, an action with the visitor id parameter never leaves', async () => {
    const [tool] = actionTools([MY_ORDERS()], { box, policy: policy(), externalUserId: null, call: { allowHttp: true } });
    expect(await run(tool, { customer: 'cust-42' })).toMatchObject({ ok: false, error: 'needs_verified_visitor' });
    expect(seen).toEqual([]);
  });

  it("input that does not fit the action's schema never leaves", async () => {
    const [tool] = actionTools([spec({})], { box, policy: policy(), externalUserId: null, call: { allowHttp: true } });
    const outcome = await run(tool, { order_id: 1001 });
    expect(outcome).toMatchObject({ ok: false, error: 'invalid_input' });
    expect(outcome.message).toContain('order_id');
    expect(seen).toEqual([]);
  });

  it('the outbound policy refuses a private address: nothing is sent', async () => {
    const [tool] = actionTools([spec({})], { box, policy: DEFAULT_OUTBOUND_POLICY, externalUserId: null, call: { allowHttp: true } });
    expect(await run(tool, { order_id: 'A-1001' })).toMatchObject({ ok: false, error: 'blocked' });
    expect(seen).toEqual([]);
  });

  it('a slow endpoint is cut at the timeout with a clear message', async () => {
    delayMs = 1500;
    const [tool] = actionTools([spec({})], { box, policy: policy(), externalUserId: null, call: { allowHttp: true, timeoutMs: 200 } });
    const started = Date.now();
    const outcome = await run(tool, { order_id: 'A-1001' });
    expect(outcome).toMatchObject({ ok: false, error: 'timeout', message: 'The endpoint took longer than 200 ms' });
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it('through the tool loop and the OpenAI stand-in: the order-status question calls the shop with the right input and the answer uses the result', async () => {
    const standIn = await startModelStandIn(
      (body) => {
        const [result] = toolResultsOf(body);
        if (!result) return { pieces: [], toolCalls: [{ name: 'get_order_status', input: { order_id: 'A-1001' } }] };
        const data = JSON.parse(JSON.parse(result.content).result);
        return { pieces: [`Your order ${data.order_id} has ${data.status} with ${data.carrier}.`] };
      },
      { apiKey: 'sk-local-test', models: ['toy-chat'] },
    );
    try {
      const connection: ModelConnectionSpec = { id: 'c1', kind: 'openai', base_url: standIn.baseUrl, model: 'toy-chat', api_key_sealed: null, updated_at: '2026-01-01T00:00:00.000Z' };
      const calls = connectionCalls({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', OUTBOUND_ALLOWED_PORTS: new URL(standIn.baseUrl).port, MODEL_CONNECTION_MAX_RETRIES: '0' });
      const model = createConnectionChatModel(connection, 'sk-local-test', 0.2, calls);
      const tools = actionTools([spec({}), MY_ORDERS()], { box, policy: policy(), externalUserId: null, call: { allowHttp: true } });

      const events: LoopEvent[] = [];
      for await (const e of toolLoop(model, [new SystemMessage('You are a support assistant.'), new HumanMessage('Where is my order A-1001?')], tools, { maxCalls: 3, verified: false, signal: new AbortController().signal })) events.push(e);

      expect(seen.map((s) => [s.method, s.url])).toEqual([['GET', '/orders/A-1001']]);
      expect(events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('')).toBe('Your order A-1001 has shipped with Yamato.');
      // The model saw both actions, the visitor id parameter hidden.
      const offered = toolsOf(standIn.requests[0].body);
      expect(offered.map((t) => t.name)).toEqual(['get_order_status', 'my_orders']);
      expect(Object.keys((offered[1].schema as { properties: object }).properties)).toEqual(['status']);
      // No secret in anything the model received.
      expect(JSON.stringify(standIn.requests.map((r) => r.body))).not.toContain(SECRET);
    } finally {
      await standIn.close();
    }
  });
});
