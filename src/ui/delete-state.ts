import { signal } from '@preact/signals';
import { personalMessage } from '../core/errors.ts';
import type { DocId, QueueId } from '../core/ids.ts';
import type { LibraryItem } from '../core/types.ts';
import { noteActivity } from './indexing-state.ts';
import { libraryApi } from './library-connection.ts';
import { refreshLibrary } from './library-state.ts';

/** How long a deleted document can be brought back with Undo before it is deleted from the store. */
const UNDO_MS = 6000;
/** Documents deleted but not yet removed from the store (Undo can still keep them); hidden from the list. */
export const pendingDeletes = signal<LibraryItem[]>([]);
const deleteTimers = new Map<string, ReturnType<typeof setTimeout>>();
/** When Delete was pressed, per pending item: a file added again after that moment keeps its document. */
const deleteRequested = new Map<string, number>();

/**
 * Delete: a document leaves the list at once and is removed from the store {@link UNDO_MS} later, unless
 * Undo keeps it; asking a question, or leaving the page, removes it at once (an answer never cites a
 * document the person deleted). A queued or failed file is removed at once.
 */
export async function deleteItem(item: LibraryItem): Promise<void> {
  if (item.docId && !deleteTimers.has(item.key)) {
    pendingDeletes.value = [...pendingDeletes.value, item];
    deleteRequested.set(item.key, Date.now());
    deleteTimers.set(item.key, setTimeout(() => void commitDelete(item), UNDO_MS));
    return;
  }
  await removeNow(item);
}

/** Undo: the document stays. */
export function undoDelete(item: LibraryItem, why = 'kept'): void {
  clearTimeout(deleteTimers.get(item.key));
  deleteTimers.delete(item.key);
  deleteRequested.delete(item.key);
  pendingDeletes.value = pendingDeletes.value.filter((i) => i.key !== item.key);
  noteActivity(`${item.path}: ${why}`, item.path);
}

/** The file of a document whose Delete is still undoable was added again: the Delete is cancelled, saying so. */
export function cancelDelete(docId: DocId): void {
  for (const item of pendingDeletes.value.filter((i) => i.docId === docId)) undoDelete(item, 'added again, so it was not deleted');
}

/** Removes every document whose Undo is still offered, now. */
export async function flushDeletes(): Promise<void> {
  await Promise.all(pendingDeletes.value.map((item) => commitDelete(item)));
}

async function commitDelete(item: LibraryItem): Promise<void> {
  if (!deleteTimers.has(item.key)) return;
  clearTimeout(deleteTimers.get(item.key));
  deleteTimers.delete(item.key);
  const requestedAt = deleteRequested.get(item.key);
  deleteRequested.delete(item.key);
  await removeNow(item, requestedAt);
  // The list is read again first: else the row would show again until the next refresh.
  await refreshLibrary().catch(() => undefined);
  pendingDeletes.value = pendingDeletes.value.filter((i) => i.key !== item.key);
}

async function removeNow(item: LibraryItem, requestedAt?: number): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  try {
    if (item.docId) {
      // The store keeps a document whose file was added again after Delete was pressed (the event saying so may not have arrived yet).
      const outcome = await api.documents.delete(item.docId as DocId, requestedAt);
      noteActivity(`${item.path}: ${outcome === 'kept' ? 'added again, so it was not deleted' : outcome === 'gone' ? 'already gone' : 'removed'}`, item.path);
    } else if (item.queueId) {
      const outcome = await api.queue.dismiss(item.queueId as QueueId);
      const what = outcome === 'deleted' ? 'removed (it had just been indexed)' : outcome === 'dequeued' ? 'removed' : 'already gone';
      noteActivity(`${item.path}: ${what}`, item.path);
    }
  } catch (err) {
    noteActivity(`${item.path} could not be removed: ${personalMessage(err)}`, item.path);
  }
}
