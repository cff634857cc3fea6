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

  describe('reserved slots', () => {
    it('reserves free slots of a key, counts them against both limits, and runs the item given later in one', async () => {
      const g = gatedRuns();
      const s = new DeliveryScheduler({ concurrency: 3, perKeyConcurrency: 2, perKeyQueueMax: 10, run: g.run });
      expect(s.reserve('k')).toBe(true);
      expect(s.reserve('k')).toBe(true);
      expect(s.reserve('k')).toBe(false); // the key's two slots are reserved
      expect(s.reserve('j')).toBe(true);
      expect(s.reserve('i')).toBe(false); // three slots in all
      // A queued item waits for the reserved slots too.
      s.offer('k', 'q1');
      expect(g.started).toEqual([]);
      const sent: string[] = [];
      s.startReserved('k', 'r1', async () => void sent.push('r1'));
      expect(sent).toEqual(['r1']);
      expect(s.has('r1')).toBe(true);
      await new Promise((r) => setImmediate(r));
      // r1 done: its slot goes to the queued q1, not to a new reservation.
      expect(g.started).toEqual(['q1']);
      s.cancel('j');
      expect(s.reserve('k')).toBe(false); // q1 runs, one slot still reserved
      s.cancel('k');
      expect(s.reserve('k')).toBe(true);
    });

    it('refuses a reservation while items of the key wait, and counts what busy() says is taken', () => {
      const g = gatedRuns();
      let busy = 0;
      const s = new DeliveryScheduler({ concurrency: 10, perKeyConcurrency: 2, perKeyQueueMax: 10, run: g.run, busy: () => busy });
      s.offer('k', '1');
      s.offer('k', '2');
      s.offer('k', '3'); // waits
      expect(s.reserve('k')).toBe(false);
      expect(s.reserve('other')).toBe(true);
      busy = 2;
      expect(s.reserve('third')).toBe(false);
      busy = 1;
      expect(s.reserve('third')).toBe(true);
      expect(s.reserve('third')).toBe(false);
    });

    it('stop() waits for reserved slots to be started or given back, and for what they run', async () => {
      const g = gatedRuns();
      const s = new DeliveryScheduler({ concurrency: 4, perKeyConcurrency: 4, perKeyQueueMax: 10, run: g.run });
      expect(s.reserve('k')).toBe(true);
      expect(s.reserve('k')).toBe(true);
      let stopped = false;
      const stopping = s.stop().then(() => (stopped = true));
      expect(s.reserve('k')).toBe(false);
      s.cancel('k');
      await new Promise((r) => setImmediate(r));
      expect(stopped).toBe(false);
      let finish!: () => void;
      s.startReserved('k', 'late', () => new Promise<void>((r) => (finish = r)));
      await new Promise((r) => setImmediate(r));
      expect(stopped).toBe(false);
      finish();
      await stopping;
      expect(s.inFlight).toBe(0);
    });

    it('throws when a slot that was not reserved is used or given back', () => {
      const s = new DeliveryScheduler({ concurrency: 4, perKeyConcurrency: 4, perKeyQueueMax: 10, run: async () => undefined });
      expect(() => s.cancel('k')).toThrow(/no slot reserved/);
      expect(() => s.startReserved('k', 'x', async () => undefined)).toThrow(/no slot reserved/);
    });
  });
});
