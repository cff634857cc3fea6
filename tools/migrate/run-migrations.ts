import * as path from 'node:path';
import { createDataSource, ensureDatabase } from '@sa/db';

/** Where the compiled migrations of every app are: each app owns `src/migrations/*.js`. */
export const MIGRATION_GLOB = path.join(__dirname, '..', '..', 'apps', '*', 'src', 'migrations', '*.js');

/**
 * Creates the database if missing and runs every pending migration of every app, in timestamp
 * order, each in its own transaction. Safe to run concurrently (PostgreSQL advisory lock).
 */
export async function runMigrations(databaseUrl: string, log: (line: string) => void = () => undefined): Promise<string[]> {
  if (await ensureDatabase(databaseUrl)) log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  const ds = await createDataSource({ url: databaseUrl, applicationName: 'migrate', migrations: [MIGRATION_GLOB], poolSize: 2 });
  try {
    await ds.query('SELECT pg_advisory_lock(727001)');
    const ran = await ds.runMigrations({ transaction: 'each' });
    await ds.query('SELECT pg_advisory_unlock(727001)');
    for (const m of ran) log(`applied ${m.name}`);
    return ran.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
