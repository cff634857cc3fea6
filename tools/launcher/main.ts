import * as path from 'node:path';
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from '@sa/config';
import { LogFormat, createPrettifier, logFormatFromEnv } from '@sa/logging';
import { describeSecretKey, loadOrCreateKeyFile, localSecretKeyFile, parseSecretKey } from '@sa/webhook-registry';
import { runMigrations } from '../migrate/run-migrations';
import { serviceRolesFromEnv } from '../migrate/service-roles';
import { prepareSetupCode } from './first-run';
import { checkDependencies, redactUrl } from './preflight';
import { APPS, AppName, System } from './system';

// `npm start`: check PostgreSQL, NATS (and Redis when configured) answer, migrate (and provision
// each app's role), start all eleven apps, wait until ready, print the URLs; Ctrl-C stops all.
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
  const say = (line: string) => process.stdout.write(`[launcher] ${line}\n`);
  const complain = (line: string) => process.stderr.write(`[launcher] ${line}\n`);

  // What a person reads: one readable line an event on a terminal, the apps' JSON as it is
  // elsewhere (CI, containers, a pipe); LOG_FORMAT=json|pretty decides instead.
  let format: LogFormat;
  try {
    format = logFormatFromEnv(process.env, process.stdout.isTTY ? 'pretty' : 'json');
  } catch (err) {
    complain((err as Error).message);
    process.exit(1);
  }
  const prettify = format === 'pretty' ? createPrettifier() : null;
  if (format === 'pretty' && !prettify) say('pino-pretty is not installed (a dev dependency: npm install): the apps log JSON');
  // The apps always write JSON to the launcher, which writes each line on, as it is or readable:
  // one formatter, in one process, and no line of an app in the middle of another's.
  env['LOG_FORMAT'] = 'json';
  delete env['LOG_PRETTY'];
  const write = (_app: AppName, line: string, stream: 'stdout' | 'stderr') => process[stream].write(prettify ? prettify(line) : `${line}\n`);

  // Every server the system needs, before anything is written: each one that does not answer is
  // named with the command that starts it, rather than a stack trace or a start that times out.
  const unreachable = await checkDependencies(env);
  if (unreachable.length > 0) {
    for (const line of unreachable) complain(line);
    process.exit(1);
  }

  const root = path.resolve(__dirname, '..', '..', '..');
  say(webhookSecretKey(env, root));
  // DATABASE_URL migrates; each app connects as its own role (System gives each its URL).
  say(`database ${redactUrl(env['DATABASE_URL']!)}`);
  await runMigrations(env['DATABASE_URL']!, say, serviceRolesFromEnv(env));
  const setupLine = await prepareSetupCode(env);

  const system = new System({ root, env, output: { kind: 'lines', write }, restartOnCrash: true, onEvent: say });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping all apps`);
    await system.stop(Number(env['SHUTDOWN_GRACE_MS'] ?? 10000) + 5000);
    await system.settle(100, 1000); // the apps' last lines, still in the pipes
    say('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await system.start();
  await system.waitReady(Number(env['START_TIMEOUT_MS'] ?? 90000));
  // The summary comes last: after the lines the apps wrote while starting.
  await system.settle();
  say('ready');
  const ops = APPS.map((app) => `${app} ${system.opsPort(app)}`).join(', ');
  process.stdout.write(
    `\n  REST API base URL: ${system.baseUrl}\n  MCP server URL:    ${system.mcpUrl}\n  OpenAPI document:  ${system.baseUrl}/openapi.json\n` +
      `  Console: ${system.consoleUrl}\n` +
      (setupLine ? `  ${setupLine}\n` : '') +
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

main().catch((err: unknown) => {
  process.stderr.write(`[launcher] failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
