import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The built dispatcher (dist/, built by the integration global setup) started as a container
// starts it: NODE_ENV=production and no WEBHOOK_SECRET_KEY must stop it before it connects to
// anything, with a message that says what to set, and without creating a key of its own.

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

function start(env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'apps', 'webhook-dispatcher', 'src', 'main.js')], {
      cwd: ROOT,
      // Nothing listens on port 1: a dispatcher that got past its configuration would keep retrying.
      env: { PATH: process.env['PATH'], DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', NATS_URL: 'nats://127.0.0.1:1', LOG_FORMAT: 'json', OPS_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

describe('webhook-dispatcher start-up without WEBHOOK_SECRET_KEY', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-dispatcher-key-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses to start in production, saying what to set, and creates no key file', async () => {
    const keyFile = path.join(dir, 'webhook-secret-key');
    const r = await start({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY_FILE: keyFile });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/WEBHOOK_SECRET_KEY is required when NODE_ENV=production/);
    expect(r.ms).toBeLessThan(10000);
    expect(fs.existsSync(keyFile)).toBe(false);
  });

  it('refuses a malformed key in production too, without repeating it', async () => {
    const r = await start({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: 'correct-horse-battery' });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/WEBHOOK_SECRET_KEY must be 32 bytes/);
    expect(r.output).not.toContain('correct-horse-battery');
  });
});
