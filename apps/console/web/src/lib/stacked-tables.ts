/**
 * Every table of the console (inside a `.table-wrap`) fits its card: when a table is wider than
 * its wrap, the wrap gets `table-wrap--stacked` and the table is shown as one labelled block per
 * row (components.css), so neither the page nor the table scrolls sideways (issue 30). Each cell
 * carries its column's name in `data-label`, which the stacked layout shows before the value.
 *
 * One observer for the whole document rather than a hook in each of the tables: every table,
 * present and future, is covered as it appears, grows, or its card narrows.
 */
const STACKED = 'table-wrap--stacked';

/**
 * The label of each column of a table's header row (colspans repeated): its text, or '' for a
 * visually hidden header ("Actions"), which labels nothing a person needs to read.
 */
function columnLabels(table: HTMLTableElement): string[] {
  const row = table.tHead?.rows[table.tHead.rows.length - 1];
  if (!row) return [];
  const labels: string[] = [];
  for (const cell of Array.from(row.cells)) {
    const label = cell.querySelector('.visually-hidden') ? '' : (cell.textContent ?? '').trim();
    for (let i = 0; i < Math.max(1, cell.colSpan); i++) labels.push(label);
  }
  return labels;
}

function labelCells(table: HTMLTableElement): void {
  const labels = columnLabels(table);
  if (!labels.length) return;
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let column = 0;
      for (const cell of Array.from(row.cells)) {
        const label = labels[column] ?? '';
        if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
        column += Math.max(1, cell.colSpan);
      }
    }
  }
}

/** Stacks the wrap's table when, laid out as a table, it is wider than the wrap. */
function fit(wrap: HTMLElement): void {
  const table = wrap.querySelector('table');
  if (!table) return;
  labelCells(table);
  const wasStacked = wrap.classList.contains(STACKED);
  if (wasStacked) wrap.classList.remove(STACKED);
  const tooWide = table.scrollWidth > wrap.clientWidth + 1;
  if (tooWide) wrap.classList.add(STACKED);
}

export function stackTablesThatDoNotFit(root: HTMLElement): () => void {
  const widths = new WeakMap<Element, number>();
  const watched = new Set<HTMLElement>();
  const resize = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const width = Math.round(entry.contentRect.width);
      // Stacking changes the wrap's height only: refit when its width changed.
      if (widths.get(entry.target) === width) continue;
      widths.set(entry.target, width);
      fit(entry.target as HTMLElement);
    }
  });
  let scheduled = false;
  const scan = () => {
    scheduled = false;
    for (const wrap of Array.from(root.querySelectorAll<HTMLElement>('.table-wrap'))) {
      if (!watched.has(wrap)) {
        watched.add(wrap);
        resize.observe(wrap);
      }
      fit(wrap);
    }
    for (const wrap of Array.from(watched)) {
      if (!wrap.isConnected) {
        watched.delete(wrap);
        resize.unobserve(wrap);
      }
    }
  };
  // Rows and texts change as data arrives: refit once per frame at most.
  const mutations = new MutationObserver(() => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(scan);
  });
  mutations.observe(root, { childList: true, subtree: true, characterData: true });
  scan();
  return () => {
    mutations.disconnect();
    resize.disconnect();
  };
}
