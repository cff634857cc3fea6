import 'reflect-metadata';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { SCHEMA_OWNER_APPS, defaultDatabaseRole } from '@sa/config';
import { SecretBox } from '@sa/webhook-registry';
import { verifyWebhook } from '@sa/webhooks';
import { databaseUrl, dropDatabase } from '../libs/testing/src/integration/databases';
import { waitFor } from './support/apps';
import { APPS } from '../tools/launcher/system';
import { PrivateNats, freePort, freePortRange, startPrivateNats } from './support/infra';
import { e2eState } from './support/state';
import { WebhookReceiver, startWebhookReceiver } from './support/webhook-receiver';
import { newWidgetSession } from './support/widget';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `npm start` as a newcomer runs it: migrates, starts the eleven apps, and Ctrl-C stops them all. */
/** The admin CLI as the person who ran `npm start` runs it: their environment, no WEBHOOK_SECRET_KEY. */
function adminCli<T = Record<string, any>>(root: string, args: string[], env: Record<string, string>): T {
  const out = execFileSync(process.execPath, [path.join(root, 'dist', 'tools', 'admin', 'main.js'), ...args], { env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8' });
  return JSON.parse(out) as T;
}

describe('the launcher (npm start)', () => {
  const s = e2eState();
  let nats: PrivateNats;
  let receiver: WebhookReceiver;
  const dbName = `sa_e2e_launch_${randomBytes(4).toString('hex')}`;
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-launch-key-'));

  beforeAll(async () => {
    nats = await startPrivateNats();
    receiver = await startWebhookReceiver(0);
  });

  afterAll(async () => {
    await receiver?.stop();
    await nats?.stop();
    await dropDatabase(dbName);
    fs.rmSync(keyDir, { recursive: true, force: true });
  });

  it('starts every app, each connected as its own role, serves the API, encrypts webhook secrets with a local key it creates, and Ctrl-C (SIGINT to the process group) stops every app', async () => {
    const [gatewayPort, mcpPort, consolePort] = [await freePort(), await freePort(), await freePort()];
    // The ops endpoints from a base of eleven free ports, not the default 9464: the test runs beside a system started with npm start.
    const opsBase = await freePortRange(APPS.length);
    // No WEBHOOK_SECRET_KEY, as on a laptop; the key file goes to a folder of this test.
    const keyFile = path.join(keyDir, 'data', 'webhook-secret-key');
    const personEnv = {
      DATABASE_URL: databaseUrl(dbName),
      WEBHOOK_SECRET_KEY_FILE: keyFile,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      OUTBOUND_ALLOWED_PORTS: `80,443,${receiver.port}`,
    };
    const child = spawn(process.execPath, [path.join(s.root, 'tools', 'launcher', 'start.js')], {
      cwd: s.root,
      detached: true, // its own process group, as a terminal gives it
      env: { PATH: process.env['PATH'], ...personEnv, NATS_URL: nats.url, GATEWAY_PORT: String(gatewayPort), MCP_PORT: String(mcpPort), CONSOLE_PORT: String(consolePort), OPS_PORT_BASE: String(opsBase), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(async () => out, (o) => o.includes('[launcher] ready'), 120000, 200);
      // Starting warns about nothing (LOG_LEVEL=warn: every log line an app wrote until ready is a warning or worse).
      const startWarnings = out
        .slice(0, out.indexOf('[launcher] ready'))
        .split('\n')
        .filter((l) => /"level":[4-6]0/.test(l));
      expect(startWarnings).toEqual([]);
      expect(out).toContain(`REST API base URL: http://127.0.0.1:${gatewayPort}/v1`);
      expect(out).toContain(`Console: http://127.0.0.1:${consolePort}`);
      expect((await fetch(`http://127.0.0.1:${consolePort}/api/session`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${gatewayPort}/readyz`)).status).toBe(200);
      expect(out).toContain(`gateway ${opsBase}, bots ${opsBase + 1}`);
      expect((await fetch(`http://127.0.0.1:${opsBase + 8}/readyz`)).status).toBe(200); // the console's, the ninth app
      const appLines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(child.pid)], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(`${path.sep}dist${path.sep}apps${path.sep}`));
      const apps = appLines.map((l) => Number(l.trim().split(/\s+/)[0]));
      expect(apps).toHaveLength(11);
      // Each app runs as the image runs it: node and its main.js, no other flag.
      for (const line of appLines) expect(line.trim().split(/\s+/).slice(1)).toEqual([process.execPath, expect.stringMatching(/[\\/]dist[\\/]apps[\\/][a-z-]+[\\/]src[\\/]main\.js$/)]);
      // Each app is connected as its own role (LISTEN connections stay open), none as the administrator.
      const roles = new Client({ connectionString: databaseUrl(dbName) });
      await roles.connect();
      const users = (await roles.query<{ usename: string }>('SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() ORDER BY 1', [dbName])).rows;
      await roles.end();
      expect(users.map((u) => u.usename)).toEqual(SCHEMA_OWNER_APPS.map(defaultDatabaseRole).sort());

      // The key: created once, 0600, its place printed, never its value.
      const keyHex = fs.readFileSync(keyFile, 'utf8').trim();
      expect(keyHex).toMatch(/^[0-9a-f]{64}$/);
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(out).toContain(`webhook signing secrets are encrypted with the key in ${keyFile}`);
      expect(out).not.toContain(keyHex);

      // A webhook created through the admin CLI is stored encrypted, and deliveries verify with the secret it printed.
      const ws = adminCli(s.root, ['workspace', 'create', '--name', 'Launcher', '--plan', 'scale'], personEnv);
      const token = adminCli(s.root, ['token', 'create', '--workspace', ws.id, '--scopes', 'all'], personEnv).token as string;
      const botRes = await fetch(`http://127.0.0.1:${gatewayPort}/v1/bots`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Launch bot' }) });
      expect(botRes.status).toBe(201);
      const bot = ((await botRes.json()) as { data: { id: string } }).data.id;
      const hook = adminCli(s.root, ['webhook', 'create', '--workspace', ws.id, '--url', receiver.url('/launch'), '--events', 'ticket.created'], personEnv);
      expect(hook.secret).toMatch(/^whsec_/);
      const pg = new Client({ connectionString: databaseUrl(dbName) });
      await pg.connect();
      const stored = (await pg.query<{ secret: string }>('SELECT secret FROM webhooks.webhooks WHERE id = $1', [hook.id])).rows[0].secret;
      await pg.end();
      expect(stored).toMatch(/^v1:/);
      expect(stored).not.toContain(hook.secret.slice('whsec_'.length));
      expect(new SecretBox(Buffer.from(keyHex, 'hex')).open(stored)).toBe(hook.secret);
      const sessionId = await newWidgetSession(bot, `http://127.0.0.1:${gatewayPort}`);
      const ticket = await fetch(`http://127.0.0.1:${gatewayPort}/widget/v1/bots/${bot}/tickets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId, email: 'a@example.com', subject: 'Hi', message: 'Help' }),
      });
      expect(ticket.status).toBe(201);
      const [delivery] = await waitFor(async () => receiver.on('/launch'), (r) => r.length >= 1, 30000);
      expect(verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret: hook.secret })).toEqual(expect.objectContaining({ ok: true }));

      process.kill(-child.pid!, 'SIGINT');
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 40000))]);
      expect(code).toBe(0);
      expect(out).toContain('[launcher] stopped');
      await waitFor(async () => apps.filter(alive), (left) => left.length === 0, 5000);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 240000);
});
