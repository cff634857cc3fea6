import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { databaseUrl, dropDatabase } from '../libs/testing/src/integration/databases';
import { waitFor } from './support/apps';
import { PrivateNats, freePort, startPrivateNats } from './support/infra';
import { e2eState } from './support/state';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `npm start` as a newcomer runs it: migrates, starts the eight apps, and Ctrl-C stops them all. */
describe('the launcher (npm start)', () => {
  const s = e2eState();
  let nats: PrivateNats;
  const dbName = `sa_e2e_launch_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    nats = await startPrivateNats();
  });

  afterAll(async () => {
    await nats?.stop();
    await dropDatabase(dbName);
  });

  it('starts every app, serves the API, and Ctrl-C (SIGINT to the process group) stops every app', async () => {
    const [gatewayPort, mcpPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [path.join(s.root, 'tools', 'launcher', 'start.js')], {
      cwd: s.root,
      detached: true, // its own process group, as a terminal gives it
      env: { PATH: process.env['PATH'], DATABASE_URL: databaseUrl(dbName), NATS_URL: nats.url, GATEWAY_PORT: String(gatewayPort), MCP_PORT: String(mcpPort), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(async () => out, (o) => o.includes('[launcher] ready'), 120000, 200);
      expect(out).toContain(`REST API base URL: http://127.0.0.1:${gatewayPort}/v1`);
      expect((await fetch(`http://127.0.0.1:${gatewayPort}/readyz`)).status).toBe(200);
      const apps = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(child.pid)], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(`${path.sep}dist${path.sep}apps${path.sep}`))
        .map((l) => Number(l.trim().split(/\s+/)[0]));
      expect(apps).toHaveLength(8);

      process.kill(-child.pid!, 'SIGINT');
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 40000))]);
      expect(code).toBe(0);
      expect(out).toContain('[launcher] stopped');
      await waitFor(async () => apps.filter(alive), (left) => left.length === 0, 5000);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 180000);
});
