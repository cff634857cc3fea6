import { DeliveryScheduler } from './delivery-scheduler';

/** A run that waits until released by the test. */
function gatedRuns() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const run = (id: string) =>
    new Promise<void>((resolve) => {
      started.push(id);
      gates.set(id, resolve);
    });
  const release = async (id: string) => {
    gates.get(id)!();
    await new Promise((r) => setImmediate(r));
  };
  return { started, run, release };
}

describe('DeliveryScheduler', () => {
  it('holds at most perKeyConcurrency runs for one key while other keys proceed', async () => {
    const g = gatedRuns();
    const s = new DeliveryScheduler({ concurrency: 10, perKeyConcurrency: 2, perKeyQueueMax: 100, run: g.run });
    for (const id of ['s1', 's2', 's3', 's4']) expect(s.offer('slow', id)).toBe(true);
    expect(s.offer('fast', 'f1')).toBe(true);
    expect(g.started).toEqual(['s1', 's2', 'f1']);
    await g.release('f1');
    expect(s.offer('fast', 'f2')).toBe(true);
    expect(g.started).toEqual(['s1', 's2', 'f1', 'f2']);
    await g.release('s1');
    expect(g.started).toEqual(['s1', 's2', 'f1', 'f2', 's3']);
    expect(s.inFlight).toBe(3);
  });

  it('never exceeds the overall concurrency and serves waiting keys in turn', async () => {
    const g = gatedRuns();
    const s = new DeliveryScheduler({ concurrency: 2, perKeyConcurrency: 2, perKeyQueueMax: 100, run: g.run });
    for (const id of ['a1', 'a2', 'a3', 'a4']) s.offer('a', id);
    for (const id of ['b1', 'b2']) s.offer('b', id);
    expect(g.started).toEqual(['a1', 'a2']);
    await g.release('a1');
    await g.release('a2');
    await g.release('a3');
    // Keys take turns: a (queued first), then b, then a again.
    expect(g.started.slice(2)).toEqual(['a3', 'b1', 'a4']);
  });

  it('refuses items beyond the per-key queue limit, ignores repeats and reports full keys', () => {
    const g = gatedRuns();
    const s = new DeliveryScheduler({ concurrency: 1, perKeyConcurrency: 1, perKeyQueueMax: 2, run: g.run });
    expect(s.offer('k', '1')).toBe(true); // running
    expect(s.offer('k', '2')).toBe(true);
    expect(s.offer('k', '3')).toBe(true);
    expect(s.offer('k', '2')).toBe(true); // already here: not queued twice
    expect(s.waiting).toBe(2);
    expect(s.fullKeys()).toEqual(['k']);
    expect(s.offer('k', '4')).toBe(false);
    expect(s.has('3')).toBe(true);
    expect(s.has('4')).toBe(false);
  });

  it('says when a key that refused items has room again (half its queue), once per refusal', async () => {
    const g = gatedRuns();
    const rooms: string[] = [];
    const s = new DeliveryScheduler({ concurrency: 1, perKeyConcurrency: 1, perKeyQueueMax: 4, run: g.run, onRoom: (k) => rooms.push(k) });
    for (const id of ['1', '2', '3', '4', '5']) s.offer('k', id); // 1 runs, 2-5 wait
    expect(s.offer('k', '6')).toBe(false);
    expect(s.held().sort()).toEqual(['1', '2', '3', '4', '5']);
    await g.release('1'); // 2 starts: 3 waiting
    expect(rooms).toEqual([]);
    await g.release('2'); // 3 starts: 2 waiting = half
    expect(rooms).toEqual(['k']);
    await g.release('3');
    expect(rooms).toEqual(['k']);
  });

  it('stop() waits for running items and returns the ones never started', async () => {
    const g = gatedRuns();
    const s = new DeliveryScheduler({ concurrency: 1, perKeyConcurrency: 1, perKeyQueueMax: 10, run: g.run });
    s.offer('k', '1');
    s.offer('k', '2');
    s.offer('j', '3');
    let stopped: string[] | null = null;
    const stopping = s.stop().then((ids) => (stopped = ids));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBeNull();
    await g.release('1');
    await stopping;
    expect(stopped!.sort()).toEqual(['2', '3']);
    expect(g.started).toEqual(['1']);
    expect(s.offer('k', '5')).toBe(false);
  });

  it('reports a run that rejects and keeps going', async () => {
    const errors: string[] = [];
    const ran: string[] = [];
    const s = new DeliveryScheduler({
      concurrency: 1,
      perKeyConcurrency: 1,
      perKeyQueueMax: 10,
      run: async (id) => {
        ran.push(id);
        if (id === 'bad') throw new Error('boom');
      },
      onError: (_err, id) => errors.push(id),
    });
    s.offer('k', 'bad');
    s.offer('k', 'good');
    await new Promise((r) => setTimeout(r, 10));
    expect(ran).toEqual(['bad', 'good']);
    expect(errors).toEqual(['bad']);
    expect(s.inFlight).toBe(0);
  });
});
