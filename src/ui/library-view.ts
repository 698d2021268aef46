/**
 * What the Library list shows of the library: sorted, filtered by name, and, past a few thousand rows,
 * only the window of rows around what is scrolled into view. Pure (unit-tested in Node).
 */
import type { LibraryItem } from '../core/types.ts';

export type LibrarySort = 'added' | 'name' | 'size' | 'type';

export const SORT_LABELS: Record<LibrarySort, string> = { added: 'Date added', name: 'Name', size: 'Size', type: 'Type' };

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * Documents in the chosen order (date added keeps the library's own order: oldest first; size, largest
 * first), then queued and failed files in drop order; only rows whose path or title contains `query`
 * (case-insensitive), when given.
 */
export function arrangeItems(items: readonly LibraryItem[], sort: LibrarySort, query: string): LibraryItem[] {
  const q = query.trim().toLocaleLowerCase();
  const shown = q ? items.filter((i) => holdsName(i.path, i.title, q)) : [...items];
  if (sort === 'added') return shown;
  const docs = shown.filter((i) => i.kind === 'document');
  const rest = shown.filter((i) => i.kind !== 'document');
  const byName = (a: LibraryItem, b: LibraryItem) => collator.compare(a.name, b.name) || collator.compare(a.path, b.path);
  const order: Record<Exclude<LibrarySort, 'added'>, (a: LibraryItem, b: LibraryItem) => number> = {
    name: byName,
    size: (a, b) => (b.size ?? 0) - (a.size ?? 0) || byName(a, b),
    type: (a, b) => collator.compare(a.type ?? '', b.type ?? '') || byName(a, b),
  };
  docs.sort(order[sort]);
  return [...docs, ...rest];
}

/**
 * Whether a document's path or title contains `lowerQuery` (already trimmed and lower-cased), as the
 * Library list's filter and the "Find a document" box read what is typed.
 */
export function holdsName(path: string, title: string | undefined, lowerQuery: string): boolean {
  return path.toLocaleLowerCase().includes(lowerQuery) || Boolean(title?.toLocaleLowerCase().includes(lowerQuery));
}

/** The folder a row sits in ("" for a file dropped alone). */
export function folderOf(item: Pick<LibraryItem, 'path' | 'name'>): string {
  return item.path.length > item.name.length ? item.path.slice(0, item.path.length - item.name.length - 1) : '';
}

/** A row of the list as drawn: a folder's heading (when grouped by folder) or one item. */
export type ListRow = { kind: 'folder'; folder: string; count: number; folded: boolean } | { kind: 'item'; item: LibraryItem };

/**
 * The rows to draw: the items as they are, or, grouped by folder, each folder's heading (folders in name
 * order, "" first) followed by its items in their arranged order unless the folder is in `folded`.
 */
export function listRows(items: readonly LibraryItem[], grouped: boolean, folded: ReadonlySet<string> = new Set()): ListRow[] {
  if (!grouped) return items.map((item) => ({ kind: 'item', item }));
  const groups = new Map<string, LibraryItem[]>();
  for (const item of items) {
    const folder = folderOf(item);
    const members = groups.get(folder);
    if (members) members.push(item);
    else groups.set(folder, [item]);
  }
  const rows: ListRow[] = [];
  for (const folder of [...groups.keys()].sort(collator.compare)) {
    const members = groups.get(folder)!;
    rows.push({ kind: 'folder', folder, count: members.length, folded: folded.has(folder) });
    if (!folded.has(folder)) rows.push(...members.map((item): ListRow => ({ kind: 'item', item })));
  }
  return rows;
}

/**
 * Up to this many rows are all rendered (small libraries, and the browser tests that read every row);
 * more are windowed. Rendering every row cost 457 ms at 1,000 documents, a window 20 ms at 5,000
 * (`npm run bench -- ui`, decision 0031).
 */
export const WINDOW_ABOVE = 250;

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
