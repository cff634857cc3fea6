import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { appDatabaseEnv, compileCacheEnv } from '@sa/config';

/** The eleven apps, each its own process (and in Kubernetes its own Deployment); the newest last (evaluations, channels), so the others keep their ops ports. */
export const APPS = ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'bookings', 'mcp', 'webhook-dispatcher', 'console', 'evaluations', 'channels'] as const;
export type AppName = (typeof APPS)[number];

export interface SystemOptions {
  /** Repository root (dist/ lives under it). */
  root: string;
  /**
   * Environment for every app (DATABASE_URL, NATS_URL, GATEWAY_PORT, …). DATABASE_URL is the base
   * URL: each app gets its own URL as DATABASE_URL (`<APP>_DATABASE_URL`, or the base URL with the
   * app's role as user; none for mcp), and no other app's.
   */
  env: NodeJS.ProcessEnv;
  /**
   * Where app output goes: the launcher's own stdout, one file per app, nowhere, or line by line
   * to `write` (npm start: as it is, or made readable for a person; see settle).
   */
  output: { kind: 'inherit' } | { kind: 'files'; dir: string } | { kind: 'ignore' } | { kind: 'lines'; write: (app: AppName, line: string, stream: 'stdout' | 'stderr') => void };
  /** Restart an app that exits on its own (npm start); tests leave this off to see crashes. */
  restartOnCrash?: boolean;
  onEvent?: (line: string) => void;
  /**
   * Port of each app's ops endpoint (/healthz, /readyz, /metrics). Default: a free port each when
   * OPS_PORT=0, else OPS_PORT_BASE (or OPS_PORT, or 9464) + the app's index: one host, ten apps.
   */
  opsPorts?: Partial<Record<AppName, number>>;
}

interface Running {
  child: ChildProcess;
  exited: Promise<number | null>;
  stopping: boolean;
}

/** How many characters of a failed app's log a readiness error shows. */
const LOG_TAIL_CHARS = 4000;

/**
 * Starts, stops and supervises the apps as separate Node processes running the compiled build
 * (dist/apps/<app>/src/main.js): the same processes a container runs.
 */
export class System {
  private readonly running = new Map<AppName, Running>();
  private readonly restarts = new Map<AppName, number[]>();
  /** Apps that exited on their own and are not restarted (no restartOnCrash, or it gave up): why. */
  private readonly failed = new Map<AppName, string>();
  private closing = false;
  /** When an app last wrote a line (output `lines`). */
  private lastLineAt = 0;

