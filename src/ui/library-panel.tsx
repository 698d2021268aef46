import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DocId } from '../core/ids.ts';
import { formatPageRanges } from '../core/page-ranges.ts';
import type { LibraryItem } from '../core/types.ts';
import { PrefixIsolated } from './isolate.tsx';
import { arrangeItems, SORT_LABELS, WINDOW_ABOVE, windowOf, type LibrarySort } from './library-view.ts';
import { deleteItem, pendingDeletes, undoDelete } from './delete-state.ts';
import { dismissFailed, percents, retryItem } from './indexing-state.ts';
import { items, loaded, setTags } from './library-state.ts';

/**
 * "Indexed" for a document whose every page was read; "Indexed: pages 2–23, 40 unreadable (font
 * encoding), not searchable" for a PDF whose fonts on those pages do not map to characters.
 */
function statusOf(item: LibraryItem, percent: number | undefined): string {
  if (item.kind === 'document') {
    const unreadable = item.unreadablePages?.length ? item.unreadablePages : undefined;
    return unreadable ? `Indexed: ${formatPageRanges(unreadable)} unreadable (font encoding), not searchable` : 'Indexed';
  }
  if (item.kind === 'failed') return item.error?.message ?? 'Failed';
  return percent === undefined ? 'Queued' : `Indexing ${percent}%`;
}

const TYPE_NAMES: Record<string, string> = { pdf: 'PDF', docx: 'Word', html: 'HTML', markdown: 'Markdown', text: 'Text' };

