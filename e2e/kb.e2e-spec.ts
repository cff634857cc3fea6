import { Client } from 'pg';
import { request } from './support/api';
import { waitFor } from './support/apps';
import { newToken, newWorkspace, TestWorkspace } from './support/fixtures';
import { e2eState } from './support/state';
import { startTestSite, TestSite } from './support/test-site';

/** Ingestion through the gateway to the knowledge service, and the pipeline to ready or failed. */
describe('knowledge base: POST /v1/kb/ingest and GET /v1/kb (spec parts 2, 3, 4)', () => {
  const s = e2eState();
  let site: TestSite;
  let db: Client;

  beforeAll(async () => {
    site = await startTestSite(s.sitePort);
    db = new Client({ connectionString: s.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await site?.close();
    await db?.end();
  });

  const documents = async (ws: TestWorkspace, query = '') => (await ws.api.get(`/kb${query}`)).body.data as any[];
  const settled = (ws: TestWorkspace, id: string, timeoutMs = 20000) =>
    waitFor(
      async () => (await documents(ws)).find((d) => d.id === id),
      (d) => d && (d.status === 'ready' || d.status === 'failed'),
      timeoutMs,
    );
  const storedChunks = async (documentId: string) => (await db.query('SELECT count(*)::int AS n FROM knowledge.chunks WHERE document_id = $1', [documentId])).rows[0].n;

  it('queues a text document (202 {data:{id,status}}), which becomes ready with its chunk count', async () => {
    const ws = await newWorkspace();
    const text = Array.from({ length: 40 }, (_, i) => `Answer ${i}: the warranty covers the tank for ten years and the panel for five.`).join('\n\n');
    const res = await ws.api.post('/kb/ingest', { title: 'Warranty FAQ', text });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued' } });
    const doc = await settled(ws, res.body.data.id);
    expect(doc).toEqual({
      id: res.body.data.id,
      title: 'Warranty FAQ',
      source_url: null,
      source_type: 'snippet',
      status: 'ready',
      chunk_count: expect.any(Number),
      chatbot_id: null,
      created_at: expect.any(String),
      failure_reason: null,
      // x-extension members of issue 19 (re-sync): a text document is never re-synced.
      resync_schedule: 'none',
      last_synced_at: expect.any(String),
      next_sync_at: null,
      parent_id: null,
    });
    expect(doc.chunk_count).toBeGreaterThanOrEqual(3);
    expect(await storedChunks(doc.id)).toBe(doc.chunk_count);
  });

  it('ingests a page by URL: main text only, through a redirect, with the page title', async () => {
    const ws = await newWorkspace();
    const bot = (await ws.api.post('/bots', { name: 'Site bot' })).body.data;
    const res = await ws.api.post('/kb/ingest', { title: 'Old pricing link', url: `${site.origin}/old-pricing`, chatbotId: bot.id });
    expect(res.status).toBe(202);
    const doc = await settled(ws, res.body.data.id);
    expect(doc).toEqual(expect.objectContaining({ status: 'ready', source_type: 'url', source_url: `${site.origin}/old-pricing`, chatbot_id: bot.id }));
    expect(doc.chunk_count).toBeGreaterThanOrEqual(1);
    const { rows } = await db.query('SELECT text FROM knowledge.chunks WHERE document_id = $1 ORDER BY ordinal', [doc.id]);
    const stored = rows.map((r) => r.text).join(' ');
    expect(stored).toContain('premium heater costs 900 dollars');
    expect(stored).not.toContain('Cookie settings');
  });

  it('a site root adds the sitemap’s same-site pages (robots.txt respected), each counted', async () => {
    const ws = await newWorkspace(['--plan', 'growth', '--pages-per-bot', '10']);
    const res = await ws.api.post('/kb/ingest', { title: 'Example site', url: `${site.origin}/` });
    await settled(ws, res.body.data.id);
    const all = await waitFor(() => documents(ws), (docs) => docs.length >= 3 && docs.every((d) => d.status === 'ready' || d.status === 'failed'), 30000);
    const urls = all.map((d) => d.source_url).sort();
    expect(urls).toEqual([`${site.origin}/`, `${site.origin}/docs/setup`, `${site.origin}/pricing`].sort());
    expect(all.every((d) => d.status === 'ready')).toBe(true);
    expect(site.hits.get('/private/secret') ?? 0).toBe(0);
  });

  it('markdown is kept as text', async () => {
    const ws = await newWorkspace();
    const res = await ws.api.post('/kb/ingest', { title: 'Notes', url: `${site.origin}/notes.md` });
    const doc = await settled(ws, res.body.data.id);
    expect(doc.status).toBe('ready');
  });

  it.each([
    ['a 404 page', '/missing-page', /404/],
    ['an oversized page', '/huge', /larger than/],
    ['a page robots.txt disallows', '/private/secret', /robots\.txt/],
  ])('%s fails with a readable reason', async (_label, path, reason) => {
    const ws = await newWorkspace();
    const res = await ws.api.post('/kb/ingest', { title: 'Bad page', url: `${site.origin}${path}` });
    expect(res.status).toBe(202);
    const doc = await settled(ws, res.body.data.id);
    expect(doc.status).toBe('failed');
    expect(doc.chunk_count).toBe(0);
    expect(doc.failure_reason).toMatch(reason);
  });

  it.each(['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', `http://127.0.0.2:${0}/`, 'http://[::1]/', 'http://0x7f000002/', 'http://localhost/'])(
    'a blocked address (%s) fails without any connection',
    async (url) => {
      const ws = await newWorkspace();
      const target = url.replace(':0/', `:${s.sitePort}/`);
      const res = await ws.api.post('/kb/ingest', { title: 'Blocked', url: target });
      expect(res.status).toBe(202);
      const doc = await settled(ws, res.body.data.id);
      expect(doc.status).toBe('failed');
      expect(doc.failure_reason).toMatch(/loopback|private|link-local|blocked|internal|not allowed|refused/i);
    },
  );

  it('validates the body: 400 for title limits, neither url nor text, text over 200,000, non-http URLs, unknown fields', async () => {
    const ws = await newWorkspace();
    const cases: [unknown, string][] = [
      [{ text: 'x' }, 'title'],
      [{ title: '', text: 'x' }, 'title'],
      [{ title: 't'.repeat(301), text: 'x' }, 'title'],
      [{ title: 'No source' }, 'url'],
      [{ title: 'Empty', text: '' }, 'text'],
      [{ title: 'Huge', text: 'y'.repeat(200_001) }, 'text'],
      [{ title: 'FTP', url: 'ftp://example.com/file' }, 'url'],
      [{ title: 'Not a URL', url: 'not a url' }, 'url'],
      [{ title: 'Bad bot', text: 'x', chatbotId: 'bot-1' }, 'chatbotId'],
      [{ title: 'Extra', text: 'x', source_type: 'qa' }, 'source_type'],
    ];
    for (const [body, field] of cases) {
      const res = await ws.api.post('/kb/ingest', body);
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
      expect(res.body.success).toBe(false);
      expect(res.body.error.issues.map((i: any) => i.path.join('.'))).toContain(`body.${field}`);
    }
    expect((await ws.api.post('/kb/ingest', { title: 't'.repeat(300), text: 'y'.repeat(200_000) })).status).toBe(202);
    expect((await ws.api.get('/kb?chatbotId=nope')).status).toBe(400);
    expect((await ws.api.get('/kb?page=1')).status).toBe(400);
  });

  it('402 when the bot’s page quota is used up; failed documents do not count', async () => {
    const ws = await newWorkspace(['--plan', 'growth', '--pages-per-bot', '2']);
    const bot = (await ws.api.post('/bots', { name: 'Quota bot' })).body.data;
    const failed = await ws.api.post('/kb/ingest', { title: 'Missing', url: `${site.origin}/nowhere`, chatbotId: bot.id });
    await settled(ws, failed.body.data.id);
    expect((await ws.api.post('/kb/ingest', { title: 'One', text: 'one', chatbotId: bot.id })).status).toBe(202);
    expect((await ws.api.post('/kb/ingest', { title: 'Two', text: 'two', chatbotId: bot.id })).status).toBe(202);
    const over = await ws.api.post('/kb/ingest', { title: 'Three', text: 'three', chatbotId: bot.id });
    expect(over.status).toBe(402);
    expect(over.body).toEqual(expect.objectContaining({ code: 'quota_exhausted', error: 'Payment Required' }));
    // Workspace-wide knowledge has its own quota bucket.
    expect((await ws.api.post('/kb/ingest', { title: 'Shared', text: 'shared' })).status).toBe(202);
  });

  it('concurrent ingests never overshoot the page quota', async () => {
    const ws = await newWorkspace(['--plan', 'growth', '--pages-per-bot', '3']);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => ws.api.post('/kb/ingest', { title: `Doc ${i}`, text: `text ${i}` })));
    expect(results.filter((r) => r.status === 202)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402)).toHaveLength(5);
  });

  it('bot restrictions: a restricted token must send an allowed chatbotId (403); a foreign bot is 404', async () => {
    const ws = await newWorkspace();
    const mine = (await ws.api.post('/bots', { name: 'Mine' })).body.data;
    const other = (await ws.api.post('/bots', { name: 'Other' })).body.data;
    const restricted = await newToken(ws.id, ['--scopes', 'kb:read,kb:write', '--bots', mine.id]);
    expect((await restricted.api.post('/kb/ingest', { title: 'No bot', text: 'x' })).status).toBe(403);
    expect((await restricted.api.post('/kb/ingest', { title: 'Other bot', text: 'x', chatbotId: other.id })).status).toBe(403);
    expect((await restricted.api.post('/kb/ingest', { title: 'Mine', text: 'x', chatbotId: mine.id })).status).toBe(202);
    expect((await restricted.api.get('/kb')).status).toBe(403);
    expect((await restricted.api.get(`/kb?chatbotId=${other.id}`)).status).toBe(403);
    const listed = await restricted.api.get(`/kb?chatbotId=${mine.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((d: any) => d.title)).toEqual(['Mine']);

    const stranger = await newWorkspace();
    const foreign = await stranger.api.post('/kb/ingest', { title: 'Foreign', text: 'x', chatbotId: mine.id });
    expect(foreign.status).toBe(404);
    expect((await stranger.api.get(`/kb?chatbotId=${mine.id}`)).status).toBe(404);
    expect(await documents(stranger)).toEqual([]);
  });

  it('GET /kb lists newest first, filtered by chatbotId, and scopes are enforced', async () => {
    const ws = await newWorkspace();
    const bot = (await ws.api.post('/bots', { name: 'Filter bot' })).body.data;
    await ws.api.post('/kb/ingest', { title: 'First', text: 'a' });
    await ws.api.post('/kb/ingest', { title: 'Second', text: 'b', chatbotId: bot.id });
    await ws.api.post('/kb/ingest', { title: 'Third', text: 'c' });
    expect((await documents(ws)).map((d) => d.title)).toEqual(['Third', 'Second', 'First']);
    expect((await documents(ws, `?chatbotId=${bot.id}`)).map((d) => d.title)).toEqual(['Second']);
    const readOnly = await newToken(ws.id, ['--scopes', 'kb:read']);
    expect((await readOnly.api.post('/kb/ingest', { title: 'x', text: 'x' })).status).toBe(403);
    const none = await request('GET', '/kb');
    expect(none.status).toBe(401);
  });
});
