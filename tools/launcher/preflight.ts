import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

/**
 * Before `npm start` migrates: is each server the system needs listening? PostgreSQL
 * (DATABASE_URL) and NATS (NATS_URL) always; Redis only when REDIS_URL is set (without it the
 * rate limits and sign-in throttles live in each app). For each that is not, one line names it,
 * its URL (no password) and why, and the command that starts it on this machine.
 */

export type DependencyName = 'PostgreSQL' | 'NATS' | 'Redis';

export interface Dependency {
  name: DependencyName;
  /** The variable the URL comes from. */
  variable: 'DATABASE_URL' | 'NATS_URL' | 'REDIS_URL';
  url: string;
}

/** Where a server listens: a TCP host and port, or a Unix socket (PostgreSQL's socket directory). */
export type Endpoint = { host: string; port: number } | { socket: string };

/** A PostgreSQL cluster of Debian's packages (/etc/postgresql/<version>/<name>) and its port. */
export interface PostgresCluster {
  version: string;
  name: string;
  port: number;
}

const DEFAULT_PORTS: Record<DependencyName, number> = { PostgreSQL: 5432, NATS: 4222, Redis: 6379 };

/** How long each check waits for a connection. */
export const CHECK_TIMEOUT_MS = 2000;

/** The servers to check, from the launcher's environment (its defaults already applied). */
export function dependencies(env: NodeJS.ProcessEnv): Dependency[] {
  const deps: Dependency[] = [
    { name: 'PostgreSQL', variable: 'DATABASE_URL', url: env['DATABASE_URL'] ?? '' },
    { name: 'NATS', variable: 'NATS_URL', url: env['NATS_URL'] ?? '' },
  ];
  if (env['REDIS_URL']) deps.push({ name: 'Redis', variable: 'REDIS_URL', url: env['REDIS_URL'] });
  return deps;
}

/**
 * The endpoints a URL names: NATS_URL may list several servers (comma-separated, the scheme
 * optional); a PostgreSQL URL may name a socket directory (`?host=/var/run/postgresql`, or an
 * encoded path as its host). Empty when the URL cannot be read (the apps' config reports that).
 */
export function endpointsOf(dep: Dependency): Endpoint[] {
  const port = DEFAULT_PORTS[dep.name];
  const urls = dep.name === 'NATS' ? dep.url.split(',').map((u) => u.trim()).filter(Boolean) : [dep.url];
  const out: Endpoint[] = [];
  for (const raw of urls) {
    let u: URL;
    try {
      u = new URL(dep.name === 'NATS' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? `nats://${raw}` : raw);
    } catch {
      continue;
    }
    const p = Number(u.port || u.searchParams.get('port') || port);
    const host = decodeURIComponent(u.hostname);
    const socketDir = dep.name === 'PostgreSQL' ? (u.searchParams.get('host') ?? (host.startsWith('/') ? host : null)) : null;
    if (socketDir && socketDir.startsWith('/')) out.push({ socket: path.join(socketDir, `.s.PGSQL.${p}`) });
    else out.push({ host: (host || 'localhost').replace(/^\[(.*)\]$/, '$1'), port: p });
  }
  return out;
}

/** The URL as printed: the password replaced by ***. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) {
      u.password = '***';
      return u.toString();
    }
    return url;
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]+@/, '//$1:***@');
  }
}

function isLocal(endpoint: Endpoint): boolean {
  return 'socket' in endpoint || ['localhost', '::1', '0.0.0.0', '::'].includes(endpoint.host) || /^127\./.test(endpoint.host);
}

/** Debian's PostgreSQL clusters on this machine (none elsewhere). */
export function postgresClusters(etc = '/etc/postgresql'): PostgresCluster[] {
  const clusters: PostgresCluster[] = [];
  let versions: string[] = [];
  try {
    versions = fs.readdirSync(etc).sort((a, b) => Number(b) - Number(a));
  } catch {
    return clusters;
  }
  for (const version of versions) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(etc, version));
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const conf = fs.readFileSync(path.join(etc, version, name, 'postgresql.conf'), 'utf8');
        const port = /^\s*port\s*=\s*(\d+)/m.exec(conf);
        clusters.push({ version, name, port: port ? Number(port[1]) : 5432 });
      } catch {
        // not a cluster
      }
    }
  }
  return clusters;
}

