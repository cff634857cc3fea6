'use strict';
// Infrastructure helpers for benchmarks: plain-JS copies of the small helpers in
// e2e/support/infra.ts (bench/ runs without a TypeScript build step), plus database, admin-CLI
// and process helpers. Everything a helper starts is handed to the caller to stop.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { Client, Pool } = require('pg');

const ROOT = path.resolve(__dirname, '..', '..');
const ADMIN_DATABASE_URL = process.env.BENCH_ADMIN_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A port to listen on, picked below the kernel's ephemeral range (a copy of freePort in
 * libs/testing/src/infra/local-services.ts): a port from that range, what `listen(0)` hands out,
 * is free only until the next outgoing connection takes it. Ports handed out are not handed out
 * again by this process.
 */
async function freePort() {
  const [low, high] = listenRange();
  for (let attempt = 0; attempt < 200 && high > low; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return listenOnAny();
}

const handedOut = new Set();

/** [low, high): the ports below the ephemeral range (Linux's ip_local_port_range), from 20000 up. */
function listenRange() {
  let ephemeralLow = 32768;
  try {
    const [lo] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(lo) && lo > 0) ephemeralLow = lo;
  } catch {
    // not Linux: keep the IANA default
  }
  return [Math.min(20000, ephemeralLow), ephemeralLow];
}

