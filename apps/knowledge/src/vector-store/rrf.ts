/** One ranked list for reciprocal rank fusion: ids best first, and the list's weight. */
export interface RankedList<K> {
  ids: readonly K[];
  weight: number;
}

export interface FusedItem<K> {
  id: K;
  score: number;
  /** 1-based rank of the id in each input list (null when absent), in the lists' order. */
  ranks: (number | null)[];
}

/** The constant of Cormack et al. (2009): damps the head of each list. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: score(d) = sum over lists of weight / (k + rank of d in the list).
 * Ids repeated inside one list count at their best rank. Result: best first; ties go to the id
 * with the better best rank, then to the one seen first (earlier list, higher up).
 */
export function reciprocalRankFusion<K>(lists: readonly RankedList<K>[], k = RRF_K): FusedItem<K>[] {
  if (!(k >= 0) || !Number.isFinite(k)) throw new RangeError(`RRF k must be a finite number >= 0 (got ${k})`);
  const byId = new Map<K, { item: FusedItem<K>; best: number; order: number }>();
  let order = 0;
  lists.forEach((list, li) => {
    if (!(list.weight >= 0) || !Number.isFinite(list.weight)) throw new RangeError(`RRF weights must be finite numbers >= 0 (got ${list.weight})`);
    list.ids.forEach((id, i) => {
      const rank = i + 1;
      let e = byId.get(id);
      if (!e) {
        e = { item: { id, score: 0, ranks: lists.map(() => null) }, best: rank, order: order++ };
        byId.set(id, e);
      }
      if (e.item.ranks[li] !== null) return;
      e.item.ranks[li] = rank;
      e.item.score += list.weight / (k + rank);
      e.best = Math.min(e.best, rank);
    });
  });
  return [...byId.values()].sort((a, b) => b.item.score - a.item.score || a.best - b.best || a.order - b.order).map((e) => e.item);
}
