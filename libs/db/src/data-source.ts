import { DataSource, DataSourceOptions, EntitySchema, MixedList } from 'typeorm';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { createLogger } from '@sa/logging';
import { PinoQueryLogger } from './query-logger';

export interface DbOptions {
  url: string;
  poolSize?: number;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations?: MixedList<Function | string>;
  /**
   * Where TypeORM's own lines go (failed queries, without their parameters). Default: a pino
   * logger named after applicationName (the app's service name), on stdout like the app's own.
   */
  logger?: Logger;
}

/** TypeORM options every app uses: PostgreSQL, never synchronize, migrations run explicitly, no extensions installed, JSON logs. */
export function dataSourceOptions(opts: DbOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: opts.url,
    entities: opts.entities ?? [],
    migrations: opts.migrations ?? [],
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    uuidExtension: 'pgcrypto',
    // Nothing needs an extension (gen_random_uuid() is built in since PostgreSQL 13), and an app's
    // role may not create one: without this, TypeORM tries at every start and logs a warning.
    installExtensions: false,
    applicationName: opts.applicationName,
    extra: { max: opts.poolSize ?? 10, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000 },
    logger: new PinoQueryLogger(opts.logger ?? (() => createLogger(opts.applicationName))),
  };
}

export async function createDataSource(opts: DbOptions): Promise<DataSource> {
  return new DataSource(dataSourceOptions(opts)).initialize();
}

/** Creates the database named in the URL when it does not exist yet (first start). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error(`DATABASE_URL names no database: ${url}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return false;
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    return true;
  } catch (err) {
    // Two starters racing: the other one created it.
    if ((err as { code?: string }).code === '42P04') return false;
    throw err;
  } finally {
    await client.end();
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** True when a query failed on a unique constraint (optionally the named one). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e?.driverError?.code ?? e?.code;
  const name = e?.driverError?.constraint ?? e?.constraint;
  return code === '23505' && (constraint === undefined || name === constraint);
}

/** Something that runs SQL: a DataSource or an EntityManager. */
export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Runs a statement with RETURNING and gives its rows. TypeORM's `query()` answers UPDATE and
 * DELETE with `[rows, affectedCount]` but INSERT and SELECT with the rows alone; this hides that.
 */
export async function queryRows<T>(db: SqlRunner, sql: string, params: unknown[] = []): Promise<T[]> {
  const result = await db.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
