import { classifyAddress, parseCidr, parseHostAddress } from './ip-address';

describe('parseHostAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f.0.0.0x1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['0x.0x.0x.0x', '0.0.0.0'],
    ['127.0.0.1.', '127.0.0.1'],
    ['169.254.43518', '169.254.169.254'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['4294967295', '255.255.255.255'],
    ['8.8.8.8', '8.8.8.8'],
  ])('reads the IPv4 literal %s as %s', (raw, expected) => {
    expect(parseHostAddress(raw)).toBe(expected);
  });

  it.each([
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[::]', '::'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['[::FFFF:7F00:0001]', '::ffff:7f00:1'],
    ['[::127.0.0.1]', '::7f00:1'],
    ['[::7f00:1]', '::7f00:1'],
    ['[64:ff9b::10.0.0.1]', '64:ff9b::a00:1'],
    ['[2002:0a00:0001::]', '2002:a00:1::'],
    ['fe80::1%eth0', 'fe80::1'],
    ['[2606:4700:4700::1111]', '2606:4700:4700::1111'],
  ])('reads the IPv6 literal %s as %s', (raw, expected) => {
    expect(parseHostAddress(raw)).toBe(expected);
  });

  it('agrees with what new URL() makes of the same host', () => {
    for (const raw of ['2130706433', '017700000001', '0x7f.1', '127.1', '0', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '0251.0376.0251.0376']) {
      const viaUrl = new URL(`http://${raw}/`).hostname;
      expect(parseHostAddress(viaUrl)).toBe(parseHostAddress(raw));
    }
  });

  it.each(['example.com', 'localhost', '1.2.3.4.5', '1.2.3.08', '256.1.1.1', '1.2.3.256', '4294967296', '0x1g', '[example.com]', '[::1', 'a.b.0x10', '::ffff:1.2.3', ':::1', '', '1.2.3.4.example'])(
    'returns null for %j, which is not an IP literal',
    (raw) => {
      expect(parseHostAddress(raw)).toBeNull();
    },
  );
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['192.0.0.8', 'IETF protocol assignment'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['100::1', 'discard'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['::ffff:0:a00:1', 'IPv4-translated'],
    ['4000::1', 'not a global unicast'],
  ])('blocks %s (%s)', (ip, word) => {
    const verdict = classifyAddress(ip);
    expect(verdict.blocked).toBe(true);
    expect(verdict.reason).toContain(word);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001::200e'])(
    'allows the public address %s',
    (ip) => {
      expect(classifyAddress(ip)).toEqual({ blocked: false, reason: expect.stringContaining('public') });
    },
  );

  const blockedV4 = ['127.0.0.1', '0.0.0.0', '10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '192.0.0.1', '192.0.2.1', '198.18.0.1', '224.0.0.1', '255.255.255.255', '240.0.0.1'];

  it.each(blockedV4)('blocks the IPv4-mapped and IPv4-compatible forms of %s', (v4) => {
    const [a, b, c, d] = v4.split('.').map(Number);
    const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    for (const form of [`::ffff:${v4}`, `::ffff:${hex}`, `0:0:0:0:0:ffff:${hex}`, `::${v4}`, `::${hex}`]) {
      const verdict = classifyAddress(form);
      expect({ form, blocked: verdict.blocked }).toEqual({ form, blocked: true });
      // ::0.0.0.0 is simply ::, blocked as the IPv6 unspecified address.
      expect(verdict.reason).toContain(v4 === '0.0.0.0' && form.startsWith('::0') ? '::' : v4);
    }
  });

  it.each(blockedV4)('blocks the NAT64 and 6to4 embeddings of %s', (v4) => {
    const [a, b, c, d] = v4.split('.').map(Number);
    const hi = ((a << 8) | b).toString(16);
    const lo = ((c << 8) | d).toString(16);
    for (const form of [`64:ff9b::${v4}`, `64:ff9b::${hi}:${lo}`, `2002:${hi}:${lo}::`, `2002:${hi}:${lo}:1::1`]) {
      const verdict = classifyAddress(form);
      expect({ form, blocked: verdict.blocked }).toEqual({ form, blocked: true });
      expect(verdict.reason).toContain(v4);
    }
  });

  it('judges IPv4-mapped and well-known NAT64 addresses by the IPv4 address they carry', () => {
    expect(classifyAddress('::ffff:8.8.8.8').blocked).toBe(false);
    expect(classifyAddress('::ffff:808:808').blocked).toBe(false);
    expect(classifyAddress('64:ff9b::8.8.8.8').blocked).toBe(false);
    expect(classifyAddress('64:ff9b::a00:1').reason).toBe('64:ff9b::a00:1 is a NAT64 address (64:ff9b::/96) for 10.0.0.1, a private address (10.0.0.0/8)');
  });

  it('blocks 6to4, IPv4-compatible and Teredo wholesale, even around a public IPv4 address', () => {
    expect(classifyAddress('2002:808:808::1')).toEqual({ blocked: true, reason: '2002:808:808::1 is a 6to4 address (2002::/16) for 8.8.8.8' });
    expect(classifyAddress('::8.8.8.8').blocked).toBe(true);
    expect(classifyAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2').blocked).toBe(true);
  });

  it('accepts the address in any notation', () => {
    expect(classifyAddress('0x7f.1')).toEqual({ blocked: true, reason: '127.0.0.1 is a loopback address (127.0.0.0/8)' });
    expect(classifyAddress('[::1]').blocked).toBe(true);
  });

  it('blocks what is not an IP address', () => {
    expect(classifyAddress('example.com')).toEqual({ blocked: true, reason: '"example.com" is not an IP address' });
  });

  it('allows anything inside allowCidrs, checked before the blocklist', () => {
    const policy = { allowCidrs: ['127.0.0.1/32', '10.20.0.0/16', 'fd00::/8'] };
    expect(classifyAddress('127.0.0.1', policy)).toEqual({ blocked: false, reason: '127.0.0.1 is allowed by the allowlist (127.0.0.1/32)' });
    expect(classifyAddress('::ffff:127.0.0.1', policy).blocked).toBe(false);
    expect(classifyAddress('10.20.3.4', policy).blocked).toBe(false);
    expect(classifyAddress('fd00::5', policy).blocked).toBe(false);
    // Outside the allowed ranges the blocklist still applies.
    expect(classifyAddress('127.0.0.2', policy).blocked).toBe(true);
    expect(classifyAddress('10.21.0.1', policy).blocked).toBe(true);
    expect(classifyAddress('fc00::1', policy).blocked).toBe(true);
    expect(classifyAddress('::1', policy).blocked).toBe(true);
  });

  it('ignores invalid allowCidrs entries instead of allowing everything', () => {
    expect(classifyAddress('127.0.0.1', { allowCidrs: ['nonsense', '127.0.0.1/99', ''] }).blocked).toBe(true);
  });
});

describe('parseCidr', () => {
  it('reads CIDRs and bare addresses', () => {
    expect(parseCidr('10.0.0.0/8')?.[1]).toBe(8);
    expect(parseCidr('127.0.0.1')?.[1]).toBe(32);
    expect(parseCidr('fd00::/8')?.[1]).toBe(8);
    expect(parseCidr('::1')?.[1]).toBe(128);
    expect(parseCidr('10.0.0.0/33')).toBeNull();
    expect(parseCidr('10.0.0.0/8/1')).toBeNull();
    expect(parseCidr('example.com/8')).toBeNull();
  });
});
