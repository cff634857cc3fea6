import { HostGate, MAX_CRAWL_DELAY_MS } from './host-gate';

const tick = () => new Promise((r) => setImmediate(r));

/** A request that stays open until `finish()` is called. */
function openRequest() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return { run: () => done, finish };
}

describe('HostGate (per-host politeness)', () => {
  it('runs at most `concurrency` requests to one origin at a time; other origins are not held up', async () => {
    const gate = new HostGate(2);
    const reqs = Array.from({ length: 4 }, openRequest);
    const started: number[] = [];
    const all = reqs.map((r, i) => gate.run('https://a.example', undefined, () => (started.push(i), r.run())));
    await tick();
    expect(started).toEqual([0, 1]);
    expect(gate.active('https://a.example')).toBe(2);
    let other = false;
    await gate.run('https://b.example', undefined, async () => (other = true));
    expect(other).toBe(true);
    reqs[0].finish();
    await tick();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    reqs[1].finish();
    reqs[2].finish();
    reqs[3].finish();
    await Promise.all(all);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(gate.active('https://a.example')).toBe(0);
  });

  it('a Crawl-delay makes one request at a time, each started the delay after the previous one ended', async () => {
    let clock = 1000;
    const slept: number[] = [];
    const gate = new HostGate(4, { now: () => clock, sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      }, });
    const starts: number[] = [];
    // Each request takes 500 ms: the next starts 2 s after it ended.
    await Promise.all([0, 1, 2].map(() => gate.run('https://slow.example', 2, async () => void (starts.push(clock), (clock += 500)))));
    expect(starts).toEqual([1000, 3500, 6000]);
    expect(slept).toEqual([2000, 2000]);
  });

  it('a failing request frees its slot', async () => {
    const gate = new HostGate(1);
    await expect(gate.run('https://a.example', undefined, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('https://a.example', undefined, async () => 'ok')).resolves.toBe('ok');
  });

  it('caps an excessive Crawl-delay', async () => {
    let clock = 0;
    const slept: number[] = [];
    const gate = new HostGate(1, { now: () => clock, sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      }, });
    await gate.run('https://a.example', 3600, async () => undefined);
    await gate.run('https://a.example', 3600, async () => undefined);
    expect(slept).toEqual([MAX_CRAWL_DELAY_MS]);
  });
});
