import * as path from 'node:path';
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from '@sa/config';
import { describeSecretKey, loadOrCreateKeyFile, localSecretKeyFile, parseSecretKey } from '@sa/webhook-registry';
import { runMigrations } from '../migrate/run-migrations';
import { serviceRolesFromEnv } from '../migrate/service-roles';
import { APPS, System } from './system';

// `npm start`: migrate (and provision each app's role), start all nine apps, wait until ready, print the URLs; Ctrl-C stops all.
async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: process.env['DATABASE_URL'] || DEFAULT_DATABASE_URL,
    NATS_URL: process.env['NATS_URL'] || DEFAULT_NATS_URL,
    GATEWAY_PORT: process.env['GATEWAY_PORT'] || '3000',
    MCP_PORT: process.env['MCP_PORT'] || '3001',
    CONSOLE_PORT: process.env['CONSOLE_PORT'] || '3002',
    NODE_ENV: process.env['NODE_ENV'] || 'production',
  };
  if (process.stdout.isTTY && env['LOG_PRETTY'] === undefined) env['LOG_PRETTY'] = 'true';
  const say = (line: string) => process.stdout.write(`[launcher] ${line}\n`);

  const root = path.resolve(__dirname, '..', '..', '..');
  say(webhookSecretKey(env, root));
  // DATABASE_URL migrates; each app connects as its own role (System gives each its URL).
  say(`database ${redact(env['DATABASE_URL']!)}`);
  await runMigrations(env['DATABASE_URL']!, say, serviceRolesFromEnv(env));

  const system = new System({ root, env, output: { kind: 'inherit' }, restartOnCrash: true, onEvent: say });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping all apps`);
    await system.stop(Number(env['SHUTDOWN_GRACE_MS'] ?? 10000) + 5000);
    say('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await system.start();
  await system.waitReady(Number(env['START_TIMEOUT_MS'] ?? 90000));
  say('ready');
  const ops = APPS.map((app) => `${app} ${system.opsPort(app)}`).join(', ');
  process.stdout.write(
    `\n  REST API base URL: ${system.baseUrl}\n  MCP server URL:    ${system.mcpUrl}\n  OpenAPI document:  ${system.baseUrl}/openapi.json\n` +
      `  Console: ${system.consoleUrl}\n` +
      `  Ops endpoints:     http://127.0.0.1:<port>/healthz, /readyz, /metrics (${ops})\n\n  Press Ctrl-C to stop.\n\n`,
  );
}

/**
 * A laptop install has no WEBHOOK_SECRET_KEY: the apps (which run with NODE_ENV=production and so
 * require one) get the key in the local key file, created on the first start (0600) and reused
 * after, so webhook signing secrets are always stored encrypted. The admin CLI finds the same
 * file. Returns the line to print: where the key is, never the key.
 */
function webhookSecretKey(env: NodeJS.ProcessEnv, root: string): string {
  const given = parseSecretKey(env['WEBHOOK_SECRET_KEY']); // a malformed key stops the launcher here
  if (given) return 'webhook signing secrets are encrypted with WEBHOOK_SECRET_KEY';
  const file = localSecretKeyFile(env, root);
  const { key, created } = loadOrCreateKeyFile(file);
  env['WEBHOOK_SECRET_KEY'] = key.toString('hex');
  return describeSecretKey({ key, source: { kind: 'file', path: file, created }, toJSON: () => null });
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');
}

main().catch((err: unknown) => {
  process.stderr.write(`[launcher] failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
