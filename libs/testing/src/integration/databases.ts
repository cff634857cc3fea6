import { Client } from 'pg';

// No @sa/* imports here: jest's global setups (which import this file) resolve no path aliases.

export const ADMIN_DATABASE_URL = process.env['TEST_ADMIN_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEMPLATE_DATABASE = process.env['TEST_TEMPLATE_DATABASE'] || 'sa_test_template';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdmin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
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
