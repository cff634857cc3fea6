import { ClaimLoop } from './claim-loop';

/** A queue of items to claim; `work` records what it did and returns what `verdict` says. */
function fixture(items: string[], verdict: (item: string) => boolean | Promise<boolean> = () => true) {
  const done: string[] = [];
  const errors: string[] = [];
  let claims = 0;
  const loop = new ClaimLoop<string>({
    pollMs: 60_000,
    claim: async () => {
      claims++;
      const next = items.shift();
      if (next === 'boom') throw new Error('claim failed');
      return next ?? null;
    },
    work: async (item) => {
      done.push(item);
      return verdict(item);
    },
    onError: (err) => errors.push(err.message),
  });
  return { loop, done, errors, items, claims: () => claims };
}

describe('ClaimLoop', () => {
  it('works every item a pass can claim, then stops looking', async () => {
    const f = fixture(['a', 'b', 'c']);
    await f.loop.pump();
    expect(f.done).toEqual(['a', 'b', 'c']);
    expect(f.claims()).toBe(4);
  });

  it('ends the pass at an item handed back; the next pump goes on', async () => {
    const f = fixture(['a', 'b', 'c'], (item) => item !== 'a');
    await f.loop.pump();
    expect(f.done).toEqual(['a']);
    await f.loop.pump();
    expect(f.done).toEqual(['a', 'b', 'c']);
  });

  it('runs one pass at a time, and a pump during a pass runs one more after it (no wake-up lost)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const f = fixture(['a'], async (item) => {
      if (item === 'a') await gate;
      return true;
    });
    const first = f.loop.pump();
    await new Promise((r) => setImmediate(r));
    f.items.push('b');
    const second = f.loop.pump();
    expect(second).toBe(first);
    release();
    await first;
    expect(f.done).toEqual(['a', 'b']);
  });

  it('reports a failed claim and ends the pass; stop() waits for the pass and takes no more work', async () => {
    const f = fixture(['boom', 'a']);
    await f.loop.pump();
    expect(f.errors).toEqual(['claim failed']);
    expect(f.done).toEqual([]);
    await f.loop.stop();
    expect(f.loop.stopped).toBe(true);
    await f.loop.pump();
    expect(f.done).toEqual([]);
  });
});