function formatSize(n: number): string {
  return n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** "PDF · 12 pages · 340 KB · added 30 Nov 2026", and the title when it differs from the name. */
function metaOf(item: LibraryItem): string {
  const parts = [
    item.type ? TYPE_NAMES[item.type] : undefined,
    item.pages ? `${item.pages} page${item.pages === 1 ? '' : 's'}` : undefined,
    item.size !== undefined ? formatSize(item.size) : undefined,
    item.addedAt ? `added ${new Date(item.addedAt).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}` : undefined,
  ];
  return parts.filter(Boolean).join(' · ');
}

function TagEditor({ item }: { item: LibraryItem }) {
  return (
    <input
      class="tags"
      type="text"
      aria-label={`Tags for ${item.name}`}
      placeholder="tags, comma separated"
      value={(item.tags ?? []).join(', ')}
      onChange={(e) => void setTags(item.docId as DocId, e.currentTarget.value.split(','))}
    />
  );
}

/**
 * One row; memoised so a progress update re-renders only the row whose status changed. Name, title,
 * folder and the file name that starts a failure message sit in `<bdi>`: see isolate.tsx. Its buttons
 * carry the file's name ("Delete report.pdf"), so a screen reader's list of buttons tells them apart.
 */
const LibraryRow = memo(
  function LibraryRow({ item, status, pos, size }: { item: LibraryItem; status: string; pos: number; size: number }) {
    return (
      <li class={`item ${item.kind}`} aria-posinset={pos} aria-setsize={size}>
        <div class="item-main">
          <span class="name" title={item.path}>
            <bdi>{item.name}</bdi>
          </span>
          {item.title && item.title !== item.name && (
            <span class="title">
              <bdi>{item.title}</bdi>
            </span>
          )}
          {item.path !== item.name && (
            <span class="folder">
              <bdi>{item.path.slice(0, -item.name.length - 1)}</bdi>
            </span>
          )}
          {item.kind === 'document' && <span class="meta">{metaOf(item)}</span>}
          <span class={`status ${item.kind}`}>
            <PrefixIsolated text={status} names={[item.name]} />
          </span>
        </div>
        <div class="item-actions">
          {item.kind === 'document' && <TagEditor item={item} />}
          {item.retriable && (
            <button type="button" aria-label={`Try again ${item.name}`} onClick={() => void retryItem(item)}>
              Try again
            </button>
          )}
          <button type="button" aria-label={`Delete ${item.name}`} onClick={() => void deleteItem(item)}>
            Delete
          </button>
        </div>
      </li>
    );
  },
  (a, b) =>
    a.status === b.status &&
    a.pos === b.pos &&
    a.size === b.size &&
    a.item.key === b.item.key &&
    a.item.kind === b.item.kind &&
    a.item.retriable === b.item.retriable &&
    a.item.tags?.join() === b.item.tags?.join(),
);

/** First guess at a row's height in pixels; replaced by the average of the rows rendered. */
const ROW_ESTIMATE = 90;

/** Sort order and name filter of the list. */
function ListControls({ sort, query, onSort, onQuery }: { sort: LibrarySort; query: string; onSort: (s: LibrarySort) => void; onQuery: (q: string) => void }) {
  return (
    <div class="list-controls">
      <input type="search" aria-label="Filter documents" placeholder="Filter by name" value={query} onInput={(e) => onQuery(e.currentTarget.value)} />
      <label>
        Sort by
        <select value={sort} onChange={(e) => onSort(e.currentTarget.value as LibrarySort)}>
          {Object.entries(SORT_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/**
 * The rows, in a scrolling box that renders only the rows in view (and a few around them) once the
 * library is past a few thousand rows: 10,000 documents scroll as smoothly as 100. Padding above and
 * below the rendered rows stands in for the others, so `ul > li` holds only real rows.
 */
function LibraryRows({ list }: { list: LibraryItem[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  const [rowHeight, setRowHeight] = useState(ROW_ESTIMATE);
  const p = percents.value;
  const w = windowOf(list.length, view.top, view.height, rowHeight);
  const windowed = list.length > WINDOW_ABOVE;
  // Row heights and the box's height are read when the browser reports that a size changed (a
  // ResizeObserver's callback comes after its own layout), never in a render's effect: reading them there
  // forces a layout of the whole page inside every render (each refresh, each progress update), which made
  // those renders long tasks with thousands of files.
  const latest = useRef({ windowed, rowHeight, height: view.height });
  latest.current = { windowed, rowHeight, height: view.height };
  useEffect(() => {
    const el = box.current;
    const ul = el?.querySelector('ul');
    if (!el || !ul || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      const rows = el.querySelectorAll<HTMLElement>('ul > li');
      const now = latest.current;
      if (!now.windowed || !rows.length) return;
      const average = [...rows].reduce((sum, r) => sum + r.offsetHeight, 0) / rows.length;
      if (Math.abs(average - now.rowHeight) > 2) setRowHeight(average);
      if (el.clientHeight !== now.height) setView({ top: el.scrollTop, height: el.clientHeight });
    });
    observer.observe(el);
    observer.observe(ul);
    return () => observer.disconnect();
  }, []);
  const onScroll = () => {
    const el = box.current;
    if (el) setView({ top: el.scrollTop, height: el.clientHeight });
  };
  return (
    <div ref={box} class={windowed ? 'rows windowed' : 'rows'} onScroll={windowed ? onScroll : undefined}>
      <ul aria-label="Library" style={{ paddingTop: `${w.before}px`, paddingBottom: `${w.after}px` }}>
        {list.slice(w.start, w.end).map((item, i) => (
          <LibraryRow key={item.key} item={item} pos={w.start + i + 1} size={list.length} status={statusOf(item, item.queueId ? p[item.queueId] : undefined)} />
        ))}
      </ul>
    </div>
  );
}

/** "report.pdf removed. Undo" for each document deleted a moment ago (see deleteItem). */
function UndoBar() {
  const pending = pendingDeletes.value;
  return (
    <div class="undo" aria-live="polite">
      {pending.map((item) => (
        <p key={item.key}>
          <bdi>{item.name}</bdi> removed.{' '}
          <button type="button" aria-label={`Undo delete of ${item.name}`} onClick={() => undoDelete(item)}>
            Undo
          </button>
        </p>
      ))}
    </div>
  );
}

export function LibraryPanel() {
  const [sort, setSort] = useState<LibrarySort>('added');
  const [query, setQuery] = useState('');
  const hidden = new Set(pendingDeletes.value.map((i) => i.key));
  const all = hidden.size ? items.value.filter((i) => !hidden.has(i.key)) : items.value;
  const docs = all.filter((i) => i.kind === 'document').length;
  const failed = all.filter((i) => i.kind === 'failed').length;
  const list = arrangeItems(all, sort, query);
  return (
    <div class="library">
      <h2>
        Library <span class="count">{loaded.value ? `(${docs} document${docs === 1 ? '' : 's'})` : '(loading…)'}</span>
      </h2>
      {failed > 0 && (
        <button type="button" class="clear-failed" onClick={() => void dismissFailed()}>
          Clear {failed} failed file{failed === 1 ? '' : 's'}
        </button>
      )}
      <UndoBar />
      {(all.length > 1 || query) && <ListControls sort={sort} query={query} onSort={setSort} onQuery={setQuery} />}
      {!loaded.value && <p class="empty">Loading the library…</p>}
      {loaded.value && all.length === 0 && <p class="empty">No documents yet. Add some to start asking questions.</p>}
      {all.length > 0 && list.length === 0 && <p class="empty">No document's name contains “{query}”.</p>}
      <LibraryRows list={list} />
    </div>
  );
}
