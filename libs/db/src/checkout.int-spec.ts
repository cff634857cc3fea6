import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
// Test-only dependency; the module-boundary rule does not tell tests from library code.
import { createTestDatabase } from '@sa/testing';
import { checkOut, inTransaction, isPoolWaitTimeout } from './checkout';

// PostgreSQL ends a connection while a client is checked out of the pool (a restart, a failover,
// pg_terminate_backend): the process must live on, the work fail, and the pool heal.

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** A child process that checks a client out, has its backend terminated, then uses the pool again. */
function scenario(url: string, checkout: 'raw' | 'checkOut' | 'inTransaction'): { status: number | null; out: string } {
  const script = `
    const { Pool } = require('pg');
    const { checkOut, inTransaction } = require(${JSON.stringify(path.join(ROOT, 'dist', 'libs', 'db', 'src', 'index.js'))});
    const pool = new Pool({ connectionString: process.env.DB_URL, max: 2 });
    pool.on('error', () => undefined);
    const admin = new Pool({ connectionString: process.env.DB_URL, max: 1 });
    const kill = (pid) => admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const pause = (ms) => new Promise((r) => setTimeout(r, ms));
    (async () => {
      const mode = process.env.MODE;
      let outcome;
      if (mode === 'inTransaction') {
        outcome = await inTransaction(pool, async (db) => {
          const pid = (await db.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
          await kill(pid);
          await pause(300);
          await db.query('SELECT 1');
        }).then(() => 'committed', (e) => 'failed: ' + e.message);
      } else {
        const held = mode === 'raw' ? { client: await pool.connect(), release: (e) => held.client.release(e) } : await checkOut(pool);
        const pid = (await held.client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        await kill(pid);
        await pause(300);
        outcome = await held.client.query('SELECT 1').then(() => 'answered', (e) => 'failed: ' + e.message);
        held.release();
      }
      const again = (await pool.query('SELECT 41 + 1 AS n')).rows[0].n;
      console.log(JSON.stringify({ outcome, again }));
      await pool.end(); await admin.end();
    })().catch((e) => { console.error('rejected', e); process.exit(3); });`;
  const child = spawnSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'], DB_URL: url, MODE: checkout },
    encoding: 'utf8',
    timeout: 30000,
  });
  return { status: child.status, out: `${child.stdout}${child.stderr}` };
}

describe('checking a client out of the pool', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    db = await createTestDatabase('sa_checkout');
  });
  afterAll(async () => {
    await db.drop();
  });

  it('a bare pool.connect() client whose connection is lost ends the process (what checkOut guards against)', () => {
    const run = scenario(db.url, 'raw');
    expect(run.status).not.toBe(0);
    expect(run.out).toMatch(/Unhandled 'error' event|terminat/);
  });

  it('checkOut: the process lives, the next query fails, and the pool hands out a working client', () => {
    const run = scenario(db.url, 'checkOut');
    expect(run.out).not.toMatch(/Unhandled/);
    expect(run.status).toBe(0);
    const result = JSON.parse(run.out.trim().split('\n').pop()!);
    expect(result.outcome).toMatch(/^failed: /);
    expect(result.again).toBe(42);
  });

  it('inTransaction: the work is rejected rather than the process ended, and the pool heals', () => {
    const run = scenario(db.url, 'inTransaction');
    expect(run.out).not.toMatch(/Unhandled/);
    expect(run.status).toBe(0);
    const result = JSON.parse(run.out.trim().split('\n').pop()!);
    expect(result.outcome).toMatch(/^failed: /);
    expect(result.again).toBe(42);
  });

  it('inTransaction commits what fn wrote and rolls back when fn throws', async () => {
    const pool = new Pool({ connectionString: db.url, max: 2 });
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS checkout_rows (n int)');
      await inTransaction(pool, (c) => c.query('INSERT INTO checkout_rows VALUES (1)'));
      await expect(
        inTransaction(pool, async (c) => {
          await c.query('INSERT INTO checkout_rows VALUES (2)');
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      const rows = (await pool.query('SELECT n FROM checkout_rows ORDER BY n')).rows;
      expect(rows).toEqual([{ n: 1 }]);
      const held = await checkOut(pool);
      held.release();
      held.release();
      expect(pool.idleCount).toBeGreaterThanOrEqual(1);
    } finally {
      await pool.end();
    }
  });
});

it('a transaction that waited out the pool for a connection is told apart (isPoolWaitTimeout): nothing was sent', async () => {
  const db = await createTestDatabase('sa_test_db_pool_wait');
  const ds = await new DataSource({ type: 'postgres', url: db.url, extra: { max: 1, connectionTimeoutMillis: 200 } }).initialize();
  try {
    let release!: () => void;
    const holding = ds.transaction(() => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 50));
    const err = await ds.transaction((m) => m.query('SELECT 1')).then(() => null, (e: unknown) => e);
    expect(isPoolWaitTimeout(err)).toBe(true);
    expect(isPoolWaitTimeout(new Error('connection terminated unexpectedly'))).toBe(false);
    release();
    await holding;
    await expect(ds.transaction((m) => m.query('SELECT 1 AS one'))).resolves.toEqual([{ one: 1 }]);
  } finally {
    await ds.destroy();
    await db.drop();
  }
});
