import { randomUUID } from 'node:crypto';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { startRoutedSite, type RoutedSite } from '@sa/testing';
import { waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { postSse } from './support/sse';
import { e2eState } from './support/state';

/**
 * Q&A documents and re-sync (issue 19) against the running system: knowledge.document.add-qa,
 * .resync and .schedule over NATS with the caller context the console or gateway builds, seen
 * through GET /v1/kb and answered by POST /v1/chat (the default extractive responder).
 */
describe('knowledge: Q&A pairs and re-sync over NATS', () => {
  const s = e2eState();
  let nc: NatsConnection;
  let db: Client;
  let site: RoutedSite;
  let ws: TestWorkspace;
  let bot: string;

  const ctxOf = (tenantId: string, pagesPerBot = 50) => ({
    tenantId,
    tokenId: null,
    scopes: ['kb:read', 'kb:write'],
    botIds: null,
    requestId: `e2e-${randomUUID()}`,
    entitlements: { plan: 'growth', botSlots: 3, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5000, pagesPerBot, widgetMessagesPerBotPerMonth: 2000, webhooks: false },
  });

  async function rpc(subject: string, ctx: unknown, data: Record<string, unknown>): Promise<{ response?: any; err?: any }> {
    const msg = await nc.request(subject, Buffer.from(JSON.stringify({ pattern: subject, id: randomUUID(), data: { ctx, data } })), { timeout: 10_000 });
    return JSON.parse(Buffer.from(msg.data).toString('utf8'));
  }

  const documents = async (w: TestWorkspace) => (await w.api.get('/kb')).body.data as any[];
  const chunkRows = async (documentId: string) =>
    (await db.query('SELECT seq::text AS seq, text FROM knowledge.chunks WHERE document_id = $1 ORDER BY ordinal', [documentId])).rows as { seq: string; text: string }[];

  const page = (title: string, body: string, links: string[] = []) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>` +
    `<main><article><h1>${title}</h1>${[1, 2, 3].map((i) => `<p>${body} (part ${i}); questions are answered by our support team on weekdays.</p>`).join('')}</article></main></body></html>`;
  const serve = (pages: Record<string, string>) => {
    site.routes.clear();
    for (const [path, html] of Object.entries(pages)) site.routes.set(path, (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  };

  beforeAll(async () => {
    nc = await connect({ servers: s.natsUrl });
    db = new Client({ connectionString: s.databaseUrl });
    await db.connect();
    site = await startRoutedSite(s.crawlSitePort);
    ws = await newWorkspace(['--plan', 'growth', '--pages-per-bot', '20']);
    bot = (await ws.api.post('/bots', { name: 'Lamp helper', language: 'en' })).body.data.id;
  });

  afterAll(async () => {
    await nc?.drain();
    await db?.end();
    await site?.close();
  });

  it('add-qa answers with a ready qa document at once; GET /v1/kb lists it and the next chat answers with it', async () => {
    const { response: doc, err } = await rpc('knowledge.document.add-qa', ctxOf(ws.id), {
      question: 'Can I pay for a lamp in instalments?',
      answer: 'Yes: the Lumen Flex plan splits any lamp into four interest-free monthly instalments.',
      chatbotId: bot,
    });
    expect(err).toBeUndefined();
    expect(doc).toEqual(
      expect.objectContaining({ source_type: 'qa', title: 'Can I pay for a lamp in instalments?', status: 'ready', chunk_count: 1, chatbot_id: bot, source_url: null, failure_reason: null }),
    );
    expect((await documents(ws)).find((d) => d.id === doc.id)).toEqual(expect.objectContaining({ source_type: 'qa', status: 'ready', chunk_count: 1, resync_schedule: 'none' }));
    expect((await chunkRows(doc.id)).map((c) => c.text)).toEqual(['Q: Can I pay for a lamp in instalments?\nA: Yes: the Lumen Flex plan splits any lamp into four interest-free monthly instalments.']);
    const chat = await postSse('/chat', { message: 'Can I pay for a lamp in instalments?', chatbotId: bot }, ws.token);
    expect(chat.status).toBe(200);
    expect(chat.text).toContain('Lumen Flex plan');
  });

  it('add-qa refuses another workspace’s bot (404), bad input (400) and a full quota (402)', async () => {
    const other = await newWorkspace();
    expect((await rpc('knowledge.document.add-qa', ctxOf(other.id), { question: 'Q?', answer: 'A', chatbotId: bot })).err).toEqual(expect.objectContaining({ code: 'not_found' }));
    expect((await rpc('knowledge.document.add-qa', ctxOf(other.id), { question: 'Q?', answer: '' })).err).toEqual(expect.objectContaining({ code: 'validation_failed' }));
    expect((await rpc('knowledge.document.add-qa', ctxOf(other.id, 1), { question: 'Q1?', answer: 'A1' })).err).toBeUndefined();
    expect((await rpc('knowledge.document.add-qa', ctxOf(other.id, 1), { question: 'Q2?', answer: 'A2' })).err).toEqual(expect.objectContaining({ code: 'quota_exhausted' }));
  });

  it('re-sync re-embeds only the page that changed; schedule sets the next run', async () => {
    const pages = {
      '/': page('Lamp shop', 'Welcome to the lamp shop in Mombasa', ['/delivery', '/warranty']),
      '/delivery': page('Delivery', 'Lamps are delivered within three days by courier'),
      '/warranty': page('Warranty', 'Every lamp carries a two year warranty'),
    };
    serve(pages);
    const rootId = (await ws.api.post('/kb/ingest', { title: 'Lamp shop', url: `${site.url}/`, chatbotId: bot })).body.data.id;
    const crawled = await waitFor(
      async () => (await documents(ws)).filter((d) => d.source_type === 'url'),
      (docs) => docs.length === 3 && docs.every((d) => d.status === 'ready'),
      30_000,
    );
    expect(crawled.filter((d) => d.parent_id === rootId)).toHaveLength(2);
    const before = new Map<string, { seq: string; text: string }[]>();
    for (const d of crawled) before.set(d.id, await chunkRows(d.id));
    const warranty = crawled.find((d) => d.source_url === `${site.url}/warranty`)!;

    serve({ ...pages, '/warranty': page('Warranty', 'Every lamp now carries a five year warranty') });
    const root = crawled.find((d) => d.id === rootId)!;
    const { response: queued, err } = await rpc('knowledge.document.resync', ctxOf(ws.id), { documentId: rootId });
    expect(err).toBeUndefined();
    expect(queued).toEqual(expect.objectContaining({ id: rootId, status: 'queued' }));
    // While it is queued or processing, a second re-sync is refused.
    const again = await rpc('knowledge.document.resync', ctxOf(ws.id), { documentId: rootId });
    if (again.err) expect(again.err).toEqual(expect.objectContaining({ code: 'conflict' }));
    const after = await waitFor(
      async () => (await documents(ws)).filter((d) => d.source_type === 'url'),
      (docs) => docs.length === 3 && docs.every((d) => d.status === 'ready' && Date.parse(d.last_synced_at) > Date.parse(root.last_synced_at)),
      30_000,
    );
    for (const d of after) {
      const rows = await chunkRows(d.id);
      if (d.id === warranty.id) {
        expect(rows.map((r) => r.text).join(' ')).toContain('five year warranty');
        expect(rows.some((r) => before.get(d.id)!.some((o) => o.seq === r.seq))).toBe(false);
      } else {
        expect(rows).toEqual(before.get(d.id));
      }
    }
    const chat = await postSse('/chat', { message: 'How long is the lamp warranty?', chatbotId: bot }, ws.token);
    expect(chat.text).toContain('five year warranty');

    const { response: scheduled } = await rpc('knowledge.document.schedule', ctxOf(ws.id), { documentId: rootId, schedule: 'weekly' });
    expect(scheduled.resync_schedule).toBe('weekly');
    expect(Date.parse(scheduled.next_sync_at) - Date.parse(scheduled.last_synced_at)).toBe(7 * 86_400_000);
    const qa = (await documents(ws)).find((d) => d.source_type === 'qa')!;
    expect((await rpc('knowledge.document.resync', ctxOf(ws.id), { documentId: qa.id })).err).toEqual(expect.objectContaining({ code: 'bad_request' }));
    expect((await rpc('knowledge.document.resync', ctxOf(randomUUID()), { documentId: rootId })).err).toEqual(expect.objectContaining({ code: 'not_found' }));
  });
});
