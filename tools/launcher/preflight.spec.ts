import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkDependencies, dependencies, endpointsOf, notReachable, postgresClusters, redactUrl, startHints } from './preflight';

/** A port nothing listens on: one just closed. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('dependencies', () => {
  it('checks PostgreSQL and NATS always, Redis only when REDIS_URL is set', () => {
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/sa', NATS_URL: 'nats://127.0.0.1:4222' };
    expect(dependencies(env).map((d) => d.name)).toEqual(['PostgreSQL', 'NATS']);
    expect(dependencies({ ...env, REDIS_URL: '' }).map((d) => d.name)).toEqual(['PostgreSQL', 'NATS']);
    expect(dependencies({ ...env, REDIS_URL: 'redis://127.0.0.1:6379' }).map((d) => d.name)).toEqual(['PostgreSQL', 'NATS', 'Redis']);
  });
});

describe('endpointsOf', () => {
  it('reads host and port, with each server’s default port', () => {
    expect(endpointsOf({ name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'postgres://u:p@db.example:6543/sa' })).toEqual([{ host: 'db.example', port: 6543 }]);
    expect(endpointsOf({ name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'postgresql://u@127.0.0.1/sa' })).toEqual([{ host: '127.0.0.1', port: 5432 }]);
    expect(endpointsOf({ name: 'Redis', variable: 'REDIS_URL', url: 'redis://:secret@localhost' })).toEqual([{ host: 'localhost', port: 6379 }]);
    expect(endpointsOf({ name: 'NATS', variable: 'NATS_URL', url: 'nats://[::1]:4333' })).toEqual([{ host: '::1', port: 4333 }]);
  });

  it('reads every server of a NATS list, with or without the scheme', () => {
    expect(endpointsOf({ name: 'NATS', variable: 'NATS_URL', url: 'nats://a:4222, b' })).toEqual([
      { host: 'a', port: 4222 },
      { host: 'b', port: 4222 },
    ]);
  });

  it('finds PostgreSQL’s Unix socket in ?host= or an encoded path', () => {
    expect(endpointsOf({ name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'postgres:///sa?host=/var/run/postgresql' })).toEqual([{ socket: '/var/run/postgresql/.s.PGSQL.5432' }]);
    expect(endpointsOf({ name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'postgres:///sa?host=/tmp&port=5433' })).toEqual([{ socket: '/tmp/.s.PGSQL.5433' }]);
    expect(endpointsOf({ name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'postgres://u@%2Ftmp/sa' })).toEqual([{ socket: '/tmp/.s.PGSQL.5432' }]);
  });

  it('is empty for what is not a URL', () => {
    expect(endpointsOf({ name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'not a url' })).toEqual([]);
  });
});

describe('redactUrl', () => {
  it('hides the password, and only the password', () => {
    expect(redactUrl('postgres://postgres:s3cret@127.0.0.1:5432/sa')).toBe('postgres://postgres:***@127.0.0.1:5432/sa');
    expect(redactUrl('redis://:s3cret@127.0.0.1:6379')).toBe('redis://:***@127.0.0.1:6379');
    expect(redactUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/sa')).toBe('postgres://postgres@127.0.0.1:5432/sa');
  });
});

describe('startHints', () => {
  const nats = { name: 'NATS', variable: 'NATS_URL', url: 'nats://127.0.0.1:4222' } as const;
  const pg = { name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'postgres://postgres@127.0.0.1:5432/sa' } as const;
  const redis = { name: 'Redis', variable: 'REDIS_URL', url: 'redis://127.0.0.1:6379' } as const;

  it('gives the command that starts the server on this machine at the URL’s port, then Docker’s', () => {
    expect(startHints(nats, { host: '127.0.0.1', port: 4222 }, [])).toEqual(['nats-server -js', 'docker run -d --name sa-nats -p 127.0.0.1:4222:4222 nats:2.10-alpine -js']);
    expect(startHints(nats, { host: 'localhost', port: 4300 }, [])[0]).toBe('nats-server -js -p 4300');
    expect(startHints(redis, { host: '127.0.0.1', port: 6379 }, [])).toEqual(['redis-server --daemonize yes', 'docker run -d --name sa-redis -p 127.0.0.1:6379:6379 redis:7']);
    expect(startHints(redis, { host: '127.0.0.1', port: 6380 }, [])[0]).toBe('redis-server --daemonize yes --port 6380');
  });

  it('starts the Debian cluster that listens on the URL’s port, else the first, else through systemd', () => {
    const clusters = [
      { version: '16', name: 'main', port: 5433 },
      { version: '15', name: 'main', port: 5432 },
    ];
    expect(startHints(pg, { host: '127.0.0.1', port: 5432 }, clusters)[0]).toBe('pg_ctlcluster 15 main start');
    expect(startHints(pg, { host: '127.0.0.1', port: 5999 }, clusters)[0]).toBe('pg_ctlcluster 16 main start');
    expect(startHints(pg, { host: '127.0.0.1', port: 5432 }, [])).toEqual(['systemctl start postgresql', 'docker run -d --name sa-postgres -p 127.0.0.1:5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15']);
    expect(startHints(pg, { socket: '/var/run/postgresql/.s.PGSQL.5432' }, clusters)[0]).toBe('pg_ctlcluster 15 main start');
  });

  it('starts nothing on another host: says what to check', () => {
    expect(startHints(nats, { host: 'nats.internal', port: 4222 }, [])).toEqual(['Check that it runs and that this machine reaches it, or point NATS_URL at one that does']);
  });
});

describe('postgresClusters', () => {
  it('reads /etc/postgresql/<version>/<cluster>/postgresql.conf, newest version first', () => {
    const etc = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-pg-etc-'));
    try {
      fs.mkdirSync(path.join(etc, '15', 'main'), { recursive: true });
      fs.writeFileSync(path.join(etc, '15', 'main', 'postgresql.conf'), "# port = 1\nport = 5433\t\t# (change requires restart)\n");
      fs.mkdirSync(path.join(etc, '16', 'main'), { recursive: true });
      fs.writeFileSync(path.join(etc, '16', 'main', 'postgresql.conf'), 'listen_addresses = localhost\n');
      expect(postgresClusters(etc)).toEqual([
        { version: '16', name: 'main', port: 5432 },
        { version: '15', name: 'main', port: 5433 },
      ]);
      expect(postgresClusters(path.join(etc, 'none'))).toEqual([]);
    } finally {
      fs.rmSync(etc, { recursive: true, force: true });
    }
  });
});

describe('notReachable', () => {
  it('names the server, its URL without the password, the variable and why, then the commands', () => {
    const lines = notReachable({ name: 'PostgreSQL', variable: 'DATABASE_URL', url: 'postgres://postgres:pw@127.0.0.1:5432/sa' }, 'connection refused', { host: '127.0.0.1', port: 5432 }, [{ version: '15', name: 'main', port: 5432 }]);
    expect(lines).toEqual([
      'PostgreSQL is not reachable at postgres://postgres:***@127.0.0.1:5432/sa (DATABASE_URL): connection refused. Start it with: pg_ctlcluster 15 main start',
      '  or with Docker: docker run -d --name sa-postgres -p 127.0.0.1:5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15',
    ]);
  });

  it('says Redis is optional', () => {
    const [line] = notReachable({ name: 'Redis', variable: 'REDIS_URL', url: 'redis://127.0.0.1:6379' }, 'connection refused', { host: '127.0.0.1', port: 6379 }, []);
    expect(line).toBe('Redis is not reachable at redis://127.0.0.1:6379 (REDIS_URL): connection refused. Start it with: redis-server --daemonize yes (Redis is optional: without REDIS_URL each app keeps its rate limits itself)');
  });
});

describe('checkDependencies', () => {
  let server: net.Server;
  let open: number;
  beforeAll(async () => {
    server = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    open = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('reports nothing when every server accepts a connection', async () => {
    expect(await checkDependencies({ DATABASE_URL: `postgres://postgres@127.0.0.1:${open}/sa`, NATS_URL: `nats://127.0.0.1:${open}`, REDIS_URL: `redis://127.0.0.1:${open}` }, [])).toEqual([]);
  });

  it('reports every server that refuses, at once, and a NATS list is reachable when one of its servers is', async () => {
    const closed = await closedPort();
    const started = Date.now();
    const lines = await checkDependencies({ DATABASE_URL: `postgres://postgres:pw@127.0.0.1:${closed}/sa`, NATS_URL: `nats://127.0.0.1:${closed}`, REDIS_URL: `redis://127.0.0.1:${closed}` }, []);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(lines.filter((l) => !l.startsWith('  '))).toEqual([
      `PostgreSQL is not reachable at postgres://postgres:***@127.0.0.1:${closed}/sa (DATABASE_URL): connection refused. Start it with: systemctl start postgresql`,
      `NATS is not reachable at nats://127.0.0.1:${closed} (NATS_URL): connection refused. Start it with: nats-server -js -p ${closed}`,
      `Redis is not reachable at redis://127.0.0.1:${closed} (REDIS_URL): connection refused. Start it with: redis-server --daemonize yes --port ${closed} (Redis is optional: without REDIS_URL each app keeps its rate limits itself)`,
    ]);
    expect(await checkDependencies({ DATABASE_URL: `postgres://127.0.0.1:${open}/sa`, NATS_URL: `nats://127.0.0.1:${closed},nats://127.0.0.1:${open}` }, [])).toEqual([]);
  });
});
