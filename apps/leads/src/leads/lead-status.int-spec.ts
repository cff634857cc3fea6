import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, LeadStatus, ScoreBand } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
// Test-only dependency.
import { createTestDatabase, domainErrorCode } from '@sa/testing';
import { LeadStatusService } from './lead-status.service';
import { LeadsRepository } from './leads.repository';

// Issue 19: a lead's status changes with who and when (leads.lead.update-status / history / get),
// and the console's filters and keyset paging of leads.lead.list, against the real PostgreSQL.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let repo: LeadsRepository;
let service: LeadStatusService;

beforeAll(async () => {
  db = await createTestDatabase('sa_leads');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('leads'), applicationName: 'leads-status-int', poolSize: 5 })).initialize();
  repo = new LeadsRepository(ds);
  service = new LeadStatusService(repo);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

function ctxOf(tenantId: string, botIds: string[] | null = null): CallerContext {
  return {
    tenantId,
    tokenId: null,
    scopes: [],
    botIds,
    requestId: randomUUID(),
    entitlements: { plan: 'scale', botSlots: 5, tierSlots: {}, messagesPerMonth: 100, pagesPerBot: 10, widgetMessagesPerBotPerMonth: 100, webhooks: true },
  } as unknown as CallerContext;
}

async function lead(tenantId: string, sessionId: string, opts: { bot?: string | null; score?: number; band?: ScoreBand; channel?: string } = {}) {
  return repo.transaction((m) =>
    repo.upsert(m, {
      tenantId,
      chatbotId: opts.bot ?? null,
      sessionId,
      channel: opts.channel ?? 'api',
      name: null,
      email: `${sessionId}@example.com`,
      phone: null,
      company: null,
      intentCategory: 'purchase',
      intentSummary: 'Purchase intent',
      score: opts.score ?? 50,
      scoreBand: opts.band ?? 'warm',
      sentiment: 'neutral',
      qualification: null,
      capturedVia: 'conversational',
      confidence: 0.5,
      scoredMessageId: null,
    }),
  );
}

const ada = { kind: 'person' as const, id: randomUUID(), label: 'ada.admin@acme.example' };
const olivia = { kind: 'person' as const, id: randomUUID(), label: 'olivia.owner@acme.example' };

