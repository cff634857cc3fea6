import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkUrl, isInternalHostname, Resolver, staticCheck } from './check-url';
import { parseHostAddress } from './ip-address';
import { outboundPolicy } from './outbound-policy';

interface SsrfCase {
  url: string;
  blocked: boolean;
  why: string;
}
const data = JSON.parse(readFileSync(join(__dirname, 'testdata', 'ssrf-cases.json'), 'utf8')) as { cases: SsrfCase[] };

/** A resolver that fails the test if called: these cases must be decided without DNS. */
const noDns: Resolver = async (hostname) => {
  throw new Error(`unexpected DNS lookup of ${hostname}`);
};

function stubResolver(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const list = answers[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

const policy = outboundPolicy();

/** The IPv4 address a case's URL points at, if its host is an IPv4 literal. */
function ipv4Of(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  const ip = parseHostAddress(host);
  return ip && !ip.includes(':') ? ip : null;
}

function withHost(url: string, host: string): string {
  const u = new URL(url);
  return `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}${u.pathname}${u.search}`;
}

describe('checkUrl against testdata/ssrf-cases.json', () => {
  it('has the cases', () => {
    expect(data.cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(data.cases.map((c) => [c.url, c.blocked ? 'blocked' : 'allowed', c.why] as const))('%s is %s (%s)', async (url, expected) => {
    const result = await checkUrl(url, policy, { resolver: noDns });
    if (expected === 'blocked') {
      expect(result).toEqual({ ok: false, reason: expect.any(String) });
    } else {
      expect(result).toEqual({ ok: true, url: new URL(url), addresses: [expect.any(String)] });
    }
  });

  const v4Cases = data.cases.filter((c) => ipv4Of(c.url) !== null);

  it('covers the IPv4 literal cases in mapped form', () => {
    expect(v4Cases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(v4Cases.map((c) => [c.url, c.blocked ? 'blocked' : 'allowed'] as const))('%s in IPv4-mapped IPv6 form is %s too', async (url, expected) => {
    const v4 = ipv4Of(url) as string;
    const [a, b, c, d] = v4.split('.').map(Number);
    const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    for (const mapped of [`[::ffff:${v4}]`, `[::ffff:${hex}]`, `[0:0:0:0:0:ffff:${v4}]`]) {
      const result = await checkUrl(withHost(url, mapped), policy, { resolver: noDns });
      expect({ mapped, ok: result.ok }).toEqual({ mapped, ok: expected === 'allowed' });
    }
  });
});

describe('checkUrl', () => {
  it.each([
    'http://2130706433/',
    'http://017700000001/',
    'http://0177.0.0.1/',
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://127.0.1/',
    'http://10.1/',
    'http://0xa.0x1/',
    'http://012.1/',
    'http://167772161/',
    'http://0xa9fea9fe/',
    'http://2852039166/',
    'http://0251.0376.0251.0376/',
    'http://169.254.43518/',
    'http://0/',
    'http://127.0.0.1./',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
  ])('blocks the IP literal %s written in another notation', async (url) => {
    const result = await checkUrl(url, policy, { resolver: noDns });
    expect(result.ok).toBe(false);
  });

  it('names the address and the range in the reason', async () => {
    expect(await checkUrl('http://0x7f.1/', policy)).toEqual({ ok: false, reason: '127.0.0.1 is a loopback address (127.0.0.0/8)' });
    expect(await checkUrl('http://169.254.169.254/latest/meta-data/', policy)).toEqual({
      ok: false,
      reason: '169.254.169.254 is a link-local address (where cloud metadata services live) (169.254.0.0/16)',
    });
  });

  it.each([
    ['http://[64:ff9b::10.0.0.1]/', 'NAT64'],
    ['http://[64:ff9b::7f00:1]/', 'NAT64'],
    ['http://[64:ff9b::c0a8:101]/', 'NAT64'],
    ['http://[64:ff9b:1::a00:1]/', 'local-use NAT64'],
    ['http://[2002:7f00:1::]/', '6to4'],
    ['http://[2002:c0a8:101::1]/', '6to4'],
    ['http://[2002:a9fe:a9fe::]/', '6to4'],
  ])('blocks %s (%s embedding a private or loopback address)', async (url, word) => {
    const result = await checkUrl(url, policy, { resolver: noDns });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(word) });
  });

  it('allows the NAT64 form of a public address (DNS64 networks use it)', async () => {
    const result = await checkUrl('http://[64:ff9b::8.8.8.8]/', policy, { resolver: noDns });
    expect(result.ok).toBe(true);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/', 'gopher://example.com/', 'data:text/plain,hello', 'ws://example.com/', 'javascript:alert(1)', 'dict://127.0.0.1:11211/', 'ldap://example.com/'])(
    'refuses the non-http scheme of %s',
    async (url) => {
      const result = await checkUrl(url, policy, { resolver: noDns });
      expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^only http and https URLs are allowed \(got [a-z]+:\)$/) });
    },
  );

  it.each(['http://user:pass@example.com/', 'http://user@example.com/', 'https://:secret@example.com/', 'http://user:pass@8.8.8.8/'])('refuses credentials in %s', async (url) => {
    expect(await checkUrl(url, policy, { resolver: noDns })).toEqual({ ok: false, reason: 'URLs with a user name or password are not allowed' });
  });

  describe('ports', () => {
    it('allows the default ports of http and https, written or implied', async () => {
      for (const url of ['http://8.8.8.8/', 'http://8.8.8.8:80/', 'https://8.8.8.8/', 'https://8.8.8.8:443/']) {
        expect((await checkUrl(url, policy, { resolver: noDns })).ok).toBe(true);
      }
    });

    it('refuses other ports, explicit or implied by the scheme', async () => {
      expect(await checkUrl('http://8.8.8.8:22/', policy, { resolver: noDns })).toEqual({ ok: false, reason: 'port 22 is not allowed (allowed: 80, 443)' });
      expect(await checkUrl('http://8.8.8.8:8080/', policy, { resolver: noDns })).toEqual({ ok: false, reason: expect.stringContaining('port 8080') });
      expect(await checkUrl('http://8.8.8.8:443/', outboundPolicy({ allowedPorts: [80] }), { resolver: noDns })).toEqual({ ok: false, reason: expect.stringContaining('port 443') });
      expect(await checkUrl('https://8.8.8.8/', outboundPolicy({ allowedPorts: [80] }), { resolver: noDns })).toEqual({ ok: false, reason: expect.stringContaining('port 443') });
    });

    it('follows allowedPorts', async () => {
      const result = await checkUrl('http://8.8.8.8:8080/', outboundPolicy({ allowedPorts: [8080] }), { resolver: noDns });
      expect(result.ok).toBe(true);
    });
  });

  describe('host names', () => {
    it.each(['http://localhost/', 'http://LOCALHOST/', 'http://localhost./', 'http://localhost:80/', 'http://api.localhost/', 'http://metadata.google.internal/', 'http://printer.local/', 'http://nas.home.arpa/'])(
      'refuses %s without a DNS lookup',
      async (url) => {
        const result = await checkUrl(url, policy, { resolver: noDns });
        expect(result).toEqual({ ok: false, reason: expect.stringContaining('internal host name') });
      },
    );

    it('does not mistake look-alike public names for internal ones', () => {
      expect(isInternalHostname('localhost.example.com')).toBe(false);
      expect(isInternalHostname('internal.example.com')).toBe(false);
      expect(isInternalHostname('mylocal')).toBe(false);
    });

    it('resolves every A/AAAA record and passes when all are public', async () => {
      const resolver = stubResolver({ 'example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
      const result = await checkUrl('https://example.com/path?q=1', policy, { resolver });
      expect(result).toEqual({ ok: true, url: new URL('https://example.com/path?q=1'), addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
      expect(resolver.calls).toEqual(['example.com']);
    });

    it('blocks a name when ANY of its addresses is blocked', async () => {
      const resolver = stubResolver({ 'mixed.example': ['93.184.215.14', '10.0.0.7'], 'v6.example': ['2606:4700:4700::1111', '::1'], 'mapped.example': ['::ffff:127.0.0.1'] });
      expect(await checkUrl('http://mixed.example/', policy, { resolver })).toEqual({
        ok: false,
        reason: 'mixed.example resolves to a blocked address: 10.0.0.7 is a private address (10.0.0.0/8)',
      });
      expect((await checkUrl('http://v6.example/', policy, { resolver })).ok).toBe(false);
      expect((await checkUrl('http://mapped.example/', policy, { resolver })).ok).toBe(false);
    });

    it('allows private answers that are inside allowCidrs', async () => {
      const resolver = stubResolver({ 'dev.example': ['127.0.0.1'] });
      expect((await checkUrl('http://dev.example/', policy, { resolver })).ok).toBe(false);
      expect(await checkUrl('http://dev.example/', outboundPolicy({ allowCidrs: ['127.0.0.1/32'] }), { resolver })).toEqual({
        ok: true,
        url: new URL('http://dev.example/'),
        addresses: ['127.0.0.1'],
      });
    });

    it('fails when the name does not resolve', async () => {
      const resolver = stubResolver({});
      expect(await checkUrl('http://nowhere.example/', policy, { resolver })).toEqual({ ok: false, reason: 'could not resolve nowhere.example (ENOTFOUND)' });
      const empty: Resolver = async () => [];
      expect(await checkUrl('http://nowhere.example/', policy, { resolver: empty })).toEqual({ ok: false, reason: 'could not resolve nowhere.example (no addresses)' });
    });

    it('checks the port before asking DNS', async () => {
      const resolver = stubResolver({ 'example.com': ['93.184.215.14'] });
      expect((await checkUrl('http://example.com:22/', policy, { resolver })).ok).toBe(false);
      expect(resolver.calls).toEqual([]);
    });
  });

  it('refuses what does not parse', async () => {
    expect(await checkUrl('not a url', policy)).toEqual({ ok: false, reason: '"not a url" is not a valid URL' });
    expect((await checkUrl('http://1.2.3.08/', policy)).ok).toBe(false);
    expect(staticCheck('http://[::1/', policy)).toMatchObject({ ok: false, code: 'bad_url' });
  });
});
