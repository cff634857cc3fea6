import { GroupBatcher } from './group-batcher';

/** A batch runner whose batches stay open until released, recording what each held. */
function gated<T>() {
  const batches: T[][] = [];
  const releases: (() => void)[] = [];
  const run = async (items: T[]) => {
    batches.push(items);
    await new Promise<void>((r) => releases.push(r));
    if (items.includes('bad' as T)) throw new Error('boom');
    return items.map((i) => `done ${String(i)}`);
  };
  return { batches, releases, run };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('GroupBatcher', () => {
  it('groups the calls of one turn into one batch, and those made while it runs into the next', async () => {
    const g = gated<number>();
    const b = new GroupBatcher<number, string>(g.run);
    const first = [b.call(1), b.call(2)];
    expect(g.batches).toEqual([]); // gathered until the turn ends
    await turn();
    expect(g.batches).toEqual([[1, 2]]);
    const rest = [b.call(3), b.call(4)];
    await turn();
    b.call(5).catch(() => undefined);
    const five = b.call(6);
    await turn();
    expect(g.batches).toEqual([[1, 2]]); // one in flight at most by default
    g.releases[0]();
    expect(await Promise.all(first)).toEqual(['done 1', 'done 2']);
    await turn();
    expect(g.batches).toEqual([[1, 2], [3, 4, 5, 6]]);
    g.releases[1]();
    expect(await Promise.all(rest)).toEqual(['done 3', 'done 4']);
    expect(await five).toBe('done 6');
  });

  it('runs up to maxInFlight batches at once; calls beyond wait for one of them to end', async () => {
    const g = gated<string>();
    const b = new GroupBatcher<string, string>(g.run, Infinity, 2);
    const a = b.call('a');
    await turn();
    const c = [b.call('b'), b.call('c')];
    await turn();
    const d = b.call('d');
    await turn();
    expect(g.batches).toEqual([['a'], ['b', 'c']]);
    g.releases[1](); // the second ends first: its callers need not wait for the first
    expect(await Promise.all(c)).toEqual(['done b', 'done c']);
    await turn();
    expect(g.batches).toEqual([['a'], ['b', 'c'], ['d']]);
    g.releases[0]();
    g.releases[2]();
    expect(await a).toBe('done a');
    expect(await d).toBe('done d');
  });

  it('caps a batch and rejects every call of a failed batch only', async () => {
    const g = gated<string>();
    const b = new GroupBatcher<string, string>(g.run, 2);
    const calls = ['a', 'bad', 'c', 'd'].map((x) => b.call(x).then((v) => `ok ${v}`, (e: Error) => `err ${e.message}`));
    await turn();
    g.releases[0]();
    await turn();
    await turn();
    g.releases[1]();
    expect(await Promise.all(calls)).toEqual(['err boom', 'err boom', 'ok done c', 'ok done d']);
    expect(g.batches).toEqual([['a', 'bad'], ['c', 'd']]);
  });
});
