/**
 * Two small records the page keeps in localStorage, outside IndexedDB, because they must outlive it or be
 * written when nothing asynchronous can finish:
 * - which library sessions ended with their page unloading (written in `pagehide`), so a read cut short
 *   by a reload is not taken for a crash;
 * - how many documents the library held when last seen, so a start-up that finds an empty database can
 *   tell "the browser cleared this site's stored library" apart from a first visit.
 * Pure functions over a `Storage`-like object (tests pass a Map-backed one).
 */

import { DEFAULT_LIBRARY_ID, libraryScoped } from '../core/library-api.ts';

/** The part of `Storage` used here. */
export type RecordStorage = Pick<Storage, 'getItem' | 'setItem'>;

const UNLOADS_KEY = 'docqa.unloads';
const LIBRARY_KEY = 'docqa.libraryRecord';
/** Unloads remembered: far more than tabs reloaded while one read is in flight. */
const MAX_UNLOADS = 50;

interface Unload {
  session: string;
  at: number;
}

function readJson<T>(storage: RecordStorage | undefined, key: string): T | undefined {
  try {
    const text = storage?.getItem(key);
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}

function writeJson(storage: RecordStorage | undefined, key: string, value: unknown): void {
  try {
    storage?.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or disabled: the record is a hint, never needed for the library itself.
  }
}

/** Records that library session `session` ends with its page unloading (call in `pagehide`: synchronous). */
export function recordUnload(storage: RecordStorage | undefined, session: string, now = Date.now()): void {
  const unloads = (readJson<Unload[]>(storage, UNLOADS_KEY) ?? []).filter((u) => u.session !== session);
  writeJson(storage, UNLOADS_KEY, [...unloads, { session, at: now }].slice(-MAX_UNLOADS));
}

/** Whether library session `session` ended with its page unloading (see {@link recordUnload}). */
export function endedCleanly(storage: RecordStorage | undefined, session: string): boolean {
  return (readJson<Unload[]>(storage, UNLOADS_KEY) ?? []).some((u) => u.session === session);
}

/** What the library held when the page last listed it. */
export interface LibraryRecord {
  documents: number;
  /** When the page last listed it (ms since the epoch). */
  lastSeen: number;
}

/** Remembers how many documents the library holds now. */
export function rememberLibrary(storage: RecordStorage | undefined, documents: number, now = Date.now(), libraryId = DEFAULT_LIBRARY_ID): void {
  writeJson(storage, libraryScoped(LIBRARY_KEY, libraryId), { documents, lastSeen: now } satisfies LibraryRecord);
}

/**
 * The library the browser took away, if any: the record says it held documents, yet the database holds
 * none and nothing is waiting to be indexed. A first visit has no record; a library the person emptied
 * recorded 0.
 */
export function lostLibrary(storage: RecordStorage | undefined, documentsNow: number, queuedNow: number, libraryId = DEFAULT_LIBRARY_ID): LibraryRecord | undefined {
  const record = readJson<LibraryRecord>(storage, libraryScoped(LIBRARY_KEY, libraryId));
  if (!record || !(record.documents > 0) || documentsNow > 0 || queuedNow > 0) return undefined;
  return record;
}
