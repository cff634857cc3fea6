export interface DeliverySchedulerOptions {
  /** Runs at most this many at once, over every key. */
  concurrency: number;
  /** Runs at most this many at once for one key (one webhook endpoint). */
  perKeyConcurrency: number;
  /** Waiting items one key may have; offer() refuses beyond. */
  perKeyQueueMax: number;
  /** Does the work of one item; never expected to reject (a rejection is reported to onError). */
  run: (id: string, key: string) => Promise<void>;
  onError?: (err: unknown, id: string) => void;
  /** Called when a key that refused an item (queue full) has drained to half its queue limit. */
  onRoom?: (key: string) => void;
}

interface KeyState {
  queue: string[];
  running: number;
  /** An offer was refused since the queue was last half empty. */
  refused: boolean;
}

/**
 * Runs deliveries with bounded concurrency, overall and per endpoint, so one slow endpoint holds
 * at most `perKeyConcurrency` slots and never delays the others. Keys with waiting items take
 * turns (round robin), so a backlog on one endpoint does not starve the rest.
 */
export class DeliveryScheduler {
  private readonly keys = new Map<string, KeyState>();
  /** Keys with waiting items, in turn order. */
  private readonly ready = new Set<string>();
  private readonly known = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly opts: DeliverySchedulerOptions) {}

  /** Queues one item unless it is already here or the key's queue is full (false). */
  offer(key: string, id: string): boolean {
    if (this.stopped) return false;
    if (this.known.has(id)) return true;
    const state = this.state(key);
    if (state.queue.length >= this.opts.perKeyQueueMax) {
      state.refused = true;
      return false;
    }
    state.queue.push(id);
    this.known.add(id);
    this.ready.add(key);
    this.pump();
    return true;
  }

  has(id: string): boolean {
    return this.known.has(id);
  }

  /** Every item queued or running. */
  held(): string[] {
    return [...this.known];
  }

  /** Keys whose queue is full (not worth offering more to). */
  fullKeys(): string[] {
    return [...this.keys].filter(([, s]) => s.queue.length >= this.opts.perKeyQueueMax).map(([k]) => k);
  }

  /** Items queued and not started. */
  get waiting(): number {
    let n = 0;
    for (const s of this.keys.values()) n += s.queue.length;
    return n;
  }

  get inFlight(): number {
    return this.running.size;
  }

  /** Stops starting items; resolves, once the running ones finished, with the ids never started. */
  async stop(): Promise<string[]> {
    this.stopped = true;
    const unstarted: string[] = [];
    for (const s of this.keys.values()) unstarted.push(...s.queue.splice(0));
    this.ready.clear();
    for (const id of unstarted) this.known.delete(id);
    await Promise.all(this.running);
    return unstarted;
  }

  private state(key: string): KeyState {
    let s = this.keys.get(key);
    if (!s) {
      s = { queue: [], running: 0, refused: false };
      this.keys.set(key, s);
    }
    return s;
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.opts.concurrency && this.ready.size > 0) {
      let started = false;
      for (const key of this.ready) {
        const s = this.keys.get(key)!;
        this.ready.delete(key);
        if (s.running >= this.opts.perKeyConcurrency) continue; // back in `ready` when one of its runs ends
        const id = s.queue.shift()!;
        if (s.queue.length > 0) this.ready.add(key); // to the end of the turn order
        if (s.refused && s.queue.length <= this.opts.perKeyQueueMax / 2) {
          s.refused = false;
          this.opts.onRoom?.(key);
        }
        this.start(key, s, id);
        started = true;
        break;
      }
      if (!started) break;
    }
  }

  private start(key: string, s: KeyState, id: string): void {
    s.running++;
    const p = this.opts
      .run(id, key)
      .catch((err: unknown) => this.opts.onError?.(err, id))
      .finally(() => {
        s.running--;
        this.known.delete(id);
        this.running.delete(p);
        if (s.queue.length > 0) this.ready.add(key);
        else if (s.running === 0) this.keys.delete(key);
        this.pump();
      });
    this.running.add(p);
  }
}
