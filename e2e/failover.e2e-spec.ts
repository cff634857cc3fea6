import { Client } from 'pg';
import { admin } from './support/admin';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { freePort } from './support/infra';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { ModelStandIn, startModelStandIn } from './support/model-stand-in';
import { postSse, SseResult } from './support/sse';

/**
 * Failover with two replicas (issue 36), small enough for CI: two replicas of bots and of chat
 * behind one gateway. Under steady reads and writes, one bots replica is killed with SIGKILL: no
 * read fails (a read lost with its replica is asked again of the other), and a write is never run
 * twice: it is a 201 or, when its outcome is unknown, a 503 with Retry-After. Then one chat
 * replica is killed while answers stream (the model stand-in answers slowly): every stream ends,
 * those of the dead replica with finish_reason "error" within seconds (not at the 30 s idle limit),
 * and their messages are not charged: the live replica gives back what the dead one reserved.
 */
describe('failover: kill -9 one of two replicas under load', () => {
  let mini: MiniSystem;
  let model: ModelStandIn;
  let token: string;
  let wsId: string;
  let bot: string;
  const opsPorts: Record<string, number> = {};

  beforeAll(async () => {
    // Eight pieces 350 ms apart: each answer streams for about three seconds.
    model = await startModelStandIn(() => ({ pieces: ['We ', 'deliver ', 'on ', 'every ', 'weekday ', 'from ', 'nine ', 'to five.'], gapMs: 350 }));
    const modelPort = Number(new URL(model.baseUrl).port);
    mini = await startMiniSystem([], {
      CHAT_MODEL_PROVIDER: 'openai',
      CHAT_MODEL_BASE_URL: model.baseUrl,
      CHAT_MODEL_NAME: 'house-model',
      CHAT_MODEL_MAX_RETRIES: '0',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      OUTBOUND_ALLOWED_PORTS: `80,443,${modelPort}`,
      // A dead chat replica's reservations are given back after 2 s of silence (default 30 s).
      CHAT_RESERVATION_SWEEP_MS: '300',
      CHAT_RESERVATION_ORPHAN_MS: '2000',
    });
    for (const key of ['gateway', 'bots', 'bots-2', 'chat', 'chat-2', 'knowledge']) {
      opsPorts[key] = await freePort();
      mini.start(key.replace(/-2$/, ''), { OPS_PORT: String(opsPorts[key]) }, key);
    }
    const base = mini.baseUrl.replace(/\/v1$/, '');
    // The gateway's /readyz names every service; only those on this test's path run here.
    await waitFor(() => fetch(`${base}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 60000);
    wsId = (await admin<{ id: string }>(['workspace', 'create', '--name', 'Failover', '--plan', 'scale', '--bot-slots', '5000', '--messages-per-month', '100000'], mini.databaseUrl)).id;
    token = (await admin<{ token: string }>(['token', 'create', '--workspace', wsId, '--scopes', 'all'], mini.databaseUrl)).token;
    bot = (await waitFor(() => request('POST', '/bots', { name: 'Failover bot' }, { baseUrl: mini.baseUrl, token }), (r) => r.status === 201, 20000)).body.data.id;
    // Both replicas of each service take requests before the test begins.
    for (const key of ['bots', 'bots-2', 'chat', 'chat-2']) {
      await waitFor(() => fetch(`http://127.0.0.1:${opsPorts[key]}/readyz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 30000);
    }
  }, 180000);

  afterAll(async () => {
    await mini?.stop();
    await model?.close();
  });

  it('reads never fail and writes never run twice when a bots replica dies', async () => {
    const api = (method: string, path: string, body?: unknown) => request(method, path, body, { baseUrl: mini.baseUrl, token });
    const reads: string[] = [];
    const writes: { name: string; status: number; retryAfter: string | null }[] = [];
    let running = true;
    let n = 0;
    const loop = async (fn: () => Promise<void>) => {
      while (running) await fn();
    };
    const loops = [
      ...Array.from({ length: 6 }, () =>
        loop(async () => {
          const res = await api('GET', '/bots');
          reads.push(res.status === 200 ? 'ok' : `${res.status} ${res.text}`);
        }),
      ),
      ...Array.from({ length: 2 }, () =>
        loop(async () => {
          const name = `Write ${n++}`;
          const res = await api('POST', '/bots', { name });
          writes.push({ name, status: res.status, retryAfter: res.headers.get('retry-after') });
          await new Promise((r) => setTimeout(r, 20));
        }),
      ),
    ];
    await new Promise((r) => setTimeout(r, 1500));
    await mini.apps.get('bots')!.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 6000));
    running = false;
    await Promise.all(loops);

    const failedReads = reads.filter((r) => r !== 'ok');
    console.log(`failover (bots): ${reads.length} reads, ${failedReads.length} failed; ${writes.length} writes: ${JSON.stringify(countBy(writes.map((w) => w.status)))}`);
    expect(reads.length).toBeGreaterThan(100);
    expect(failedReads).toEqual([]);
    // A write is created (201), or its outcome is unknown: 503 with Retry-After, never another error.
    expect(writes.filter((w) => !(w.status === 201 || (w.status === 503 && w.retryAfter === '1')))).toEqual([]);
    // Never twice: each name at most once, and every 201 is there.
    const db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
    try {
      const rows = (await db.query(`SELECT name, count(*)::int AS n FROM bots.bots WHERE tenant_id = $1 AND name LIKE 'Write %' GROUP BY name`, [wsId])).rows as { name: string; n: number }[];
      expect(rows.filter((r) => r.n > 1)).toEqual([]);
      const stored = new Set(rows.map((r) => r.name));
      expect(writes.filter((w) => w.status === 201 && !stored.has(w.name))).toEqual([]);
    } finally {
      await db.end();
    }
  }, 60000);

  it('a chat replica that dies mid-answer ends its streams with finish_reason "error" within seconds; the other answers', async () => {
    const streams: Promise<SseResult>[] = [];
    for (let i = 0; i < 8; i++) streams.push(postSse('/chat', { message: 'When do you deliver?', chatbotId: bot, sessionId: `failover-${i}` }, token, { baseUrl: mini.baseUrl }));
    // Every turn has begun streaming (the first piece is out) before one chat replica dies.
    await waitFor(async () => model.requests.filter((r) => r.path === '/v1/chat/completions').length, (count) => count >= 8, 15000, 50);
    await new Promise((r) => setTimeout(r, 600));
    const killed = Date.now();
    await mini.apps.get('chat')!.kill('SIGKILL');
    const results = await Promise.all(streams);
    const endedAfterKill = Date.now() - killed;
    console.log(`failover (chat): ${JSON.stringify(countBy(results.map((r) => `${r.status} ${r.finishReason}`)))} in ${endedAfterKill} ms after the kill`);
    // Every stream opened and ended with a last frame: stop (the live replica) or error (the dead one).
    expect(results.map((r) => [r.status, ['stop', 'error'].includes(r.finishReason ?? '')])).toEqual(results.map(() => [200, true]));
    const broken = results.filter((r) => r.finishReason === 'error');
    // With eight turns over two replicas, the dead one held some (the queue group spreads them).
    expect(broken.length).toBeGreaterThan(0);
    expect(results.some((r) => r.finishReason === 'stop')).toBe(true);
    // Not at the 30 s idle limit: the silence limit (3.5 s) after the kill, plus the stream's end.
    expect(endedAfterKill).toBeLessThan(10000);
    for (const r of broken) expect(r.frames.at(-1).error).toEqual({ code: 'service_unavailable', message: 'The answer broke off: the chat service working on it stopped' });

    // Not charged: once the live replica has swept, the month's count is the stored turns' (the
    // dead replica stored none of its own), and no reservation is left open.
    const db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
    try {
      const counts = async () => {
        const [row] = (
          await db.query(
            `SELECT (SELECT coalesce(sum(messages), 0)::int FROM chat.usage WHERE tenant_id = $1) AS charged,
                    (SELECT count(*)::int FROM chat.messages WHERE tenant_id = $1 AND role = 'user') AS stored,
                    (SELECT count(*)::int FROM chat.turn_reservations WHERE tenant_id = $1) AS open`,
            [wsId],
          )
        ).rows;
        return row as { charged: number; stored: number; open: number };
      };
      const settled = await waitFor(counts, (c) => c.open === 0 && c.charged === c.stored, 15000, 200);
      expect(settled.stored).toBe(results.length - broken.length);
    } finally {
      await db.end();
    }
  }, 60000);
});

function countBy(values: (string | number)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}
