import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CaptureMethod, ChangeActorView, LeadStatus, LeadStatusChangeView, LeadView, ScoreBand } from '@sa/contracts';
import { queryRows } from '@sa/db';

/** The columns of the Lead resource (spec part 2), in its order. */
export const LEAD_COLUMNS =
  'id, tenant_id, chatbot_id, session_id, name, email, phone, external_user_id, company, intent_category, intent_summary, score, score_band, sentiment, qualification, status, captured_via, confidence, notified_at, asked_contact_at, notes, country, region, channel, created_at, updated_at';

export interface LeadRow {
  id: string;
  tenant_id: string;
  chatbot_id: string | null;
  session_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  external_user_id: string | null;
  company: string | null;
  intent_category: string | null;
  intent_summary: string | null;
  score: number;
  score_band: ScoreBand;
  sentiment: string | null;
  qualification: Record<string, string> | null;
  status: LeadStatus;
  captured_via: CaptureMethod;
  confidence: number | null;
  notified_at: Date | null;
  asked_contact_at: Date | null;
  notes: string | null;
  country: string | null;
  region: string | null;
  channel: string;
  created_at: Date;
  updated_at: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toLeadView(r: LeadRow): LeadView {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    chatbot_id: r.chatbot_id,
    session_id: r.session_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    external_user_id: r.external_user_id,
    company: r.company,
    intent_category: r.intent_category,
    intent_summary: r.intent_summary,
    score: r.score,
    score_band: r.score_band,
    sentiment: r.sentiment,
    qualification: r.qualification,
    status: r.status,
    captured_via: r.captured_via,
    confidence: r.confidence === null ? null : Number(r.confidence),
    notified_at: iso(r.notified_at),
    asked_contact_at: iso(r.asked_contact_at),
    notes: r.notes,
    country: r.country,
    region: r.region,
    channel: r.channel,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** What the scorer found for a session (the fields a turn may change). */
export interface ScoredSession {
  tenantId: string;
  chatbotId: string | null;
  sessionId: string;
  channel: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  intentCategory: string;
  intentSummary: string;
  score: number;
  scoreBand: ScoreBand;
  sentiment: string;
  /** Null when the visitor gave no qualification answers. */
  qualification: Record<string, string> | null;
  /** conversational/inferred from the scorer; form from the widget's lead form. */
  capturedVia: CaptureMethod;
  confidence: number;
  /** Null when the write scored no chat message (identify, form): the earlier value is kept. */
  scoredMessageId: string | null;
  /** From the widget's identify call; null keeps the earlier value (a turn never wipes it). */
  externalUserId?: string | null;
}

export interface ListLeadsQuery {
  tenantId: string;
  chatbotId?: string;
  /** A bot-restricted token: only leads of these bots (never bot-less ones). */
  botIds?: readonly string[] | null;
  limit: number;
  /** The console's filters (issue 19); none of them is part of GET /v1/leads. */
  band?: ScoreBand;
  minScore?: number;
  status?: LeadStatus;
  channel?: string;
  sessionId?: string;
  /** Keyset paging: only leads after this one in the list order. */
  before?: { createdAt: string; id: string };
}

interface StatusChangeRow {
  id: string;
  lead_id: string;
  from_status: LeadStatus;
  to_status: LeadStatus;
  note: string | null;
  actor_kind: 'person';
  actor_id: string;
  actor_label: string;
  created_at: Date;
}

function toStatusChangeView(r: StatusChangeRow): LeadStatusChangeView {
  return {
    id: r.id,
    lead_id: r.lead_id,
    from_status: r.from_status,
    to_status: r.to_status,
    note: r.note,
    actor: { kind: r.actor_kind, id: r.actor_id, label: r.actor_label },
    created_at: r.created_at.toISOString(),
  };
}

export interface StatusChange {
  tenantId: string;
  leadId: string;
  status: LeadStatus;
  note: string | null;
  actor: ChangeActorView;
}

/**
 * leads.leads: one lead per (tenant, session). Every write goes through the EntityManager of the
 * consumer's transaction, so the lead, its lead.created outbox row and the processed mark of the
 * turn event commit together.
 */
@Injectable()
export class LeadsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Creates the session's lead or updates it with the new score. Contact details, the company and
   * external_user_id keep their earlier values when this write has none; qualification answers are
   * merged; the lead form always makes it `form` and a `form` lead stays `form`; an inferred one
   * becomes `conversational` once the visitor gives contact details in the chat; status, notes,
   * notified_at and the rest are never touched.
   */
  async upsert(manager: EntityManager, s: ScoredSession): Promise<LeadRow> {
    const [row] = await queryRows<LeadRow>(
      manager,
      `INSERT INTO leads.leads AS l (tenant_id, chatbot_id, session_id, channel, name, email, phone, company, intent_category, intent_summary,
                                     score, score_band, sentiment, qualification, captured_via, confidence, scored_message_id, external_user_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15, $16, $17, $18)
       ON CONFLICT (tenant_id, session_id) DO UPDATE SET
         chatbot_id = COALESCE(l.chatbot_id, EXCLUDED.chatbot_id),
         name = COALESCE(EXCLUDED.name, l.name),
         email = COALESCE(EXCLUDED.email, l.email),
         phone = COALESCE(EXCLUDED.phone, l.phone),
         company = COALESCE(EXCLUDED.company, l.company),
         external_user_id = COALESCE(EXCLUDED.external_user_id, l.external_user_id),
         intent_category = EXCLUDED.intent_category,
         intent_summary = EXCLUDED.intent_summary,
         score = EXCLUDED.score,
         score_band = EXCLUDED.score_band,
         sentiment = EXCLUDED.sentiment,
         qualification = CASE WHEN l.qualification IS NULL THEN EXCLUDED.qualification
                              WHEN EXCLUDED.qualification IS NULL THEN l.qualification
                              ELSE l.qualification || EXCLUDED.qualification END,
         captured_via = CASE WHEN l.captured_via = 'form' OR EXCLUDED.captured_via = 'form' THEN 'form'
                             WHEN EXCLUDED.captured_via = 'conversational' THEN 'conversational'
                             ELSE l.captured_via END,
         confidence = EXCLUDED.confidence,
         scored_message_id = COALESCE(EXCLUDED.scored_message_id, l.scored_message_id),
         updated_at = clock_timestamp()
       RETURNING ${LEAD_COLUMNS}`,
      [
        s.tenantId,
        s.chatbotId,
        s.sessionId,
        s.channel,
        s.name,
        s.email,
        s.phone,
        s.company,
        s.intentCategory,
        s.intentSummary,
        s.score,
        s.scoreBand,
        s.sentiment,
        s.qualification === null ? null : JSON.stringify(s.qualification),
        s.capturedVia,
        s.confidence,
        s.scoredMessageId,
        s.externalUserId ?? null,
      ],
    );
    return row;
  }

  dataSource(): DataSource {
    return this.ds;
  }

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(fn);
  }

