import { outboxChannel, outboxTablesSql, qualifiedTable, quoteLiteral } from './outbox-sql';

describe('outboxTablesSql', () => {
  const { up, down } = outboxTablesSql('bots');

  it('creates the outbox, processed_events and the NOTIFY trigger in the schema', () => {
    const sql = up.join(';\n');
    expect(sql).toContain('CREATE TABLE "bots"."outbox"');
    expect(sql).toContain('CREATE TABLE "bots"."processed_events"');
    expect(sql).toMatch(/PRIMARY KEY \(consumer, event_id\)/);
    expect(sql).toMatch(/ON "bots"\."outbox" \(created_at\) WHERE published_at IS NULL/);
    expect(sql).toMatch(/AFTER INSERT ON "bots"\."outbox" FOR EACH STATEMENT/);
    expect(sql).toContain("pg_notify('outbox_bots', '')");
    expect(sql).not.toMatch(/CREATE EXTENSION/i);
  });

  it('drops what it created, trigger first, without dropping the schema', () => {
    expect(down[0]).toMatch(/^DROP TRIGGER IF EXISTS outbox_notify ON "bots"\."outbox"/);
    expect(down.join(';')).not.toMatch(/DROP SCHEMA/i);
    expect(down.filter((s) => s.startsWith('DROP TABLE'))).toHaveLength(2);
  });

  it('quotes the schema as an identifier and as a literal', () => {
    const sql = outboxTablesSql(`we"ird'one`).up.join('\n');
    expect(sql).toContain(`CREATE TABLE "we""ird'one"."outbox"`);
    expect(sql).toContain(`pg_notify('outbox_we"ird''one', '')`);
  });
});

describe('helpers', () => {
  it('names the channel and quotes', () => {
    expect(outboxChannel('leads')).toBe('outbox_leads');
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(qualifiedTable('a', 'b')).toBe('"a"."b"');
  });
});
