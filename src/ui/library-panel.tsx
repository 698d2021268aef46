import { signal } from '@preact/signals';
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DocId } from '../core/ids.ts';
import { formatPageRanges } from '../core/page-ranges.ts';
import type { LibraryItem } from '../core/types.ts';
import { PrefixIsolated } from './isolate.tsx';
import { arrangeItems, folderOf, listRows, SORT_LABELS, WINDOW_ABOVE, windowOf, type LibrarySort, type ListRow } from './library-view.ts';
import { deleteItem, pendingDeletes, undoDelete } from './delete-state.ts';
import { plural, stageLine } from './format.ts';
import { dismissFailed, percents, readDocumentsAgain, retryItem, type FileProgress } from './indexing-state.ts';
import { dismissReadAgain, items, loaded, readAgainOffer, setTags } from './library-state.ts';

/**
 * "Indexed" for a document whose every page was read; "Indexed: pages 2–23, 40 unreadable (font
 * encoding), not searchable" for a PDF whose fonts on those pages do not map to characters; "Indexed:
 * pages 1–12 recognised from images (OCR); page 4 with low confidence" for a scan. While a file is read:
 * "Indexing 40%", or "Recognising text: page 3 of 12, about 40 s left" while OCR reads a page.
 */
function statusOf(item: LibraryItem, progress: FileProgress | undefined): string {
  if (item.kind === 'document') {
    const notes = [
      item.unreadablePages?.length && `${formatPageRanges(item.unreadablePages)} unreadable (font encoding), not searchable`,
      item.recognisedPages?.length && `${formatPageRanges(item.recognisedPages)} recognised from images (OCR)`,
      item.lowConfidencePages?.length && `${formatPageRanges(item.lowConfidencePages)} with low confidence`,
    ].filter(Boolean);
    return notes.length ? `Indexed: ${notes.join('; ')}` : 'Indexed';
  }
  if (item.kind === 'failed') return item.error?.message ?? 'Failed';
  if (!progress) return 'Queued';
  return progress.stage ? stageLine(progress.stage) : `Indexing ${progress.percent}%`;
}

const TYPE_NAMES: Record<string, string> = { pdf: 'PDF', docx: 'Word', html: 'HTML', markdown: 'Markdown', text: 'Text', image: 'Image' };

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

/** Documents chosen for a bulk action (their row keys), in this tab. */
const selected = signal<ReadonlySet<string>>(new Set());

function toggleSelected(key: string, on: boolean): void {
  const next = new Set(selected.value);
  if (on) next.add(key);
  else next.delete(key);
  selected.value = next;
}

/**
 * One row, compact: the document's title first (its file name when it has none), then on one line its
 * file name, folder, status and facts; a box to select it for bulk actions; its tags, Try again and Delete.
 * Memoised so a progress update re-renders only the row whose status changed. Name, title, folder and the
 * file name that starts a failure message sit in `<bdi>`: see isolate.tsx. Its controls carry the file's
 * name ("Delete report.pdf"), so a screen reader's list of buttons tells them apart.
 */
