import { DEFAULT_DATABASE_URL } from './common';
import type { EnvSource } from './env';

/**
 * The PostgreSQL schema each app owns. Each of these apps connects as a role of its own that may
 * use its schema and nothing else (the migrate command creates the roles and grants them). An app
 * not listed here (mcp) owns no schema and gets no database connection.
 */
export const SCHEMA_OWNERS = {
  gateway: 'identity',
  bots: 'bots',
  knowledge: 'knowledge',
  chat: 'chat',
  leads: 'leads',
  bookings: 'bookings',
  'webhook-dispatcher': 'webhooks',
  console: 'people',
  evaluations: 'evaluations',
  channels: 'channels',
} as const;

export type SchemaOwner = keyof typeof SCHEMA_OWNERS;

export const SCHEMA_OWNER_APPS = Object.keys(SCHEMA_OWNERS) as SchemaOwner[];

export function ownsSchema(app: string): app is SchemaOwner {
  return Object.prototype.hasOwnProperty.call(SCHEMA_OWNERS, app);
}

/** `GATEWAY`, `WEBHOOK_DISPATCHER`: the prefix of an app's own variables. */
function envPrefix(app: SchemaOwner): string {
  return app.toUpperCase().replace(/-/g, '_');
}

/** The variable that gives one app's connection URL to a process that starts or acts for several (`BOTS_DATABASE_URL`). */
export function databaseUrlVariable(app: SchemaOwner): string {
  return `${envPrefix(app)}_DATABASE_URL`;
}

/** The role an app connects as unless its URL names another: `sa_bots`, `sa_webhook_dispatcher`. */
export function defaultDatabaseRole(app: SchemaOwner): string {
  return `sa_${envPrefix(app).toLowerCase()}`;
}

/**
 * The connection URL of one app, for a process that starts or acts for several apps (the launcher,
 * the migrate command, the admin CLI, the test harnesses): `<APP>_DATABASE_URL` when set, else the
 * base URL (`DATABASE_URL`, or the laptop default) with its user replaced by the app's role and its
 * password left out. A base URL whose user already is that role is kept as it is.
 */
export function appDatabaseUrl(app: SchemaOwner, source: EnvSource = process.env): string {
  const own = source[databaseUrlVariable(app)];
  if (own) return own;
  const url = new URL(source['DATABASE_URL'] || DEFAULT_DATABASE_URL);
  const role = defaultDatabaseRole(app);
  if (decodeURIComponent(url.username) === role) return url.toString();
  url.username = role;
  url.password = '';
  return url.toString();
}

/**
 * The database variables of one app's own process, from the environment of whatever starts it:
 * `DATABASE_URL` is the app's own URL (appDatabaseUrl), absent for an app that owns no schema, and
 * no other app's URL is passed on. Spread it last over the rest of the child's environment (a key
 * set to undefined is left out by child_process).
 */
export function appDatabaseEnv(app: string, source: EnvSource): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const other of SCHEMA_OWNER_APPS) out[databaseUrlVariable(other)] = undefined;
  out['DATABASE_URL'] = ownsSchema(app) ? appDatabaseUrl(app, source) : undefined;
  return out;
}
