import { batch, signal } from '@preact/signals';
import type { DocId } from '../core/ids.ts';
import type { QueryableDoc } from '../core/query-filters.ts';
import type { LibraryItem } from '../core/types.ts';
import { libraryApi } from './library-connection.ts';
import { lostLibrary, rememberLibrary, type LibraryRecord } from './local-records.ts';
import { storage } from './storage-state.ts';
import { yieldToPage } from './yield-to-page.ts';

/** The Library list as last read: documents, queued and failed files. */
export const items = signal<LibraryItem[]>([]);
/**
 * The library's documents (of `items`), for the Ask panel's filters; and the same documents as the
 * question is read against them ({@link queryableDocs}). Each is set a task after the one before
 * (`items`, then `documents`, then `queryableDocs`), and only when a document changed: with thousands of
 * documents, the Library list's render, the filters' (an `<option>` per document) and the question's
 * reading (every name read) together blocked the page for over 100 ms; apart, each is short, and a
 * refresh that only moved queued files leaves the Ask panel alone.
 */
export const documents = signal<LibraryItem[]>([]);
export const queryableDocs = signal<QueryableDoc[]>([]);
/** The Library list has been read once: until then the page says it is loading, not "0 documents". */
export const loaded = signal(false);
/**
 * The library the browser cleared (its document count and when it was last seen), when the start-up found
 * the database empty though this browser had seen documents in it; until dismissed or files are added.
 */
export const lost = signal<LibraryRecord | undefined>(undefined);

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

/** Reads the library again soon. Throttled, not debounced: a fast stream of changes still refreshes the list a few times a second. */
export function scheduleRefresh(): void {
  if (refreshTimer !== undefined) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    void refreshLibrary();
  }, 250);
}

/**
 * Reads the Library list and the storage estimate, then, each in a task of its own, the Ask panel's
 * documents and their reading (see {@link documents}).
 */
export async function refreshLibrary(): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  const [list, estimate] = await Promise.all([api.documents.list(), api.storageEstimate()]);
  const documentCount = list.filter((i) => i.kind === 'document').length;
  batch(() => {
    // The first listing tells a library the browser cleared apart from a first visit.
    if (!loaded.value) lost.value = lostLibrary(globalThis.localStorage, documentCount, list.length - documentCount);
    else if (list.length) lost.value = undefined;
    items.value = list;
    storage.value = estimate;
    loaded.value = true;
  });
  // Kept as it was while the person has not yet read that it was cleared.
  if (!lost.value) rememberLibrary(globalThis.localStorage, documentCount);
  // The Ask panel renders in tasks of its own (see `documents`), from the newest listing by then.
  await yieldToPage();
  const docs = items.value.filter((i) => i.kind === 'document');
  if (sameDocuments(documents.value, docs)) return;
  documents.value = docs;
  await yieldToPage();
  // A newer refresh may have set newer documents meanwhile: it sets their reading too.
  if (documents.value === docs) queryableDocs.value = docs.flatMap(queryableOf);
}

/** A document as self-query reads it (a document without a type yet is left out). */
function queryableOf(i: LibraryItem): QueryableDoc[] {
  return i.docId && i.type ? [{ docId: i.docId, name: i.name, folder: i.path.slice(0, Math.max(0, i.path.length - i.name.length - 1)), type: i.type, tags: i.tags ?? [], addedAt: i.addedAt, date: i.date }] : [];
}

/** Whether two lists of documents read the same to the Ask panel (same order, names, types, tags and dates). */
function sameDocuments(a: readonly LibraryItem[], b: readonly LibraryItem[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    return x.key === y.key && x.docId === y.docId && x.path === y.path && x.name === y.name && x.type === y.type && x.addedAt === y.addedAt && x.date === y.date && x.tags?.join('\n') === y.tags?.join('\n');
  });
}

/** "The browser cleared…" read: the notice goes, and the empty library is what is remembered from now on. */
export function dismissLost(): void {
  lost.value = undefined;
  rememberLibrary(globalThis.localStorage, items.value.filter((i) => i.kind === 'document').length);
}

/** Sets a document's tags. */
export async function setTags(docId: DocId, tags: string[]): Promise<void> {
  await libraryApi()?.documents.setTags(docId, tags);
}
