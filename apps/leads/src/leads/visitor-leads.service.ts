import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { CallerContext, CaptureMethod, ConversationalLeadRequest, IdentifyRequest, LeadFormRequest, LeadView } from '@sa/contracts';
import { ValidationFailed } from '@sa/errors';
import { Outbox } from '@sa/events';
import { LEADS_CONFIG, LeadsConfig } from '../config/leads.config';
import { KnownDetails, LeadScore, ScoringThresholds, bandOf, normalisePhone, scoreSession } from '../scoring/lead-scorer';
import { LeadRow, LeadsRepository, ScoredSession, toLeadView } from './leads.repository';
import { leadCreatedPayload } from './turn-completed.handler';

/** The channel of leads the widget's identify call and lead form create. */
export const WIDGET_CHANNEL = 'widget';

const blankToNull = (s: string | null | undefined): string | null => (s && s.trim() ? s.trim() : null);

function known(row: LeadRow | undefined): KnownDetails {
  return row ? { name: row.name, email: row.email, phone: row.phone, company: row.company, qualification: row.qualification } : {};
}

/** What a capture reads: the lead form's members (a conversation has no qualification answers) and a new lead's channel. */
type CaptureInput = Pick<LeadFormRequest, 'chatbotId' | 'sessionId' | 'name' | 'email' | 'phone' | 'company' | 'message' | 'qualification'> & { channel: string };

/** `b` over `a`, field by field (null/undefined in `b` keeps `a`). */
function over(a: KnownDetails, b: KnownDetails): KnownDetails {
  return {
    name: b.name ?? a.name ?? null,
    email: b.email ?? a.email ?? null,
    phone: b.phone ?? a.phone ?? null,
    company: b.company ?? a.company ?? null,
    qualification: a.qualification || b.qualification ? { ...(a.qualification ?? {}), ...(b.qualification ?? {}) } : null,
  };
}

/**
 * The widget's visitor requests (caller context from the gateway's public widget routes:
 * tenantId = the bot's workspace, botIds = [the bot], tokenId = null):
 *
 * - leads.visitor.identify: the visitor signed in on the customer's site. Sets external_user_id
 *   (and name, e-mail, phone when given) on the session's lead, creating it as `inferred` when the
 *   session is not a lead yet; an existing lead keeps its captured_via and its assessment, its score
 *   raised by what the new details add.
 * - leads.lead.capture: the lead form. Needs an e-mail or a phone; always makes the lead `form`.
 * - leads.lead.capture-conversational (issue 34): the bot's built-in action capture_contact, for
 *   the conversation's own session (any channel; the caller is chat, acting for the turn's caller
 *   limited to the bot). The same rules as the form, but the lead is `conversational` (a `form`
 *   lead stays `form`, as the upsert keeps it).
 *
 * All of them write the lead and, the first time it exists with a bot, lead.created (spec part 6) in one
 * transaction, with the same announce-once mark as the chat.turn.completed consumer.
 */