describe('lead status changes', () => {
  it('records from, to, who, when and the note; the lead row (what GET /v1/leads reads) has the new status; the history is newest first', async () => {
    const tenant = randomUUID();
    const l = await lead(tenant, 's-1');
    const ctx = ctxOf(tenant);
    const contacted = await service.update(ctx, { leadId: l.id, status: 'contacted', note: '  Called, left a message  ', actor: ada });
    expect(contacted.status).toBe('contacted');
    expect(new Date(contacted.updated_at).getTime()).toBeGreaterThan(l.updated_at.getTime());
    const won = await service.update(ctx, { leadId: l.id, status: 'won', actor: olivia });
    expect(won.status).toBe('won');
    expect((await repo.list({ tenantId: tenant, limit: 10 }))[0]!.status).toBe('won');
    expect((await service.get(ctx, l.id)).status).toBe('won');

    const history = await service.history(ctx, l.id);
    expect(history).toEqual([
      { id: expect.any(String), lead_id: l.id, from_status: 'contacted', to_status: 'won', note: null, actor: olivia, created_at: expect.any(String) },
      { id: expect.any(String), lead_id: l.id, from_status: 'new', to_status: 'contacted', note: 'Called, left a message', actor: ada, created_at: expect.any(String) },
    ]);
    expect(Date.parse(history[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(history[1]!.created_at));
  });

  it('the same status again is 409 conflict and records nothing', async () => {
    const tenant = randomUUID();
    const l = await lead(tenant, 's-same');
    expect(await domainErrorCode(service.update(ctxOf(tenant), { leadId: l.id, status: 'new', actor: ada }))).toBe('conflict');
    expect(await service.history(ctxOf(tenant), l.id)).toEqual([]);
  });

  it("another workspace's lead and an unknown id are not found; a bot-restricted caller gets 403 for another bot's lead", async () => {
    const [tenant, other] = [randomUUID(), randomUUID()];
    const [botA, botB] = [randomUUID(), randomUUID()];
    const l = await lead(tenant, 's-foreign', { bot: botA });
    for (const call of [
      service.get(ctxOf(other), l.id),
      service.history(ctxOf(other), l.id),
      service.update(ctxOf(other), { leadId: l.id, status: 'lost', actor: ada }),
      service.get(ctxOf(tenant), randomUUID()),
    ]) {
      expect(await domainErrorCode(call)).toBe('not_found');
    }
    expect(await domainErrorCode(service.update(ctxOf(tenant, [botB]), { leadId: l.id, status: 'lost', actor: ada }))).toBe('bot_access_denied');
    expect((await service.update(ctxOf(tenant, [botA]), { leadId: l.id, status: 'lost', actor: ada })).status).toBe('lost');
    expect((await service.get(ctxOf(tenant), l.id)).status).toBe('lost');
  });

  it('two concurrent changes of one lead are serialised: one wins, the other sees the new status', async () => {
    const tenant = randomUUID();
    const l = await lead(tenant, 's-race');
    const results = await Promise.allSettled([
      service.update(ctxOf(tenant), { leadId: l.id, status: 'qualified', actor: ada }),
      service.update(ctxOf(tenant), { leadId: l.id, status: 'qualified', actor: olivia }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await service.history(ctxOf(tenant), l.id)).toHaveLength(1);
  });
});

describe("the console's filters and paging of leads.lead.list", () => {
  let tenant: string;
  beforeAll(async () => {
    tenant = randomUUID();
    // created_at is kept to the millisecond and the list is newest first, ties broken by id: a
    // fast machine wrote two of these leads within one millisecond (Node 24 in CI), so each waits
    // for the next millisecond and the expected order is the order of creation.
    const nextMs = () => new Promise((r) => setTimeout(r, 2));
    await lead(tenant, 'hot-widget', { score: 90, band: 'hot', channel: 'widget' });
    await nextMs();
    await lead(tenant, 'warm-api', { score: 55, band: 'warm' });
    await nextMs();
    await lead(tenant, 'cold-api', { score: 10, band: 'cold' });
    await nextMs();
    const qualified = await lead(tenant, 'hot-api', { score: 80, band: 'hot' });
    await service.update(ctxOf(tenant), { leadId: qualified.id, status: 'qualified', actor: ada });
  });
  const sessions = async (q: Partial<Parameters<LeadsRepository['list']>[0]>) => (await repo.list({ tenantId: tenant, limit: 100, ...q })).map((l) => l.session_id);

  it('band, minimum score, status, channel and session filter alone and together', async () => {
    expect(await sessions({})).toEqual(['hot-api', 'cold-api', 'warm-api', 'hot-widget']);
    expect(await sessions({ band: 'hot' })).toEqual(['hot-api', 'hot-widget']);
    expect(await sessions({ minScore: 55 })).toEqual(['hot-api', 'warm-api', 'hot-widget']);
    expect(await sessions({ status: 'qualified' as LeadStatus })).toEqual(['hot-api']);
    expect(await sessions({ channel: 'widget' })).toEqual(['hot-widget']);
    expect(await sessions({ band: 'hot', channel: 'api', minScore: 81 })).toEqual([]);
    expect(await sessions({ sessionId: 'warm-api' })).toEqual(['warm-api']);
  });

  it('keyset paging walks every lead once, in order', async () => {
    const all = await repo.list({ tenantId: tenant, limit: 100 });
    const seen: string[] = [];
    let before: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await repo.list({ tenantId: tenant, limit: 1, before });
      if (page.length === 0) break;
      seen.push(page[0]!.id);
      before = { createdAt: page[0]!.created_at, id: page[0]!.id };
    }
    expect(seen).toEqual(all.map((l) => l.id));
  });
});
