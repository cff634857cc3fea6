import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ADMIN_DATABASE_URL } from '@sa/testing';

// The benchmarks' pg pools (bench/lib/infra.js `pool`) against the real PostgreSQL. A smoke run in
// CI ended with "terminating connection due to administrator command" thrown from a pool: pg-pool's
// end() resolves before its idle connections have closed, and the cleanup's DROP DATABASE ... WITH
// (FORCE) that follows terminated one. An idle connection whose backend is terminated is the same
// event, made certain here: a child process holds two idle connections, their backends are ended,
// and the child must still finish its work.
const INFRA = path.resolve(__dirname, '../../bench/lib/infra.js');

function runChild(kind: 'bench' | 'bare'): { status: number | null; stderr: string } {
  const name = `bench-pool-int-${kind}-${process.pid}`;
  const script = `
    const { Pool, Client } = require('pg');
    const infra = require(${JSON.stringify(INFRA)});
    const options = { connectionString: ${JSON.stringify(ADMIN_DATABASE_URL)}, max: 2, application_name: ${JSON.stringify(name)} };
    (async () => {
      const pool = ${kind === 'bench' ? 'infra.pool(options)' : 'new Pool(options)'};
      const [a, b] = [await pool.connect(), await pool.connect()];
      a.release();
      b.release();
      const admin = new Client({ connectionString: options.connectionString });
      await admin.connect();
      const { rows } = await admin.query('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [options.application_name]);
      await admin.end();
      await new Promise((r) => setTimeout(r, 500));
      await pool.end();
      process.stdout.write('terminated ' + rows[0].n + '\\n');
    })().catch((err) => { process.stderr.write(String(err && err.stack)); process.exit(3); });
  `;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../..'), encoding: 'utf8', timeout: 30000 });
  return { status: r.status, stderr: `${r.stdout}\n${r.stderr}` };
}

describe('bench infra.pool', () => {
  it('survives its idle connections being terminated (a bare pg Pool does not)', () => {
    const bench = runChild('bench');
    expect(bench.stderr).toContain('terminated 2');
    expect(bench.status).toBe(0);
    // The event is real: without a listener, the terminated connection's error ends the process.
    const bare = runChild('bare');
    expect(bare.stderr).toMatch(/terminating connection due to administrator command/);
    expect(bare.status).not.toBe(0);
  });
});
