import { Client } from 'pg';
import { admin } from './support/admin';
import { client } from './support/api';
import { waitFor } from './support/apps';
import { MiniSystem, startMiniSystem } from './support/mini-system';
import { e2eState } from './support/state';
import { startTestSite, TestSite } from './support/test-site';

/**
 * The ingestion queue survives the knowledge service: SIGKILL while documents are queued and one is
 * being fetched loses nothing (the lease expires and the document is taken over), and SIGTERM hands
 * claimed documents back at once. Several replicas never process a document twice.
 */
describe('knowledge service restarts mid-ingestion', () => {
  const s = e2eState();
  let mini: MiniSystem;
  let site: TestSite;
  let db: Client;

  beforeAll(async () => {
    site = await startTestSite(s.sitePort);
    mini = await startMiniSystem(['gateway', 'bots', 'knowledge'], { KNOWLEDGE_LEASE_MS: '2500', KNOWLEDGE_POLL_MS: '200', OUTBOUND_TIMEOUT_MS: '10000', SHUTDOWN_GRACE_MS: '500' });
    db = new Client({ connectionString: mini.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await mini?.stop();
    await site?.close();
  });

  async function workspace() {
    const ws = await admin<{ id: string }>(['workspace', 'create', '--name', 'Restart', '--plan', 'scale'], mini.databaseUrl);
    const tok = await admin<{ token: string }>(['token', 'create', '--workspace', ws.id, '--scopes', 'all'], mini.databaseUrl);
    return client(tok.token, mini.baseUrl);
  }

  const statuses = async () => (await db.query(`SELECT id, status, chunk_count, attempts FROM knowledge.documents ORDER BY created_at`)).rows;

  it('SIGKILL during processing: every document still reaches ready, each processed once to completion', async () => {
    const api = await workspace();
    const slow = await api.post('/kb/ingest', { title: 'Slow page', url: `http://127.0.0.1:${s.sitePort}/slow` });
    expect(slow.status).toBe(202);
    const texts = [];
    for (let i = 0; i < 10; i++) texts.push((await api.post('/kb/ingest', { title: `Text ${i}`, text: `Document ${i} explains the installation steps in detail. `.repeat(50) })).body.data.id);
    await waitFor(async () => (await statuses()).find((d) => d.id === slow.body.data.id)?.status, (st) => st === 'processing', 10000);
    await mini.apps.get('knowledge')!.kill('SIGKILL');
    const before = await statuses();
    expect(before.some((d) => d.status !== 'ready')).toBe(true);
    mini.start('knowledge');
    const after = await waitFor(statuses, (rows) => rows.length === 11 && rows.every((d) => d.status === 'ready'), 45000);
    for (const d of after) {
      const { rows } = await db.query('SELECT count(*)::int AS n, count(DISTINCT ordinal)::int AS distinct_n FROM knowledge.chunks WHERE document_id = $1', [d.id]);
      expect(rows[0].n).toBe(d.chunk_count);
      expect(rows[0].distinct_n).toBe(d.chunk_count);
    }
    expect(texts).toHaveLength(10);
  });

  it('SIGTERM hands a claimed document back at once, and two replicas share the queue', async () => {
    const api = await workspace();
    const slow = await api.post('/kb/ingest', { title: 'Slow again', url: `http://127.0.0.1:${s.sitePort}/slow` });
    await waitFor(async () => (await db.query('SELECT status FROM knowledge.documents WHERE id = $1', [slow.body.data.id])).rows[0]?.status, (st) => st === 'processing', 10000);
    await mini.apps.get('knowledge')!.kill('SIGTERM');
    const released = (await db.query('SELECT status, attempts FROM knowledge.documents WHERE id = $1', [slow.body.data.id])).rows[0];
    expect(released.status).toBe('queued');
    mini.start('knowledge');
    mini.start('knowledge', {}, 'knowledge-replica');
    const done = await waitFor(async () => (await db.query('SELECT status, attempts FROM knowledge.documents WHERE id = $1', [slow.body.data.id])).rows[0], (r) => r.status === 'ready', 30000);
    expect(done.attempts).toBe(1);
  });
});
