/** Inclusive ranges of 1-based page numbers, ascending: [[2, 23], [40, 40]]. */
export type PageRanges = Array<[first: number, last: number]>;

/**
 * Page numbers as ranges, ascending and merged.
 *
 * @example toPageRanges([40, 2, 3, 4]) // → [[2, 4], [40, 40]]
 */
export function toPageRanges(pages: readonly number[]): PageRanges {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const out: PageRanges = [];
  for (const p of sorted) {
    const last = out.at(-1);
    if (last && p === last[1] + 1) last[1] = p;
    else out.push([p, p]);
  }
  return out;
}

/**
 * Ranges as a person reads them.
 *
 * @example formatPageRanges([[2, 23], [40, 40]]) // → "pages 2–23, 40"
 * @example formatPageRanges([[5, 5]]) // → "page 5"
 */
export function formatPageRanges(ranges: PageRanges): string {
  const one = ranges.length === 1 && ranges[0]![0] === ranges[0]![1];
  return `${one ? 'page' : 'pages'} ${ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ')}`;
}

/** How many pages the ranges hold. @example pageCount([[2, 4], [40, 40]]) // → 4 */
export function pageCount(ranges: PageRanges): number {
  return ranges.reduce((n, [a, b]) => n + b - a + 1, 0);
}
