import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const ADMIN_DATABASE_URL = process.env['TEST_ADMIN_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEMPLATE_DATABASE = process.env['TEST_TEMPLATE_DATABASE'] || 'sa_test_template';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/**
 * A fresh, fully migrated database for one test file, cloned from the template that the global
 * setup migrated once (CREATE DATABASE ... TEMPLATE: milliseconds instead of a migration run).
 */
export async function createTestDatabase(prefix = 'sa_test'): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`));
  return { name, url: databaseUrl(name), drop: () => dropDatabase(name) };
}
