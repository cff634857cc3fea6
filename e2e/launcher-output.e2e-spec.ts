import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withAdmin, databaseUrl, dropDatabase } from '../libs/testing/src/integration/databases';
import { waitFor } from './support/apps';
import { APPS } from '../tools/launcher/system';
import { PrivateNats, freePort, freePortRange, startPrivateNats } from './support/infra';
import { e2eState } from './support/state';

const ANSI = /\x1b\[[0-9;]*m/g;
const APP_NAMES = ['gateway', 'bots', 'knowledge', 'chat', 'leads', 'bookings', 'mcp', 'webhook-dispatcher', 'console', 'evaluations', 'channels'];
/** The line each app writes once it serves: after it, the app has nothing more to say while starting. */
const READY_MESSAGE: Record<string, RegExp> = {
  gateway: /^gateway listening$/,
  mcp: /^MCP server listening$/,
  console: /^console listening$/,
  ...Object.fromEntries(['bots', 'knowledge', 'chat', 'leads', 'bookings', 'webhook-dispatcher', 'evaluations', 'channels'].map((a) => [a, new RegExp(`^${a} service listening on NATS queue group`)])),
};
/** A pretty line: `[HH:MM:ss.l] LEVEL: [app] message …`. */
const PRETTY = /^\[\d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): \[([a-z-]+)\] (.*)$/;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The output as lines, without colours or the terminal's carriage returns. */
const linesOf = (out: string) => out.replace(ANSI, '').replace(/\r/g, '').split('\n');

interface Launch {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` as a person runs it: in a terminal (`script` gives it a pseudo-terminal, as a
 * terminal window would: its standard output is a TTY) or with its output in a pipe (CI, a
 * container, `npm start | tee`).
 */
function launch(root: string, env: Record<string, string>, terminal: boolean): Launch {
  const start = [process.execPath, path.join(root, 'tools', 'launcher', 'start.js')];
  const fullEnv = { PATH: process.env['PATH'] ?? '', ...(terminal ? { TERM: 'xterm-256color' } : {}), ...env };
  const child = terminal
    ? spawn('script', ['-qec', `exec ${start.map(quote).join(' ')}`, '/dev/null'], { cwd: root, env: fullEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(start[0], start.slice(1), { cwd: root, env: fullEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

/** The launcher's process group: its own under `script` (which starts it in a session of its own), else the one it was spawned with. */
function launcherGroup(l: Launch, terminal: boolean): number {
  if (!terminal) return l.child.pid!;
  const [pid] = execFileSync('ps', ['-o', 'pid=', '--ppid', String(l.child.pid)], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
  return pid;
}

/** Index of the line where each app said it serves. */
function readyLineIndexes(lines: string[], messageOf: (line: string) => { app: string; msg: string } | null): Record<string, number> {
  const found: Record<string, number> = {};
  lines.forEach((line, i) => {
    const m = messageOf(line);
    if (m && READY_MESSAGE[m.app]?.test(m.msg)) found[m.app] = i;
  });
  return found;
}

const prettyMessage = (line: string) => {
  const m = PRETTY.exec(line);
  // The other fields follow the message as one JSON object: cut them off.
  return m ? { app: m[2], msg: m[3].replace(/ \{.*\}$/, '') } : null;
};

const jsonMessage = (line: string) => {
  if (!line.startsWith('{')) return null;
  const o = JSON.parse(line) as { service: string; msg: string };
  return { app: o.service, msg: o.msg };
};

describe('what npm start prints (issue 31: logs for a person, one start for the whole system)', () => {
  const s = e2eState();
  let nats: PrivateNats;
  const dbName = `sa_e2e_launchlog_${randomBytes(4).toString('hex')}`;
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-launchlog-key-'));

  beforeAll(async () => {
    nats = await startPrivateNats();
  });

  afterAll(async () => {
    await nats?.stop();
    await dropDatabase(dbName);
    fs.rmSync(keyDir, { recursive: true, force: true });
  });

  /** Starts the system, waits for the summary, stops it with SIGINT (Ctrl-C); the lines printed. */
  async function runUntilReady(terminal: boolean, extraEnv: Record<string, string> = {}): Promise<{ lines: string[]; raw: string }> {
    const [gatewayPort, mcpPort, consolePort] = [await freePort(), await freePort(), await freePort()];
    const env = {
      DATABASE_URL: databaseUrl(dbName),
      NATS_URL: nats.url,
      GATEWAY_PORT: String(gatewayPort),
      MCP_PORT: String(mcpPort),
      CONSOLE_PORT: String(consolePort),
      OPS_PORT_BASE: String(await freePortRange(APPS.length)),
      WEBHOOK_SECRET_KEY_FILE: path.join(keyDir, 'key'),
      LOG_LEVEL: 'info',
      ...extraEnv,
    };
    const l = launch(s.root, env, terminal);
    try {
      await waitFor(async () => l.out(), (o) => o.includes('Press Ctrl-C to stop.'), 150000, 200);
      process.kill(-launcherGroup(l, terminal), 'SIGINT');
      const code = await Promise.race([l.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 40000))]);
      expect(code).toBe(0);
      const lines = linesOf(l.out());
      expect(lines).toContain('[launcher] stopped');
      return { lines, raw: l.out() };
    } finally {
      if (l.child.exitCode === null && l.child.signalCode === null) {
        try {
          process.kill(-launcherGroup(l, terminal), 'SIGKILL');
        } catch {
          // gone already
        }
        l.child.kill('SIGKILL');
      }
    }
  }

  /** The summary (from `[launcher] ready` on) comes after every app said it serves. */
  function expectSummaryLast(lines: string[], ready: Record<string, number>): void {
    const summary = lines.indexOf('[launcher] ready');
    expect(summary).toBeGreaterThan(0);
    expect(Object.keys(ready).sort()).toEqual([...APP_NAMES].sort());
    for (const app of APP_NAMES) expect({ app, line: ready[app] < summary }).toEqual({ app, line: true });
    expect(lines.findIndex((l) => l.startsWith('  REST API base URL: '))).toBeGreaterThan(summary);
  }

  it('in a terminal: one readable line an event (time, level, [app], message, fields), in colour; no JSON; the summary last', async () => {
    const { lines, raw } = await runUntilReady(true);
    expect(raw).toContain('\x1b[32mINFO\x1b[39m'); // the level in colour (ERROR in red: libs/logging/src/pretty.spec.ts)
    const pretty = lines.filter((l) => PRETTY.test(l));
    expect(lines.filter((l) => l.startsWith('{"level"'))).toEqual([]);
    expect(pretty.find((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[gateway\] gateway listening \{"url":"http:\/\/127\.0\.0\.1:\d+\/v1"\}$/.test(l))).toBeDefined();
    // Every app's lines, each named; no pid in them.
    for (const app of APP_NAMES) expect({ app, lines: pretty.filter((l) => l.includes(`: [${app}] `)).length > 0 }).toEqual({ app, lines: true });
    expect(pretty.filter((l) => l.includes('"pid"'))).toEqual([]);
    expectSummaryLast(lines, readyLineIndexes(lines, prettyMessage));
  }, 240000);

  it('in a terminal with LOG_FORMAT=json: the JSON lines as the apps write them', async () => {
    const { lines } = await runUntilReady(true, { LOG_FORMAT: 'json' });
    expect(lines.filter((l) => PRETTY.test(l))).toEqual([]);
    const json = lines.filter((l) => l.startsWith('{"level":'));
    expect(json.map((l) => JSON.parse(l) as { service: string; msg: string }).find((o) => o.service === 'gateway' && o.msg === 'gateway listening')).toBeDefined();
    expectSummaryLast(lines, readyLineIndexes(lines, jsonMessage));
  }, 240000);

  it('off a terminal (a pipe): every app line stays pino JSON, unchanged; the summary last', async () => {
    const { lines } = await runUntilReady(false);
    expect(lines.filter((l) => PRETTY.test(l))).toEqual([]);
    const appLines = lines.filter((l) => l.startsWith('{'));
    expect(appLines.length).toBeGreaterThan(APP_NAMES.length);
    for (const line of appLines) expect(JSON.parse(line)).toEqual(expect.objectContaining({ level: expect.any(Number), time: expect.any(String), service: expect.any(String), pid: expect.any(Number), msg: expect.any(String) }));
    expectSummaryLast(lines, readyLineIndexes(lines, jsonMessage));
  }, 240000);

  /** Runs the launcher to its end (it must not start); its output and exit code. */
  async function runToFailure(env: Record<string, string>): Promise<{ code: number | null; lines: string[]; ms: number }> {
    const started = Date.now();
    const l = launch(s.root, { WEBHOOK_SECRET_KEY_FILE: path.join(keyDir, 'key'), GATEWAY_PORT: String(await freePort()), ...env }, false);
    const code = await Promise.race([l.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30000))]);
    if (code === 'timeout') {
      process.kill(-l.child.pid!, 'SIGKILL');
      throw new Error(`the launcher did not stop by itself:\n${l.out()}`);
    }
    return { code, lines: linesOf(l.out()).filter(Boolean), ms: Date.now() - started };
  }

  it('an unknown LOG_FORMAT: one line that says so, exit 1', async () => {
    const { code, lines } = await runToFailure({ LOG_FORMAT: 'text', DATABASE_URL: databaseUrl(dbName), NATS_URL: nats.url });
    expect(code).toBe(1);
    expect(lines).toEqual(['[launcher] LOG_FORMAT must be one of json, pretty (got "text")']);
  }, 60000);

  it('NATS not reachable: says so, with the command that starts it, before migrating; exit 1, no stack trace, at once', async () => {
    const closed = await freePort();
    const fresh = `sa_e2e_launchlog_unmigrated_${randomBytes(4).toString('hex')}`;
    const { code, lines, ms } = await runToFailure({ DATABASE_URL: databaseUrl(fresh), NATS_URL: `nats://127.0.0.1:${closed}` });
    expect(code).toBe(1);
    expect(lines).toEqual([
      `[launcher] NATS is not reachable at nats://127.0.0.1:${closed} (NATS_URL): connection refused. Start it with: nats-server -js -p ${closed}`,
      `[launcher]   or with Docker: docker run -d --name sa-nats -p 127.0.0.1:${closed}:4222 nats:2.10-alpine -js`,
    ]);
    expect(ms).toBeLessThan(20000);
    // Nothing was done: no database created, nothing migrated.
    expect(await withAdmin(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [fresh])).rowCount)).toBe(0);
  }, 60000);

  it('PostgreSQL (and NATS) not reachable: both named, the password hidden, each with its start command; exit 1, no stack trace', async () => {
    const [pgPort, natsPort] = [await freePort(), await freePort()];
    const { code, lines } = await runToFailure({ DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${pgPort}/support_agent`, NATS_URL: `nats://127.0.0.1:${natsPort}` });
    expect(code).toBe(1);
    expect(lines.filter((l) => /^\s+at /.test(l))).toEqual([]);
    expect(lines.join('\n')).not.toContain('hunter2');
    expect(lines[0]).toMatch(
      new RegExp(`^\\[launcher\\] PostgreSQL is not reachable at postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:${pgPort}/support_agent \\(DATABASE_URL\\): connection refused\\. Start it with: (pg_ctlcluster \\S+ \\S+ start|systemctl start postgresql)$`),
    );
    expect(lines[1]).toBe(`[launcher]   or with Docker: docker run -d --name sa-postgres -p 127.0.0.1:${pgPort}:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15`);
    expect(lines[2]).toBe(`[launcher] NATS is not reachable at nats://127.0.0.1:${natsPort} (NATS_URL): connection refused. Start it with: nats-server -js -p ${natsPort}`);
    expect(lines).toHaveLength(4);
  }, 60000);
});
