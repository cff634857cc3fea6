import * as path from 'node:path';
import { createDataSource, ensureDatabase } from '@sa/db';
import { ServiceRole, provisionServiceRoles, serviceRolesFromEnv } from './service-roles';

/** Where the compiled migrations of every app are: each app owns `src/migrations/*.js`. */
export const MIGRATION_GLOB = path.join(__dirname, '..', '..', 'apps', '*', 'src', 'migrations', '*.js');

/**
 * Creates the database if missing, runs every pending migration of every app, in timestamp
 * order, each in its own transaction, then gives each app's role its own schema and nothing else
 * (provisionServiceRoles). `databaseUrl` is the administrator's (it owns what the migrations
 * create); the roles come from the apps' URLs, derived from it unless `<APP>_DATABASE_URL` is set.
 * Safe to run concurrently (PostgreSQL advisory lock).
 */
export async function runMigrations(
  databaseUrl: string,
  log: (line: string) => void = () => undefined,
  roles: ServiceRole[] = serviceRolesFromEnv({ ...process.env, DATABASE_URL: databaseUrl }),
): Promise<string[]> {
  if (await ensureDatabase(databaseUrl)) log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  const ds = await createDataSource({ url: databaseUrl, applicationName: 'migrate', migrations: [MIGRATION_GLOB], poolSize: 2 });
  try {
    await ds.query('SELECT pg_advisory_lock(727001)');
    const ran = await ds.runMigrations({ transaction: 'each' });
    for (const m of ran) log(`applied ${m.name}`);
    await provisionServiceRoles(ds, roles, log);
    await ds.query('SELECT pg_advisory_unlock(727001)');
    return ran.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
