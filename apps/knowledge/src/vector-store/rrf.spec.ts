import { reciprocalRankFusion } from './rrf';

describe('reciprocalRankFusion', () => {
  it('sums weight / (k + rank) over the lists', () => {
    const fused = reciprocalRankFusion(
      [
        { ids: ['a', 'b', 'c'], weight: 1 },
        { ids: ['c', 'a'], weight: 1 },
      ],
      60,
    );
    expect(fused.map((f) => f.id)).toEqual(['a', 'c', 'b']);
    expect(fused[0].score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[1].score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[2].score).toBeCloseTo(1 / 62, 12);
    expect(fused[0].ranks).toEqual([1, 2]);
    expect(fused[2].ranks).toEqual([2, null]);
  });

  it('lets an item high in both lists beat the head of one list', () => {
    const fused = reciprocalRankFusion([
      { ids: ['vector-top', 'both'], weight: 1 },
      { ids: ['both', 'text-only'], weight: 1 },
    ]);
    expect(fused.map((f) => f.id)).toEqual(['both', 'vector-top', 'text-only']);
  });

  it('applies the weights', () => {
    const lists = (w: number) => [
      { ids: ['v'], weight: 1 },
      { ids: ['t'], weight: w },
    ];
    expect(reciprocalRankFusion(lists(2))[0].id).toBe('t');
    expect(reciprocalRankFusion(lists(0.5))[0].id).toBe('v');
    const zero = reciprocalRankFusion(lists(0));
    expect(zero.find((f) => f.id === 't')?.score).toBe(0);
  });

  it('breaks ties by best rank, then by first appearance', () => {
    const fused = reciprocalRankFusion([
      { ids: ['x', 'y'], weight: 1 },
      { ids: ['y', 'x'], weight: 1 },
    ]);
    expect(fused.map((f) => f.id)).toEqual(['x', 'y']);
    expect(fused[0].score).toBe(fused[1].score);
  });

  it('counts an id repeated within a list once, at its best rank', () => {
    const [only] = reciprocalRankFusion([{ ids: [7, 7, 7], weight: 1 }], 0);
    expect(only).toEqual({ id: 7, score: 1, ranks: [1] });
  });

  it('a smaller k sharpens the head', () => {
    const lists = [
      { ids: ['a', 'b'], weight: 1 },
      { ids: ['b', 'c'], weight: 1 },
    ];
    const sharp = reciprocalRankFusion(lists, 1);
    expect(sharp[0].score - sharp[1].score).toBeGreaterThan(reciprocalRankFusion(lists, 60)[0].score - reciprocalRankFusion(lists, 60)[1].score);
  });

  it('handles empty input and rejects bad parameters', () => {
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([{ ids: [], weight: 1 }])).toEqual([]);
    expect(() => reciprocalRankFusion([{ ids: ['a'], weight: -1 }])).toThrow(RangeError);
    expect(() => reciprocalRankFusion([{ ids: ['a'], weight: 1 }], Number.NaN)).toThrow(RangeError);
  });
});
