import { request } from './support/api';
import { SpawnedApp, spawnApp, waitFor } from './support/apps';
import { newWorkspace } from './support/fixtures';
import { freePort, PrivateNats, startPrivateNats } from './support/infra';

/**
 * A gateway whose back-end services are not there answers a clean 503 in the general error shape
 * at once (never a hang), and /readyz names what is missing; when the service arrives, it serves.
 */
describe('a back-end service that does not answer', () => {
  let nats: PrivateNats;
  const apps: SpawnedApp[] = [];
  let base: string;

  beforeAll(async () => {
    nats = await startPrivateNats();
    const port = await freePort();
    apps.push(spawnApp('gateway', { NATS_URL: nats.url, GATEWAY_PORT: String(port) }));
    base = `http://127.0.0.1:${port}`;
    await waitFor(() => fetch(`${base}/healthz`).then((r) => r.status), (s) => s === 200);
  });

  afterAll(async () => {
    for (const a of apps) await a.kill();
    await nats?.stop();
  });

  it('503 service_unavailable quickly, /readyz 503 listing the missing services, then 200 once bots runs', async () => {
    const ws = await newWorkspace();
    const started = Date.now();
    const res = await request('GET', '/bots', undefined, { token: ws.token, baseUrl: `${base}/v1` });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(expect.objectContaining({ code: 'service_unavailable', error: 'Service Unavailable', message: expect.stringContaining('bots') }));

    const ready = await request('GET', '/readyz', undefined, { baseUrl: base });
    expect(ready.status).toBe(503);
    expect(ready.body.missing.sort()).toEqual(['bookings', 'bots', 'channels', 'chat', 'evaluations', 'knowledge', 'leads', 'mcp', 'webhook-dispatcher']);

    apps.push(spawnApp('bots', { NATS_URL: nats.url }));
    const ok = await waitFor(() => request('GET', '/bots', undefined, { token: ws.token, baseUrl: `${base}/v1` }), (r) => r.status === 200);
    expect(ok.body).toEqual({ data: [] });
    const partly = await request('GET', '/readyz', undefined, { baseUrl: base });
    expect(partly.body.services.bots).toBe('up');
    expect(partly.body.missing).not.toContain('bots');
  });
});
