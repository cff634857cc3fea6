import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxTablesSql } from '@sa/events';

/**
 * Webhooks (spec part 6): registrations, one delivery per (event, webhook) and every attempt.
 *
 *  - webhooks.webhooks: the endpoint, the event kinds, the scope (all bots, or bot_id) and the
 *    signing secret (encrypted with the webhook secret key). The dispatcher reads them in the
 *    statement that creates an event's deliveries, so a change applies to the next event.
 *  - webhooks.deliveries: created when the dispatcher consumes the event; the unique
 *    (event_id, webhook_id) makes a second delivery of one event to one webhook impossible.
 *    pending → sending (committed just before the request) → succeeded | failed. `owner` and
 *    `lease_until` say which dispatcher holds an open delivery; an expired lease on a pending one
 *    hands it to another dispatcher, on a sending one it is recorded as interrupted (failed).
 *  - webhooks.attempts: every request made (status code or error, duration, time, and whether it
 *    came from the event or a manual redeliver).
 *  - processed_events (and an outbox, unused so far) from the shared event plumbing.
 */
export class CreateWebhooks1795300008000 implements MigrationInterface {
  name = 'CreateWebhooks1795300008000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS webhooks`);
    await q.query(`
      CREATE TABLE webhooks.webhooks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        bot_id uuid NULL,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX webhooks_tenant_idx ON webhooks.webhooks (tenant_id, created_at, id)`);
    await q.query(`
      CREATE TABLE webhooks.deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL,
        webhook_id uuid NOT NULL REFERENCES webhooks.webhooks(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        -- json, not jsonb: the payload is sent with its keys in the order the event has them.
        data json NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'succeeded', 'failed')),
        owner text NULL,
        lease_until timestamptz NULL,
        next_trigger text NOT NULL DEFAULT 'event' CHECK (next_trigger IN ('event', 'manual')),
        attempts integer NOT NULL DEFAULT 0,
        last_status_code integer NULL,
        last_error text NULL,
        last_duration_ms integer NULL,
        last_attempt_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT deliveries_event_webhook_key UNIQUE (event_id, webhook_id)
      )`);
    await q.query(`CREATE INDEX deliveries_open_idx ON webhooks.deliveries (created_at) WHERE status IN ('pending', 'sending')`);
    await q.query(`CREATE INDEX deliveries_webhook_idx ON webhooks.deliveries (webhook_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX deliveries_finished_idx ON webhooks.deliveries (created_at) WHERE status IN ('succeeded', 'failed')`);
    await q.query(`
      CREATE TABLE webhooks.attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhooks.deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('event', 'manual')),
        owner text NOT NULL,
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz NULL,
        duration_ms integer NULL,
        status_code integer NULL,
        error text NULL,
        CONSTRAINT attempts_delivery_attempt_key UNIQUE (delivery_id, attempt)
      )`);
    for (const sql of outboxTablesSql('webhooks').up) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of outboxTablesSql('webhooks').down) await q.query(sql);
    await q.query(`DROP TABLE IF EXISTS webhooks.attempts`);
    await q.query(`DROP TABLE IF EXISTS webhooks.deliveries`);
    await q.query(`DROP TABLE IF EXISTS webhooks.webhooks`);
  }
}
