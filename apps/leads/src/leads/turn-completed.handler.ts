import { Inject, Injectable, Optional } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventEnvelope, LeadCreatedEvent } from '@sa/contracts';
import { EventHandler, Outbox } from '@sa/events';
import { LEADS_CONFIG, LeadsConfig } from '../config/leads.config';
import { LEAD_SCORER, RuleScorer, type SessionScorer } from '../scoring/model-scorer';
import { LeadRow, LeadsRepository } from './leads.repository';
import { SESSION_MESSAGES, SessionMessages } from './session-messages';

/** Most recent visitor messages of a session that are scored. */
export const SCORED_MESSAGES_MAX = 50;

export function leadCreatedPayload(lead: LeadRow & { chatbot_id: string }): LeadCreatedEvent {
  return {
    lead_id: lead.id,
    session_id: lead.session_id,
    chatbot_id: lead.chatbot_id,
    score: lead.score,
    band: lead.score_band,
    category: lead.intent_category ?? 'general',
    summary: lead.intent_summary ?? '',
    sentiment: lead.sentiment ?? 'neutral',
    name: lead.name,
    email: lead.email,
    phone: lead.phone,
    country: lead.country,
    region: lead.region,
    external_user_id: lead.external_user_id,
    qualification: lead.qualification ?? {},
    captured_via: lead.captured_via,
  };
}

/**
 * Consumer of chat.turn.completed: rescores the whole session after every turn and keeps its one
 * lead up to date. A session becomes a lead when the visitor gave contact details
 * (conversational) or its signals score at least the warm threshold (inferred); from then on every
 * turn updates it. lead.created is written to the outbox, in this transaction, the first time the
 * lead exists with a bot (the payload's chatbot_id is a uuid; bot-less sessions get a lead but no
 * event). Runs inside the consumer's transaction: a redelivered event is skipped by the consumer.
 */
@Injectable()
export class TurnCompletedHandler implements EventHandler {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly outbox: Outbox,
    @Inject(SESSION_MESSAGES) private readonly messages: SessionMessages,
    @Inject(LEADS_CONFIG) private readonly config: Pick<LeadsConfig, 'hotThreshold' | 'warmThreshold'>,
    /** The model scorer when LEADS_MODEL_PROVIDER names one, else (and by default) the rules. */
    @Optional() @Inject(LEAD_SCORER) private readonly scorer: SessionScorer = new RuleScorer(),
  ) {}

  async handle(event: EventEnvelope, manager: EntityManager): Promise<void> {
    if (event.type !== 'chat.turn.completed') return;
    const { data, tenant_id: tenantId } = event as EventEnvelope<'chat.turn.completed'>;
    const all = await this.messages.of(tenantId, data.session_id, `leads-${event.id}`);
    const visitor = all.filter((m) => m.role === 'user').slice(-SCORED_MESSAGES_MAX);
    if (!visitor.length) return;

    // Details the lead already holds (the widget's identify call or lead form) still count.
    const existing = await this.leads.find(manager, tenantId, data.session_id);
    const s = await this.scorer.score(
      visitor.map((m) => m.content),
      { hot: this.config.hotThreshold, warm: this.config.warmThreshold },
      existing ? { name: existing.name, email: existing.email, phone: existing.phone, company: existing.company, qualification: existing.qualification } : {},
    );
    if (!s.isLead && !existing) return;

    const lead = await this.leads.upsert(manager, {
      tenantId,
      chatbotId: data.chatbot_id ?? all.find((m) => m.chatbot_id)?.chatbot_id ?? null,
      sessionId: data.session_id,
      channel: data.channel || all[0]?.channel || 'api',
      name: s.name,
      email: s.email,
      phone: s.phone,
      company: s.company,
      intentCategory: s.category,
      intentSummary: s.summary,
      score: s.score,
      scoreBand: s.band,
      sentiment: s.sentiment,
      qualification: Object.keys(s.qualification).length ? s.qualification : null,
      capturedVia: s.capturedVia,
      confidence: s.confidence,
      scoredMessageId: visitor[visitor.length - 1].id,
    });
    if (lead.chatbot_id && (await this.leads.markAnnounced(manager, lead.id))) {
      await this.outbox.add(manager, 'lead.created', tenantId, leadCreatedPayload(lead as LeadRow & { chatbot_id: string }));
    }
  }
}
