import { batch, signal } from '@preact/signals';
import type { DocId } from '../core/ids.ts';
import type { ReadAgainOffer } from '../core/library-api.ts';
import type { LibraryItem } from '../core/types.ts';
import { currentLibraryId } from './current-library.ts';
import { libraryApi } from './library-connection.ts';
import { lostLibrary, rememberLibrary, type LibraryRecord } from './local-records.ts';
import { storage } from './storage-state.ts';
import { yieldToPage } from './yield-to-page.ts';

/** The Library list as last read: documents, queued and failed files. */
export const items = signal<LibraryItem[]>([]);
/**
 * The library's documents (of `items`), for the Ask panel's filters; when they change, the question is
 * read again (by the library worker, `question-reading-state.ts`). Set a task after `items`, and only when
 * a document changed: with thousands of documents, the Library list's render and the filters' (an
 * `<option>` per document) together blocked the page for over 100 ms; apart, each is short, and a refresh
 * that only moved queued files leaves the Ask panel alone.
 */
export const documents = signal<LibraryItem[]>([]);
/** The Library list has been read once: until then the page says it is loading, not "0 documents". */
export const loaded = signal(false);
/**
 * The library the browser cleared (its document count and when it was last seen), when the start-up found
 * the database empty though this browser had seen documents in it; until dismissed or files are added.
 */
export const lost = signal<LibraryRecord | undefined>(undefined);

/**
 * Stored documents that reading again would improve (`QueueApi.readAgainOffer`), read when nothing is queued;
 * undefined until then, or after "Not now" for what it offers ({@link dismissReadAgain}).
 */
export const readAgainOffer = signal<ReadAgainOffer | undefined>(undefined);
const READ_AGAIN_DISMISSED_KEY = 'docqa.readAgainDismissed';

/** "Not now": the offer stays away until a newer reader offers something else. */
export function dismissReadAgain(): void {
  const offer = readAgainOffer.value;
  if (offer) globalThis.localStorage?.setItem(READ_AGAIN_DISMISSED_KEY, offer.better.join('\n'));
  readAgainOffer.value = undefined;
}

/** The offer to show: none when it offers nothing, or what it offers was dismissed. */
function shownOffer(offer: ReadAgainOffer): ReadAgainOffer | undefined {
  if (!offer.documents && !offer.withoutOriginals) return undefined;
  return globalThis.localStorage?.getItem(READ_AGAIN_DISMISSED_KEY) === offer.better.join('\n') ? undefined : offer;
}

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
 * Reads the Library list and the storage estimate, then, in a task of its own, the Ask panel's documents
 * (see {@link documents}).
 */
export async function refreshLibrary(): Promise<void> {
  const api = libraryApi();
  if (!api) return;
  const [list, estimate] = await Promise.all([api.documents.list(), api.storageEstimate()]);
  const documentCount = list.filter((i) => i.kind === 'document').length;
  batch(() => {
    // The first listing tells a library the browser cleared apart from a first visit.
    if (!loaded.value) lost.value = lostLibrary(globalThis.localStorage, documentCount, list.length - documentCount, currentLibraryId());
    else if (list.length) lost.value = undefined;
    items.value = list;
    storage.value = estimate;
    loaded.value = true;
  });
  // Kept as it was while the person has not yet read that it was cleared.
  if (!lost.value) rememberLibrary(globalThis.localStorage, documentCount, Date.now(), currentLibraryId());
  // Offered once the queue is empty (a reading again under way leaves the offer as it was).
  if (!list.some((i) => i.kind === 'queued')) readAgainOffer.value = shownOffer(await api.queue.readAgainOffer());
  // The Ask panel renders in tasks of its own (see `documents`), from the newest listing by then.
  await yieldToPage();
  const docs = items.value.filter((i) => i.kind === 'document');
  if (sameDocuments(documents.value, docs)) return;
  documents.value = docs;
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
  rememberLibrary(globalThis.localStorage, items.value.filter((i) => i.kind === 'document').length, Date.now(), currentLibraryId());
}

/** Sets a document's tags. */
export async function setTags(docId: DocId, tags: string[]): Promise<void> {
  await libraryApi()?.documents.setTags(docId, tags);
}