/**
 * The command that starts the server at `endpoint` (on this machine: from Debian's packages, as
 * the project's machines have them), then the same with Docker. A server on another host is not
 * ours to start: the hint says what to check instead.
 */
export function startHints(dep: Dependency, endpoint: Endpoint | undefined, clusters: PostgresCluster[]): string[] {
  if (!endpoint) return [`${dep.variable} is not a URL this launcher can read`];
  if (!isLocal(endpoint)) return [`Check that it runs and that this machine reaches it, or point ${dep.variable} at one that does`];
  const port = 'port' in endpoint ? endpoint.port : DEFAULT_PORTS[dep.name];
  const publish = `-p 127.0.0.1:${port}:${DEFAULT_PORTS[dep.name]}`;
  switch (dep.name) {
    case 'PostgreSQL': {
      const cluster = clusters.find((c) => c.port === port) ?? clusters[0];
      return [
        cluster ? `pg_ctlcluster ${cluster.version} ${cluster.name} start` : 'systemctl start postgresql',
        `docker run -d --name sa-postgres ${publish} -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15`,
      ];
    }
    case 'NATS':
      return [`nats-server -js${port === DEFAULT_PORTS.NATS ? '' : ` -p ${port}`}`, `docker run -d --name sa-nats ${publish} nats:2.10-alpine -js`];
    case 'Redis':
      return [`redis-server --daemonize yes${port === DEFAULT_PORTS.Redis ? '' : ` --port ${port}`}`, `docker run -d --name sa-redis ${publish} redis:7`];
  }
}

/** Null when something accepts a connection at `endpoint` within `timeoutMs`, else why not. */
export function unreachable(endpoint: Endpoint, timeoutMs = CHECK_TIMEOUT_MS): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = 'socket' in endpoint ? net.connect({ path: endpoint.socket }) : net.connect({ host: endpoint.host, port: endpoint.port });
    const done = (why: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(describeError(err, endpoint)));
  });
}

function describeError(err: NodeJS.ErrnoException, endpoint: Endpoint): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOENT':
      return 'socket' in endpoint ? `no socket ${endpoint.socket}` : err.message;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    default:
      return err.code ?? err.message;
  }
}

/**
 * Checks every dependency at once (each within CHECK_TIMEOUT_MS) and returns the lines to print
 * for those not reachable: none when all are. A dependency with several endpoints (NATS) is
 * reachable when one of them is.
 */
export async function checkDependencies(env: NodeJS.ProcessEnv, clusters: PostgresCluster[] = postgresClusters(), timeoutMs = CHECK_TIMEOUT_MS): Promise<string[]> {
  const results = await Promise.all(
    dependencies(env).map(async (dep) => {
      const endpoints = endpointsOf(dep);
      if (endpoints.length === 0) return notReachable(dep, 'not a URL', undefined, clusters);
      const whys = await Promise.all(endpoints.map((e) => unreachable(e, timeoutMs)));
      if (whys.some((w) => w === null)) return [];
      return notReachable(dep, whys.join('; '), endpoints[0], clusters);
    }),
  );
  return results.flat();
}

/** `NATS is not reachable at nats://127.0.0.1:4222 (NATS_URL): connection refused. Start it with: nats-server -js`, then the Docker command. */
export function notReachable(dep: Dependency, why: string, endpoint: Endpoint | undefined, clusters: PostgresCluster[]): string[] {
  const [first, docker] = startHints(dep, endpoint, clusters);
  const head = `${dep.name} is not reachable at ${redactUrl(dep.url)} (${dep.variable}): ${why}.`;
  const optional = dep.name === 'Redis' ? ' (Redis is optional: without REDIS_URL each app keeps its rate limits itself)' : '';
  if (!docker) return [`${head} ${first}.${optional}`];
  return [`${head} Start it with: ${first}${optional}`, `  or with Docker: ${docker}`];
}
