/**
 * One replica's loop over leased work: items (rows claimed with FOR UPDATE SKIP LOCKED under a
 * lease) are looked for at start, every `pollMs`, and at once on `pump()`. One pass runs at a
 * time; a pump during a pass runs another pass after it, so a wake-up is never lost. A pass claims
 * and works items one after another until none is left, or one is handed back (`work` returns
 * false: an error a later pass may get past). An error while claiming is reported and the pass
 * ends; the next poll tries again. `stop()` takes no new item and waits for the pass in hand
 * (abort the item's work first to cut it short).
 */
export class ClaimLoop<T> {
  private poller: NodeJS.Timeout | null = null;
  private stopping = false;
  private pumping: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly o: {
      pollMs: number;
      claim: () => Promise<T | null>;
      /** Works on one item; false: it was handed back, look again at the next poll. */
      work: (item: T) => Promise<boolean>;
      onError: (err: Error) => void;
    },
  ) {}

  start(): void {
    this.poller = setInterval(() => void this.pump(), this.o.pollMs);
    void this.pump();
  }

  get stopped(): boolean {
    return this.stopping;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.poller) clearInterval(this.poller);
    await this.pumping;
  }

  /** Looks for work now (or right after the pass that is running); resolves when the pass is over. */
  pump(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = this.drain().finally(() => {
      this.pumping = null;
    });
    return this.pumping;
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      try {
        for (;;) {
          if (this.stopping) return;
          const item = await this.o.claim();
          if (item === null || !(await this.o.work(item))) break;
        }
      } catch (err) {
        this.o.onError(err as Error);
      }
    } while (this.again && !this.stopping);
  }
}
