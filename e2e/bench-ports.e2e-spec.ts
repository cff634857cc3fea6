import * as net from 'node:net';
import * as path from 'node:path';
import { e2eState } from './support/state';

/**
 * `npm run bench` beside a system started with `npm start` (issue 20): the benchmarks' systems
 * take free ports for every listener, and an app that cannot start fails the run at once with
 * its output, not after the 120 s readiness timeout.
 */
// bench/ is plain JavaScript run without a build step: the test drives the very helpers the benchmarks use.
const infra = require('../bench/lib/infra') as BenchInfra;

interface BenchInfra {
  prepareSystem(ctx: BenchContext): Promise<{ dbUrl: string; nats: { url: string }; logDir: string; webhookSecretKey: string }>;
  systemPorts(apps: readonly string[]): Promise<{ env: Record<string, string>; opsPorts: Record<string, number> }>;
  loadLauncher(): typeof import('../tools/launcher/system');
  freePort(): Promise<number>;
}

interface BenchContext {
  options: { redis: boolean };
  log(line: string): void;
  defer(label: string, fn: () => unknown): void;
  keepLogs(): boolean;
}

/** What `npm start` listens on: the gateway, MCP and console ports and the ten ops ports. */
const DEFAULT_PORTS = [3000, 3001, 3002, ...Array.from({ length: 11 }, (_, i) => 9464 + i)];

/** Listens on each port that is free; a port already taken (a running npm start) stays taken by it. */
async function occupy(ports: number[]): Promise<net.Server[]> {
  const servers: net.Server[] = [];
  for (const port of ports) {
    const srv = net.createServer((socket) => socket.destroy());
    const ok = await new Promise<boolean>((resolve) => {
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) servers.push(srv);
  }
  return servers;
}

/** A benchmark's context as bench/run.js gives it: cleanups run in reverse order. */
function benchContext(): BenchContext & { cleanup(): Promise<void>; lines: string[] } {
  const cleanups: (() => unknown)[] = [];
  const lines: string[] = [];
  return {
    options: { redis: false },
    lines,
    log: (line) => lines.push(line),
    defer: (_label, fn) => cleanups.push(fn),
    keepLogs: () => false,
    cleanup: async () => {
      for (const fn of cleanups.reverse()) await fn();
    },
  };
}

describe('benchmark systems beside npm start (free ports)', () => {
  const s = e2eState();
  const launcher = infra.loadLauncher();
  let held: net.Server[] = [];

  beforeAll(async () => {
    held = await occupy(DEFAULT_PORTS);
  });

  afterAll(async () => {
    await Promise.all(held.map((srv) => new Promise((r) => srv.close(r))));
  });

  it("starts a benchmark's whole system while the default ports (3000-3002, ops 9464-9474) are taken", async () => {
    for (const port of DEFAULT_PORTS) {
      const free = await new Promise<boolean>((resolve) => {
        const probe = net.createServer();
        probe.once('error', () => resolve(false));
        probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
      });
      expect({ port, free }).toEqual({ port, free: false });
    }
    const ctx = benchContext();
    try {
      const { dbUrl, nats, logDir, webhookSecretKey } = await infra.prepareSystem(ctx);
      const ports = await infra.systemPorts(launcher.APPS);
      for (const port of [...Object.values(ports.env).map(Number).filter(Boolean), ...Object.values(ports.opsPorts)]) expect(DEFAULT_PORTS).not.toContain(port);
      const env = { PATH: process.env['PATH'], DATABASE_URL: dbUrl, NATS_URL: nats.url, ...ports.env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', NODE_ENV: 'production', WEBHOOK_SECRET_KEY: webhookSecretKey };
      const system = new launcher.System({ root: s.root, env, output: { kind: 'files', dir: logDir }, opsPorts: ports.opsPorts });
      ctx.defer('stop the apps', () => system.stop());
      await system.start();
      await system.waitReady(60000);
      for (const app of launcher.APPS) expect((await fetch(`${system.opsUrl(app)}/healthz`)).status).toBe(200);
      expect((await fetch(`${system.baseUrl}/bots`)).status).toBe(401);
    } finally {
      await ctx.cleanup();
    }
  }, 120000);

  it('fails at once, with the app’s own error, when an app of the system cannot listen', async () => {
    // A port of its own, held by this test: the default ones may belong to a running npm start (issue 30).
    const [taken] = await occupy([await infra.freePort()]);
    const port = (taken.address() as net.AddressInfo).port;
    const ctx = benchContext();
    ctx.defer('free the port', () => new Promise((r) => taken.close(r)));
    try {
      const { dbUrl, nats, logDir, webhookSecretKey } = await infra.prepareSystem(ctx);
      const env = { PATH: process.env['PATH'], DATABASE_URL: dbUrl, NATS_URL: nats.url, GATEWAY_PORT: String(await infra.freePort()), LOG_LEVEL: 'warn', LOG_FORMAT: 'json', NODE_ENV: 'production', WEBHOOK_SECRET_KEY: webhookSecretKey };
      const system = new launcher.System({ root: s.root, env, output: { kind: 'files', dir: path.join(logDir, 'taken') }, opsPorts: { bots: port } });
      ctx.defer('stop the apps', () => system.stop());
      await system.start(['bots']);
      const started = Date.now();
      const err = await system.waitReady(120000).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(/^bots exited with code \d+; the end of its output:/);
      expect(err?.message).toContain('EADDRINUSE');
      expect(Date.now() - started).toBeLessThan(20000);
    } finally {
      await ctx.cleanup();
    }
  }, 60000);
});
