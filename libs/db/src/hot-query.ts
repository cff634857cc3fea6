import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * A read on a service's hottest path, straight on the pool TypeORM opened (the same connections,
 * roles and limits), as a named prepared statement: PostgreSQL parses and plans it once per
 * connection, and TypeORM's query runner (acquire, broadcaster, logger, release: about a tenth of
 * a small service's CPU per request, bench/README.md) is skipped. For constant SQL only; errors are
 * the driver's, as from `DataSource.query`.
 */
export async function hotQuery<T>(ds: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const pool = (ds.driver as unknown as { master?: Pool }).master;
  if (!pool) return ds.query(text, values) as Promise<T[]>;
  const { rows } = await pool.query<T & object>({ name, text, values });
  return rows;
}