@Injectable()
export class VisitorLeadsService {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly outbox: Outbox,
    @Inject(LEADS_CONFIG) private readonly config: Pick<LeadsConfig, 'hotThreshold' | 'warmThreshold'>,
  ) {}

  private get thresholds(): ScoringThresholds {
    return { hot: this.config.hotThreshold, warm: this.config.warmThreshold };
  }

  async identify(req: IdentifyRequest, ctx: CallerContext): Promise<{ session_id: string; lead_id: string | null }> {
    enforceBotAccess(ctx, BotAccess.Widget, req.chatbotId);
    const given: KnownDetails = {
      name: blankToNull(req.name),
      email: blankToNull(req.email)?.toLowerCase() ?? null,
      phone: this.phone(req.phone),
    };
    const lead = await this.leads.transaction(async (m) => {
      const existing = await this.leads.find(m, ctx.tenantId, req.sessionId, true);
      const after = over(known(existing), given);
      const base = {
        tenantId: ctx.tenantId,
        chatbotId: req.chatbotId,
        sessionId: req.sessionId,
        channel: existing?.channel ?? WIDGET_CHANNEL,
        name: given.name ?? null,
        email: given.email ?? null,
        phone: given.phone ?? null,
        company: null,
        qualification: null,
        scoredMessageId: null,
        externalUserId: req.externalUserId.trim(),
      };
      let s: ScoredSession;
      if (existing) {
        // Keep the lead's assessment (and captured_via); the new details only add to its score.
        const score = this.raise(existing, after);
        s = {
          ...base,
          intentCategory: existing.intent_category ?? 'general',
          intentSummary: existing.intent_summary ?? '',
          score,
          scoreBand: bandOf(score, this.thresholds),
          sentiment: existing.sentiment ?? 'neutral',
          capturedVia: 'inferred',
          confidence: existing.confidence === null ? 0.2 : Number(existing.confidence),
        };
      } else {
        const scored = scoreSession([], this.thresholds, after);
        s = { ...base, company: scored.company, ...this.assessment(scored), capturedVia: 'inferred' };
      }
      return this.save(m, s);
    });
    return { session_id: lead.session_id, lead_id: lead.id };
  }

  async capture(req: LeadFormRequest, ctx: CallerContext): Promise<LeadView> {
    enforceBotAccess(ctx, BotAccess.Widget, req.chatbotId);
    return this.captureAs('form', { ...req, channel: WIDGET_CHANNEL }, ctx);
  }

  /** The contact the visitor gave in a conversation (the bot's built-in action); the handler checked that the bot is the workspace's. */
  async captureConversational(req: ConversationalLeadRequest, ctx: CallerContext): Promise<LeadView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.chatbotId);
    return this.captureAs('conversational', req, ctx);
  }

  /** The lead form's rules, for the form or a conversation; `channel` is a new lead's channel. */
  private async captureAs(via: Extract<CaptureMethod, 'form' | 'conversational'>, req: CaptureInput, ctx: CallerContext): Promise<LeadView> {
    const email = blankToNull(req.email)?.toLowerCase() ?? null;
    const phone = this.phone(req.phone);
    if (!email && !phone) throw new ValidationFailed([{ code: 'required', path: ['body', 'email'], message: 'An email or a phone is required' }]);
    const qualification = this.qualification(req.qualification);
    const given: KnownDetails = { name: blankToNull(req.name), email, phone, company: blankToNull(req.company), qualification };
    const sessionId = blankToNull(req.sessionId) ?? `form-${randomUUID()}`;
    const message = blankToNull(req.message);

    const lead = await this.leads.transaction(async (m) => {
      const existing = await this.leads.find(m, ctx.tenantId, sessionId, true);
      const after = over(known(existing), given);
      // The form's message counts as a visitor message; the form's own fields win over it.
      const scored = scoreSession(message ? [message] : [], this.thresholds, after);
      let assessment = this.assessment(scored);
      if (existing) {
        // A lead scored from the conversation keeps that (richer) assessment unless the form scores higher.
        const raised = this.raise(existing, after);
        if (raised > assessment.score) {
          assessment = {
            intentCategory: existing.intent_category ?? assessment.intentCategory,
            intentSummary: existing.intent_summary ?? assessment.intentSummary,
            score: raised,
            scoreBand: bandOf(raised, this.thresholds),
            sentiment: existing.sentiment ?? assessment.sentiment,
            confidence: existing.confidence === null ? assessment.confidence : Number(existing.confidence),
          };
        }
      }
      const merged = { ...scored.qualification, ...(qualification ?? {}) };
      return this.save(m, {
        tenantId: ctx.tenantId,
        chatbotId: req.chatbotId,
        sessionId,
        channel: existing?.channel ?? req.channel,
        name: given.name ?? scored.name,
        email: email ?? scored.email,
        phone: phone ?? scored.phone,
        company: given.company ?? scored.company,
        qualification: Object.keys(merged).length ? merged : null,
        capturedVia: via,
        scoredMessageId: null,
        ...assessment,
      });
    });
    return toLeadView(lead);
  }

  private phone(raw: string | undefined): string | null {
    const p = blankToNull(raw);
    return p ? (normalisePhone(p) ?? p) : null;
  }

  /** Qualification answers: strings only (the body's object is otherwise free). */
  private qualification(q: Record<string, unknown> | undefined): Record<string, string> | null {
    if (!q) return null;
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(q)) {
      if (typeof value !== 'string') throw new ValidationFailed([{ code: 'invalid_type', path: ['body', 'qualification', key], message: `qualification.${key} must be a string` }]);
      const v = value.trim();
      if (v && key.trim()) out[key.trim().slice(0, 100)] = v.slice(0, 500);
    }
    return Object.keys(out).length ? out : null;
  }

  /** The existing score plus what the details known now add to the details known before. */
  private raise(existing: LeadRow, after: KnownDetails): number {
    const before = scoreSession([], this.thresholds, known(existing)).score;
    const now = scoreSession([], this.thresholds, after).score;
    return Math.max(0, Math.min(100, existing.score + Math.max(0, now - before)));
  }

  private assessment(s: LeadScore): Pick<ScoredSession, 'intentCategory' | 'intentSummary' | 'score' | 'scoreBand' | 'sentiment' | 'confidence'> {
    return { intentCategory: s.category, intentSummary: s.summary, score: s.score, scoreBand: s.band, sentiment: s.sentiment, confidence: s.confidence };
  }

  /** Upserts the lead; lead.created the first time it exists with a bot. */
  private async save(m: EntityManager, s: ScoredSession): Promise<LeadRow> {
    const lead = await this.leads.upsert(m, s);
    if (lead.chatbot_id && (await this.leads.markAnnounced(m, lead.id))) {
      await this.outbox.add(m, 'lead.created', lead.tenant_id, leadCreatedPayload(lead as LeadRow & { chatbot_id: string }));
    }
    return lead;
  }
}
