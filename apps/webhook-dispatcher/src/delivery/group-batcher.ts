/**
 * Group commit for one kind of statement. Calls are gathered for the rest of the event-loop turn
 * they are made in (a batch starts from `setImmediate`), so calls made together always share a
 * batch: an outcome and the claim made for the slot it frees land in one statement. Up to
 * `maxInFlight` batches run at once; calls made while that many run wait and go together in the
 * next (at most `maxBatch` each). Under load this turns many round trips into a few, and a second
 * batch in flight means a call waits for at most the end of one, not for a whole one plus its own.
 */
export class GroupBatcher<In, Out> {
  private queue: { item: In; resolve: (v: Out) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  /** `run` answers one result per item, in the order given. */
  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch = 100,
    private readonly maxInFlight = 1,
  ) {}

  call(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      Promise.resolve()
        .then(() => this.run(batch.map((b) => b.item)))
        .then(
          (results) => batch.forEach((b, i) => b.resolve(results[i])),
          (err: unknown) => {
            for (const b of batch) b.reject(err);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}
