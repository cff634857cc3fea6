import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { databaseUrl, dropDatabase } from '../../libs/testing/src/integration/databases';
import { SpawnedApp, spawnApp, waitFor } from './apps';
import { freePort, PrivateNats, startPrivateNats } from './infra';
import { e2eState } from './state';

export interface MiniSystem {
  baseUrl: string;
  databaseUrl: string;
  env: Record<string, string>;
  apps: Map<string, SpawnedApp>;
  /** Starts an app; `key` names a second replica of the same app. */
  start(app: string, env?: Record<string, string>, key?: string): SpawnedApp;
  stop(): Promise<void>;
}

/**
 * A second, isolated system for tests that kill or restart services: its own database (migrated
 * by the real migrate command), its own NATS, and only the apps the test asks for.
 */
export async function startMiniSystem(apps: string[], env: Record<string, string> = {}, opts: { appDatabaseUrl?: (url: string) => string; logs?: boolean } = {}): Promise<MiniSystem & { nats: PrivateNats }> {
  const s = e2eState();
  const name = `sa_e2e_mini_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(name);
  const migrate = spawnSync(process.execPath, ['dist/tools/migrate/main.js'], { cwd: s.root, env: { ...process.env, DATABASE_URL: url }, encoding: 'utf8' });
  if (migrate.status !== 0) throw new Error(`migrating ${name} failed: ${migrate.stderr}`);
  const nats: PrivateNats = await startPrivateNats();
  const port = await freePort();
  const baseEnv = { ...env, DATABASE_URL: opts.appDatabaseUrl ? opts.appDatabaseUrl(url) : url, NATS_URL: nats.url, GATEWAY_PORT: String(port) };
  const running = new Map<string, SpawnedApp>();
  const start = (app: string, extra: Record<string, string> = {}, key = app) => {
    const spawned = spawnApp(app, { ...baseEnv, ...extra }, { log: opts.logs });
    running.set(key, spawned);
    return spawned;
  };
  for (const app of apps) start(app);
  if (apps.includes('gateway')) {
    await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0), (st) => st === 200, 60000).catch((err) => {
      throw new Error(`gateway not up: ${(err as Error).message}\n${running.get('gateway')?.stderrTail() ?? ''}`);
    });
  }
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    databaseUrl: url,
    nats,
    env: baseEnv,
    apps: running,
    start,
    stop: async () => {
      for (const a of running.values()) await a.kill('SIGKILL');
      await nats.stop();
      await dropDatabase(name);
    },
  };
}
