import robotsParser from 'robots-parser';

/** Fetches a URL as text; null when the request failed (DNS, connection, timeout, refused by policy). */
export type FetchText = (url: string) => Promise<{ status: number; body: string } | null>;

export interface RobotsRules {
  /** Whether the user agent may fetch `url`. Always false for a URL of another origin. */
  isAllowed(url: string): boolean;
  /** Absolute http(s) URLs of the `Sitemap:` lines. */
  sitemaps: string[];
  /** The `Crawl-delay` for the user agent, in seconds, if given. */
  crawlDelaySeconds: number | undefined;
  /** Where the rules came from: a robots.txt, none (4xx: allow all) or unavailable (5xx, 429, network: disallow all). */
  source: 'robots.txt' | 'none' | 'unavailable';
}

export interface RobotsCacheOptions {
  /** How long a fetched (or missing) robots.txt is trusted; default one hour. */
  ttlMs?: number;
  /** How long an unavailable robots.txt blocks the origin before it is tried again; default five minutes. */
  failureTtlMs?: number;
  /** Origins kept, least recently used dropped first; default 1000. */
  maxOrigins?: number;
  now?: () => number;
}

/** RFC 9309 asks crawlers to parse at least 500 KiB; Google stops there too. */
const MAX_ROBOTS_CHARS = 500 * 1024;

type Parsed = { source: 'robots.txt'; robot: ReturnType<typeof robotsParser> } | { source: 'none' | 'unavailable' };

interface Entry {
  parsed: Promise<Parsed>;
  expiresAt: number;
}

/**
 * robots.txt rules per origin, fetched once and cached (concurrent callers share one fetch).
 * Status handling follows RFC 9309 and Google: 2xx is parsed; 4xx other than 429 means there are
 * no rules (allow all); 5xx, 429 and network failures mean the site cannot tell us, so nothing
 * is allowed until a retry after `failureTtlMs`. Any other status (an unfollowed redirect) is
 * treated like a 4xx, as RFC 9309 does after too many redirects.
 */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly maxOrigins: number;
  private readonly now: () => number;
  private readonly token: string;

  constructor(
    private readonly fetchText: FetchText,
    userAgent: string,
    options: RobotsCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 3_600_000;
    this.failureTtlMs = options.failureTtlMs ?? 300_000;
    this.maxOrigins = options.maxOrigins ?? 1000;
    this.now = options.now ?? Date.now;
    this.token = robotsToken(userAgent);
  }

  /** The rules for the origin of `url`. */
  forUrl(url: string): Promise<RobotsRules> {
    return this.forOrigin(new URL(url).origin);
  }

  /** The rules for an origin (`https://example.com`; any URL of the origin is accepted). */
  async forOrigin(origin: string): Promise<RobotsRules> {
    const key = new URL(origin).origin;
    let entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) entry = undefined;
    if (entry) {
      this.entries.delete(key); // re-insert: most recently used last
    } else {
      entry = { parsed: this.load(key), expiresAt: Number.POSITIVE_INFINITY };
      const fresh = entry;
      void fresh.parsed.then((p) => (fresh.expiresAt = this.now() + (p.source === 'unavailable' ? this.failureTtlMs : this.ttlMs)));
    }
    this.entries.set(key, entry);
    while (this.entries.size > this.maxOrigins) this.entries.delete(this.entries.keys().next().value!);
    return this.rules(key, await entry.parsed);
  }

  private async load(origin: string): Promise<Parsed> {
    const robotsUrl = `${origin}/robots.txt`;
    const res = await this.fetchText(robotsUrl).catch(() => null);
    if (!res || res.status === 429 || res.status >= 500) return { source: 'unavailable' };
    if (res.status >= 200 && res.status < 300) return { source: 'robots.txt', robot: robotsParser(robotsUrl, res.body.slice(0, MAX_ROBOTS_CHARS)) };
    return { source: 'none' };
  }

  private rules(origin: string, parsed: Parsed): RobotsRules {
    const sameOrigin = (url: string) => {
      try {
        return new URL(url).origin === origin;
      } catch {
        return false;
      }
    };
    if (parsed.source !== 'robots.txt') {
      const allow = parsed.source === 'none';
      return { isAllowed: (url) => allow && sameOrigin(url), sitemaps: [], crawlDelaySeconds: undefined, source: parsed.source };
    }
    const { robot } = parsed;
    return {
      isAllowed: (url) => sameOrigin(url) && robot.isAllowed(url, this.token) !== false,
      sitemaps: [...new Set(robot.getSitemaps().filter(isHttpUrl))],
      crawlDelaySeconds: robot.getCrawlDelay(this.token),
      source: 'robots.txt',
    };
  }
}

const sharedCaches = new Map<string, RobotsCache>();
const sharedFetch = new Map<string, FetchText>();

/**
 * The rules of `origin` for `userAgent`, from a process-wide cache per user agent (one hour;
 * five minutes for an unavailable robots.txt), fetched with the latest caller's `fetchText`.
 * Prefer a RobotsCache of your own where you can hold one: its fetch and options are then fixed.
 */
export function robotsFor(origin: string, fetchText: FetchText, userAgent: string): Promise<RobotsRules> {
  sharedFetch.set(userAgent, fetchText);
  let cache = sharedCaches.get(userAgent);
  if (!cache) sharedCaches.set(userAgent, (cache = new RobotsCache((url) => sharedFetch.get(userAgent)!(url), userAgent)));
  return cache.forOrigin(origin);
}

/**
 * The product token robots.txt groups are matched against: `SupportAgentBot/0.1` →
 * `SupportAgentBot`, `Mozilla/5.0 (compatible; ExampleBot/2.1; +https://…)` → `ExampleBot`.
 */
export function robotsToken(userAgent: string): string {
  const m = /compatible;\s*([^\s/;)]+)/i.exec(userAgent) ?? /^\s*([^\s/;()]+)/.exec(userAgent);
  return m?.[1] ?? '*';
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
