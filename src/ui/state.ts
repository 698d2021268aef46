import { batch, computed, signal } from '@preact/signals';
import { proxy, type Remote } from 'comlink';
import { DocQaError, personalMessage } from '../core/errors.ts';
import type { DocId, QueueId } from '../core/ids.ts';
import type { IncomingFile, LibraryApi } from '../core/library-api.ts';
import type { QueryableDoc } from '../core/query-filters.ts';
import type { Answer, AnswerModelStatus, AskRequest, AskStep, ClosedReason, EmbeddingEvent, LibraryEvent, LibraryItem, SearchFilter, SourceRequest, SourceView, StorageEstimate } from '../core/types.ts';
import { connectLibrary } from './library-client.ts';
import { watchReaderMemory } from './memory-watch.ts';
import { addingNote, addNotes, alreadyNote, emptyTally, finishRun, type ActivityNote } from './activity.ts';
import { endedCleanly, lostLibrary, recordUnload, rememberLibrary, type LibraryRecord } from './local-records.ts';
import { yieldToPage } from './yield-to-page.ts';

export type { ActivityNote };

export interface QueueStatus {
  done: number;
  total: number;
  etaMs?: number;
}

/** Everything the UI shows, as signals; changed only by the actions below. */
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
export const percents = signal<Record<string, number>>({});
export const queue = signal<QueueStatus | undefined>(undefined);
/** Counts drops, so that each drop's repeated notices get a summary line of their own. */
let dropSeq = 0;

export const activity = signal<ActivityNote[]>([]);
export const answer = signal<Answer | undefined>(undefined);
export const asking = signal(false);
/** Counts answers (and failed asks) so tests and assistive tech can tell a new answer from the last one. */
export const answerSeq = signal(0);
export const askError = signal<string | undefined>(undefined);
/** Counts changes to the saved conversations, in any tab (the history reads them again). */
export const conversationsSeq = signal(0);
/** What a model has written so far of the answer being asked (streamed), until the checked answer arrives. */
export const streaming = signal('');
/**
 * The steps taken so far for the question being asked (phrasings, hops, a whole document's parts read: its
 * latest such step only), until its answer arrives.
 */
