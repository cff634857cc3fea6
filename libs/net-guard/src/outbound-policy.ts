import { EnvSource, env, parseConfig } from '@sa/config';
import { parseCidr } from './ip-address';

/** What outbound requests (knowledge crawling, webhook delivery) may do. */
export interface OutboundPolicy {
  /** Destination ports allowed, explicit or the scheme's default. Default [80, 443]. */
  allowedPorts: number[];
  /**
   * Address ranges allowed even though they are not public, e.g. ["127.0.0.1/32"] for tests that
   * crawl a local server, or an internal network an operator trusts. Default [] (nothing).
   */
  allowCidrs: string[];
  /** Redirects followed before giving up. Default 5. */
  maxRedirects: number;
  /** Total time for a request: every redirect hop, the connection and the whole body. Default 10 s. */
  timeoutMs: number;
  /** Largest response body accepted (after decompression). Default 5 MiB. */
  maxBytes: number;
  /** User-Agent sent unless the caller sets one. */
  userAgent: string;
}

export const DEFAULT_OUTBOUND_USER_AGENT = 'SupportAgentBot/0.1';

export const DEFAULT_OUTBOUND_POLICY: Readonly<OutboundPolicy> = Object.freeze({
  allowedPorts: Object.freeze([80, 443]) as number[],
  allowCidrs: Object.freeze([] as string[]) as string[],
  maxRedirects: 5,
  timeoutMs: 10_000,
  maxBytes: 5 * 1024 * 1024,
  userAgent: DEFAULT_OUTBOUND_USER_AGENT,
});

/** The default policy with some fields replaced. */
export function outboundPolicy(overrides: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return {
    ...DEFAULT_OUTBOUND_POLICY,
    allowedPorts: [...DEFAULT_OUTBOUND_POLICY.allowedPorts],
    allowCidrs: [...DEFAULT_OUTBOUND_POLICY.allowCidrs],
    ...overrides,
  };
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function portList(name: string, fallback: number[]) {
  return (src: EnvSource, problems: string[]): number[] => {
    const items = list(src[name]);
    if (items.length === 0) return [...fallback];
    const ports: number[] = [];
    for (const item of items) {
      const n = Number(item);
      if (!/^\d+$/.test(item) || n < 1 || n > 65535) problems.push(`${name} must be a comma-separated list of ports 1-65535 (got "${item}")`);
      else ports.push(n);
    }
    return ports;
  };
}

function cidrList(name: string) {
  return (src: EnvSource, problems: string[]): string[] => {
    const items = list(src[name]);
    for (const item of items) {
      if (!parseCidr(item)) problems.push(`${name} must be a comma-separated list of CIDRs such as 127.0.0.1/32 or fd00::/8 (got "${item}")`);
    }
    return items;
  };
}

/** The environment variables of the outbound policy, to merge into an app's config shape. */
export const outboundConfig = {
  allowedPorts: portList('OUTBOUND_ALLOWED_PORTS', DEFAULT_OUTBOUND_POLICY.allowedPorts),
  allowCidrs: cidrList('OUTBOUND_ALLOW_CIDRS'),
  maxRedirects: env.int('OUTBOUND_MAX_REDIRECTS', DEFAULT_OUTBOUND_POLICY.maxRedirects, { min: 0, max: 50 }),
  timeoutMs: env.int('OUTBOUND_TIMEOUT_MS', DEFAULT_OUTBOUND_POLICY.timeoutMs, { min: 1, max: 600_000 }),
  maxBytes: env.int('OUTBOUND_MAX_BYTES', DEFAULT_OUTBOUND_POLICY.maxBytes, { min: 1, max: 1024 * 1024 * 1024 }),
  userAgent: env.str('OUTBOUND_USER_AGENT', DEFAULT_OUTBOUND_USER_AGENT),
};

/** Reads OUTBOUND_ALLOWED_PORTS, OUTBOUND_ALLOW_CIDRS, OUTBOUND_MAX_REDIRECTS, OUTBOUND_TIMEOUT_MS, OUTBOUND_MAX_BYTES, OUTBOUND_USER_AGENT. */
export function outboundPolicyFromEnv(source: EnvSource = process.env): OutboundPolicy {
  const c = parseConfig(outboundConfig, source);
  return {
    allowedPorts: c.allowedPorts,
    allowCidrs: c.allowCidrs,
    maxRedirects: c.maxRedirects,
    timeoutMs: c.timeoutMs,
    maxBytes: c.maxBytes,
    userAgent: c.userAgent,
  };
}
