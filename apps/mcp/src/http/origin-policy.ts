/**
 * Browser-origin and Host checks of the MCP endpoint (DNS-rebinding defence, MCP transport
 * security). Origin: absent (not a browser) is fine; present, it must be a loopback origin or one
 * of MCP_ALLOWED_ORIGINS (`*` allows any). Host: unchecked unless MCP_ALLOWED_HOSTS lists the
 * host names the server is reached by.
 */
export interface OriginPolicyConfig {
  allowedOrigins: string[];
  allowedHosts: string[];
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function parseList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function normaliseOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? null : url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** Host name of a Host header without its port ("[::1]:3001" → "[::1]"). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.split(':')[0];
}

export class OriginPolicy {
  private readonly origins: Set<string>;
  private readonly anyOrigin: boolean;
  private readonly hosts: Set<string>;

  constructor(config: OriginPolicyConfig) {
    this.anyOrigin = config.allowedOrigins.includes('*');
    this.origins = new Set(config.allowedOrigins.map((o) => normaliseOrigin(o)).filter((o): o is string => o !== null));
    this.hosts = new Set(config.allowedHosts.map((h) => hostName(h)));
  }

  /** The refusal reason for this request, or null when it may proceed. */
  refusal(headers: { origin?: string | string[]; host?: string | string[] }): string | null {
    const host = Array.isArray(headers.host) ? headers.host[0] : headers.host;
    if (this.hosts.size && (!host || !this.hosts.has(hostName(host)))) return `Host ${host ?? '(none)'} is not allowed`;
    const rawOrigin = Array.isArray(headers.origin) ? headers.origin[0] : headers.origin;
    if (rawOrigin === undefined || this.anyOrigin) return null;
    const origin = normaliseOrigin(rawOrigin);
    if (origin && (this.origins.has(origin) || LOOPBACK_HOSTS.has(new URL(origin).hostname))) return null;
    return `Requests from origin ${rawOrigin} are not allowed`;
  }
}
