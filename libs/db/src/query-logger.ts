import type { Logger as PinoLogger } from 'pino';
import type { Logger as TypeOrmLogger } from 'typeorm';
import { withoutQueryParameters } from '@sa/logging';

/** Longest SQL text kept in a log line (whitespace collapsed first). */
export const MAX_LOGGED_SQL = 2000;

function sqlText(query: string): string {
  const sql = query.replace(/\s+/g, ' ').trim();
  return sql.length > MAX_LOGGED_SQL ? `${sql.slice(0, MAX_LOGGED_SQL)}…` : sql;
}

function parameterCount(parameters: unknown): number | undefined {
  if (Array.isArray(parameters)) return parameters.length;
  if (parameters && typeof parameters === 'object') return Object.keys(parameters).length;
  return undefined;
}

/** The members of a PostgreSQL error that name the schema, never data: `detail` and `where` do. */
interface PgErrorFields {
  message?: string;
  code?: string;
  constraint?: string;
  schema?: string;
  table?: string;
  column?: string;
}

/**
 * TypeORM's log, written through the app's pino logger: JSON lines like every other, with the SQL
 * text (collapsed, cut at MAX_LOGGED_SQL) and never the query's parameters, which hold visitors'
 * names, e-mail addresses and questions. A failed query logs its SQLSTATE code, the constraint,
 * table and column it names, and PostgreSQL's message with any parameter value it repeats
 * replaced by [redacted]; PostgreSQL's `detail` (`Key (email)=(…)`, `Failing row contains (…)`)
 * is left out. The caller still gets the error and decides what it means (a unique violation
 * answered 409, say).
 */
export class PinoQueryLogger implements TypeOrmLogger {
  private made: PinoLogger | null;

  /** `logger`, or a function that makes it when the first line is written (most processes never need one). */
  constructor(private readonly source: PinoLogger | (() => PinoLogger)) {
    this.made = typeof source === 'function' ? null : source;
  }

  private get logger(): PinoLogger {
    this.made ??= typeof this.source === 'function' ? this.source() : this.source;
    return this.made;
  }

  logQuery(query: string, parameters?: unknown[]): void {
    // Every query passes here: a logger made for it alone would cost more than the line is worth.
    if (this.made?.isLevelEnabled('trace')) this.logger.trace({ query: { sql: sqlText(query), parameter_count: parameterCount(parameters) } }, 'query');
  }

  logQueryError(error: string | Error, query: string, parameters?: unknown[]): void {
    const e: PgErrorFields = typeof error === 'string' ? { message: error } : (error as PgErrorFields);
    this.logger.error(
      {
        query: {
          sql: sqlText(query),
          parameter_count: parameterCount(parameters),
          code: e.code,
          constraint: e.constraint,
          schema: e.schema,
          table: e.table,
          column: e.column,
          message: withoutQueryParameters(String(e.message ?? ''), parameters),
        },
      },
      'query failed',
    );
  }

  logQuerySlow(time: number, query: string, parameters?: unknown[]): void {
    this.logger.warn({ query: { sql: sqlText(query), parameter_count: parameterCount(parameters), duration_ms: time } }, 'slow query');
  }

  logSchemaBuild(message: string): void {
    this.logger.debug({ typeorm: 'schema' }, message);
  }

  logMigration(message: string): void {
    this.logger.debug({ typeorm: 'migration' }, message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    if (level === 'warn') this.logger.warn({ typeorm: 'log' }, text);
    else this.logger.debug({ typeorm: 'log' }, text);
  }
}
