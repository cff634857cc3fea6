import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A port for a test server to listen on. It is picked below the kernel's ephemeral range, because
 * a port from that range (what `listen(0)` hands out) is free only until the next outgoing
 * connection or `listen(0)` of any process takes it: with a dozen apps connecting to PostgreSQL
 * and NATS while they start, one of them did take a gateway's port (EADDRINUSE, and a gateway that
 * never came up). Ports handed out are not handed out again by this process.
 */
export async function freePort(): Promise<number> {
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

const handedOut = new Set<number>();

/**
 * The first of `count` consecutive free ports (below the ephemeral range, as freePort), for a
 * listener family numbered from a base: the launcher's OPS_PORT_BASE + the app's index.
 */
export async function freePortRange(count: number): Promise<number> {
  const [low, high] = listenRange();
  for (let attempt = 0; attempt < 200 && high - count > low; attempt++) {
    const base = low + Math.floor(Math.random() * (high - count - low));
    let free = true;
    for (let port = base; port < base + count && free; port++) free = !handedOut.has(port) && (await canListen(port));
    if (!free) continue;
    for (let port = base; port < base + count; port++) handedOut.add(port);
    return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

/** [low, high): the ports below the ephemeral range (Linux's ip_local_port_range), from 20000 up. */
function listenRange(): [number, number] {
  let ephemeralLow = 32768;
  try {
    const [lo] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(lo) && lo > 0) ephemeralLow = lo;
  } catch {
    // not Linux: keep the IANA default
  }
  return [Math.min(20000, ephemeralLow), ephemeralLow];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function listenOnAny(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function findNatsServer(): string | null {
  const candidates = [process.env['NATS_SERVER_BIN'], '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].filter(Boolean) as string[];
  for (const c of candidates) if (fs.existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : null;
}

export interface PrivateNats {
  url: string;
  process: ChildProcess | null;
  storeDir: string | null;
  stop(): Promise<void>;
  /** Stops the server and starts it again on the same port with the same JetStream store. */
  restart(downMs?: number): Promise<void>;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`port ${port} did not open in ${timeoutMs} ms`);
}

/**
 * A NATS server with JetStream of this test run's own (a real nats-server on a free port), so the
 * e2e suite never shares subjects, queue groups or streams with a system a developer is running.
 * Falls back to E2E_NATS_URL / NATS_URL when no nats-server binary is installed.
 */
export async function startPrivateNats(): Promise<PrivateNats> {
  const bin = findNatsServer();
  if (!bin) {
    const url = process.env['E2E_NATS_URL'] || process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
    return {
      url,
      process: null,
      storeDir: null,
      stop: async () => undefined,
      restart: async () => {
        throw new Error('no nats-server binary: cannot restart a shared NATS');
      },
    };
  }
  const port = await freePort();
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-e2e-nats-'));
  const launch = () => spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
  let child = launch();
  await waitForPort(port, 10000);
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  };
  const nats: PrivateNats = {
    url: `nats://127.0.0.1:${port}`,
    process: child,
    storeDir,
    stop: async () => {
      await kill();
      fs.rmSync(storeDir, { recursive: true, force: true });
    },
    restart: async (downMs = 0) => {
      await kill();
      await new Promise((r) => setTimeout(r, downMs));
      child = launch();
      nats.process = child;
      await waitForPort(port, 10000);
    },
  };
  return nats;
}

export async function redisReachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(u.port || 6379), u.hostname);
    s.setTimeout(1000);
    s.once('connect', () => { s.write('PING\r\n'); });
    s.once('data', (d) => { s.destroy(); resolve(d.toString().startsWith('+PONG')); });
    s.once('error', () => resolve(false));
    s.once('timeout', () => { s.destroy(); resolve(false); });
  });
}
