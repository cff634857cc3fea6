import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19: the history of a lead's status (leads.lead.update-status): one row per change, with
 * who made it (a person of the workspace: id and e-mail as they were then) and when. Rows go with
 * their lead. Index (lead_id, created_at DESC): a lead's history, newest first.
 */
export class CreateLeadStatusChanges1795300019400 implements MigrationInterface {
  name = 'CreateLeadStatusChanges1795300019400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE leads.lead_status_changes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        lead_id uuid NOT NULL REFERENCES leads.leads (id) ON DELETE CASCADE,
        from_status text NOT NULL CHECK (from_status IN ('new', 'contacted', 'qualified', 'won', 'lost')),
        to_status text NOT NULL CHECK (to_status IN ('new', 'contacted', 'qualified', 'won', 'lost')),
        note text NULL CHECK (char_length(note) <= 1000),
        actor_kind text NOT NULL CHECK (actor_kind IN ('person')),
        actor_id uuid NOT NULL,
        actor_label text NOT NULL CHECK (char_length(actor_label) BETWEEN 1 AND 320),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX lead_status_changes_lead_idx ON leads.lead_status_changes (tenant_id, lead_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE leads.lead_status_changes`);
  }
}
