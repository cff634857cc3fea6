import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { EntityManager } from 'typeorm';
import { ChatTurnCompletedEvent, EventEnvelope, LeadCreatedEvent } from '@sa/contracts';
import { EventHandler, Outbox } from '@sa/events';
import { LEADS_CONFIG, LeadsConfig } from '../config/leads.config';
import { LEADS_LOGGER } from '../leads.tokens';
import { LEAD_SCORER, RuleScorer, type SessionScorer } from '../scoring/model-scorer';
import { LeadRow, LeadsRepository } from './leads.repository';
import { VisitorMessage, VisitorMessagesRepository } from './visitor-messages.repository';

/** Most recent visitor messages of a session that are scored (and kept in leads.visitor_messages). */
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The visitor's message the event carries, or null when the event has none that can be stored
 * (an event of a chat service older than this field, or a malformed one).
 */
export function visitorMessageOf(data: Partial<ChatTurnCompletedEvent>): VisitorMessage | null {
  const { session_id: sessionId, user_message_id: messageId, user_message: content, user_message_at: at, chatbot_id: chatbotId, channel } = data;
  if (typeof sessionId !== 'string' || sessionId.length < 1 || sessionId.length > 120) return null;
  if (typeof messageId !== 'string' || !UUID.test(messageId)) return null;
  if (typeof content !== 'string' || typeof at !== 'string' || Number.isNaN(Date.parse(at))) return null;
  if (chatbotId !== null && (typeof chatbotId !== 'string' || !UUID.test(chatbotId))) return null;
  return { messageId, sessionId, chatbotId, channel: typeof channel === 'string' && channel ? channel : 'api', content, createdAt: new Date(at).toISOString() };
}

/**
 * Consumer of chat.turn.completed: adds the turn's visitor message (carried by the event) to the
 * session's copy in leads.visitor_messages, rescores the session from that copy and keeps its one
 * lead up to date. It reads nothing of the chat service, and makes no NATS request. A session
 * becomes a lead when the visitor gave contact details (conversational) or its signals score at
 * least the warm threshold (inferred); from then on every turn updates it. lead.created is written
 * to the outbox, in this transaction, the first time the lead exists with a bot (the payload's
 * chatbot_id is a uuid; bot-less sessions get a lead but no event). Runs inside the consumer's
 * transaction: a redelivered event is skipped by the consumer, and its message would be stored
 * once anyway. Turns of one session are scored one at a time (a session lock), so the last one
 * scored covers every message.
 */
@Injectable()
export class TurnCompletedHandler implements EventHandler {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly outbox: Outbox,
    private readonly messages: VisitorMessagesRepository,
    @Inject(LEADS_CONFIG) private readonly config: Pick<LeadsConfig, 'hotThreshold' | 'warmThreshold'>,
    @Inject(LEADS_LOGGER) private readonly logger: Pick<Logger, 'warn'>,
    /** The model scorer when LEADS_MODEL_PROVIDER names one, else (and by default) the rules. */
    @Optional() @Inject(LEAD_SCORER) private readonly scorer: SessionScorer = new RuleScorer(),
  ) {}

  async handle(event: EventEnvelope, manager: EntityManager): Promise<void> {
    if (event.type !== 'chat.turn.completed') return;
    const { data, tenant_id: tenantId } = event as EventEnvelope<'chat.turn.completed'>;
    const message = visitorMessageOf(data);
    if (!message) {
      this.logger.warn({ event_id: event.id }, 'chat.turn.completed without a storable visitor message; the turn is not scored');
      return;
    }
    await this.messages.lockSession(manager, tenantId, message.sessionId);
    await this.messages.add(manager, tenantId, message, SCORED_MESSAGES_MAX);
    const visitor = await this.messages.latest(manager, tenantId, message.sessionId, SCORED_MESSAGES_MAX);

    // Details the lead already holds (the widget's identify call or lead form) still count.
    const existing = await this.leads.find(manager, tenantId, message.sessionId);
    const s = await this.scorer.score(
      visitor.map((m) => m.content),
      { hot: this.config.hotThreshold, warm: this.config.warmThreshold },
      existing ? { name: existing.name, email: existing.email, phone: existing.phone, company: existing.company, qualification: existing.qualification } : {},
    );
    if (!s.isLead && !existing) return;
    // Issue 35: a channel knows who wrote (the e-mail sender, the WhatsApp number); what the
    // conversation itself gave wins.
    const contact = data.contact ?? {};

    const lead = await this.leads.upsert(manager, {
      tenantId,
      chatbotId: data.chatbot_id ?? visitor.find((m) => m.chatbotId)?.chatbotId ?? null,
      sessionId: message.sessionId,
      channel: data.channel || visitor[0].channel,
      name: s.name ?? contact.name ?? null,
      email: s.email ?? contact.email ?? null,
      phone: s.phone ?? contact.phone ?? null,
      company: s.company,
      intentCategory: s.category,
      intentSummary: s.summary,
      score: s.score,
      scoreBand: s.band,
      sentiment: s.sentiment,
      qualification: Object.keys(s.qualification).length ? s.qualification : null,
      capturedVia: s.capturedVia,
      confidence: s.confidence,
      scoredMessageId: visitor[visitor.length - 1].messageId,
    });
    if (lead.chatbot_id && (await this.leads.markAnnounced(manager, lead.id))) {
      await this.outbox.add(manager, 'lead.created', tenantId, leadCreatedPayload(lead as LeadRow & { chatbot_id: string }));
    }
  }
}
