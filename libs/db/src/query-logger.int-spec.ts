import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { createLogger } from '@sa/logging';
// Test-only dependency; the module-boundary rule does not tell tests from library code.
import { createTestDatabase } from '@sa/testing';
import { createDataSource } from './data-source';

// TypeORM's failed queries against the real PostgreSQL: every line is JSON through pino, with the
// SQL and the error code, and never the parameters (visitors' names, e-mails and questions), not
// even where PostgreSQL repeats a value in its message or detail.

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MARKER = `visitor-${randomBytes(6).toString('hex')}@example.com`;

/** A pino logger whose lines are kept, as an app's logger would write them to stdout. */
function capturingLogger(): { logger: pino.Logger; lines: () => string[] } {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines: () => out.split('\n').filter(Boolean) };
}

/** The failing statements: a value PostgreSQL echoes in its message, a unique and a not-null violation. */
async function failQueries(ds: DataSource): Promise<string[]> {
  const codes: string[] = [];
  const fail = async (sql: string, params: unknown[]) => {
    const err = await ds.query(sql, params).then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(err).not.toBeNull();
    codes.push(err!.code!);
  };
  await fail('SELECT $1::uuid AS id', [MARKER]);
  await fail('INSERT INTO query_log_visitors (email, name, question) VALUES ($1, $2, $3)', [MARKER, `Ann ${MARKER}`, `Where is my order? ${MARKER}`]);
  await fail('INSERT INTO query_log_visitors (email, name, question) VALUES ($1, NULL, $2)', [`other-${MARKER}`, `Hello ${MARKER}`]);
  await fail('SELECT email FROM query_log_visitors WHERE id = ANY($1::int[])', [[MARKER, 'x']]);
  return codes;
}

let db: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  db = await createTestDatabase('sa_querylog');
  const setup = await createDataSource({ url: db.url, applicationName: 'query-log-setup', logger: pino({ level: 'silent' }) });
  await setup.query('CREATE TABLE query_log_visitors (id serial PRIMARY KEY, email text UNIQUE NOT NULL, name text NOT NULL, question text)');
  await setup.query('INSERT INTO query_log_visitors (email, name, question) VALUES ($1, $2, $3)', [MARKER, 'Ann', 'first']);
  await setup.destroy();
});

afterAll(async () => {
  await db?.drop();
});

describe("TypeORM's query log", () => {
  it('writes each failed query as one JSON line with the SQL and the error code, never the parameters', async () => {
    const { logger, lines } = capturingLogger();
    const ds = await createDataSource({ url: db.url, applicationName: 'query-log-test', logger });
    try {
      expect(await failQueries(ds)).toEqual(['22P02', '23505', '23502', '22P02']);
    } finally {
      await ds.destroy();
    }
    const records = lines().map((l) => JSON.parse(l) as Record<string, any>);
    const failed = records.filter((r) => r['msg'] === 'query failed');
    expect(failed.map((r) => [r['level'], r['query']?.code])).toEqual([
      [50, '22P02'],
      [50, '23505'],
      [50, '23502'],
      [50, '22P02'],
    ]);
    expect(failed[1]['query']).toEqual(
      expect.objectContaining({
        sql: 'INSERT INTO query_log_visitors (email, name, question) VALUES ($1, $2, $3)',
        parameter_count: 3,
        constraint: 'query_log_visitors_email_key',
        table: 'query_log_visitors',
        message: 'duplicate key value violates unique constraint "query_log_visitors_email_key"',
      }),
    );
    expect(failed[0]['query'].message).toBe('invalid input syntax for type uuid: "[redacted]"');
    expect(failed[2]['query'].column).toBe('name');
    for (const line of lines()) expect(line).not.toContain(MARKER);
    for (const line of lines()) expect(line).not.toMatch(/PARAMETERS|Failing row|Key \(email\)/);
  });

  it("an app's logger that logs the QueryFailedError it caught shows neither the parameters nor the values PostgreSQL repeats", async () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = createLogger('query-log-test', { level: 'info', pretty: false, destination: sink });
    const ds = await createDataSource({ url: db.url, applicationName: 'query-log-test', logger: pino({ level: 'silent' }) });
    try {
      for (const [sql, params] of [
        ['SELECT $1::uuid AS id', [MARKER]],
        ['INSERT INTO query_log_visitors (email, name) VALUES ($1, $2)', [MARKER, `Ann ${MARKER}`]],
      ] as const) {
        const err = await ds.query(sql, [...params]).catch((e: unknown) => e);
        logger.error({ err }, 'request failed');
      }
    } finally {
      await ds.destroy();
    }
    const records = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(records.map((r) => [r['msg'], r['err']?.type, r['err']?.code])).toEqual([
      ['request failed', 'QueryFailedError', '22P02'],
      ['request failed', 'QueryFailedError', '23505'],
    ]);
    expect(records[0]['err'].query).toBe('SELECT $1::uuid AS id');
    expect(out).not.toContain(MARKER);
  });

  it('an app (createDataSource without a logger, as DatabaseModule builds it) prints only JSON lines, without the parameters', () => {
    // The compiled library, in a process of its own: what the app's stdout and stderr show.
    const script = `
      const { createDataSource } = require(${JSON.stringify(path.join(ROOT, 'dist', 'libs', 'db', 'src', 'index.js'))});
      (async () => {
        const ds = await createDataSource({ url: process.env.DB_URL, applicationName: 'query-log-child' });
        await ds.query('SELECT $1::uuid AS id', [process.env.MARKER]).catch(() => undefined);
        await ds.query('INSERT INTO query_log_visitors (email, name) VALUES ($1, $2)', [process.env.MARKER, 'Ann ' + process.env.MARKER]).catch(() => undefined);
        await ds.destroy();
      })();`;
    const child = spawnSync(process.execPath, ['-e', script], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'], DB_URL: db.url, MARKER, LOG_LEVEL: 'info', NODE_ENV: 'production' },
      encoding: 'utf8',
      timeout: 30000,
    });
    expect(child.status).toBe(0);
    const lines = `${child.stdout}\n${child.stderr}`.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(() => JSON.parse(line)).not.toThrow();
      expect(line).not.toContain(MARKER);
    }
    const records = lines.map((l) => JSON.parse(l) as Record<string, any>);
    expect(records.map((r) => [r['service'], r['msg'], r['query']?.code])).toEqual([
      ['query-log-child', 'query failed', '22P02'],
      ['query-log-child', 'query failed', '23505'],
    ]);
  });
});