  /** The session's lead, if any; `lock` holds it (FOR UPDATE) until the transaction ends. */
  async find(manager: EntityManager, tenantId: string, sessionId: string, lock = false): Promise<LeadRow | undefined> {
    const [row] = await queryRows<LeadRow>(manager, `SELECT ${LEAD_COLUMNS} FROM leads.leads WHERE tenant_id = $1 AND session_id = $2${lock ? ' FOR UPDATE' : ''}`, [tenantId, sessionId]);
    return row;
  }

  /** Whether the session already is a lead (then every later turn updates it). */
  async exists(manager: EntityManager, tenantId: string, sessionId: string): Promise<boolean> {
    const rows = await queryRows<{ one: number }>(manager, `SELECT 1 AS one FROM leads.leads WHERE tenant_id = $1 AND session_id = $2`, [tenantId, sessionId]);
    return rows.length > 0;
  }

  /**
   * Marks the lead as announced when it has not been and has a bot (lead.created needs a
   * chatbot_id); true when this call marked it, in which case the caller writes lead.created in the
   * same transaction. The row lock makes concurrent turns of one session announce it once.
   */
  async markAnnounced(manager: EntityManager, leadId: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE leads.leads SET announced_at = clock_timestamp() WHERE id = $1 AND announced_at IS NULL AND chatbot_id IS NOT NULL RETURNING id`,
      [leadId],
    );
    return rows.length > 0;
  }

  /** Newest first (created_at, then id), at most `limit`. */
  async list(q: ListLeadsQuery): Promise<LeadView[]> {
    const params: unknown[] = [q.tenantId];
    let where = 'tenant_id = $1';
    if (q.chatbotId) {
      params.push(q.chatbotId);
      where += ` AND chatbot_id = $${params.length}`;
    }
    if (q.botIds) {
      params.push(q.botIds);
      where += ` AND chatbot_id = ANY($${params.length}::uuid[])`;
    }
    const equal: [string, unknown][] = [
      ['score_band', q.band],
      ['status', q.status],
      ['channel', q.channel],
      ['session_id', q.sessionId],
    ];
    for (const [column, value] of equal) {
      if (value === undefined) continue;
      params.push(value);
      where += ` AND ${column} = $${params.length}`;
    }
    if (q.minScore !== undefined) {
      params.push(q.minScore);
      where += ` AND score >= $${params.length}`;
    }
    if (q.before) {
      params.push(q.before.createdAt, q.before.id);
      where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
    }
    params.push(q.limit);
    const rows = await queryRows<LeadRow>(this.ds, `SELECT ${LEAD_COLUMNS} FROM leads.leads WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`, params);
    return rows.map(toLeadView);
  }

  /** One lead of the tenant; `lock` holds it until the transaction ends. */
  async get(manager: EntityManager | DataSource, tenantId: string, leadId: string, lock = false): Promise<LeadRow | undefined> {
    const [row] = await queryRows<LeadRow>(manager, `SELECT ${LEAD_COLUMNS} FROM leads.leads WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [tenantId, leadId]);
    return row;
  }

  /** A lead's status changes, newest first. */
  async history(tenantId: string, leadId: string): Promise<LeadStatusChangeView[]> {
    const rows = await queryRows<StatusChangeRow>(
      this.ds,
      `SELECT id, lead_id, from_status, to_status, note, actor_kind, actor_id, actor_label, created_at
         FROM leads.lead_status_changes WHERE tenant_id = $1 AND lead_id = $2
        ORDER BY created_at DESC, id DESC`,
      [tenantId, leadId],
    );
    return rows.map(toStatusChangeView);
  }

  /** Sets the status and records the change (from, to, who, when) in the caller's transaction. */
  async changeStatus(manager: EntityManager, from: LeadStatus, c: StatusChange): Promise<LeadRow> {
    const [row] = await queryRows<LeadRow>(
      manager,
      `UPDATE leads.leads SET status = $3, updated_at = clock_timestamp() WHERE tenant_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`,
      [c.tenantId, c.leadId, c.status],
    );
    await manager.query(
      `INSERT INTO leads.lead_status_changes (tenant_id, lead_id, from_status, to_status, note, actor_kind, actor_id, actor_label)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [c.tenantId, c.leadId, from, c.status, c.note, c.actor.kind, c.actor.id, c.actor.label],
    );
    return row;
  }
}
