import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks get a name (what the console shows and asks for; issue 16). Unnamed ones, existing or
 * new, are named after their endpoint's host: the host of an http(s) URL is what lies between
 * "//" and the first "/", "?", "#" or ":" (an IPv6 literal with its brackets) (URLs with userinfo are refused at creation).
 */
export class WebhookNames1795300016100 implements MigrationInterface {
  name = 'WebhookNames1795300016100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION webhooks.endpoint_host(url text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT left(COALESCE(NULLIF(substring(url FROM '^[a-zA-Z][a-zA-Z0-9+.-]*://(\\[[^]]*\\]|[^/?#:]+)'), ''), url), 100)
      $$`);
    await q.query(`ALTER TABLE webhooks.webhooks ADD COLUMN name text NULL`);
    await q.query(`UPDATE webhooks.webhooks SET name = webhooks.endpoint_host(url)`);
    await q.query(`
      CREATE FUNCTION webhooks.default_webhook_name() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name IS NULL OR btrim(NEW.name) = '' THEN NEW.name := webhooks.endpoint_host(NEW.url); END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER webhooks_default_name BEFORE INSERT OR UPDATE OF name, url ON webhooks.webhooks FOR EACH ROW EXECUTE FUNCTION webhooks.default_webhook_name()`);
    await q.query(`ALTER TABLE webhooks.webhooks ALTER COLUMN name SET NOT NULL`);
    await q.query(`ALTER TABLE webhooks.webhooks ADD CONSTRAINT webhooks_name_length CHECK (char_length(name) BETWEEN 1 AND 100)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS webhooks_default_name ON webhooks.webhooks`);
    await q.query(`DROP FUNCTION IF EXISTS webhooks.default_webhook_name()`);
    await q.query(`ALTER TABLE webhooks.webhooks DROP COLUMN IF EXISTS name`);
    await q.query(`DROP FUNCTION IF EXISTS webhooks.endpoint_host(text)`);
  }
}
