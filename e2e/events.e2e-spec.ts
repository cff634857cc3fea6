import { EventEnvelope } from '@sa/contracts';
import { spawnApp, waitFor } from './support/apps';
import { newWorkspace } from './support/fixtures';
import { EventProbe, startEventProbe } from './support/event-probe';

/**
 * Creating a bot emits an internal bot.created event through the bots service's outbox and the
 * JetStream relay; a durable consumer sees each exactly once, also when a bots replica (and its
 * relay) is killed with SIGKILL in the middle of the traffic and started again.
 */
describe('bot.created through the outbox, JetStream and a durable consumer', () => {
  let probe: EventProbe;

  beforeAll(async () => {
    probe = await startEventProbe('bots', ['bot.created'], { ackWaitMs: 5000 });
  });

  afterAll(async () => {
    await probe?.stop();
  });

  it('each created bot is consumed once, with its payload', async () => {
    const ws = await newWorkspace(['--plan', 'scale', '--bot-slots', '100']);
    const bot = (await ws.api.post('/bots', { name: 'Evented', language: 'ko-KR' })).body.data;
    const [event] = (await waitFor(async () => probe.seen.filter((e) => e.tenant_id === ws.id), (v) => v.length >= 1)) as EventEnvelope<'bot.created'>[];
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'bot.created',
      tenant_id: ws.id,
      occurred_at: expect.any(String),
      data: { bot_id: bot.id, name: 'Evented', language: 'ko-KR', slot_kind: 'plan', enterprise_plan_tier: null },
    });
  });

  it('exactly once across a SIGKILL of a bots replica during traffic', async () => {
    const ws = await newWorkspace(['--plan', 'scale', '--bot-slots', '500']);
    let replica = spawnApp('bots');
    await new Promise((r) => setTimeout(r, 1500));
    const created: string[] = [];
    const create = async (i: number) => {
      const res = await ws.api.post('/bots', { name: `Churn ${i}` });
      if (res.status === 201) created.push(res.body.data.id);
      return res.status;
    };
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push(await create(i));
    await replica.kill('SIGKILL');
    for (let i = 30; i < 60; i++) statuses.push(await create(i));
    replica = spawnApp('bots');
    for (let i = 60; i < 90; i++) statuses.push(await create(i));
    // Requests routed to the replica at the instant it died may fail cleanly; none may be lost once a 201 was given.
    expect(statuses.every((st) => st === 201 || st === 503)).toBe(true);
    expect(created.length).toBeGreaterThanOrEqual(85);
    const mine = await waitFor(async () => probe.seen.filter((e) => e.tenant_id === ws.id), (v) => v.length >= created.length, 20000);
    await new Promise((r) => setTimeout(r, 1500));
    const ids = probe.seen.filter((e) => e.tenant_id === ws.id).map((e) => (e as EventEnvelope<'bot.created'>).data.bot_id);
    expect(ids.sort()).toEqual([...created].sort());
    expect(new Set(mine.map((e) => e.id)).size).toBe(mine.length);
    const [{ pending }] = await probe.db.query(`SELECT count(*)::int AS pending FROM bots.outbox WHERE published_at IS NULL`);
    expect(pending).toBe(0);
    await replica.kill();
  });
});