function canListen(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function listenOnAny() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Free ports for every listener of a benchmark's system, so that it runs beside a system started
 * with `npm start` (3000-3002 and the ops ports 9464-9474) or anything else: `env` (GATEWAY_PORT,
 * MCP_PORT, CONSOLE_PORT, and OPS_PORT=0 for any app started without a port of its own) goes into
 * the System's environment, `opsPorts` (one per app) into its options.
 */
async function systemPorts(apps) {
  const env = {
    GATEWAY_PORT: String(await freePort()),
    MCP_PORT: String(await freePort()),
    CONSOLE_PORT: String(await freePort()),
    OPS_PORT: '0',
  };
  const opsPorts = {};
  for (const app of apps) opsPorts[app] = await freePort();
  return { env, opsPorts };
}

async function waitForPort(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`port ${port} did not open in ${timeoutMs} ms`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function findNatsServer() {
  const candidates = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].filter(Boolean);
  for (const c of candidates) if (fs.existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : null;
}

/**
 * A nats-server with JetStream of this run's own on a free port (as the e2e suite does), so the
 * benchmark never shares subjects or queue groups with anything else on the machine. Falls back
 * to BENCH_NATS_URL / NATS_URL (shared server) when no binary is installed.
 */
async function startPrivateNats() {
  const bin = findNatsServer();
  if (!bin) {
    const url = process.env.BENCH_NATS_URL || process.env.NATS_URL || 'nats://127.0.0.1:4222';
    return { url, monitorUrl: null, pid: null, private: false, stop: async () => undefined };
  }
  const port = await freePort();
  const monitorPort = await freePort();
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-bench-nats-'));
  // -m: the HTTP monitoring endpoint, read for message counts (/varz).
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPort), '-js', '-sd', storeDir], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    await waitForPort(port, 10000);
  } catch (err) {
    child.kill('SIGKILL');
    fs.rmSync(storeDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    monitorUrl: `http://127.0.0.1:${monitorPort}`,
    pid: child.pid,
    private: true,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      fs.rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

function redisReachable(url) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(u.port || 6379), u.hostname);
    s.setTimeout(1000);
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

function databaseUrl(name) {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdminDb(fn) {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL, application_name: 'bench-admin' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A pg Pool for a benchmark's own queries. pg-pool's end() resolves as soon as it has told its idle
 * clients to end, before their connections are closed, and keeps listening to them until then: the
 * cleanup's DROP DATABASE ... WITH (FORCE) that follows may terminate one, and its 'error' (57P01,
 * admin shutdown) reaches the pool, which would end the process without a listener. Such errors of
 * idle connections are expected there; any other is logged.
 */
function pool(options) {
  const p = new Pool(options);
  p.on('error', (err) => {
    if (err && err.code !== '57P01') process.stderr.write(`[bench] ${options.application_name || 'pool'}: an idle connection failed: ${err.message}\n`);
  });
  return p;
}

async function dropDatabase(name) {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop database ${name}`);
  await withAdminDb((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Backend pids of every connection to the database (for CPU accounting). */
async function backendPids(name) {
  return withAdminDb(async (c) => (await c.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name])).rows.map((r) => r.pid));
}

/** Transactions committed in the database so far (statistics lag by up to about a second). */
async function committedTransactions(name) {
  return withAdminDb(async (c) => Number((await c.query('SELECT xact_commit FROM pg_stat_database WHERE datname = $1', [name])).rows[0].xact_commit));
}

/** Messages the NATS server has received (in) and delivered (out) so far, from /varz. */
async function natsMessages(monitorUrl) {
  const v = await (await fetch(`${monitorUrl}/varz`)).json();
  return { in: v.in_msgs, out: v.out_msgs };
}

/** Subscriptions the NATS server has registered so far (SUB operations), from /subsz. */
async function natsSubscriptionsCreated(monitorUrl) {
  return (await (await fetch(`${monitorUrl}/subsz`)).json()).num_inserts;
}

/** Runs the real migrate command of the build in `distDir` (it creates the database when missing). */
function migrate(dbUrl, distDir = path.join(ROOT, 'dist')) {
  const r = spawnSync(process.execPath, [path.join(distDir, 'tools', 'migrate', 'main.js')], { cwd: ROOT, env: { ...process.env, DATABASE_URL: dbUrl }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`migrations failed:\n${r.stdout}\n${r.stderr}`);
}

/**
 * Runs the compiled admin CLI against `dbUrl` and parses its JSON output. `extraEnv` adds to its
 * environment (e.g. the outbound policy `webhook create` checks endpoint URLs against).
 */
function admin(dbUrl, args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'tools', 'admin', 'main.js'), ...args], {
      env: { PATH: process.env.PATH, ...extraEnv, DATABASE_URL: dbUrl },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`admin ${args.join(' ')} failed (${code}): ${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

/** The compiled launcher's System class (dist/tools/launcher/system.js), the one the e2e suite uses. */
function loadSystem() {
  return loadLauncher().System;
}

/** The compiled launcher module: System and APPS (the nine apps). */
function loadLauncher() {
  const file = path.join(ROOT, 'dist', 'tools', 'launcher', 'system.js');
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run build`);
  return require(file);
}

/** Pids of running processes whose command name is `comm` (e.g. redis-server). */
function pidsByName(comm) {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) out.push(Number(entry));
    } catch {
      // process went away
    }
  }
  return out;
}

/**
 * What every system benchmark starts with, undone in reverse order through ctx.defer: a fresh
 * database migrated by the real migrate command, a private nats-server, whether Redis is
 * reachable, and a folder for the apps' logs (kept with --keep-logs or when a run fails).
 */
async function prepareSystem(ctx) {
  const { randomBytes } = require('node:crypto');
  const dbName = `sa_bench_${randomBytes(4).toString('hex')}`;
  const dbUrl = databaseUrl(dbName);
  ctx.defer(`drop database ${dbName}`, () => dropDatabase(dbName));
  const nats = await startPrivateNats();
  ctx.defer('stop nats-server', () => nats.stop());
  ctx.log(`nats: ${nats.url}${nats.private ? ' (private nats-server)' : ' (shared server: no nats-server binary found)'}`);
  migrate(dbUrl);
  ctx.log(`database ${dbName} migrated`);
  const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const useRedis = Boolean(ctx.options.redis && (await redisReachable(redisUrl)));
  if (ctx.options.redis && !useRedis) ctx.log(`WARNING: Redis at ${redisUrl} is unreachable: the rate limiter runs in memory only`);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-bench-logs-'));
  ctx.defer('remove app logs', () => {
    if (ctx.keepLogs()) ctx.log(`app logs kept in ${logDir}`);
    else fs.rmSync(logDir, { recursive: true, force: true });
  });
  // The apps run with NODE_ENV=production, where the webhook-dispatcher (and the admin CLI's
  // webhook commands) require the key that encrypts signing secrets: one per run.
  const webhookSecretKey = randomBytes(32).toString('hex');
  return { dbName, dbUrl, nats, redisUrl, useRedis, logDir, webhookSecretKey };
}

/** What every benchmark's apps share: their database, NATS and ports, quiet JSON logs, production mode, the webhook secret key. */
function systemEnv({ dbUrl, nats, webhookSecretKey }, ports) {
  return { DATABASE_URL: dbUrl, NATS_URL: nats.url, ...ports.env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', NODE_ENV: 'production', WEBHOOK_SECRET_KEY: webhookSecretKey };
}

/** One request to the REST API with a token: its status, its JSON body (null when not JSON) and its text. */
async function api(baseUrl, token, method, urlPath, body) {
  const res = await fetch(`${baseUrl}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported with the status below
  }
  return { status: res.status, body: json, text };
}

module.exports = {
  api,
  systemEnv,
  ROOT,
  prepareSystem,
  ADMIN_DATABASE_URL,
  admin,
  backendPids,
  withAdminDb,
  committedTransactions,
  databaseUrl,
  dropDatabase,
  freePort,
  pool,
  loadLauncher,
  loadSystem,
  systemPorts,
  migrate,
  natsMessages,
  natsSubscriptionsCreated,
  pidsByName,
  redisReachable,
  sleep,
  startPrivateNats,
  waitForPort,
};
