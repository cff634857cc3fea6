import type { Pool, PoolClient } from 'pg';

/** A client checked out of a pool, with a release that discards it if its connection was lost. */
export interface CheckedOutClient {
  readonly client: PoolClient;
  /** Back to the pool; a broken client (the error given, or a lost connection) is closed instead. */
  release(broken?: Error): void;
}

/**
 * `pool.connect()` with the one guard node-postgres leaves to the caller: while a client is checked
 * out the pool does not listen for its errors, so a connection lost between (or during) queries,
 * say PostgreSQL restarting, is an 'error' event without a listener, and that ends the process.
 * Here the error is kept, the next query fails, and release() hands the client back as broken.
 */
export async function checkOut(pool: Pool): Promise<CheckedOutClient> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error): void => {
    lost = err;
  };
  client.on('error', onError);
  let released = false;
  return {
    client,
    release(broken?: Error): void {
      if (released) return;
      released = true;
      client.removeListener('error', onError);
      client.release(broken ?? lost);
    },
  };
}

/** fn inside BEGIN ... COMMIT on one checked-out client; ROLLBACK and rethrow when it fails. */
export async function inTransaction<T>(pool: Pool, fn: (db: PoolClient) => Promise<T>): Promise<T> {
  const { client, release } = await checkOut(pool);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    release(broken);
  }
}

/**
 * node-postgres's pool gave no connection within its connectionTimeoutMillis (every connection
 * busy): nothing was sent to the database, so the work may simply be tried again. TypeORM passes
 * the pool's error on unchanged.
 */
export function isPoolWaitTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'timeout exceeded when trying to connect';
}
