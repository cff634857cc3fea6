/**
 * Group commit for one kind of statement: a call made while no batch is running runs at once,
 * alone (no added latency); calls made while one runs wait and then run together in the next
 * batch (at most `maxBatch` each). Under load this turns many round trips into a few.
 */
export class GroupBatcher<In, Out> {
  private queue: { item: In; resolve: (v: Out) => void; reject: (e: unknown) => void }[] = [];
  private running = false;

  /** `run` answers one result per item, in the order given. */
  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch = 100,
  ) {}

  call(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.run(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(results[i]));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
