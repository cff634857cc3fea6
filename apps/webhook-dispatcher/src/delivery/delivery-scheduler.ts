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
  /**
   * Slots of a key taken by work outside the scheduler (an outcome still being written), counted
   * by reserve() only: a reserved slot is never one whose previous delivery is not yet closed.
   */
  busy?: (key: string) => number;
}

interface KeyState {
  queue: string[];
  running: number;
  /** Slots reserved (reserve()) and not yet started or cancelled. */
  reserved: number;
  /** An offer was refused since the queue was last half empty. */
  refused: boolean;
}

/**
 * Runs deliveries with bounded concurrency, overall and per endpoint, so one slow endpoint holds
 * at most `perKeyConcurrency` slots and never delays the others. Keys with waiting items take
 * turns (round robin), so a backlog on one endpoint does not starve the rest.
 *
 * A slot can also be reserved before its item exists (reserve()), then started with the item
 * (startReserved()) or given back (cancel()): the dispatcher reserves slots for the deliveries of
 * an event before inserting them, and inserts those already claimed.
 */
export class DeliveryScheduler {
  private readonly keys = new Map<string, KeyState>();
  /** Keys with waiting items, in turn order. */
  private readonly ready = new Set<string>();
  private readonly known = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private reservedTotal = 0;
  /** Resolves stop()'s wait when the last reservation is started or cancelled. */
  private reservationsSettled: (() => void) | null = null;
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

  /**
   * Takes a slot of `key` for an item not known yet, if one is free and nothing of the key waits
   * (an item reserved for never overtakes one queued). False when stopped or no slot is free.
   */
  reserve(key: string): boolean {
    if (this.stopped || this.running.size + this.reservedTotal >= this.opts.concurrency) return false;
    const s = this.state(key);
    if (s.queue.length > 0 || s.running + s.reserved + (this.opts.busy?.(key) ?? 0) >= this.opts.perKeyConcurrency) {
      this.forgetIfIdle(key, s);
      return false;
    }
    s.reserved++;
    this.reservedTotal++;
    return true;
  }

  /**
   * Runs `work` for `id` in a slot reserved for `key` (even when stopping: the item was committed
   * as started; stop() waits for it). `work` is never expected to reject.
   */
  startReserved(key: string, id: string, work: () => Promise<void>): void {
    const s = this.unreserve(key);
    this.known.add(id);
    this.start(key, s, id, work);
  }

  /** Gives back a slot reserved for `key` and not used. */
  cancel(key: string): void {
    const s = this.unreserve(key);
    this.forgetIfIdle(key, s);
    this.pump();
  }

  /**
   * Stops starting items; resolves, once the running ones (and those started in reserved slots)
   * finished, with the ids never started.
   */
  async stop(): Promise<string[]> {
    this.stopped = true;
    const unstarted: string[] = [];
    for (const s of this.keys.values()) unstarted.push(...s.queue.splice(0));
    this.ready.clear();
    for (const id of unstarted) this.known.delete(id);
    while (this.reservedTotal > 0 || this.running.size > 0) {
      if (this.reservedTotal > 0) await new Promise<void>((r) => (this.reservationsSettled = r));
      await Promise.all(this.running);
    }
    return unstarted;
  }

  private unreserve(key: string): KeyState {
    const s = this.keys.get(key);
    if (!s || s.reserved === 0) throw new Error(`no slot reserved for ${key}`);
    s.reserved--;
    this.reservedTotal--;
    if (this.reservedTotal === 0) {
      this.reservationsSettled?.();
      this.reservationsSettled = null;
    }
    return s;
  }

  private forgetIfIdle(key: string, s: KeyState): void {
    if (s.queue.length === 0 && s.running === 0 && s.reserved === 0) this.keys.delete(key);
  }

  private state(key: string): KeyState {
    let s = this.keys.get(key);
    if (!s) {
      s = { queue: [], running: 0, reserved: 0, refused: false };
      this.keys.set(key, s);
    }
    return s;
  }

  private pump(): void {
    while (!this.stopped && this.running.size + this.reservedTotal < this.opts.concurrency && this.ready.size > 0) {
      let started = false;
      for (const key of this.ready) {
        const s = this.keys.get(key)!;
        this.ready.delete(key);
        if (s.running + s.reserved >= this.opts.perKeyConcurrency) continue; // back in `ready` when one of its runs ends
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

  private start(key: string, s: KeyState, id: string, work: () => Promise<void> = () => this.opts.run(id, key)): void {
    s.running++;
    const p = work()
      .catch((err: unknown) => this.opts.onError?.(err, id))
      .finally(() => {
        s.running--;
        this.known.delete(id);
        this.running.delete(p);
        if (s.queue.length > 0) this.ready.add(key);
        else this.forgetIfIdle(key, s);
        this.pump();
      });
    this.running.add(p);
  }
}
