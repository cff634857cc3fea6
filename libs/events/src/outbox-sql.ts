import { quoteIdent } from '@sa/db';

/** The NOTIFY channel the outbox trigger of a schema signals on (`outbox_<schema>`). */
export function outboxChannel(schema: string): string {
  return `outbox_${schema}`;
}

export function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** `"schema"."table"`. */
export function qualifiedTable(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

/**
 * The statements a service's migration runs to get an outbox in its own schema:
 *  - `outbox`: events written in the same transaction as the change they describe; the relay
 *    publishes the unpublished ones (partial index) and later deletes old published ones (index
 *    on published_at);
 *  - `processed_events`: the ids of events each durable consumer of this service has handled;
 *  - a statement-level AFTER INSERT trigger that NOTIFYs `outbox_<schema>` (delivered on commit
 *    only, so a rolled-back insert wakes nobody) so the relay publishes at once.
 * The schema is created when missing. `down` drops only what `up` created.
 */
export function outboxTablesSql(schema: string): { up: string[]; down: string[] } {
  const s = quoteIdent(schema);
  const outbox = qualifiedTable(schema, 'outbox');
  const processed = qualifiedTable(schema, 'processed_events');
  const notifyFn = qualifiedTable(schema, 'outbox_notify');
  return {
    up: [
      `CREATE SCHEMA IF NOT EXISTS ${s}`,
      `CREATE TABLE ${outbox} (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        type text NOT NULL,
        tenant_id uuid NOT NULL,
        payload jsonb NOT NULL,
        -- clock_timestamp(), not now(): events added in one transaction keep their order.
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        published_at timestamptz NULL
      )`,
      `CREATE INDEX outbox_unpublished_idx ON ${outbox} (created_at) WHERE published_at IS NULL`,
      `CREATE INDEX outbox_published_idx ON ${outbox} (published_at) WHERE published_at IS NOT NULL`,
      `CREATE TABLE ${processed} (
        consumer text NOT NULL,
        event_id uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`,
      `CREATE FUNCTION ${notifyFn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM pg_notify(${quoteLiteral(outboxChannel(schema))}, '');
        RETURN NULL;
      END
      $fn$`,
      `CREATE TRIGGER outbox_notify AFTER INSERT ON ${outbox} FOR EACH STATEMENT EXECUTE FUNCTION ${notifyFn}()`,
    ],
    down: [
      `DROP TRIGGER IF EXISTS outbox_notify ON ${outbox}`,
      `DROP FUNCTION IF EXISTS ${notifyFn}()`,
      `DROP TABLE IF EXISTS ${processed}`,
      `DROP TABLE IF EXISTS ${outbox}`,
    ],
  };
}