export const askSteps = signal<AskStep[]>([]);
const ASK_OPTIONS_KEY = 'docqa.askOptions';
const storedAskOptions = (): { expand?: boolean; multiHop?: boolean } => {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(ASK_OPTIONS_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
};
/** "Search several phrasings" (default off), remembered in this browser. */
export const expandQueries = signal(storedAskOptions().expand === true);
/** "Look further (multi-hop)" (default off), remembered in this browser. */
export const lookFurther = signal(storedAskOptions().multiHop === true);
export const source = signal<SourceView | undefined>(undefined);
/** The file the document on show in the Source dialog was read from, when it was kept. */
export const original = signal<Blob | undefined>(undefined);

const KEEP_ORIGINALS_KEY = 'docqa.keepOriginals';
/** "Keep original files" (default on), remembered in this browser; the library worker is told at start and on change. */
export const keepOriginals = signal(globalThis.localStorage?.getItem(KEEP_ORIGINALS_KEY) !== 'false');
export const storage = signal<StorageEstimate | undefined>(undefined);
export const ready = signal(false);
/** The Library list has been read once: until then the page says it is loading, not "0 documents". */
export const loaded = signal(false);
/** Set when the library cannot be opened at all; shown instead of the app's controls' results. */
export const fatal = signal<string | undefined>(undefined);
/** Semantic search's state (model, embedding progress), from the library worker's `embedding` events. */
export const semantic = signal<EmbeddingEvent>({ type: 'embedding', state: 'off', done: 0, total: 0 });
/** What writes this tab's answers, or why they quote the documents (the library worker's `answer-model` events). */
export const answerModelStatus = signal<AnswerModelStatus | undefined>(undefined);
/** The model writing answers (its label), when one is loaded: the page then offers phrasings and hops. */
export const answerModel = computed(() => {
  const s = answerModelStatus.value;
  return s?.state === 'ready' ? s.model : undefined;
});
/** Set when the library's storage was closed under this tab (see `ClosedReason`): the page offers a reload. */
export const closedReason = signal<ClosedReason | undefined>(undefined);
/**
 * The library the browser cleared (its document count and when it was last seen), when the start-up found
 * the database empty though this browser had seen documents in it; until dismissed or files are added.
 */
export const lost = signal<LibraryRecord | undefined>(undefined);
/** Why the library has not opened yet (an older app version in another tab blocks the upgrade); gone once it opens. */
export const waiting = signal<string | undefined>(undefined);

let api: Remote<LibraryApi> | undefined;

/** The library worker's handle once the page has connected (for the model manager's actions). */
export function libraryApi(): Remote<LibraryApi> | undefined {
  return api;
}
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Events arrive by the thousand during a large drop (several per file). They are buffered and applied
 * together at most every {@link FLUSH_MS}, so the page renders a few times a second, not once per event.
 */
const FLUSH_MS = 120;
let pending: LibraryEvent[] = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;

/** What became of the files added since the queue was last empty (see activity.ts finishRun). */
let tally = emptyTally();

function onEvent(event: LibraryEvent): void {
  pending.push(event);
  flushTimer ??= setTimeout(flushEvents, FLUSH_MS);
}

function flushEvents(): void {
  flushTimer = undefined;
  const events = pending;
  pending = [];
  const nextPercents = { ...percents.value };
  const notes: ActivityNote[] = [];
  let nextQueue: QueueStatus | undefined | null = null;
  let nextSemantic: EmbeddingEvent | undefined;
  let changed = false;
  let runEnded = false;
  /** Documents whose file was just added again: a Delete of theirs still inside its Undo window is cancelled. */
  const addedAgain: DocId[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'file-progress':
        // Once the storage was closed under this tab, late progress from before must not revive the line.
        if (closedReason.value) break;
        nextPercents[event.queueId] = event.percent;
        break;
      case 'file-done':
      case 'file-failed':
        delete nextPercents[event.queueId];
        if (event.type === 'file-failed') tally.failed++;
        else if (event.outcome === 'indexed') tally.indexed++;
        else if (event.outcome === 'replaced') tally.updated++;
        else if (event.outcome === 'already-in-library') tally.already++;
        if (event.type === 'file-failed') notes.push({ text: event.error.message, path: event.path });
        else if (event.outcome === 'already-in-library') notes.push(alreadyNote(event.path, event.matches, dropSeq));
        else if (event.outcome === 'replaced') notes.push({ text: `${event.path}: updated to the new version`, path: event.path, group: { key: `replaced:${dropSeq}`, summary: 'updated to the new version', count: 1 } });
        if (event.type === 'file-done' && event.outcome === 'already-in-library' && event.docId) addedAgain.push(event.docId);
        break;
      case 'queue':
        if (closedReason.value) break;
        nextQueue = event.done >= event.total ? undefined : { done: event.done, total: event.total, etaMs: event.etaMs };
        runEnded ||= event.total > 0 && event.done >= event.total;
        break;
      case 'changed':
        changed = true;
        break;
      case 'conversations':
        conversationsSeq.value++;
        break;
      case 'embedding':
        nextSemantic = event;
        break;
      case 'answer-model':
        answerModelStatus.value = event.status;
        break;
      case 'library-closed':
        fatal.value = event.message;
        closedReason.value = event.reason;
        // Nothing is being indexed any more: the progress line and the rows' percentages go.
        nextQueue = undefined;
        for (const key of Object.keys(nextPercents)) delete nextPercents[key];
        break;
      case 'library-blocked':
        // Arriving after the library opened (events are buffered), it is already out of date.
        if (!ready.value) waiting.value = event.message;
        break;
    }
  }
  batch(() => {
    percents.value = nextPercents;
    if (nextQueue !== null) queue.value = nextQueue;
    if (nextSemantic) semantic.value = nextSemantic;
    if (notes.length) activity.value = addNotes(activity.value, notes);
    if (runEnded) {
      activity.value = finishRun(activity.value, tally);
      tally = emptyTally();
    }
  });
  for (const docId of addedAgain) cancelDelete(docId);
  if (changed) scheduleRefresh();
}

function note(text: string, path?: string): void {
  activity.value = addNotes(activity.value, [{ text, path }]);
}

/** Throttled, not debounced: a fast stream of changes still refreshes the list a few times a second. */
function scheduleRefresh(): void {
  if (refreshTimer !== undefined) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    void refresh();
  }, 250);
}

async function refresh(): Promise<void> {
  if (!api) return;
  const [list, estimate] = await Promise.all([api.listLibrary(), api.storageEstimate()]);
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

/** Connects to the library worker and loads the library. */
export async function start(): Promise<void> {
  api = connectLibrary(onEvent);
  await navigator.storage?.persist?.().catch(() => false);
  let session: string;
  try {
    ({ session } = await api.ready(proxy({ endedCleanly: (s: string) => endedCleanly(globalThis.localStorage, s) })));
  } catch (err) {
    fatal.value = `The library could not be opened: ${personalMessage(err)}`;
    return;
  } finally {
    waiting.value = undefined;
  }
  ready.value = true;
  await api.setKeepOriginals(keepOriginals.value);
  semantic.value = await api.semanticStatus();
  // The worker announces the answer model's state as it changes; this is where it stands now.
  answerModelStatus.value ??= await api.answerModelStatus().catch(() => undefined);
  addEventListener('pagehide', () => {
    // A reload or a closed tab, not a crash: a read this tab's library leaves unfinished is read again without blame.
    recordUnload(globalThis.localStorage, session);
    // Best effort: the worker usually finishes a delete posted as the page goes; else the document stays.
    void flushDeletes();
  });
  watchReaderMemory(api, () => queue.value !== undefined || Object.keys(percents.value).length > 0);
  await refresh();
}

export async function addFiles(files: IncomingFile[]): Promise<void> {
  if (!api || !files.length) return;
  dropSeq++;
  activity.value = addNotes(activity.value, [addingNote(files.length)]);
  try {
    await api.addFiles(files);
  } catch (err) {
    note(`The files could not be added: ${personalMessage(err)}`);
  }
}

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
  note(`${item.path}: ${why}`, item.path);
}

