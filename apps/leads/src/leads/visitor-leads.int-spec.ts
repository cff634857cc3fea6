import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CallerContext, EventEnvelope, LeadView } from '@sa/contracts';
import { dataSourceOptions } from '@sa/db';
import { DomainError } from '@sa/errors';
import { Outbox } from '@sa/events';
// Test-only dependency.
import { chatTurnCompleted, createTestDatabase, domainErrorCode } from '@sa/testing';
import { LeadsRepository } from './leads.repository';
import { TurnCompletedHandler } from './turn-completed.handler';
import { VisitorLeadsService } from './visitor-leads.service';
import { VisitorMessagesRepository } from './visitor-messages.repository';

// The widget's identify call and lead form (leads.visitor.identify, leads.lead.capture) against the
// real PostgreSQL: the session's one lead, lead.created in the outbox once, external_user_id kept
// by later chat scoring.

const THRESHOLDS = { hotThreshold: 70, warmThreshold: 40 };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let ds: DataSource;
let repo: LeadsRepository;
let service: VisitorLeadsService;
let turns: TurnCompletedHandler;

beforeAll(async () => {
  db = await createTestDatabase('sa_leads_widget');
  ds = await new DataSource(dataSourceOptions({ url: db.appUrl('leads'), applicationName: 'leads-widget-int', poolSize: 5 })).initialize();
  repo = new LeadsRepository(ds);
  service = new VisitorLeadsService(repo, new Outbox('leads'), THRESHOLDS);
  turns = new TurnCompletedHandler(repo, new Outbox('leads'), new VisitorMessagesRepository(), THRESHOLDS, { warn: () => undefined });
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

/** The context the gateway's public widget routes build. */
function widgetCtx(tenantId: string, botId: string): CallerContext {
  return {
    tenantId,
    tokenId: null,
    scopes: [],
    botIds: [botId],
    requestId: randomUUID(),
    entitlements: { plan: 'free', botSlots: 1, tierSlots: {}, messagesPerMonth: 100, pagesPerBot: 10, widgetMessagesPerBotPerMonth: 100, webhooks: false },
  } as unknown as CallerContext;
}

async function leadsOf(tenantId: string): Promise<LeadView[]> {
  return repo.list({ tenantId, limit: 500 });
}

async function createdEvents(tenantId: string): Promise<EventEnvelope<'lead.created'>[]> {
  const rows: { payload: unknown }[] = await ds.query(`SELECT payload FROM leads.outbox WHERE tenant_id = $1 AND type = 'lead.created'`, [tenantId]);
  return rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as EventEnvelope<'lead.created'>);
}

describe('leads.visitor.identify', () => {
  it('creates an inferred lead with external_user_id, scored from its contact details, and one lead.created', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    const ctx = widgetCtx(tenantId, bot);
    const res = await service.identify({ chatbotId: bot, sessionId: 'w-1', externalUserId: 'user-42', name: 'Ada Lovelace', email: 'Ada@Analytical.io' }, ctx);
    expect(res).toEqual({ session_id: 'w-1', lead_id: expect.any(String) });

    const [lead] = await leadsOf(tenantId);
    expect(lead).toEqual(
      expect.objectContaining({
        id: res.lead_id,
        chatbot_id: bot,
        session_id: 'w-1',
        external_user_id: 'user-42',
        name: 'Ada Lovelace',
        email: 'ada@analytical.io',
        phone: null,
        company: 'Analytical',
        captured_via: 'inferred',
        channel: 'widget',
        status: 'new',
      }),
    );
    expect(lead.score).toBeGreaterThan(0);

    // Identifying again (or anew) updates the lead: no second lead, no second lead.created.
    const again = await service.identify({ chatbotId: bot, sessionId: 'w-1', externalUserId: 'user-42', phone: '+44 20 7946 0958' }, ctx);
    expect(again.lead_id).toBe(res.lead_id);
    const [updated] = await leadsOf(tenantId);
    expect(updated).toEqual(expect.objectContaining({ phone: '+442079460958', name: 'Ada Lovelace', captured_via: 'inferred' }));
    expect(updated.score).toBeGreaterThan(lead.score);

    const events = await createdEvents(tenantId);
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({
      lead_id: lead.id,
      session_id: 'w-1',
      chatbot_id: bot,
      score: lead.score,
      band: lead.score_band,
      category: 'general',
      summary: lead.intent_summary,
      sentiment: 'neutral',
      name: 'Ada Lovelace',
      email: 'ada@analytical.io',
      phone: null,
      country: null,
      region: null,
      external_user_id: 'user-42',
      qualification: {},
      captured_via: 'inferred',
    });
  });

  it('a later chat turn rescoring the session keeps external_user_id and the identified details', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    const ctx = widgetCtx(tenantId, bot);
    await service.identify({ chatbotId: bot, sessionId: 'w-2', externalUserId: 'ext-7', email: 'kim@gmail.com' }, ctx);
    const identified = (await leadsOf(tenantId))[0];

    const turn = chatTurnCompleted(tenantId, 'w-2', 'How much is the premium plan? I want to buy it', { chatbotId: bot, channel: 'widget' });
    await ds.transaction((m) => turns.handle(turn, m));

    const leads = await leadsOf(tenantId);
    expect(leads).toHaveLength(1);
    expect(leads[0]).toEqual(expect.objectContaining({ id: identified.id, external_user_id: 'ext-7', email: 'kim@gmail.com', captured_via: 'inferred', intent_category: 'purchase' }));
    // The identified e-mail still counts in the chat's score.
    expect(leads[0].score).toBeGreaterThan(identified.score);
    expect(await createdEvents(tenantId)).toHaveLength(1);
  });

  it('identify on a conversational lead keeps captured_via and announces nothing new', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    await ds.transaction((m) => turns.handle(chatTurnCompleted(tenantId, 'w-3', 'I want to buy, mail me at joe@initech.com', { chatbotId: bot, channel: 'widget' }), m));
    await service.identify({ chatbotId: bot, sessionId: 'w-3', externalUserId: 'joe' }, widgetCtx(tenantId, bot));
    const [lead] = await leadsOf(tenantId);
    expect(lead).toEqual(expect.objectContaining({ captured_via: 'conversational', external_user_id: 'joe', email: 'joe@initech.com' }));
    expect(await createdEvents(tenantId)).toHaveLength(1);
  });

  it('another bot than the widget route names is bot_access_denied', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    expect(await domainErrorCode(service.identify({ chatbotId: randomUUID(), sessionId: 'w-4', externalUserId: 'x' }, widgetCtx(tenantId, bot)))).toBe('bot_access_denied');
    expect(await leadsOf(tenantId)).toEqual([]);
  });
});

