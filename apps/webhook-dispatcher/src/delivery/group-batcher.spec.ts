import { GroupBatcher } from './group-batcher';

describe('GroupBatcher', () => {
  it('runs a lone call at once and groups the calls made while a batch runs', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const b = new GroupBatcher<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return items.map((i) => i * 10);
    });
    const first = b.call(1);
    const rest = [b.call(2), b.call(3), b.call(4)];
    expect(batches).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('caps a batch and rejects every call of a failed batch only', async () => {
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const b = new GroupBatcher<string, string>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      if (items.includes('bad')) throw new Error('boom');
      return items;
    }, 2);
    const calls = ['a', 'b', 'bad', 'c', 'd'].map((x) => b.call(x).then((v) => `ok ${v}`, (e: Error) => `err ${e.message}`));
    release();
    expect(await Promise.all(calls)).toEqual(['ok a', 'err boom', 'err boom', 'ok c', 'ok d']);
    expect(batches).toEqual([['a'], ['b', 'bad'], ['c', 'd']]);
  });
});
