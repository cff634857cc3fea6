import { randomBytes } from 'node:crypto';
import { SchemaOwner, appDatabaseUrl } from '@sa/config';
import { TEMPLATE_DATABASE, databaseUrl, dropDatabase, withAdmin } from './databases';

export interface TestDatabase {
  name: string;
  /** The administrator's URL (owner of everything): for setting up and inspecting. */
  url: string;
  /** The URL an app connects with: its own role (sa_bots …), which may use its own schema only. */
  appUrl: (app: SchemaOwner) => string;
  drop: () => Promise<void>;
}

/**
 * A fresh, fully migrated database for one test file, cloned from the template that the global
 * setup migrated once (CREATE DATABASE ... TEMPLATE: milliseconds instead of a migration run).
 * The template's grants come along: each app's role may use its own schema in the clone.
 */
export async function createTestDatabase(prefix = 'sa_test'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`));
  const url = databaseUrl(name);
  return { name, url, appUrl: (app) => appDatabaseUrl(app, { DATABASE_URL: url }), drop: () => dropDatabase(name) };
}
