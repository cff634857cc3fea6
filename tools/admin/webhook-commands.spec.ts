import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError } from '@sa/config';
import { DeliveryStatus, DeliveryView, generateSigningSecret } from '@sa/webhook-registry';
import { isDeliveryStatus, redeliverAndWait, webhookAdminOptions } from './webhook-commands';

function configProblems(source: Record<string, string>): string[] {
  try {
    webhookAdminOptions(source);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('webhookAdminOptions', () => {
  it('defaults: the local key file (created once, then reused), 20 per workspace, the default outbound policy', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-admin-key-'));
    try {
      const source = { WEBHOOK_SECRET_KEY_FILE: path.join(dir, 'key') };
      const opts = webhookAdminOptions(source);
      expect(opts.maxPerWorkspace).toBe(20);
      expect(opts.policy).toMatchObject({ allowedPorts: [80, 443], allowCidrs: [] });
      const secret = generateSigningSecret();
      const sealed = opts.secrets.seal(secret);
      expect(sealed).toMatch(/^v1:/);
      expect(webhookAdminOptions(source).secrets.open(sealed)).toBe(secret);
      expect(configProblems({ ...source, NODE_ENV: 'production' })).toEqual([expect.stringMatching(/^WEBHOOK_SECRET_KEY is required when NODE_ENV=production/)]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the key, the maximum and the outbound policy', () => {
    const key = randomBytes(32);
    const opts = webhookAdminOptions({
      WEBHOOK_SECRET_KEY: key.toString('hex'),
      WEBHOOK_MAX_PER_WORKSPACE: '3',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      OUTBOUND_ALLOWED_PORTS: '443,8443',
    });
    expect(opts.maxPerWorkspace).toBe(3);
    expect(opts.policy).toMatchObject({ allowedPorts: [443, 8443], allowCidrs: ['127.0.0.1/32'] });
    const secret = generateSigningSecret();
    const sealed = opts.secrets.seal(secret);
    expect(sealed).toMatch(/^v1:/);
    expect(webhookAdminOptions({ WEBHOOK_SECRET_KEY: key.toString('base64') }).secrets.open(sealed)).toBe(secret);
  });

  it('lists every bad variable at once, without repeating the key', () => {
    const badKey = 'not-a-key-but-a-password';
    const problems = configProblems({ WEBHOOK_SECRET_KEY: badKey, WEBHOOK_MAX_PER_WORKSPACE: '0' });
    expect(problems).toEqual(['WEBHOOK_SECRET_KEY must be 32 bytes, as 64 hexadecimal characters or as base64', 'WEBHOOK_MAX_PER_WORKSPACE must be at least 1 (got 0)']);
    expect(problems.join(' ')).not.toContain(badKey);
    expect(configProblems({ WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'), WEBHOOK_MAX_PER_WORKSPACE: '1001' })).toEqual(['WEBHOOK_MAX_PER_WORKSPACE must be at most 1000 (got 1001)']);
    expect(configProblems({ WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'), WEBHOOK_MAX_PER_WORKSPACE: 'lots' })).toEqual(['WEBHOOK_MAX_PER_WORKSPACE must be an integer (got "lots")']);
    expect(configProblems({ WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'), OUTBOUND_ALLOW_CIDRS: 'localhost' })).toEqual([expect.stringMatching(/^OUTBOUND_ALLOW_CIDRS must be a comma-separated list of CIDRs/)]);
  });
});

describe('isDeliveryStatus', () => {
  it('knows the four states', () => {
    for (const s of ['pending', 'sending', 'succeeded', 'failed']) expect(isDeliveryStatus(s)).toBe(true);
    for (const s of ['', 'done', 'FAILED']) expect(isDeliveryStatus(s)).toBe(false);
  });
});

describe('redeliverAndWait', () => {
  const view = (status: DeliveryStatus): DeliveryView => ({
    id: 'd1',
    webhook_id: 'w1',
    workspace_id: 't1',
    event: 'lead.created',
    event_id: 'e1',
    status,
    attempts: 1,
    status_code: null,
    error: null,
    duration_ms: null,
    last_attempt_at: null,
    created_at: '2030-01-01T00:00:00.000Z',
    attempt_log: [],
  });

  /** A fake admin whose delivery() walks through the given states (the last one repeats). */
  function fakeAdmin(states: DeliveryStatus[]) {
    const calls: string[] = [];
    return {
      calls,
      redeliver: async (id: string) => {
        calls.push(`redeliver ${id}`);
        return view('pending');
      },
      delivery: async (id: string) => {
        calls.push(`delivery ${id}`);
        return view(states.length > 1 ? states.shift()! : states[0]);
      },
    };
  }

  it('does not look again when told not to wait, and says the delivery is queued', async () => {
    const admin = fakeAdmin(['succeeded']);
    await expect(redeliverAndWait(admin, 'd1', 0)).resolves.toEqual({ ...view('pending'), note: 'queued; the webhook-dispatcher sends it when it runs' });
    expect(admin.calls).toEqual(['redeliver d1']);
  });

  it('polls until the delivery has finished, and returns it without a note', async () => {
    const admin = fakeAdmin(['pending', 'sending', 'failed']);
    await expect(redeliverAndWait(admin, 'd1', 5000, 5)).resolves.toEqual(view('failed'));
    expect(admin.calls).toEqual(['redeliver d1', 'delivery d1', 'delivery d1', 'delivery d1']);
    const ok = fakeAdmin(['succeeded']);
    await expect(redeliverAndWait(ok, 'd1', 5000, 5)).resolves.toEqual(view('succeeded'));
  });

  it('gives up after the wait, with a note for a queued or an in-flight delivery', async () => {
    const started = Date.now();
    const queued = await redeliverAndWait(fakeAdmin(['pending']), 'd1', 120, 20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(queued).toEqual({ ...view('pending'), note: 'queued; the webhook-dispatcher sends it when it runs' });
    const inFlight = await redeliverAndWait(fakeAdmin(['sending']), 'd1', 50, 20);
    expect(inFlight).toEqual({ ...view('sending'), note: expect.stringMatching(/^being sent/) });
  });

  it('lets a refused redeliver through unchanged', async () => {
    const err = new Error('delivery d1 is pending');
    const admin = { redeliver: async () => Promise.reject(err), delivery: async () => view('pending') };
    await expect(redeliverAndWait(admin, 'd1', 1000)).rejects.toBe(err);
  });
});
