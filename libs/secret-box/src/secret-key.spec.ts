import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LOCAL_SECRET_KEY_FILE, describeSecretKey, loadOrCreateKeyFile, localSecretKeyFile, projectRoot, resolveWebhookSecretKey } from './secret-key';

describe('the webhook secret key', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-secret-key-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('takes WEBHOOK_SECRET_KEY when set, in production too, and touches no file', () => {
    const key = randomBytes(32);
    const r = resolveWebhookSecretKey({ WEBHOOK_SECRET_KEY: key.toString('base64'), NODE_ENV: 'production', WEBHOOK_SECRET_KEY_FILE: path.join(dir, 'k') }, dir);
    expect(r.key).toEqual(key);
    expect(r.source).toEqual({ kind: 'env' });
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(JSON.stringify(r)).not.toContain(key.toString('hex'));
    expect(JSON.stringify(r)).not.toContain(key.toString('base64'));
  });

  it('is required in production: no key file is made up there', () => {
    expect(() => resolveWebhookSecretKey({ NODE_ENV: 'production' }, dir)).toThrow(/^WEBHOOK_SECRET_KEY is required when NODE_ENV=production/);
    expect(() => resolveWebhookSecretKey({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: '  ' }, dir)).toThrow(/required when NODE_ENV=production/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('elsewhere creates the local key file once (0600 in a 0700 folder) and reuses it', () => {
    const first = resolveWebhookSecretKey({}, dir);
    const file = path.join(dir, LOCAL_SECRET_KEY_FILE);
    expect(first.source).toEqual({ kind: 'file', path: file, created: true });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${first.key.toString('hex')}\n`);
    const second = resolveWebhookSecretKey({ NODE_ENV: 'development' }, dir);
    expect(second.key).toEqual(first.key);
    expect(second.source).toEqual({ kind: 'file', path: file, created: false });
    expect(fs.readdirSync(path.dirname(file))).toEqual(['webhook-secret-key']);
  });

  it('WEBHOOK_SECRET_KEY_FILE moves the file (relative to the project root, or absolute)', () => {
    expect(localSecretKeyFile({ WEBHOOK_SECRET_KEY_FILE: 'keys/k' }, dir)).toBe(path.join(dir, 'keys', 'k'));
    expect(localSecretKeyFile({ WEBHOOK_SECRET_KEY_FILE: '/etc/x' }, dir)).toBe('/etc/x');
    expect(localSecretKeyFile({}, dir)).toBe(path.join(dir, '.data', 'webhook-secret-key'));
  });

  it('two processes starting at once agree on one key', () => {
    const file = path.join(dir, 'race', 'key');
    const results = Array.from({ length: 5 }, () => loadOrCreateKeyFile(file));
    expect(new Set(results.map((r) => r.key.toString('hex'))).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it('refuses a key file that holds something else, without printing it', () => {
    const file = path.join(dir, 'bad');
    fs.writeFileSync(file, 'my-password\n');
    expect(() => loadOrCreateKeyFile(file)).toThrow(`${file} does not hold a webhook secret key (64 hexadecimal characters)`);
    expect(() => loadOrCreateKeyFile(file)).not.toThrow(/my-password/);
  });

  it('says where the key is, never the key', () => {
    const r = resolveWebhookSecretKey({}, dir);
    const line = describeSecretKey(r);
    expect(line).toBe(`webhook signing secrets are encrypted with the key in ${path.join(dir, LOCAL_SECRET_KEY_FILE)} (created now: keep it, stored secrets cannot be read without it)`);
    expect(line).not.toContain(r.key.toString('hex'));
  });

  it('finds the project root (the repository) from this folder', () => {
    expect(fs.existsSync(path.join(projectRoot(), 'package.json'))).toBe(true);
    expect(projectRoot()).toBe(path.resolve(__dirname, '..', '..', '..'));
  });
});
