import type { DocId } from '../core/ids.ts';
import type { LibraryItem } from '../core/types.ts';
import { deleteItem, items, percents, setTags } from './state.ts';

function statusOf(item: LibraryItem, percent: number | undefined): string {
  if (item.kind === 'document') return 'Indexed';
  if (item.kind === 'failed') return item.error?.message ?? 'Failed';
  return percent === undefined ? 'Queued' : `Indexing ${percent}%`;
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

export function LibraryPanel() {
  const list = items.value;
  const p = percents.value;
  const docs = list.filter((i) => i.kind === 'document').length;
  return (
    <div class="library">
      <h2>
        Library <span class="count">({docs} document{docs === 1 ? '' : 's'})</span>
      </h2>
      {list.length === 0 && <p class="empty">No documents yet. Add some to start asking questions.</p>}
      <ul aria-label="Library">
        {list.map((item) => {
          const status = statusOf(item, item.queueId ? p[item.queueId] : undefined);
          return (
            <li key={item.key} class={`item ${item.kind}`}>
              <div class="item-main">
                <span class="name" title={item.path}>
                  {item.name}
                </span>
                {item.path !== item.name && <span class="folder">{item.path.slice(0, -item.name.length - 1)}</span>}
                <span class={`status ${item.kind}`}>{status}</span>
              </div>
              <div class="item-actions">
                {item.kind === 'document' && <TagEditor item={item} />}
                <button type="button" onClick={() => void deleteItem(item)}>
                  Delete
                </button>
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
