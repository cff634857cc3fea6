import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The verdict on one IP address. */
export interface AddressVerdict {
  blocked: boolean;
  /** Human-readable: "10.0.0.1 is a private address (10.0.0.0/8)". */
  reason: string;
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/**
 * One part of a WHATWG / inet_aton IPv4 address: "0x…" is hex, a leading 0 is octal, else
 * decimal. Returns null when the part is not a number in that notation.
 */
function parseIPv4Number(part: string): number | null {
  if (part === '') return null;
  let radix = 10;
  let digits = part;
  if (/^0x/i.test(part)) {
    radix = 16;
    digits = part.slice(2);
    if (digits === '') return 0; // WHATWG: "0x" alone is zero
  } else if (part.length > 1 && part.startsWith('0')) {
    radix = 8;
    digits = part.slice(1);
  }
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return null;
  const n = parseInt(digits, radix);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The IPv4 host parser of the WHATWG URL standard (which accepts the inet_aton forms too):
 * 1 to 4 dot-separated numbers, each decimal, octal or hex; the last one fills the remaining
 * bytes ("127.1" = 127.0.0.1, "2130706433" = 127.0.0.1, "0x7f.1" = 127.0.0.1).
 */
function parseIPv4Loose(host: string): number[] | null {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // one trailing dot is allowed
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIPv4Number(part);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
}

/** Strict dotted decimal, as allowed at the end of an IPv6 literal ("::ffff:127.0.0.1"). */
function parseDottedDecimal(s: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const octets = m.slice(1).map((p) => (p.length > 1 && p.startsWith('0') ? NaN : Number(p)));
  return octets.every((o) => o <= 255) ? octets : null;
}

function parseIPv6(text: string): ipaddr.IPv6 | null {
  let s = text;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone); // a zone id does not change which address it is
  // Rewrite a dotted IPv4 tail as two hex groups ourselves: ipaddr.js would read "::127.0.0.1"
  // (IPv4-compatible) as "::ffff:127.0.0.1" (IPv4-mapped).
  const tail = /^(.*:)([^:]*\.[^:]*)$/.exec(s);
  if (tail) {
    const octets = parseDottedDecimal(tail[2]);
    if (!octets) return null;
    s = `${tail[1]}${((octets[0] << 8) | octets[1]).toString(16)}:${((octets[2] << 8) | octets[3]).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/i.test(s)) return null;
  try {
    return ipaddr.IPv6.parse(s);
  } catch {
    return null;
  }
}

function parseAddress(host: string): Address | null {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') || h.endsWith(']')) {
    if (!(h.startsWith('[') && h.endsWith(']'))) return null;
    h = h.slice(1, -1);
    return h.includes(':') ? parseIPv6(h) : null;
  }
  if (h.includes(':')) return parseIPv6(h);
  const octets = parseIPv4Loose(h);
  return octets ? new ipaddr.IPv4(octets) : null;
}

function canonical(addr: Address): string {
  return addr.kind() === 'ipv4' ? addr.toString() : (addr as ipaddr.IPv6).toRFC5952String();
}

/**
 * Normalises an IP literal written in any notation that WHATWG URL parsing or inet_aton accepts
 * (decimal 2130706433, octal 017700000001 / 0177.0.0.1, hex 0x7f000001 / 0x7f.1, shortened
 * 127.1, IPv6 with or without brackets, IPv4-mapped ::ffff:127.0.0.1, IPv4-compatible
 * ::127.0.0.1) and returns the canonical form: dotted decimal for IPv4, RFC 5952 for IPv6
 * ("::ffff:7f00:1", as `new URL()` writes it). Returns null when the host is a name.
 */
export function parseHostAddress(host: string): string | null {
  const addr = parseAddress(host);
  return addr ? canonical(addr) : null;
}

/** "10.0.0.0/8", "fc00::/7" or a bare address (a /32 or /128). Null when it is not valid. */
export function parseCidr(cidr: string): [Address, number] | null {
  const [addrPart, bitsPart, extra] = cidr.trim().split('/');
  if (extra !== undefined) return null;
  const addr = parseAddress(addrPart);
  if (!addr) return null;
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  if (bitsPart === undefined) return [addr, max];
  if (!/^\d{1,3}$/.test(bitsPart)) return null;
  const bits = Number(bitsPart);
  return bits <= max ? [addr, bits] : null;
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

interface Range {
  net: Address;
  bits: number;
  cidr: string;
  what: string;
}

function ranges(list: [string, string][]): Range[] {
  return list.map(([cidr, what]) => {
    const parsed = parseCidr(cidr);
    if (!parsed) throw new Error(`bad built-in range ${cidr}`);
    return { net: parsed[0], bits: parsed[1], cidr, what };
  });
}

/** Blocked IPv4 ranges, most specific first where they overlap (broadcast inside 240/4). */
const BLOCKED_V4 = ranges([
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (where cloud metadata services live)'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay anycast address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
]);

/** IPv6 ranges blocked whatever they contain. */
const BLOCKED_V6 = ranges([
  ['::/128', 'the unspecified address'],
  ['::1/128', 'the loopback address'],
  ['::ffff:0:0:0/96', 'an IPv4-translated address (RFC 6145)'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address (RFC 8215)'],
  ['100::/64', 'a discard-only address'],
  ['2001::/32', 'a Teredo tunnel address'],
  ['2001:2::/48', 'a benchmarking address'],
  ['2001:db8::/32', 'a documentation address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique local (private) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]);

const [V4_MAPPED] = ranges([['::ffff:0:0/96', 'IPv4-mapped']]);
const [V4_COMPATIBLE] = ranges([['::/96', 'IPv4-compatible']]);
const [NAT64] = ranges([['64:ff9b::/96', 'NAT64']]);
const [SIX_TO_FOUR] = ranges([['2002::/16', '6to4']]);
const [GLOBAL_UNICAST] = ranges([['2000::/3', 'global unicast']]);

function inRange(addr: Address, range: Range): boolean {
  return addr.kind() === range.net.kind() && addr.match(range.net, range.bits);
}

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
}

/** The IPv4 address an IPv6 one stands for or carries, and how. */
function embeddedIPv4(addr: ipaddr.IPv6): { v4: ipaddr.IPv4; form: 'mapped' | 'compatible' | 'nat64' | '6to4' } | null {
  const p = addr.parts;
  if (inRange(addr, V4_MAPPED)) return { v4: v4FromParts(p[6], p[7]), form: 'mapped' };
  if (inRange(addr, V4_COMPATIBLE)) return { v4: v4FromParts(p[6], p[7]), form: 'compatible' };
  if (inRange(addr, NAT64)) return { v4: v4FromParts(p[6], p[7]), form: 'nat64' };
  if (inRange(addr, SIX_TO_FOUR)) return { v4: v4FromParts(p[1], p[2]), form: '6to4' };
  return null;
}

function blockedV4(v4: ipaddr.IPv4): Range | undefined {
  return BLOCKED_V4.find((r) => inRange(v4, r));
}

function allowedBy(addr: Address, allowCidrs: readonly string[]): string | undefined {
  const candidates: Address[] = [addr];
  if (addr.kind() === 'ipv6' && inRange(addr, V4_MAPPED)) candidates.push((addr as ipaddr.IPv6).toIPv4Address());
  return allowCidrs.find((cidr) => {
    const parsed = parseCidr(cidr);
    return parsed !== null && candidates.some((c) => c.kind() === parsed[0].kind() && c.match(parsed[0], parsed[1]));
  });
}

/**
 * Decides whether an outbound connection to this address is allowed. Anything inside
 * `allowCidrs` is allowed (checked first); otherwise every non-public range is blocked, including
 * the IPv6 forms that carry a blocked IPv4 address. Policy for the translation forms:
 *  - IPv4-mapped ::ffff:0:0/96 and the well-known NAT64 prefix 64:ff9b::/96: judged by the IPv4
 *    address they carry (a DNS64 network legitimately gives 64:ff9b::8.8.8.8 for public hosts);
 *  - IPv4-compatible ::/96, 6to4 2002::/16, local-use NAT64 64:ff9b:1::/48, Teredo 2001::/32:
 *    blocked wholesale (deprecated or site-specific; no public service needs them).
 * IPv6 outside 2000::/3 (global unicast) is blocked too. Accepts any notation parseHostAddress does.
 */
export function classifyAddress(ip: string, policy: { allowCidrs?: readonly string[] } = {}): AddressVerdict {
  const addr = parseAddress(ip);
  if (!addr) return { blocked: true, reason: `"${ip}" is not an IP address` };
  const shown = canonical(addr);
  const allow = allowedBy(addr, policy.allowCidrs ?? []);
  if (allow) return { blocked: false, reason: `${shown} is allowed by the allowlist (${allow})` };

  if (addr.kind() === 'ipv4') {
    const hit = blockedV4(addr as ipaddr.IPv4);
    return hit ? { blocked: true, reason: `${shown} is ${hit.what} (${hit.cidr})` } : { blocked: false, reason: `${shown} is a public address` };
  }

  const v6 = addr as ipaddr.IPv6;
  const fixed = BLOCKED_V6.find((r) => inRange(v6, r));
  if (fixed) return { blocked: true, reason: `${shown} is ${fixed.what} (${fixed.cidr})` };

  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const v4 = embedded.v4.toString();
    const hit = blockedV4(embedded.v4);
    const inner = hit ? `${v4}, ${hit.what} (${hit.cidr})` : v4;
    switch (embedded.form) {
      case 'mapped':
        return hit
          ? { blocked: true, reason: `${shown} is the IPv4-mapped form of ${inner}` }
          : { blocked: false, reason: `${shown} is the IPv4-mapped form of the public address ${v4}` };
      case 'nat64':
        return hit
          ? { blocked: true, reason: `${shown} is a NAT64 address (64:ff9b::/96) for ${inner}` }
          : { blocked: false, reason: `${shown} is a NAT64 address for the public address ${v4}` };
      case 'compatible':
        return { blocked: true, reason: `${shown} is a deprecated IPv4-compatible address (::/96) for ${inner}` };
      case '6to4':
        return { blocked: true, reason: `${shown} is a 6to4 address (2002::/16) for ${inner}` };
    }
  }

  if (!inRange(v6, GLOBAL_UNICAST)) return { blocked: true, reason: `${shown} is not a global unicast address (outside 2000::/3)` };
  return { blocked: false, reason: `${shown} is a public address` };
}
