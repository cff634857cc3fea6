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

/** How long a drop waits for the database's connections to close on their own. */
const DROP_WAIT_MS = 2000;

/**
 * Drops a test database once its connections are gone. Pools report that they ended before their
 * sockets are closed, so connections still closing are waited for (up to DROP_WAIT_MS) rather
 * than killed: a client killed mid-close emits an error its pool may no longer handle. Whatever
 * is still connected after that is forced off.
 */
export async function dropDatabase(name: string): Promise<void> {
  await withAdmin(async (c) => {
    const deadline = Date.now() + DROP_WAIT_MS;
    while (Date.now() < deadline) {
      const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}
