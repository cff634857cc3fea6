/** Longest Crawl-delay honoured: a larger one is read as this (one page a minute is still polite). */
export const MAX_CRAWL_DELAY_MS = 60_000;
/** Hosts remembered before idle ones are swept (a host with a Crawl-delay is remembered until its delay has passed). */
const MAX_IDLE_SWEEP = 1000;

interface HostState {
  active: number;
  waiters: (() => void)[];
  /** When the next request may start (Crawl-delay: that long after the previous one ended), in `now()` milliseconds. */
  nextStartAt: number;
}

/**
 * Per-host politeness of one replica's crawler (issue 36): at most `concurrency` requests to one
 * origin at a time; when its robots.txt asks for a Crawl-delay, one at a time, each started at
 * least that long after the previous one ended. Many workers may so process one site's pages at once
 * (extracting, embedding and storing them) while the site itself sees only a few requests.
 */
export class HostGate {
  private readonly hosts = new Map<string, HostState>();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly concurrency: number,
    options: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** Runs `fn` (one request to `origin`) when the origin's politeness allows it. */
  async run<T>(origin: string, crawlDelaySeconds: number | undefined, fn: () => Promise<T>): Promise<T> {
    const delayMs = crawlDelaySeconds && crawlDelaySeconds > 0 ? Math.min(crawlDelaySeconds * 1000, MAX_CRAWL_DELAY_MS) : 0;
    const limit = delayMs > 0 ? 1 : this.concurrency;
    let host = this.hosts.get(origin);
    if (!host) {
      if (this.hosts.size >= MAX_IDLE_SWEEP) this.sweep();
      this.hosts.set(origin, (host = { active: 0, waiters: [], nextStartAt: 0 }));
    }
    while (host.active >= limit) await new Promise<void>((resolve) => host!.waiters.push(resolve));
    host.active++;
    try {
      if (delayMs > 0) {
        const wait = host.nextStartAt - this.now();
        if (wait > 0) await this.sleep(wait);
      }
      return await fn();
    } finally {
      if (delayMs > 0) host.nextStartAt = this.now() + delayMs;
      host.active--;
      const next = host.waiters.shift();
      if (next) next();
      // An idle host whose delay has passed is forgotten: the map holds only hosts in use.
      else if (host.active === 0 && host.nextStartAt <= this.now()) this.hosts.delete(origin);
    }
  }

  /** Forgets hosts that are idle and whose Crawl-delay has passed. */
  private sweep(): void {
    const now = this.now();
    for (const [origin, h] of this.hosts) if (h.active === 0 && h.waiters.length === 0 && h.nextStartAt <= now) this.hosts.delete(origin);
  }

  /** Requests to `origin` running now (tests, metrics). */
  active(origin: string): number {
    return this.hosts.get(origin)?.active ?? 0;
  }
}
