import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { appDatabaseEnv, compileCacheEnv } from '@sa/config';
import { e2eState } from './state';

export interface SpawnedApp {
  process: ChildProcess;
  /** Where its output goes (tmp/e2e-logs/spawned-<app>-<n>.log), when it is kept. */
  logFile: string | null;
  exited: Promise<number | null>;
  /** The last few KB of its standard error (when it is not kept in a log file), for a failure message. */
  stderrTail(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts one more instance of an app (a replica, or an app wired to other infrastructure) with the
 * e2e environment plus `env`. Its DATABASE_URL is the base URL (as for the launcher): the app
 * connects as its own role. The instance belongs to the calling test, which must kill it.
 */
let spawned = 0;

export function spawnApp(app: string, env: Record<string, string> = {}, opts: { log?: boolean } = {}): SpawnedApp {
  const s = e2eState();
  // Their output goes nowhere, or to tmp/e2e-logs/spawned-<app>-<n>.log with E2E_APP_LOGS=1 (debugging) or when asked.
  const logFile = process.env['E2E_APP_LOGS'] || opts.log ? path.join(s.logDir, `spawned-${app}-${++spawned}.log`) : null;
  const logFd = logFile === null ? null : fs.openSync(logFile, 'a');
  const base = { PATH: process.env['PATH'], ...s.env, ...env };
  const child = spawn(process.execPath, [path.join(s.root, 'dist', 'apps', app, 'src', 'main.js')], {
    env: { ...compileCacheEnv(base, s.root), ...base, ...appDatabaseEnv(app, base) },
    stdio: logFd === null ? ['ignore', 'ignore', 'pipe'] : ['ignore', logFd, logFd],
  });
  if (logFd !== null) fs.closeSync(logFd);
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4096);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    logFile,
    exited,
    stderrTail: () => (logFile === null ? tail : fs.readFileSync(logFile, 'utf8').slice(-4096)),
    kill: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}

export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn().catch((e) => e as T);
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
    last = await fn().catch((e) => e as T);
  }
  return last;
}
