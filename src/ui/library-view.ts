/**
 * What the Library list shows of the library: sorted, filtered by name, and, past a few thousand rows,
 * only the window of rows around what is scrolled into view. Pure (unit-tested in Node).
 */
import type { LibraryItem } from '../core/types.ts';

export type LibrarySort = 'added' | 'name' | 'type';

export const SORT_LABELS: Record<LibrarySort, string> = { added: 'Date added', name: 'Name', type: 'Type' };

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * Documents in the chosen order (date added keeps the library's own order: oldest first), then queued
 * and failed files in drop order; only rows whose path contains `query` (case-insensitive), when given.
 */
export function arrangeItems(items: readonly LibraryItem[], sort: LibrarySort, query: string): LibraryItem[] {
  const q = query.trim().toLocaleLowerCase();
  const shown = q ? items.filter((i) => i.path.toLocaleLowerCase().includes(q)) : [...items];
  if (sort === 'added') return shown;
  const docs = shown.filter((i) => i.kind === 'document');
  const rest = shown.filter((i) => i.kind !== 'document');
  const byName = (a: LibraryItem, b: LibraryItem) => collator.compare(a.name, b.name) || collator.compare(a.path, b.path);
  docs.sort(sort === 'name' ? byName : (a, b) => collator.compare(a.type ?? '', b.type ?? '') || byName(a, b));
  return [...docs, ...rest];
}

/** Up to this many rows are all rendered (tests and small libraries see every row); more are windowed. */
export const WINDOW_ABOVE = 2000;

export interface RowWindow {
  /** First row rendered, and one past the last. */
  start: number;
  end: number;
  /** Space standing in for the rows above and below the window, in pixels. */
  before: number;
  after: number;
}

/**
 * The rows to render of `count` rows about `rowHeight` pixels tall each, for a viewport `viewport`
 * pixels tall scrolled to `scrollTop`, with `overscan` extra rows on either side (default 10) so a
 * quick scroll does not show blank space. All rows when there are at most {@link WINDOW_ABOVE}.
 */
export function windowOf(count: number, scrollTop: number, viewport: number, rowHeight: number, overscan = 10): RowWindow {
  if (count <= WINDOW_ABOVE) return { start: 0, end: count, before: 0, after: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const start = Math.max(0, Math.min(count - 1, first) - overscan);
  const end = Math.min(count, first + Math.ceil(viewport / rowHeight) + overscan);
  return { start, end, before: start * rowHeight, after: (count - end) * rowHeight };
}

/** A folder and the folders above it, for the folder filter: "a/b/c" → ["a", "a/b", "a/b/c"]. */
export function withParents(folder: string): string[] {
  const parts = folder.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}
