import { memo } from 'preact/compat';
import type { DocId } from '../core/ids.ts';
import { formatPageRanges } from '../core/page-ranges.ts';
import type { LibraryItem } from '../core/types.ts';
import { PrefixIsolated } from './isolate.tsx';
import { deleteItem, dismissFailed, items, percents, retryItem, setTags } from './state.ts';

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
 * folder and the file name that starts a failure message sit in `<bdi>`: see isolate.tsx.
 */
const LibraryRow = memo(function LibraryRow({ item, status }: { item: LibraryItem; status: string }) {
  return (
    <li class={`item ${item.kind}`}>
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
          <button type="button" onClick={() => void retryItem(item)}>
            Try again
          </button>
        )}
        <button type="button" onClick={() => void deleteItem(item)}>
          Delete
        </button>
      </div>
    </li>
  );
}, (a, b) => a.status === b.status && a.item.key === b.item.key && a.item.kind === b.item.kind && a.item.retriable === b.item.retriable && a.item.tags?.join() === b.item.tags?.join());

export function LibraryPanel() {
  const list = items.value;
  const p = percents.value;
  const docs = list.filter((i) => i.kind === 'document').length;
  const failed = list.filter((i) => i.kind === 'failed').length;
  return (
    <div class="library">
      <h2>
        Library <span class="count">({docs} document{docs === 1 ? '' : 's'})</span>
      </h2>
      {failed > 0 && (
        <button type="button" class="clear-failed" onClick={() => void dismissFailed()}>
          Clear {failed} failed file{failed === 1 ? '' : 's'}
        </button>
      )}
      {list.length === 0 && <p class="empty">No documents yet. Add some to start asking questions.</p>}
      <ul aria-label="Library">
        {list.map((item) => (
          <LibraryRow key={item.key} item={item} status={statusOf(item, item.queueId ? p[item.queueId] : undefined)} />
        ))}
      </ul>
    </div>
  );
}
