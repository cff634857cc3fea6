import { metricNameProblems } from '@sa/metrics';
import { admin } from './support/admin';
import { request } from './support/api';
import { spawnApp, SpawnedApp, waitFor } from './support/apps';
import { newWorkspace } from './support/fixtures';
import { freePort, startPrivateNats } from './support/infra';
import { mcpConnect } from './support/mcp';
import { findPromtool, promtoolCheckMetrics } from './support/promtool';
import { postSse } from './support/sse';
import { e2eState } from './support/state';
import { startTcpProxy, TcpProxy } from './support/tcp-proxy';
import { startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';
import { newWidgetSession } from './support/widget';

/** Every app's ops endpoint: /healthz, /readyz that means something, /metrics that moves with traffic. */

type Samples = Map<string, number>;

async function scrape(url: string): Promise<Samples> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const samples: Samples = new Map();
  for (const line of (await res.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    samples.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include every `labels` pair. */
function sum(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const [series, value] of samples) {
    if (series !== name && !series.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) total += value;
  }
  return total;
}

describe('ops endpoints (/healthz, /readyz, /metrics) on every app', () => {
  const s = e2eState();
  const apps = Object.keys(s.opsUrls);

  it('every one of the eleven apps is live and ready, with NATS and PostgreSQL checked (the MCP server has no database)', async () => {
    expect(apps.sort()).toEqual(['bookings', 'bots', 'channels', 'chat', 'console', 'evaluations', 'gateway', 'knowledge', 'leads', 'mcp', 'webhook-dispatcher']);
    for (const app of apps) {
      const live = await fetch(`${s.opsUrls[app]}/healthz`);
      expect([app, live.status, ((await live.json()) as any).service]).toEqual([app, 200, app]);
      const ready = await fetch(`${s.opsUrls[app]}/readyz`);
      const checks = app === 'mcp' ? { nats: 'up' } : { nats: 'up', postgres: 'up' };
      expect([app, ready.status, await ready.json()]).toEqual([app, 200, { status: 'ready', service: app, checks }]);
    }
  });

  it('every app runs on the Node.js that runs the suite (CI runs it under Node 20 and Node 24: the apps must follow)', async () => {
    for (const app of apps) {
      const samples = await scrape(s.opsUrls[app]);
      const version = [...samples.keys()].find((k) => k.startsWith('nodejs_version_info{'))?.match(/version="([^"]+)"/)?.[1];
      expect([app, version]).toEqual([app, process.version]);
    }
  });

  describe('after traffic the counters have moved', () => {
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      receiver = await startWebhookReceiver(s.receiverPort);
    });
    afterAll(async () => {
      await receiver?.stop();
    });

    it('HTTP, NATS, chat streams, MCP, ingestion, outbox, event consumers and webhooks', async () => {
      const before = Object.fromEntries(await Promise.all(apps.map(async (app) => [app, await scrape(s.opsUrls[app])] as const)));

      const ws = await newWorkspace(['--plan', 'scale', '--messages-per-month', '1000']);
      const bot = (await ws.api.post('/bots', { name: 'Metrics bot' })).body.data.id as string;
      await admin(['webhook', 'create', '--workspace', ws.id, '--url', receiver.url('/metrics-hook'), '--events', 'ticket.created']);
      const doc = (await ws.api.post('/kb/ingest', { title: 'Hours', text: 'We are open from nine to five on weekdays.', chatbotId: bot })).body.data.id;
      await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === doc)?.status, (st) => st === 'ready', 20000);
      expect((await postSse('/chat', { message: 'When are you open?', chatbotId: bot }, ws.token)).status).toBe(200);
      const mcp = await mcpConnect(ws.token);
      await mcp.call('list_bots');
      await mcp.close();
      const ticket = await request('POST', `/widget/v1/bots/${bot}/tickets`, { sessionId: await newWidgetSession(bot), email: 'a@example.com', subject: 'Hi', message: 'Help' }, { baseUrl: s.gatewayUrl });
      expect(ticket.status).toBe(201);
      await waitFor(async () => receiver.on('/metrics-hook').length, (n) => n >= 1, 20000);

      const after = Object.fromEntries(await Promise.all(apps.map(async (app) => [app, await scrape(s.opsUrls[app])] as const)));
      const moved = (app: string, name: string, labels: Record<string, string> = {}) => sum(after[app], name, labels) - sum(before[app], name, labels);

      expect(moved('gateway', 'sa_http_requests_total', { route: '/v1/bots', method: 'POST', status: '201' })).toBe(1);
      expect(moved('gateway', 'sa_http_requests_total', { route: '/v1/chat', status: '200' })).toBe(1);
      expect(moved('gateway', 'sa_http_request_duration_seconds_count', { route: '/v1/kb' })).toBeGreaterThanOrEqual(1);
      expect(moved('gateway', 'sa_rpc_client_requests_total', { subject: 'bots.bot.create', outcome: 'ok' })).toBe(1);
      expect(moved('bots', 'sa_rpc_handled_total', { subject: 'bots.bot.create', outcome: 'ok' })).toBe(1);
      expect(moved('bots', 'sa_rpc_handle_duration_seconds_count', { subject: 'bots.bot.create' })).toBe(1);
      expect(moved('chat', 'sa_rpc_handled_total', { subject: 'chat.turn.start', outcome: 'ok' })).toBe(1);
      expect(sum(after['gateway'], 'sa_chat_streams_open')).toBe(0);
      expect(sum(after['gateway'], 'sa_chat_streams_open', { channel: 'api' })).toBe(0);
      expect(after['gateway'].has('sa_chat_streams_open{channel="api",service="gateway"}')).toBe(true);
      expect(moved('mcp', 'sa_mcp_tool_calls_total', { tool: 'list_bots', outcome: 'ok' })).toBe(1);
      expect(moved('mcp', 'sa_http_requests_total', { route: '/mcp', method: 'POST' })).toBeGreaterThanOrEqual(2);
      expect(moved('knowledge', 'sa_ingestion_documents_total', { outcome: 'ready' })).toBeGreaterThanOrEqual(1);
      expect(after['knowledge'].has('sa_ingestion_queue_documents{status="queued",service="knowledge"}')).toBe(true);
      expect(after['knowledge'].has('sa_ingestion_queue_oldest_seconds{status="processing",service="knowledge"}')).toBe(true);
      expect(after['bots'].has('sa_outbox_unpublished{schema="bots",service="bots"}')).toBe(true);
      expect(after['chat'].has('sa_outbox_oldest_unpublished_seconds{schema="chat",service="chat"}')).toBe(true);
      expect(moved('webhook-dispatcher', 'sa_events_handled_total', { consumer: 'webhook-dispatcher', type: 'ticket.created', outcome: 'handled' })).toBeGreaterThanOrEqual(1);
      expect(moved('webhook-dispatcher', 'sa_webhook_attempts_total', { outcome: 'succeeded', status_class: '2xx' })).toBeGreaterThanOrEqual(1);
      expect(moved('webhook-dispatcher', 'sa_webhook_attempt_duration_seconds_count', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
      for (const app of apps) expect([app, sum(after[app], 'process_cpu_seconds_total') > 0]).toEqual([app, true]);
    });

    it('every /metrics passes promtool check metrics (and the naming rules, with or without promtool)', async () => {
      const promtool = findPromtool();
      for (const app of apps) {
        const exposition = await (await fetch(`${s.opsUrls[app]}/metrics`)).text();
        expect([app, metricNameProblems(exposition)]).toEqual([app, []]);
        // Standard names, so stock Node.js dashboards work: no prefix on the process metrics.
        expect([app, /^process_resident_memory_bytes\{/m.test(exposition), /^nodejs_eventloop_lag_seconds\{/m.test(exposition)]).toEqual([app, true, true]);
        if (promtool) expect([app, promtoolCheckMetrics(promtool, exposition)]).toEqual([app, { status: 0, output: '' }]);
      }
    });
  });

  describe('readiness means something', () => {
    let app: SpawnedApp | undefined;
    let proxy: TcpProxy | undefined;

    afterAll(async () => {
      await app?.kill('SIGKILL');
      await proxy?.close();
    });

    it('/readyz answers 503 naming the dependency while NATS or PostgreSQL is unreachable, and 200 again once back', async () => {
      // PostgreSQL through a TCP proxy the test can cut; NATS of its own that the test can stop.
      const pg = new URL(s.databaseUrl);
      proxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432));
      const nats = await startPrivateNats();
      const opsPort = await freePort();
      const viaProxy = new URL(s.databaseUrl);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      app = spawnApp('bots', { NATS_URL: nats.url, DATABASE_URL: viaProxy.toString(), OPS_PORT: String(opsPort), READY_CHECK_TIMEOUT_MS: '500' });
      const readyz = async () => {
        const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => null);
        return res ? { status: res.status, body: (await res.json()) as any } : { status: 0, body: null as any };
      };
      expect((await waitFor(readyz, (r) => r.status === 200, 30000)).body.checks).toEqual({ nats: 'up', postgres: 'up' });

      proxy.cut();
      const pgDown = await waitFor(readyz, (r) => r.status === 503, 10000);
      expect(pgDown.body.checks.postgres).toMatch(/^down/);
      expect((await fetch(`http://127.0.0.1:${opsPort}/healthz`)).status).toBe(200);
      proxy.restore();
      expect((await waitFor(readyz, (r) => r.status === 200, 15000)).status).toBe(200);

      await nats.stop();
      const natsDown = await waitFor(readyz, (r) => r.status === 503, 10000);
      expect(natsDown.body.checks.nats).toMatch(/^down/);
      expect(natsDown.body.checks.postgres).toBe('up');
    });
  });
});
