import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { GuardErrorCode } from './guard-error';
import { classifyAddress, parseHostAddress } from './ip-address';
import { OutboundPolicy } from './outbound-policy';

export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Resolves a host name to every address it has (A and AAAA). Tests pass a stub. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver: getaddrinfo through dns.lookup, every record. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family }));
};

export type CheckUrlResult = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/** A URL that passed the static checks; `ip` is set when the host is an IP literal (already classified). */
export interface CheckedTarget {
  url: URL;
  /** The host without brackets and without a trailing dot. */
  hostname: string;
  port: number;
  ip: string | null;
}

export type StaticCheck = { ok: true; target: CheckedTarget } | { ok: false; code: GuardErrorCode; reason: string };

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** Names that point inside the network by convention; refused without asking DNS. */
export function isInternalHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.+$/, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === 'localhost.localdomain' ||
    h.endsWith('.internal') ||
    h.endsWith('.local') ||
    h.endsWith('.home.arpa')
  );
}

/**
 * Every check that needs no DNS: the URL parses, the scheme is http or https, it carries no user
 * name or password, its port is allowed, and its host is not an internal name or a blocked IP
 * literal. Host names are left to resolution.
 */
export function staticCheck(input: string | URL, policy: Pick<OutboundPolicy, 'allowedPorts' | 'allowCidrs'>): StaticCheck {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    return { ok: false, code: 'bad_url', reason: `"${String(input)}" is not a valid URL` };
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
    return { ok: false, code: 'blocked', reason: `only http and https URLs are allowed (got ${url.protocol})` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, code: 'blocked', reason: 'URLs with a user name or password are not allowed' };
  }
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  if (!policy.allowedPorts.includes(port)) {
    return { ok: false, code: 'blocked', reason: `port ${port} is not allowed (allowed: ${policy.allowedPorts.join(', ') || 'none'})` };
  }
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  if (bare === '') return { ok: false, code: 'bad_url', reason: `"${url.href}" has no host` };
  const ip = parseHostAddress(bare);
  if (ip !== null) {
    const verdict = classifyAddress(ip, policy);
    if (verdict.blocked) return { ok: false, code: 'blocked', reason: verdict.reason };
    return { ok: true, target: { url, hostname: ip, port, ip } };
  }
  const hostname = bare.replace(/\.+$/, '');
  if (isInternalHostname(hostname)) {
    return { ok: false, code: 'blocked', reason: `${hostname} is an internal host name` };
  }
  return { ok: true, target: { url, hostname, port, ip: null } };
}

/**
 * Resolves a name and checks every address; throws nothing. `ok: false` when the name does not
 * resolve, or when ANY of its addresses is blocked (the connection could land on any of them).
 */
export async function resolveAndCheck(
  hostname: string,
  policy: Pick<OutboundPolicy, 'allowCidrs'>,
  resolver: Resolver = systemResolver,
): Promise<{ ok: true; addresses: ResolvedAddress[] } | { ok: false; code: GuardErrorCode; reason: string }> {
  let answers: ResolvedAddress[];
  try {
    answers = await resolver(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    return { ok: false, code: 'network', reason: `could not resolve ${hostname}${code ? ` (${code})` : ''}` };
  }
  if (!Array.isArray(answers) || answers.length === 0) return { ok: false, code: 'network', reason: `could not resolve ${hostname} (no addresses)` };
  const addresses: ResolvedAddress[] = [];
  for (const answer of answers) {
    const family = isIP(answer?.address ?? '');
    if (family === 0) return { ok: false, code: 'network', reason: `resolving ${hostname} gave "${String(answer?.address)}", which is not an IP address` };
    const verdict = classifyAddress(answer.address, policy);
    if (verdict.blocked) return { ok: false, code: 'blocked', reason: `${hostname} resolves to a blocked address: ${verdict.reason}` };
    addresses.push({ address: answer.address, family });
  }
  return { ok: true, addresses };
}

/**
 * Checks a URL before it is stored (webhook registration) or fetched: the static checks, then,
 * for a host name, every A/AAAA record. A pass is no guarantee for later: names can change
 * what they resolve to (DNS rebinding), which is why guardedFetch checks again at connect time.
 */
export async function checkUrl(
  url: string,
  policy: Pick<OutboundPolicy, 'allowedPorts' | 'allowCidrs'>,
  opts: { resolver?: Resolver } = {},
): Promise<CheckUrlResult> {
  const check = staticCheck(url, policy);
  if (!check.ok) return { ok: false, reason: check.reason };
  const { target } = check;
  if (target.ip !== null) return { ok: true, url: target.url, addresses: [target.ip] };
  const resolved = await resolveAndCheck(target.hostname, policy, opts.resolver);
  if (!resolved.ok) return { ok: false, reason: resolved.reason };
  return { ok: true, url: target.url, addresses: resolved.addresses.map((a) => a.address) };
}
