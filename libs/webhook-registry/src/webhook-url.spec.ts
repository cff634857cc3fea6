import { Resolver, outboundPolicy } from '@sa/net-guard';
import { MAX_WEBHOOK_URL_LENGTH, checkWebhookUrl } from './webhook-url';

/** Answers from a fixed table; an unknown name fails like getaddrinfo. Records every lookup. */
function stubResolver(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn: Resolver = async (hostname) => {
    calls.push(hostname);
    const list = answers[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

const resolver = stubResolver({
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.example.com': ['93.184.216.34', '10.1.2.3'],
  'private.example.com': ['192.168.1.10'],
  'metadata.example.com': ['169.254.169.254'],
  'v6-loopback.example.com': ['::1'],
  'loopback.example.com': ['127.0.0.1'],
  'half-local.example.com': ['127.0.0.1', '93.184.216.34'],
});
const policy = outboundPolicy();
const withLocal = outboundPolicy({ allowCidrs: ['127.0.0.1/32'] });

async function refused(url: string, reason: RegExp, p = policy): Promise<void> {
  const result = await checkWebhookUrl(url, p, { resolver });
  expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason) });
}

describe('checkWebhookUrl', () => {
  it('accepts a public https endpoint, returning the normalised URL', async () => {
    await expect(checkWebhookUrl('https://hooks.example.com/in?x=1', policy, { resolver })).resolves.toEqual({ ok: true, url: 'https://hooks.example.com/in?x=1' });
    await expect(checkWebhookUrl('HTTPS://Hooks.Example.COM:443/a/../in', policy, { resolver })).resolves.toEqual({ ok: true, url: 'https://hooks.example.com/in' });
    await expect(checkWebhookUrl('https://93.184.216.34/in', policy, { resolver })).resolves.toEqual({ ok: true, url: 'https://93.184.216.34/in' });
  });

  it('refuses plain http to a public endpoint', async () => {
    await refused('http://hooks.example.com/in', /must use https/);
    await refused('http://93.184.216.34/in', /must use https/);
  });

  it('refuses plain http to a public endpoint even when an allowlist is configured', async () => {
    await refused('http://hooks.example.com/in', /must use https/, withLocal);
  });

  it.each([
    ['a private address', 'https://10.0.0.5/in', /private address/],
    ['a private address (192.168/16)', 'https://192.168.0.1/in', /private address/],
    ['a loopback address', 'https://127.0.0.1/in', /loopback/],
    ['the IPv6 loopback', 'https://[::1]/in', /loopback/],
    ['a loopback address in decimal notation', 'https://2130706433/in', /loopback/],
    ['a link-local address', 'https://169.254.10.20/in', /link-local/],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', /link-local/],
    ['an IPv6 link-local address', 'https://[fe80::1]/in', /link-local/],
    ['localhost', 'https://localhost/in', /internal host name/],
    ['an .internal name', 'https://api.internal/in', /internal host name/],
  ])('refuses %s', async (_what, url, reason) => {
    await refused(url, reason);
  });

  it('refuses a name that resolves to any private address', async () => {
    await refused('https://private.example.com/in', /resolves to a blocked address: 192\.168\.1\.10 is a private address/);
    await refused('https://mixed.example.com/in', /resolves to a blocked address: 10\.1\.2\.3/);
    await refused('https://metadata.example.com/in', /169\.254\.169\.254 is a link-local address/);
    await refused('https://v6-loopback.example.com/in', /loopback/);
  });

  it('refuses a name that does not resolve', async () => {
    await refused('https://nowhere.example.com/in', /could not resolve nowhere\.example\.com \(ENOTFOUND\)/);
  });

  it('accepts http when every address is inside OUTBOUND_ALLOW_CIDRS (a local receiver)', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1/hook', withLocal, { resolver })).resolves.toEqual({ ok: true, url: 'http://127.0.0.1/hook' });
    await expect(checkWebhookUrl('http://loopback.example.com/hook', withLocal, { resolver })).resolves.toEqual({ ok: true, url: 'http://loopback.example.com/hook' });
    await expect(checkWebhookUrl('https://127.0.0.1/hook', withLocal, { resolver })).resolves.toEqual({ ok: true, url: 'https://127.0.0.1/hook' });
  });

  it('refuses http when only some addresses are inside the allowlist', async () => {
    await refused('http://half-local.example.com/hook', /must use https/, withLocal);
  });

  it('refuses loopback outside the allowlist even with one configured', async () => {
    await refused('http://127.0.0.2/hook', /loopback/, withLocal);
  });

  it('refuses a #fragment, also an empty one', async () => {
    await refused('https://hooks.example.com/in#top', /must not have a #fragment/);
    await refused('https://hooks.example.com/in#', /must not have a #fragment/);
  });

  it('refuses a URL longer than the limit, as typed or once normalised', async () => {
    const base = 'https://hooks.example.com/';
    await expect(checkWebhookUrl(base + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - base.length), policy, { resolver })).resolves.toMatchObject({ ok: true });
    await refused(base + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - base.length + 1), new RegExp(`longer than ${MAX_WEBHOOK_URL_LENGTH} characters`));
    // 300 characters typed, 2,700 once each "€" is percent-encoded (%E2%82%AC).
    await refused(base + '€'.repeat(300), /longer than 2048 characters once normalised \(2726\)/);
  });

  it('refuses a port the policy does not allow', async () => {
    await refused('https://hooks.example.com:8443/in', /port 8443 is not allowed \(allowed: 80, 443\)/);
    await refused('http://127.0.0.1:8080/hook', /port 8080 is not allowed/, withLocal);
    await expect(checkWebhookUrl('https://hooks.example.com:8443/in', outboundPolicy({ allowedPorts: [443, 8443] }), { resolver })).resolves.toMatchObject({ ok: true });
  });

  it('refuses other schemes, credentials and non-URLs', async () => {
    await refused('ftp://hooks.example.com/in', /only http and https/);
    await refused('https://user:pw@hooks.example.com/in', /user name or password/);
    await refused('not a url', /not a valid URL/);
  });

  it('does not ask DNS about an IP literal', async () => {
    const before = resolver.calls.length;
    await checkWebhookUrl('https://93.184.216.34/in', policy, { resolver });
    await checkWebhookUrl('https://10.0.0.1/in', policy, { resolver });
    expect(resolver.calls.length).toBe(before);
  });
});