const LibraryRow = memo(
  function LibraryRow({ item, status, pos, size, chosen }: { item: LibraryItem; status: string; pos: number; size: number; chosen: boolean }) {
    const titled = Boolean(item.title && item.title !== item.name);
    const folder = folderOf(item);
    return (
      <li class={`item ${item.kind}`} aria-posinset={pos} aria-setsize={size}>
        {item.kind === 'document' && <input type="checkbox" class="select" aria-label={`Select ${item.name}`} checked={chosen} onChange={(e) => toggleSelected(item.key, e.currentTarget.checked)} />}
        <div class="item-main">
          {titled && (
            <span class="title">
              <bdi>{item.title}</bdi>
            </span>
          )}
          <span class="where" title={item.path}>
            <span class={titled ? 'name secondary' : 'name'}>
              <bdi>{item.name}</bdi>
            </span>
            {folder && (
              <>
                {titled ? ' · ' : ' '}
                <span class="folder">
                  <bdi>{folder}</bdi>
                </span>
              </>
            )}
          </span>
          <span class="facts">
            <span class={`status ${item.kind}`}>
              <PrefixIsolated text={status} names={[item.name]} />
            </span>
            {item.kind === 'document' && <span class="meta"> · {metaOf(item)}</span>}
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
    a.chosen === b.chosen &&
    a.item.key === b.item.key &&
    a.item.kind === b.item.kind &&
    a.item.retriable === b.item.retriable &&
    a.item.title === b.item.title &&
    a.item.tags?.join() === b.item.tags?.join(),
);

/** A folder's heading when the list is grouped by folder: its name and count, a button that folds it. */
function FolderRow({ row, pos, size, onFold }: { row: Extract<ListRow, { kind: 'folder' }>; pos: number; size: number; onFold: (folder: string) => void }) {
  const name = row.folder || 'Files added on their own';
  return (
    <li class="folder-row" aria-posinset={pos} aria-setsize={size}>
      <button type="button" class="folder-toggle" aria-expanded={!row.folded} onClick={() => onFold(row.folder)}>
        <span aria-hidden="true">{row.folded ? '▸' : '▾'}</span> <bdi>{name}</bdi> <span class="count">({row.count})</span>
      </button>
    </li>
  );
}

/** First guess at a row's height in pixels; replaced by the average of the rows rendered. */
const ROW_ESTIMATE = 80;

/** Sort order and name filter of the list. */
function ListControls({ sort, query, grouped, onSort, onQuery, onGroup }: { sort: LibrarySort; query: string; grouped: boolean; onSort: (s: LibrarySort) => void; onQuery: (q: string) => void; onGroup: (on: boolean) => void }) {
  return (
    <div class="list-controls">
      <input type="search" aria-label="Filter documents" placeholder="Find by name or title" value={query} onInput={(e) => onQuery(e.currentTarget.value)} />
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
      <label>
        <input type="checkbox" checked={grouped} onChange={(e) => onGroup(e.currentTarget.checked)} /> Group by folder
      </label>
    </div>
  );
}

/** What can be done with the selected documents at once: delete them, add a tag, or let go of the selection. */
function BulkActions({ docs }: { docs: LibraryItem[] }) {
  const [tag, setTag] = useState('');
  const chosen = docs.filter((d) => selected.value.has(d.key));
  if (!chosen.length) return null;
  const addTag = async () => {
    const t = tag.trim();
    if (!t) return;
    setTag('');
    for (const d of chosen) if (!(d.tags ?? []).includes(t)) await setTags(d.docId as DocId, [...(d.tags ?? []), t]);
  };
  return (
    <div class="bulk" role="toolbar" aria-label="Selected documents">
      <span>
        {chosen.length} selected
      </span>
      <button
        type="button"
        onClick={() => {
          selected.value = new Set();
          for (const d of chosen) void deleteItem(d);
        }}
      >
        Delete selected
      </button>
      <form
        class="bulk-tag"
        onSubmit={(e) => {
          e.preventDefault();
          void addTag();
        }}
      >
        <input type="text" aria-label="Tag for the selected documents" placeholder="tag" value={tag} onInput={(e) => setTag(e.currentTarget.value)} />
        <button type="submit">Add tag</button>
      </form>
      <button type="button" onClick={() => (selected.value = new Set())}>
        Clear selection
      </button>
    </div>
  );
}

/**
 * The rows, in a scrolling box that renders only the rows in view (and a few around them) once the
 * library is past a few thousand rows: 10,000 documents scroll as smoothly as 100. Padding above and
 * below the rendered rows stands in for the others, so `ul > li` holds only real rows.
 */
function LibraryRows({ list, onFold }: { list: ListRow[]; onFold: (folder: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  const [rowHeight, setRowHeight] = useState(ROW_ESTIMATE);
  const p = percents.value;
  const chosen = selected.value;
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
        {list.slice(w.start, w.end).map((row, i) =>
          row.kind === 'folder' ? (
            <FolderRow key={`folder:${row.folder}`} row={row} pos={w.start + i + 1} size={list.length} onFold={onFold} />
          ) : (
            <LibraryRow key={row.item.key} item={row.item} pos={w.start + i + 1} size={list.length} chosen={chosen.has(row.item.key)} status={statusOf(row.item, row.item.queueId ? p[row.item.queueId] : undefined)} />
          ),
        )}
      </ul>
    </div>
  );
}

/** "report.pdf removed. Undo" for each document deleted a moment ago (see deleteItem). */
function UndoBar() {
  const pending = pendingDeletes.value;
  // Many at once (a bulk delete): one line, one Undo for all of them.
  if (pending.length > 3) {
    return (
      <div class="undo" aria-live="polite">
        <p>
          {pending.length} documents removed.{' '}
          <button type="button" aria-label={`Undo delete of ${pending.length} documents`} onClick={() => pending.forEach((item) => undoDelete(item))}>
            Undo
          </button>
        </p>
      </div>
    );
  }
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

/**
 * The offer to read again the documents a newer reader reads better, or scans read before a language was
 * added (`ingest/reader-versions.ts`): Read again queues those whose file was kept; those stored without
 * it need the file added again.
 */
function ReadAgainNotice() {
  const offer = readAgainOffer.value;
  if (!offer) return null;
  const total = offer.documents + offer.withoutOriginals;
  const what = offer.better.length ? offer.better.join(' and ') : 'read them better';
  return (
    <div class="read-again" role="status">
      <p>
        {plural(total, 'document')} {total === 1 ? 'was' : 'were'} stored before this app could {what}.{' '}
        {offer.documents > 0 && `Reading ${offer.documents === 1 ? 'it' : offer.documents === total ? 'them' : `${offer.documents} of them`} again from the kept file${offer.documents === 1 ? '' : 's'} gives better answers; tags stay. `}
        {offer.withoutOriginals > 0 && `${offer.withoutOriginals === total ? (total === 1 ? 'It was' : 'They were') : `${offer.withoutOriginals} of them were`} stored without the original file: add ${offer.withoutOriginals === 1 ? 'it' : 'those files'} again to read ${offer.withoutOriginals === 1 ? 'it' : 'them'} anew.`}
      </p>
      {offer.documents > 0 && (
        <button type="button" onClick={() => void readDocumentsAgain()}>
          Read again
        </button>
      )}
      <button type="button" onClick={dismissReadAgain}>
        Not now
      </button>
    </div>
  );
}

export function LibraryPanel() {
  const [sort, setSort] = useState<LibrarySort>('added');
  const [query, setQuery] = useState('');
  const [grouped, setGrouped] = useState(false);
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const fold = (folder: string) => {
    const next = new Set(folded);
    if (next.has(folder)) next.delete(folder);
    else next.add(folder);
    setFolded(next);
  };
  const hidden = new Set(pendingDeletes.value.map((i) => i.key));
  const all = hidden.size ? items.value.filter((i) => !hidden.has(i.key)) : items.value;
  const docs = all.filter((i) => i.kind === 'document').length;
  const failed = all.filter((i) => i.kind === 'failed').length;
  const list = arrangeItems(all, sort, query);
  const rows = listRows(list, grouped, folded);
  return (
    <div class="library">
      <h2>
        Library <span class="count">{loaded.value ? `(${plural(docs, 'document')})` : '(loading…)'}</span>
      </h2>
      {failed > 0 && (
        <button type="button" class="clear-failed" onClick={() => void dismissFailed()}>
          Clear {failed} failed file{failed === 1 ? '' : 's'}
        </button>
      )}
      <ReadAgainNotice />
      <UndoBar />
      {(all.length > 1 || query) && <ListControls sort={sort} query={query} grouped={grouped} onSort={setSort} onQuery={setQuery} onGroup={setGrouped} />}
      <BulkActions docs={list.filter((i) => i.kind === 'document')} />
      {!loaded.value && <p class="empty">Loading the library…</p>}
      {loaded.value && all.length === 0 && <p class="empty">No documents yet. Add some to start asking questions.</p>}
      {all.length > 0 && list.length === 0 && <p class="empty">No document's name or title contains “{query}”.</p>}
      <LibraryRows list={rows} onFold={fold} />
    </div>
  );
}