/** The file of a document whose Delete is still undoable was added again: the Delete is cancelled, saying so. */
function cancelDelete(docId: DocId): void {
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
  await refresh().catch(() => undefined);
  pendingDeletes.value = pendingDeletes.value.filter((i) => i.key !== item.key);
}

async function removeNow(item: LibraryItem, requestedAt?: number): Promise<void> {
  if (!api) return;
  try {
    if (item.docId) {
      // The store keeps a document whose file was added again after Delete was pressed (the event saying so may not have arrived yet).
      const outcome = await api.deleteDocument(item.docId as DocId, requestedAt);
      note(`${item.path}: ${outcome === 'kept' ? 'added again, so it was not deleted' : outcome === 'gone' ? 'already gone' : 'removed'}`, item.path);
    } else if (item.queueId) {
      const outcome = await api.dismissQueued(item.queueId as QueueId);
      const what = outcome === 'deleted' ? 'removed (it had just been indexed)' : outcome === 'dequeued' ? 'removed' : 'already gone';
      note(`${item.path}: ${what}`, item.path);
    }
  } catch (err) {
    note(`${item.path} could not be removed: ${personalMessage(err)}`, item.path);
  }
}

/** Try again on a failed file: it is queued again and read with relaxed limits. */
export async function retryItem(item: LibraryItem): Promise<void> {
  if (!api || !item.queueId) return;
  try {
    const ok = await api.retryQueued(item.queueId as QueueId);
    note(ok ? `${item.path}: trying again` : `${item.path}: its contents were not kept; add the file again`, item.path);
  } catch (err) {
    note(`${item.path} could not be tried again: ${personalMessage(err)}`, item.path);
  }
}

export async function dismissFailed(): Promise<void> {
  if (!api) return;
  const n = await api.dismissFailed();
  note(`Cleared ${n} failed file${n === 1 ? '' : 's'} from the list`);
}

export async function setTags(docId: DocId, tags: string[]): Promise<void> {
  await api?.setTags(docId, tags);
}

/**
 * Asks a question (within a conversation: `request`, see conversation-state.ts); the answer is shown in the
 * Answer region and returned (undefined when the question could not be asked). `onStep` hears each step
 * before the answer (the follow-up rewritten).
 */
export async function ask(question: string, filter?: SearchFilter, request: Omit<AskRequest, 'question' | 'filter'> = {}, onStep?: (step: AskStep) => void): Promise<Answer | undefined> {
  if (!api || !question.trim()) return undefined;
  asking.value = true;
  askError.value = undefined;
  try {
    await flushDeletes();
    streaming.value = '';
    askSteps.value = [];
    // Phrasings, hops and the model's reading of filters need the model that writes answers; without one they are not asked for.
    const loop = answerModel.value ? { expand: expandQueries.value, multiHop: lookFurther.value, readFilters: true } : {};
    answer.value = await api.ask(
      { question: question.trim(), filter, ...loop, ...request },
      proxy((piece: string) => {
        streaming.value += piece;
      }),
      proxy((step: AskStep) => {
        // A whole document's progress: its latest step only.
        askSteps.value = [...askSteps.value.filter((s) => s.type !== 'whole-document' || step.type !== 'whole-document'), step];
        onStep?.(step);
      }),
    );
    return answer.value;
  } catch (err) {
    askError.value = err instanceof DocQaError ? err.message : `The question could not be answered: ${personalMessage(err)}`;
  } finally {
    streaming.value = '';
    askSteps.value = [];
    asking.value = false;
    answerSeq.value++;
  }
  return undefined;
}

/** Turns "Search several phrasings" (`expand`) or "Look further" (`multiHop`) on or off, remembered in this browser. */
export function setAskOption(option: 'expand' | 'multiHop', on: boolean): void {
  (option === 'expand' ? expandQueries : lookFurther).value = on;
  globalThis.localStorage?.setItem(ASK_OPTIONS_KEY, JSON.stringify({ expand: expandQueries.value, multiHop: lookFurther.value }));
}

/** Stop: the model stops writing; the answer keeps what was written, checked. */
export async function stopAnswer(): Promise<void> {
  await api?.stopAnswer();
}

/** Opens the Source dialog on the block a citation points into (see `sourceRequestOf`). */
export async function openSource(request: SourceRequest): Promise<void> {
  if (!api) return;
  try {
    const [view, blob] = await Promise.all([api.getSource(request), api.getOriginal(request.docId).catch(() => undefined)]);
    batch(() => {
      original.value = blob;
      source.value = view;
    });
  } catch (err) {
    askError.value = personalMessage(err);
  }
}

/** Turns "Keep original files" on or off, for the documents added from now on. */
export async function setKeepOriginals(keep: boolean): Promise<void> {
  keepOriginals.value = keep;
  localStorage.setItem(KEEP_ORIGINALS_KEY, String(keep));
  await api?.setKeepOriginals(keep);
}
