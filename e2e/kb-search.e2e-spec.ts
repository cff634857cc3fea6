import { randomUUID } from 'node:crypto';
import { connect, NatsConnection } from 'nats';
import { waitFor } from './support/apps';
import { newWorkspace, TestWorkspace } from './support/fixtures';
import { e2eState } from './support/state';

/**
 * Retrieval for the chat service: knowledge.passage.search over NATS, with the caller context the
 * gateway builds. Bot-specific knowledge stays with its bot; workspace-wide knowledge is shared by
 * every bot of the workspace; nothing crosses workspaces.
 */
describe('knowledge.passage.search over NATS', () => {
  const s = e2eState();
  let nc: NatsConnection;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let botX: string;
  let botY: string;

  const ctxOf = (tenantId: string, botIds: string[] | null = null) => ({
    tenantId,
    tokenId: randomUUID(),
    scopes: ['chat:invoke'],
    botIds,
    requestId: `e2e-${randomUUID()}`,
    entitlements: { plan: 'growth', botSlots: 3, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 5000, pagesPerBot: 500, widgetMessagesPerBotPerMonth: 2000, webhooks: false },
  });

  async function search(ctx: unknown, data: Record<string, unknown>): Promise<{ response?: any[]; err?: any }> {
    const msg = await nc.request('knowledge.passage.search', Buffer.from(JSON.stringify({ pattern: 'knowledge.passage.search', id: randomUUID(), data: { ctx, data } })), { timeout: 5000 });
    return JSON.parse(Buffer.from(msg.data).toString('utf8'));
  }

  async function ingestAndWait(ws: TestWorkspace, body: Record<string, unknown>): Promise<string> {
    const id = (await ws.api.post('/kb/ingest', body)).body.data.id;
    await waitFor(async () => (await ws.api.get('/kb')).body.data.find((d: any) => d.id === id)?.status, (st) => st === 'ready', 20000);
    return id;
  }

  beforeAll(async () => {
    nc = await connect({ servers: s.natsUrl });
    a = await newWorkspace();
    b = await newWorkspace();
    botX = (await a.api.post('/bots', { name: 'Bot X' })).body.data.id;
    botY = (await a.api.post('/bots', { name: 'Bot Y' })).body.data.id;
    await ingestAndWait(a, { title: 'Shipping policy', text: 'Shipping is free for orders over 50 dollars. Parcels arrive within three business days.' });
    await ingestAndWait(a, { title: 'X pricing', text: 'The solar heater costs 450 dollars; installation is included in Nairobi.', chatbotId: botX });
    await ingestAndWait(a, { title: 'Y secret', text: 'The solar heater discount code for partners is PARTNER-77.', chatbotId: botY });
    await ingestAndWait(a, { title: '配送について', text: '東京都内への配送は通常二日以内に届きます。送料は無料です。' });
    await ingestAndWait(b, { title: 'Other workspace', text: 'The solar heater costs 999 dollars at the other company.' });
  });

  afterAll(async () => {
    await nc?.drain();
  });

  it('returns passages with text, score, document id, title and source URL, best first', async () => {
    const { response, err } = await search(ctxOf(a.id), { query: 'how long does shipping take?', chatbotId: null, k: 3 });
    expect(err).toBeUndefined();
    expect(response![0]).toEqual({ text: expect.stringContaining('three business days'), score: expect.any(Number), document_id: expect.any(String), title: 'Shipping policy', source_url: null, chunk_id: expect.any(String) });
    const scores = response!.map((p) => p.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
  });

  it('a bot sees its own and the workspace-wide knowledge, never another bot’s', async () => {
    const forX = (await search(ctxOf(a.id), { query: 'solar heater price discount', chatbotId: botX, k: 10 })).response!;
    const titles = forX.map((p) => p.title);
    expect(titles).toContain('X pricing');
    expect(titles).not.toContain('Y secret');
    const shipping = (await search(ctxOf(a.id), { query: 'shipping free orders', chatbotId: botX, k: 10 })).response!;
    expect(shipping.map((p) => p.title)).toContain('Shipping policy');
  });

  it('finds Japanese knowledge for a Japanese question', async () => {
    const res = (await search(ctxOf(a.id), { query: '配送は何日かかりますか', chatbotId: null, k: 2 })).response!;
    expect(res[0].title).toBe('配送について');
  });

  it('never returns another workspace’s knowledge, and checks bots against the caller', async () => {
    const fromB = (await search(ctxOf(b.id), { query: 'solar heater costs dollars', chatbotId: null, k: 10 })).response!;
    expect(fromB.map((p) => p.title)).toEqual(['Other workspace']);
    const foreignBot = await search(ctxOf(b.id), { query: 'heater', chatbotId: botX });
    expect(foreignBot.err).toEqual(expect.objectContaining({ code: 'not_found' }));
    const restricted = await search(ctxOf(a.id, [botX]), { query: 'heater', chatbotId: botY });
    expect(restricted.err).toEqual(expect.objectContaining({ code: 'bot_access_denied' }));
    const restrictedNoBot = await search(ctxOf(a.id, [botX]), { query: 'heater' });
    expect(restrictedNoBot.err).toEqual(expect.objectContaining({ code: 'bot_access_denied' }));
  });

  it('rejects a malformed request at the service edge', async () => {
    const bad = await search(ctxOf(a.id), { query: '', k: 500 });
    expect(bad.err).toEqual(expect.objectContaining({ code: 'validation_failed' }));
    const noCtx = await search(undefined, { query: 'x' });
    expect(noCtx.err).toEqual(expect.objectContaining({ code: 'validation_failed' }));
  });
});
