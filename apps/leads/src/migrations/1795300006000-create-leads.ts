import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablesSql } from '@sa/events';

/**
 * Leads: one intent-scored lead per chat session (spec part 2, Lead), plus the service's outbox
 * (lead.created) and processed_events (its chat.turn.completed consumer).
 *
 * - `leads.leads`: every field of the Lead resource; UNIQUE (tenant_id, session_id) makes the
 *   consumer's upsert the one place a session becomes a lead. Internal columns (never shown):
 *   `announced_at`, set in the transaction that wrote lead.created to the outbox, so the event
 *   is written once per lead; `scored_message_id`, the last user message the score covers.
 * - Index (tenant_id, created_at DESC, id DESC): the order of GET /leads, workspace-wide; the
 *   per-bot index serves `chatbotId` filters.
 */
export class CreateLeads1795300006000 implements MigrationInterface {
  name = 'CreateLeads1795300006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS leads`);
    await q.query(`
      CREATE TABLE leads.leads (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        chatbot_id uuid NULL,
        session_id text NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 120),
        name text NULL CHECK (char_length(name) <= 200),
        email text NULL CHECK (char_length(email) <= 320),
        phone text NULL CHECK (char_length(phone) <= 40),
        external_user_id text NULL CHECK (char_length(external_user_id) <= 200),
        company text NULL CHECK (char_length(company) <= 200),
        intent_category text NULL CHECK (char_length(intent_category) <= 40),
        intent_summary text NULL CHECK (char_length(intent_summary) <= 500),
        score integer NOT NULL CHECK (score BETWEEN 0 AND 100),
        score_band text NOT NULL CHECK (score_band IN ('hot', 'warm', 'cold')),
        sentiment text NULL CHECK (char_length(sentiment) <= 20),
        qualification jsonb NULL CHECK (qualification IS NULL OR jsonb_typeof(qualification) = 'object'),
        status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'contacted', 'qualified', 'won', 'lost')),
        captured_via text NOT NULL CHECK (captured_via IN ('conversational', 'form', 'inferred')),
        confidence double precision NULL CHECK (confidence BETWEEN 0 AND 1),
        notified_at timestamptz NULL,
        asked_contact_at timestamptz NULL,
        notes text NULL,
        country text NULL,
        region text NULL,
        channel text NOT NULL,
        announced_at timestamptz NULL,
        scored_message_id uuid NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT leads_tenant_session_key UNIQUE (tenant_id, session_id)
      )`);
    await q.query(`CREATE INDEX leads_tenant_created_idx ON leads.leads (tenant_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX leads_tenant_bot_created_idx ON leads.leads (tenant_id, chatbot_id, created_at DESC, id DESC)`);
    for (const sql of outboxTablesSql('leads').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA leads CASCADE`);
  }
}
