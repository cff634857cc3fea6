import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { EnvSource, SCHEMA_OWNERS, SCHEMA_OWNER_APPS, SchemaOwner, appDatabaseUrl, databaseUrlVariable } from '@sa/config';
import { SqlRunner, queryRows, quoteIdent } from '@sa/db';

/** One app's PostgreSQL role: the user of the app's URL, and the password when the URL has one. */
export interface ServiceRole {
  app: SchemaOwner;
  schema: string;
  role: string;
  password?: string;
}

/** The role of every schema-owning app, from the URLs the apps are given (appDatabaseUrl: `<APP>_DATABASE_URL`, or the base URL with the app's role). */
export function serviceRolesFromEnv(source: EnvSource): ServiceRole[] {
  const roles = SCHEMA_OWNER_APPS.map((app): ServiceRole => {
    const url = new URL(appDatabaseUrl(app, source));
    const role = decodeURIComponent(url.username);
    if (!role) throw new Error(`${databaseUrlVariable(app)} names no user: each app connects as a role of its own`);
    return { app, schema: SCHEMA_OWNERS[app], role, ...(url.password ? { password: decodeURIComponent(url.password) } : {}) };
  });
  for (const r of roles) {
    const other = roles.find((o) => o.role === r.role && o.app !== r.app);
    if (other) throw new Error(`${r.app} and ${other.app} would both connect as ${r.role}: each app needs a role of its own`);
  }
  return roles;
}

/**
 * A SCRAM-SHA-256 verifier (RFC 7677, PostgreSQL's stored form) for `password`, so that the
 * password itself never reaches the server, its statement log or pg_stat_statements.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const storedKey = createHash('sha256').update(createHmac('sha256', salted).update('Client Key').digest()).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

const TABLE_PRIVILEGES = 'SELECT, INSERT, UPDATE, DELETE';
const SEQUENCE_PRIVILEGES = 'USAGE, SELECT';

/** The SQLSTATE of a failed query (TypeORM's QueryFailedError carries the driver's error). */
function sqlState(err: unknown): string | undefined {
  const e = err as { code?: string; driverError?: { code?: string } };
  return e?.driverError?.code ?? e?.code;
}

/** True when a statement failed because another session did the same at the same moment (roles are cluster-wide). */
function lostRace(err: unknown): boolean {
  const code = sqlState(err);
  return code === '42710' || code === '23505' || (code === 'XX000' && /tuple concurrently updated/.test((err as Error).message ?? ''));
}

async function ensureRole(db: SqlRunner, r: ServiceRole, log: (line: string) => void): Promise<void> {
  const password = r.password === undefined ? '' : ` PASSWORD '${scramSha256Verifier(r.password)}'`;
  for (let attempt = 1; ; attempt++) {
    try {
      const [found] = await queryRows<{ login: boolean }>(db, 'SELECT rolcanlogin AS login FROM pg_roles WHERE rolname = $1', [r.role]);
      if (!found) {
        await db.query(`CREATE ROLE ${quoteIdent(r.role)} LOGIN${password}`);
        log(`created role ${r.role} (${r.app})`);
      } else if (!found.login || password) {
        await db.query(`ALTER ROLE ${quoteIdent(r.role)} LOGIN${password}`);
      }
      return;
    } catch (err) {
      if (lostRace(err) && attempt < 5) continue; // the other session created or changed it: look again
      if (sqlState(err) === '42501') {
        throw new Error(`cannot create or change role ${r.role} (${r.app}): the migrating user needs CREATEROLE, or create the role beforehand (${(err as Error).message})`);
      }
      throw err;
    }
  }
}

/**
 * Makes PostgreSQL enforce that each app uses its own schema only. Cluster-wide: each role
 * exists and may log in (created when missing; its password set when its URL has one).
 * In this database: each role may connect, use its own schema, read and write its tables and use
 * its sequences, also those of later migrations (re-granted on every run, and by default
 * privileges for tables the migrating user creates), and holds nothing on the other apps' schemas
 * nor on `public`'s tables (the migrations table); PUBLIC may not create in `public` nor use an
 * app's schema. Then checks the result: a role that can still use another app's schema (a
 * superuser, the schemas' owner, a member of pg_read_all_data …) fails the run.
 * Safe to run again and concurrently: creating a role another run has just created is no error.
 */
export async function provisionServiceRoles(db: SqlRunner, roles: ServiceRole[], log: (line: string) => void = () => undefined): Promise<void> {
  for (const r of roles) await ensureRole(db, r, log);
  const [{ database }] = await queryRows<{ database: string }>(db, 'SELECT current_database() AS database');
  const statements: string[] = [`REVOKE CREATE ON SCHEMA public FROM PUBLIC`];
  for (const r of roles) {
    const role = quoteIdent(r.role);
    statements.push(`GRANT CONNECT ON DATABASE ${quoteIdent(database)} TO ${role}`, `REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${role}`);
    for (const other of roles) {
      const schema = quoteIdent(other.schema);
      if (other === r) {
        statements.push(
          `GRANT USAGE ON SCHEMA ${schema} TO ${role}`,
          `GRANT ${TABLE_PRIVILEGES} ON ALL TABLES IN SCHEMA ${schema} TO ${role}`,
          `GRANT ${SEQUENCE_PRIVILEGES} ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`,
          `ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT ${TABLE_PRIVILEGES} ON TABLES TO ${role}`,
          `ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT ${SEQUENCE_PRIVILEGES} ON SEQUENCES TO ${role}`,
        );
      } else {
        statements.push(
          `REVOKE ALL ON SCHEMA ${schema} FROM ${role}`,
          `REVOKE ALL ON ALL TABLES IN SCHEMA ${schema} FROM ${role}`,
          `REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${schema} FROM ${role}`,
          `ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} REVOKE ALL ON TABLES FROM ${role}`,
          `ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} REVOKE ALL ON SEQUENCES FROM ${role}`,
        );
      }
    }
  }
  for (const r of roles) statements.push(`REVOKE ALL ON SCHEMA ${quoteIdent(r.schema)} FROM PUBLIC`);
  // About 250 statements: one simple-protocol query, which PostgreSQL runs as one transaction.
  await db.query(statements.join(';\n'));

  const pairs = roles.flatMap((r) => roles.map((o) => ({ role: r.role, app: r.app, schema: o.schema, owner: o.app, own: o === r })));
  const access = await queryRows<{ role: string; schema: string; usage: boolean }>(
    db,
    `SELECT p.role, p.schema, has_schema_privilege(p.role, p.schema, 'USAGE') AS usage
       FROM jsonb_to_recordset($1::jsonb) AS p(role text, schema text)`,
    [JSON.stringify(pairs.map(({ role, schema }) => ({ role, schema })))],
  );
  const problems = pairs
    .filter((p) => access.find((a) => a.role === p.role && a.schema === p.schema)?.usage !== p.own)
    .map((p) =>
      p.own
        ? `role ${p.role} (${p.app}) cannot use its own schema ${p.schema}`
        : `role ${p.role} (${p.app}) can use schema ${p.schema} of ${p.owner}: it is a superuser, owns the schema, or is a member of a role that may use it (such as pg_read_all_data)`,
    );
  if (problems.length) throw new Error(`each app must reach its own schema only:\n  - ${problems.join('\n  - ')}`);
  log(`roles: ${roles.map((r) => `${r.role} -> ${r.schema}`).join(', ')}`);
}
