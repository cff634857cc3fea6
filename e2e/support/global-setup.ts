import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { databaseUrl } from '../../libs/testing/src/integration/databases';
import { freePort, redisReachable, startPrivateNats } from './infra';
import type { E2eState } from './state';

/**
 * Starts the real system once for the e2e run: a private NATS (JetStream), a fresh database
 * migrated by the real migrate command, Redis when reachable, and the nine compiled apps, each
 * connected as its own role (DATABASE_URL is the base URL, as for npm start).
 */
export default async function globalSetup(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const build = spawnSync(process.execPath, ['tools/build.js', '--if-stale', '--quiet'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  // The compiled launcher, as npm start runs it (a global setup resolves no @sa/* imports).
  const { APPS, System } = require(path.join(root, 'dist', 'tools', 'launcher', 'system.js')) as typeof import('../../tools/launcher/system');

  const dbName = `sa_e2e_${randomBytes(4).toString('hex')}`;
  const dbUrl = databaseUrl(dbName);
  const nats = await startPrivateNats();
  const migrate = spawnSync(process.execPath, ['dist/tools/migrate/main.js'], { cwd: root, env: { ...process.env, DATABASE_URL: dbUrl }, encoding: 'utf8' });
  if (migrate.status !== 0) throw new Error(`migrations failed:\n${migrate.stdout}\n${migrate.stderr}`);

  const redisUrl = process.env['E2E_REDIS_URL'] || 'redis://127.0.0.1:6379';
  const useRedis = await redisReachable(redisUrl);
  const rateLimitPrefix = `sa:e2e:${randomBytes(4).toString('hex')}:`;
  const logDir = path.join(root, 'tmp', 'e2e-logs');
  fs.rmSync(logDir, { recursive: true, force: true });

  // The local test site of the knowledge tests listens on this port; crawling it is allowed
  // (loopback 127.0.0.1 only) exactly as an operator would allow an internal site.
  const sitePort = await freePort();
  // A second site origin, for tests that serve other pages (and no robots.txt) than the knowledge
  // tests' site: the knowledge service caches an origin's robots.txt for an hour, so two specs that
  // serve different robots rules on one origin would see each other's, in whichever order they run.
  const crawlSitePort = await freePort();
  // The webhook tests' local receiver listens here (loopback, allowlisted like the site).
  const receiverPort = await freePort();
  const consolePort = String(await freePort());
  const env: Record<string, string> = {
    OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    // OAuth clients' metadata documents served by local test servers (http://127.0.0.1:<port>).
    OAUTH_CIMD_ALLOW_LOOPBACK: 'true',
    OUTBOUND_ALLOWED_PORTS: `80,443,${sitePort},${crawlSitePort},${receiverPort}`,
    OUTBOUND_TIMEOUT_MS: '3000',
    OUTBOUND_MAX_BYTES: String(512 * 1024),
    DATABASE_URL: dbUrl,
    NATS_URL: nats.url,
    GATEWAY_PORT: String(await freePort()),
    MCP_PORT: String(await freePort()),
    CONSOLE_PORT: consolePort,
    CONSOLE_PUBLIC_URL: `http://127.0.0.1:${consolePort}`,
    // Every browser and API test signs in from 127.0.0.1: the per-address limit of failed sign-ins
    // is tested apart (sign-in-throttle specs); the per-account one is kept.
    CONSOLE_SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
    // The first delay after the free failures (default 1 s) long enough that the throttle tests'
    // next attempt surely falls inside it on a loaded machine (console-signin-throttle.e2e-spec
    // starts a console of its own with short delays).
    CONSOLE_SIGNIN_DELAY_SECONDS: '60',
    CONSOLE_THROTTLE_PREFIX: `${rateLimitPrefix}console:`,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    NODE_ENV: 'test',
    RATE_LIMIT_REQUESTS: '100000',
    WIDGET_RATE_LIMIT_REQUESTS: '100000',
    ANONYMOUS_RATE_LIMIT_REQUESTS: '100000',
    RATE_LIMIT_PREFIX: rateLimitPrefix,
    RPC_TIMEOUT_MS: '3000',
    // Signing secrets encrypted at rest with a key of this run (the apps and the admin CLI share it).
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    ...(useRedis ? { REDIS_URL: redisUrl } : {}),
  };
  // Each app's ops endpoint (/healthz, /readyz, /metrics) on a known free port; replicas and mini
  // systems started by tests take any free port (OPS_PORT=0 in the shared env).
  const opsPorts: Record<string, number> = {};
  for (const app of APPS) opsPorts[app] = await freePort();
  env['OPS_PORT'] = '0';
  const system = new System({ root, env: { PATH: process.env['PATH'], ...env }, output: { kind: 'files', dir: logDir }, opsPorts });
  await system.start();
  await system.waitReady(60000);

  const state: E2eState = {
    root,
    baseUrl: system.baseUrl,
    gatewayUrl: system.gatewayUrl,
    opsUrls: Object.fromEntries(APPS.map((app) => [app, system.opsUrl(app)])),
    mcpUrl: system.mcpUrl,
    consoleUrl: system.consoleUrl,
    databaseUrl: dbUrl,
    natsUrl: nats.url,
    redisUrl: useRedis ? redisUrl : null,
    rateLimitPrefix,
    logDir,
    sitePort,
    crawlSitePort,
    receiverPort,
    env,
  };
  process.env['SA_E2E_STATE'] = JSON.stringify(state);
  (globalThis as Record<string, unknown>)['__SA_E2E__'] = { system, nats, dbName };
}