  constructor(private readonly opts: SystemOptions) {}

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.opts.env['GATEWAY_PORT'] ?? '3000'}`;
  }

  get baseUrl(): string {
    return `${this.gatewayUrl}/v1`;
  }

  /** The owner console (web application and its API under /api). */
  get consoleUrl(): string {
    return `http://127.0.0.1:${this.opts.env['CONSOLE_PORT'] ?? '3002'}`;
  }

  get mcpUrl(): string {
    return `http://127.0.0.1:${this.opts.env['MCP_PORT'] ?? '3001'}/mcp`;
  }

  opsPort(app: AppName): number {
    const given = this.opts.opsPorts?.[app];
    if (given !== undefined) return given;
    if (this.opts.env['OPS_PORT'] === '0') return 0;
    return Number(this.opts.env['OPS_PORT_BASE'] || this.opts.env['OPS_PORT'] || 9464) + APPS.indexOf(app);
  }

  /** http://127.0.0.1:<port> of an app's ops endpoint. */
  opsUrl(app: AppName): string {
    return `http://127.0.0.1:${this.opsPort(app)}`;
  }

  async start(apps: readonly AppName[] = APPS): Promise<void> {
    for (const app of apps) this.startApp(app);
  }

  pid(app: AppName): number | undefined {
    return this.running.get(app)?.child.pid;
  }

  startApp(app: AppName): void {
    if (this.running.has(app)) throw new Error(`${app} is already running`);
    this.failed.delete(app);
    const entry = path.join(this.opts.root, 'dist', 'apps', app, 'src', 'main.js');
    if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build`);
    const out = this.opts.output;
    let stdio: ('inherit' | 'ignore' | 'pipe' | number)[] = ['ignore', 'inherit', 'inherit'];
    if (out.kind === 'ignore') stdio = ['ignore', 'ignore', 'ignore'];
    if (out.kind === 'lines') stdio = ['ignore', 'pipe', 'pipe'];
    if (out.kind === 'files') {
      fs.mkdirSync(out.dir, { recursive: true });
      const fd = fs.openSync(path.join(out.dir, `${app}.log`), 'a');
      stdio = ['ignore', fd, fd];
    }
    const env = { ...compileCacheEnv(this.opts.env, this.opts.root), ...this.opts.env, ...appDatabaseEnv(app, this.opts.env), SERVICE_NAME: app, OPS_PORT: String(this.opsPort(app)) };
    // As the image runs it (`node dist/apps/<app>/src/main.js`): no --enable-source-maps, which would
    // keep every loaded module's source map in the heap (about 14 MB more for the gateway, most of
    // it the TypeScript sources node_modules ship) and make benchmarks measure another process.
    // For TypeScript positions in stack traces: NODE_OPTIONS=--enable-source-maps npm start.
    const child = spawn(process.execPath, [entry], { cwd: this.opts.root, env, stdio });
    if (typeof stdio[1] === 'number') fs.closeSync(stdio[1]);
    if (out.kind === 'lines') {
      for (const stream of ['stdout', 'stderr'] as const) {
        const input = child[stream];
        if (!input) continue;
        readline.createInterface({ input, crlfDelay: Infinity }).on('line', (line) => {
          this.lastLineAt = Date.now();
          out.write(app, line, stream);
        });
      }
    }
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
    const record: Running = { child, exited, stopping: false };
    this.running.set(app, record);
    void exited.then((code) => {
      if (this.running.get(app) === record) this.running.delete(app);
      if (record.stopping || this.closing) return;
      this.opts.onEvent?.(`${app} exited with code ${code}`);
      if (!this.opts.restartOnCrash || !this.scheduleRestart(app)) this.failed.set(app, `${app} exited with code ${code}`);
    });
  }

  /** Sends `signal` and waits for the process to exit (SIGKILL after `graceMs`). */
  async stopApp(app: AppName, signal: NodeJS.Signals = 'SIGTERM', graceMs = 15000): Promise<void> {
    const r = this.running.get(app);
    if (!r) return;
    r.stopping = true;
    r.child.kill(signal);
    const timer = setTimeout(() => r.child.kill('SIGKILL'), graceMs);
    await r.exited;
    clearTimeout(timer);
  }

  async restartApp(app: AppName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stopApp(app, signal);
    this.startApp(app);
  }

  async stop(graceMs = 15000): Promise<void> {
    this.closing = true;
    await Promise.all([...this.running.keys()].map((app) => this.stopApp(app, 'SIGTERM', graceMs)));
  }

  /**
   * Throws when an app exited on its own and is not restarted (with restartOnCrash: once it crashed
   * five times within a minute): the error names the app and its exit code, and shows the end of
   * its log when its output goes to files (with `inherit` it is on the terminal already).
   */
  assertRunning(): void {
    if (this.failed.size === 0) return;
    const parts: string[] = [];
    for (const [app, why] of this.failed) {
      const out = this.opts.output;
      let tail = '';
      if (out.kind === 'files') {
        try {
          tail = fs.readFileSync(path.join(out.dir, `${app}.log`), 'utf8').slice(-LOG_TAIL_CHARS).trimEnd();
        } catch {
          tail = '(no log)';
        }
      }
      parts.push(tail ? `${why}; the end of its output:\n${tail}` : why);
    }
    throw new Error(parts.join('\n'));
  }

  /**
   * Polls the gateway's /readyz until every service answers, then (when it runs) the console's
   * readiness (its ops /readyz, or its API when the ops port is not known), or fails after `timeoutMs`.
   * Fails at once when an app exits on its own and is not restarted (see assertRunning), e.g. on
   * EADDRINUSE, rather than waiting for the timeout.
   */
  async waitReady(timeoutMs = 60000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.poll(`${this.gatewayUrl}/readyz`, (status) => status === 200, deadline, timeoutMs);
    if (this.running.has('console')) {
      const port = this.opsPort('console');
      if (port) await this.poll(`${this.opsUrl('console')}/readyz`, (status) => status === 200, deadline, timeoutMs);
      else await this.poll(`${this.consoleUrl}/api/session`, (status) => status === 401, deadline, timeoutMs);
    }
  }

  /**
   * With output `lines`: waits until no app has written a line for `quietMs` (at most `maxMs`), so
   * that what the caller prints next (npm start's summary) follows the lines the apps wrote while
   * starting, which may still be on their way through the pipes when the system turns ready.
   */
  async settle(quietMs = 400, maxMs = 5000): Promise<void> {
    if (this.opts.output.kind !== 'lines') return;
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline && Date.now() - this.lastLineAt < quietMs) await new Promise((r) => setTimeout(r, 50));
  }

  private async poll(url: string, ready: (status: number) => boolean, deadline: number, timeoutMs: number): Promise<void> {
    let last = '';
    while (Date.now() < deadline) {
      this.assertRunning();
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
        if (ready(res.status)) return;
        last = `${url}: ${res.status} ${await res.text()}`;
      } catch (err) {
        last = `${url}: ${(err as Error).message}`;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`system not ready after ${timeoutMs} ms: ${last}`);
  }

  /** Restarts a crashed app in a second; false when it crashed too often to try again. */
  private scheduleRestart(app: AppName): boolean {
    const now = Date.now();
    const recent = (this.restarts.get(app) ?? []).filter((t) => now - t < 60000);
    if (recent.length >= 5) {
      this.opts.onEvent?.(`${app} crashed 5 times within a minute; not restarting it`);
      return false;
    }
    this.restarts.set(app, [...recent, now]);
    setTimeout(() => {
      if (!this.closing && !this.running.has(app)) {
        this.opts.onEvent?.(`restarting ${app}`);
        this.startApp(app);
      }
    }, 1000).unref();
    return true;
  }
}