describe('leads.lead.capture', () => {
  it('creates a form lead with the form fields and one lead.created', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    const view = await service.capture(
      { chatbotId: bot, name: 'Grace Hopper', email: 'grace@navy.example.org', phone: '+1 415 555 2671', company: 'US Navy', message: 'We want to buy 50 seats next month', qualification: { budget: '$5000' } },
      widgetCtx(tenantId, bot),
    );
    expect(view.session_id).toMatch(/^form-[0-9a-f-]{36}$/);
    expect(view).toEqual(
      expect.objectContaining({
        tenant_id: tenantId,
        chatbot_id: bot,
        name: 'Grace Hopper',
        email: 'grace@navy.example.org',
        phone: '+14155552671',
        company: 'US Navy',
        captured_via: 'form',
        intent_category: 'purchase',
        channel: 'widget',
        external_user_id: null,
        qualification: { budget: '$5000', company_size: '50 seats', timeline: 'next month' },
      }),
    );
    expect(view.score_band).toBe('hot');
    expect(await leadsOf(tenantId)).toEqual([view]);

    const events = await createdEvents(tenantId);
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual(expect.objectContaining({ lead_id: view.id, session_id: view.session_id, chatbot_id: bot, captured_via: 'form', email: 'grace@navy.example.org', qualification: view.qualification }));
    expect(Object.keys(events[0].data)).toHaveLength(16);
  });

  it('a form after a conversational lead makes it form, without a second lead.created', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    await ds.transaction((m) => turns.handle(chatTurnCompleted(tenantId, 'w-5', 'I want to order 20 licences, email ops@initech.com, urgent', { chatbotId: bot, channel: 'widget' }), m));
    const [chat] = await leadsOf(tenantId);
    expect(chat.captured_via).toBe('conversational');

    const view = await service.capture({ chatbotId: bot, sessionId: 'w-5', phone: '020 7946 0958', name: 'Peter Gibbons' }, widgetCtx(tenantId, bot));
    expect(view).toEqual(expect.objectContaining({ id: chat.id, captured_via: 'form', email: 'ops@initech.com', phone: '02079460958', name: 'Peter Gibbons', intent_category: 'purchase' }));
    expect(view.score).toBeGreaterThanOrEqual(chat.score);
    expect(await leadsOf(tenantId)).toHaveLength(1);
    expect(await createdEvents(tenantId)).toHaveLength(1);

    // A later turn keeps it form.
    await ds.transaction((m) => turns.handle(chatTurnCompleted(tenantId, 'w-5', 'Thanks!', { chatbotId: bot, channel: 'widget' }), m));
    expect((await leadsOf(tenantId))[0]).toEqual(expect.objectContaining({ captured_via: 'form', phone: '02079460958' }));
  });

  it('needs an email or a phone', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    const err = await service.capture({ chatbotId: bot, name: 'Nobody', message: 'hi' }, widgetCtx(tenantId, bot)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('validation_failed');
    expect((err as DomainError).details).toEqual({ issues: [expect.objectContaining({ path: ['body', 'email'] })] });
    expect(await leadsOf(tenantId)).toEqual([]);
  });

  it('another bot than the widget route names is bot_access_denied', async () => {
    const [tenantId, bot] = [randomUUID(), randomUUID()];
    expect(await domainErrorCode(service.capture({ chatbotId: randomUUID(), email: 'a@b.io' }, widgetCtx(tenantId, bot)))).toBe('bot_access_denied');
    expect(await leadsOf(tenantId)).toEqual([]);
  });
});
